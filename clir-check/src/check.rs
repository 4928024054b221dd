//! One ruling line checked against its case line: the certificate read, every entry justified
//! at a lower rank, one step of every rule and closure over the layers, and the ruling compared
//! with the layers.

use crate::case::{self, Case};
use crate::json::{self, J as Json};
use crate::package::{sha256, Item, Node, Package, Pattern, Rule, Strength, Term, Value};
use std::collections::{HashMap, HashSet};

/// The certificate format this checker reads.
pub const FORMAT: &str = "clir.certificate/1";

/// How many steps matching one instance's premises against its rule may take.
const MATCH_BUDGET: usize = 100_000;

/// What a ruling line comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The certificate proves the ruling.
    Certified,
    /// The case was not ruled (an error line): nothing to certify.
    NotRuled(String),
    /// The certificate, or the ruling, is wrong.
    Rejected(Failure),
}

/// Why a ruling is rejected: the literal (when one is at fault), the step and what broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The literal, written `name(a,b)` (FORMAT.md).
    pub literal: Option<String>,
    /// The step: an entry (`+d[3]` and how it is justified), the fixpoint, or the line.
    pub step: String,
    /// What does not hold.
    pub reason: String,
}

impl Failure {
    pub(crate) fn line(reason: &str) -> Failure {
        Failure { literal: None, step: "line".into(), reason: reason.into() }
    }
}

type Lit = (usize, bool, Vec<Value>);

/// A layer: `+D`, `+S` beyond `+D`, `+d` beyond `+D`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Tier {
    D,
    S,
    C,
}

impl Tier {
    fn name(self) -> &'static str {
        match self {
            Tier::D => "+D",
            Tier::S => "+S",
            Tier::C => "+d",
        }
    }
}

enum How {
    Fact,
    By { node: usize, refs: Vec<(Tier, usize)>, beats: Vec<[usize; 3]> },
}

struct Entry {
    rank: u64,
    lit: Lit,
    how: How,
}

/// Which literals a body literal is looked up in.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Set {
    Definite,
    Supported,
    Concluded,
}

/// The tuples of one set, relation and sign, by the values of some of their columns: positions
/// in the tuple list.
type Index = HashMap<Vec<Value>, Vec<usize>>;

/// Tuples of a set, relation and sign projected on some columns: `(set, rel, negative, keep)`.
type Projection = (Set, usize, bool, Vec<usize>);

/// What an index is of: the tuples of a set, relation and sign, or (`Some`) their projection
/// on those columns.
type Indexed = (Set, usize, bool, Option<Vec<usize>>);

/// The layers of one case, with indices for joins.
struct Model<'p> {
    pkg: &'p Package,
    tiers: [Vec<Entry>; 3],
    member: [HashMap<Lit, usize>; 3],
    tuples: HashMap<(Set, usize, bool), Vec<Vec<Value>>>,
    /// The tuples of a set, relation and sign projected on some of their columns (those a
    /// body literal's lone variables do not fill), each once.
    projected: HashMap<Projection, Vec<Vec<Value>>>,
    /// Indices of `tuples` (or of `projected`, by its columns), by the columns looked up.
    indices: HashMap<(Indexed, Vec<usize>), Index>,
}

/// What the checker accepts of a case line and its ruling beyond the package.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Capabilities granted (`judgment:AUTHORITY`), as `clir rule --grant` grants them: a case
    /// line stating a judgment fact is refused without its capability, as clir refuses it.
    pub grants: Vec<String>,
}

/// The keys a ruling line may carry: each is checked, so that nothing rides along in a
/// certified line that its certificate does not prove.
pub const RULING_KEYS: [&str; 6] = ["case", "concluded", "definite", "contradictions", "warnings", "certificate"];

/// The keys a certificate may carry.
pub const CERTIFICATE_KEYS: [&str; 7] = ["format", "seal", "case", "nodes", "D", "S", "d"];

fn tier_ix(t: Tier) -> usize {
    t as usize
}

/// Checks the ruling line `ruling` of the case line `case` with the package `pkg`, every
/// capability of the package granted (as to a ruling run with every `--grant`); [`check_case`]
/// checks under the grants given.
pub fn check_line(pkg: &Package, case: &str, ruling: &str) -> Verdict {
    let mut grants: Vec<String> = Vec::new();
    for cap in pkg.relations.iter().filter_map(|r| r.capability.clone()) {
        if !grants.contains(&cap) {
            grants.push(cap);
        }
    }
    check_case(pkg, case, ruling, &Options { grants }).1
}

/// [`check_line`] under `opts`, with the case line's `case` value as written (less white
/// space; `null` when it has none).
pub fn check_case(pkg: &Package, case_line: &str, ruling: &str, opts: &Options) -> (String, Verdict) {
    let case = case::read(pkg, case_line, &opts.grants);
    let value = match &case {
        Ok(c) => c.case.clone(),
        Err((v, _)) => v.clone(),
    };
    (value, check(pkg, case_line, &case, ruling).unwrap_or_else(Verdict::Rejected))
}

fn fail<T>(literal: Option<String>, step: impl Into<String>, reason: impl Into<String>) -> Result<T, Failure> {
    Err(Failure { literal, step: step.into(), reason: reason.into() })
}

fn check(
    pkg: &Package,
    case_line: &str,
    case: &Result<Case, (String, String)>,
    ruling_line: &str,
) -> Result<Verdict, Failure> {
    let ruling =
        json::parse_line(ruling_line).map_err(|e| Failure::line(&format!("the ruling line is not JSON: {e}")))?;
    let ruling = ruling.as_object().ok_or_else(|| Failure::line("the ruling line is not an object"))?;
    let get = |k: &str| ruling.iter().find(|(x, _)| x == k).map(|(_, v)| v);
    if let Some(error) = get("error") {
        return Ok(Verdict::NotRuled(error.as_str().unwrap_or_default().to_string()));
    }
    // A case clir refuses has no ruling: its error line is the only answer.
    let case = match case {
        Ok(c) => c,
        Err((_, msg)) => return fail(None, "case_line", msg.clone()),
    };
    for (k, _) in ruling {
        if !RULING_KEYS.contains(&k.as_str()) {
            let reason = match k.as_str() {
                "why_not" | "explanations" => format!(
                    "the ruling line carries `{k}`, which no certificate proves: a certified ruling has only {}",
                    RULING_KEYS.join(", ")
                ),
                _ => format!("the ruling line carries the key `{k}`, which the checker does not check"),
            };
            return fail(None, "ruling", reason);
        }
    }
    let cert = match get("certificate") {
        Some(Json::Obj(c)) => c,
        _ => return fail(None, "certificate", "the ruling line has no certificate (rule with --certify)"),
    };
    if let Some((k, _)) = cert.iter().find(|(k, _)| !CERTIFICATE_KEYS.contains(&k.as_str())) {
        return fail(
            None,
            "certificate",
            format!("the certificate carries the key `{k}`, which the checker does not check"),
        );
    }
    let cert_get = |k: &str| cert.iter().find(|(x, _)| x == k).map(|(_, v)| v);
    let field = |k: &str| cert_get(k).and_then(Json::as_str).unwrap_or_default();
    if field("format") != FORMAT {
        return fail(None, "certificate", format!("the format is not `{FORMAT}`"));
    }
    if field("seal") != pkg.seal {
        return fail(
            None,
            "seal",
            format!("the certificate is of the package sealed {}, not {}", field("seal"), pkg.seal),
        );
    }
    let hash = sha256(case_line.as_bytes());
    if field("case") != hash {
        return fail(None, "case", format!("the certificate is of the case line hashed {}, not {hash}", field("case")));
    }
    if get("case") != Some(&Json::Raw(case.case.clone())) {
        return fail(None, "case", "the ruling's `case` is not the case line's");
    }
    let facts = &case.facts;
    let ids: &Vec<Json> = match cert_get("nodes") {
        Some(Json::Arr(ids)) => ids,
        _ => return fail(None, "nodes", "no list of nodes"),
    };
    let mut nodes: Vec<Node> = Vec::with_capacity(ids.len());
    let mut seen = HashSet::new();
    for id in ids {
        let node = id.as_str().and_then(|id| pkg.nodes.get(id).copied()).ok_or_else(|| Failure {
            literal: None,
            step: "nodes".into(),
            reason: format!(
                "{} is no rule, closure or priority of the package",
                id.as_str().map_or(id.to_string(), str::to_string)
            ),
        })?;
        if !seen.insert(node) {
            return fail(None, "nodes", format!("{} is listed twice", id.as_str().unwrap_or_default()));
        }
        nodes.push(node);
    }
    let mut m = Model {
        pkg,
        tiers: [Vec::new(), Vec::new(), Vec::new()],
        member: [HashMap::new(), HashMap::new(), HashMap::new()],
        tuples: HashMap::new(),
        projected: HashMap::new(),
        indices: HashMap::new(),
    };
    let mut named = vec![false; nodes.len()];
    for (t, key) in [(Tier::D, "D"), (Tier::S, "S"), (Tier::C, "d")] {
        let Some(Json::Arr(entries)) = cert_get(key) else {
            return fail(None, t.name(), format!("the certificate has no list `{key}`"));
        };
        for (i, e) in entries.iter().enumerate() {
            let entry = read_entry(pkg, e, nodes.len()).map_err(|reason| Failure {
                literal: None,
                step: format!("{}[{i}]", t.name()),
                reason,
            })?;
            if let How::By { node, beats, .. } = &entry.how {
                named[*node] = true;
                for b in beats {
                    for &n in b {
                        named[n] = true;
                    }
                }
            }
            if m.member[tier_ix(t)].insert(entry.lit.clone(), i).is_some() {
                return fail(Some(pkg.text(&entry.lit)), format!("{}[{i}]", t.name()), "listed twice");
            }
            m.tiers[tier_ix(t)].push(entry);
        }
    }
    for t in [Tier::S, Tier::C] {
        for (i, e) in m.tiers[tier_ix(t)].iter().enumerate() {
            if m.member[0].contains_key(&e.lit) {
                let reason = format!("listed in {} beyond +D, but it is +D", t.name());
                return fail(Some(pkg.text(&e.lit)), format!("{}[{i}]", t.name()), reason);
            }
        }
    }
    m.index();
    let applicable = m.applicable()?;
    m.sound(&nodes, facts, &applicable)?;
    m.fixpoint(facts, &applicable)?;
    m.ruling(ruling, case)?;
    // Last, so that a certificate that lost an entry is rejected for what the entry held.
    if let Some(i) = named.iter().position(|n| !n) {
        return fail(None, "nodes", format!("{} is named by no entry", ids[i].as_str().unwrap_or_default()));
    }
    Ok(Verdict::Certified)
}

/// A literal written `["name", args..]` (`~name` for a negative).
fn read_literal(pkg: &Package, v: &Json) -> Result<Lit, String> {
    let parts =
        v.as_array().filter(|p| !p.is_empty()).ok_or("a literal is a list: its relation, then its arguments")?;
    let key = parts[0].as_str().ok_or("a literal's relation is a string")?;
    let (negative, name) = match key.strip_prefix('~') {
        Some(n) => (true, n),
        None => (false, key),
    };
    let rel = *pkg.by_name.get(name).ok_or_else(|| format!("unknown relation `{name}`"))?;
    Ok((rel, negative, pkg.tuple(rel, &parts[1..])?))
}

fn read_entry(pkg: &Package, v: &Json, nodes: usize) -> Result<Entry, String> {
    let parts = v.as_array().ok_or("an entry is a list [rank, literal, how]")?;
    if !(3..=4).contains(&parts.len()) {
        return Err("an entry is a list [rank, literal, how] or [rank, literal, how, attacks]".into());
    }
    let rank = parts[0].as_u64().ok_or("a rank is a whole number below 2^64")?;
    let lit = read_literal(pkg, &parts[1])?;
    let node_ix =
        |v: &Json| v.as_u64().map(|n| n as usize).filter(|&n| n < nodes).ok_or("a node index out of the node list");
    let how = match &parts[2] {
        Json::Str(s) if s == "fact" && parts.len() == 3 => How::Fact,
        Json::Arr(by) if by.len() == 2 => {
            let node = node_ix(&by[0])?;
            let refs = by[1].as_array().ok_or("premises are a list")?;
            let refs = refs.iter().map(read_ref).collect::<Result<_, _>>()?;
            let mut beats = Vec::new();
            if let Some(b) = parts.get(3) {
                for a in b.as_array().ok_or("attacks are a list")? {
                    match a.as_array().map(Vec::as_slice) {
                        Some([s, t, p]) => beats.push([node_ix(s)?, node_ix(t)?, node_ix(p)?]),
                        _ => return Err("an attack is [attacker, beaten by, priority]".into()),
                    }
                }
            }
            How::By { node, refs, beats }
        }
        _ => return Err("`how` is \"fact\" or [node, premises]".into()),
    };
    Ok(Entry { rank, lit, how })
}

/// A premise reference `D3`, `S0`, `d12`.
fn read_ref(v: &Json) -> Result<(Tier, usize), String> {
    let s = v.as_str().ok_or("a premise is a string such as \"D3\"")?;
    let tier = match s.chars().next() {
        Some('D') => Tier::D,
        Some('S') => Tier::S,
        Some('d') => Tier::C,
        _ => return Err(format!("premise `{s}` names no layer")),
    };
    let n = s[1..].parse::<usize>().map_err(|_| format!("premise `{s}` has no index"))?;
    Ok((tier, n))
}

impl Package {
    /// A tuple of relation `rel` from JSON arguments: Integers where the relation declares them,
    /// strings elsewhere (`-0` is 0).
    fn tuple(&self, rel: usize, args: &[Json]) -> Result<Vec<Value>, String> {
        let r = &self.relations[rel];
        if args.len() != r.integer.len() {
            return Err(format!("`{}` takes {} arguments, got {}", r.name, r.integer.len(), args.len()));
        }
        r.integer
            .iter()
            .zip(args)
            .map(|(&int, a)| match (int, a) {
                (true, Json::Num(n)) if n.as_i64().is_some() => Ok(Value::Int(n.as_i64().unwrap_or_default())),
                // `-0` reads as the float -0.0: the Integer 0.
                (true, Json::Num(n)) if n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()) => {
                    Ok(Value::Int(0))
                }
                (false, Json::Str(s)) => Ok(Value::Name(s.clone())),
                _ => Err(format!("`{}`: argument {a} is not of its parameter's type", r.name)),
            })
            .collect()
    }

    /// A literal written as FORMAT.md writes it: `~name(a,b)`.
    pub(crate) fn text(&self, (rel, negative, args): &Lit) -> String {
        let mut out = String::new();
        if *negative {
            out.push('~');
        }
        out.push_str(&self.relations[*rel].name);
        out.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match a {
                Value::Int(v) => out.push_str(&v.to_string()),
                Value::Name(n) => {
                    let plain = !n.is_empty()
                        && !n
                            .chars()
                            .any(|c| matches!(c, ',' | '(' | ')' | '"' | '\\') || c.is_whitespace() || c.is_control());
                    if plain {
                        out.push_str(n)
                    } else {
                        out.push_str(&serde_json::Value::String(n.clone()).to_string())
                    }
                }
            }
        }
        out.push(')');
        out
    }
}

/// The value of a term under `b`; `None` where a variable is unbound or an Integer is expected.
fn eval(t: &Term, b: &[Option<Value>]) -> Option<Value> {
    match t {
        Term::Var(v) => b.get(*v).cloned().flatten(),
        Term::Val(v) => Some(v.clone()),
        Term::Arith(op, l, r) => match (eval(l, b)?, eval(r, b)?) {
            (Value::Int(x), Value::Int(y)) => Some(Value::Int(match op {
                '+' => x.wrapping_add(y),
                '-' => x.wrapping_sub(y),
                _ => x.wrapping_mul(y),
            })),
            _ => None,
        },
    }
}

fn compare(op: &str, l: &Value, r: &Value) -> bool {
    match op {
        "eq" => l == r,
        "ne" => l != r,
        _ => match (l, r) {
            (Value::Int(x), Value::Int(y)) => match op {
                "lt" => x < y,
                "le" => x <= y,
                "gt" => x > y,
                "ge" => x >= y,
                _ => false,
            },
            _ => false,
        },
    }
}

/// Binds the variables of `p` to `args` where they are free and checks the rest; the
/// variables it bound are pushed to `bound` (also when it fails, for the caller to undo).
fn unify(p: &Pattern, args: &[Value], b: &mut [Option<Value>], bound: &mut Vec<usize>) -> bool {
    for (t, a) in p.args.iter().zip(args) {
        match t {
            Term::Var(v) if b[*v].is_none() => {
                b[*v] = Some(a.clone());
                bound.push(*v);
            }
            _ => {
                if eval(t, b).as_ref() != Some(a) {
                    return false;
                }
            }
        }
    }
    p.args.len() == args.len()
}

/// [`unify`] of the columns `keep` of `p` with `args`, one value each.
fn unify_columns(p: &Pattern, keep: &[usize], args: &[Value], b: &mut [Option<Value>], bound: &mut Vec<usize>) -> bool {
    for (&c, a) in keep.iter().zip(args) {
        let t = &p.args[c];
        match t {
            Term::Var(v) if b[*v].is_none() => {
                b[*v] = Some(a.clone());
                bound.push(*v);
            }
            _ => {
                if eval(t, b).as_ref() != Some(a) {
                    return false;
                }
            }
        }
    }
    keep.len() == args.len()
}

/// Per variable of `rule`: whether it is lone, occurring exactly once in the whole rule, as an
/// argument of a body literal (not in the head, a comparison, a negation or arithmetic).
fn lone_variables(rule: &Rule) -> Vec<bool> {
    fn count(t: &Term, n: &mut [usize]) {
        match t {
            Term::Var(v) => n[*v] += 1,
            Term::Val(_) => {}
            Term::Arith(_, l, r) => {
                // Inside arithmetic a variable is never lone: counted twice.
                for t in [l, r] {
                    count(t, n);
                    count(t, n);
                }
            }
        }
    }
    let mut n = vec![0usize; rule.vars.len()];
    // The head's variables are read by the head: never lone.
    for t in &rule.head.args {
        count(t, &mut n);
        count(t, &mut n);
    }
    for i in &rule.body {
        match i {
            Item::Literal { lit, .. } => lit.args.iter().for_each(|t| count(t, &mut n)),
            Item::Not(lit) => lit.args.iter().for_each(|t| {
                count(t, &mut n);
                count(t, &mut n);
            }),
            Item::Compare(_, l, r) => {
                for t in [l, r] {
                    count(t, &mut n);
                    count(t, &mut n);
                }
            }
        }
    }
    n.iter().map(|&k| k == 1).collect()
}

/// The order a rule's body literals are joined in, and per depth of the join (the literals
/// `order[..depth]` bound): the comparisons and negations first decidable there, and the
/// variables still live there (read by a later literal, a later item or the head).
struct JoinPlan {
    order: Vec<usize>,
    items: Vec<Vec<usize>>,
    live: Vec<Vec<usize>>,
}

impl JoinPlan {
    fn new(rule: &Rule, lits: &[(Set, &Pattern, Vec<usize>)], order: &[usize]) -> JoinPlan {
        fn vars(t: &Term, out: &mut Vec<usize>) {
            match t {
                Term::Var(v) => out.push(*v),
                Term::Val(_) => {}
                Term::Arith(_, l, r) => {
                    vars(l, out);
                    vars(r, out);
                }
            }
        }
        let lit_vars = |p: &Pattern| {
            let mut out = Vec::new();
            p.args.iter().for_each(|t| vars(t, &mut out));
            out
        };
        // The variables some literal binds; a negation needs only those of its own.
        let positive: Vec<usize> = lits.iter().flat_map(|(_, p, _)| lit_vars(p)).collect();
        let needs: Vec<(usize, Vec<usize>)> = (rule.body.iter().enumerate())
            .filter_map(|(i, item)| match item {
                Item::Literal { .. } => None,
                Item::Compare(_, l, r) => {
                    let mut out = Vec::new();
                    vars(l, &mut out);
                    vars(r, &mut out);
                    Some((i, out))
                }
                Item::Not(p) => Some((i, lit_vars(p).into_iter().filter(|v| positive.contains(v)).collect())),
            })
            .collect();
        let mut bound: Vec<usize> = Vec::new();
        let mut at: Vec<Option<usize>> = vec![None; needs.len()];
        for depth in 0..=order.len() {
            if depth > 0 {
                bound.extend(lit_vars(lits[order[depth - 1]].1));
            }
            for (k, (_, need)) in needs.iter().enumerate() {
                if at[k].is_none() && need.iter().all(|v| bound.contains(v)) {
                    at[k] = Some(depth);
                }
            }
        }
        let n = order.len();
        let items = (0..=n)
            .map(|d| (0..needs.len()).filter(|&k| at[k].unwrap_or(n) == d).map(|k| needs[k].0).collect())
            .collect();
        let mut head = Vec::new();
        rule.head.args.iter().for_each(|t| vars(t, &mut head));
        let live = (0..=n)
            .map(|d| {
                let mut live = head.clone();
                order[d..].iter().for_each(|&l| live.extend(lit_vars(lits[l].1)));
                for (k, (_, need)) in needs.iter().enumerate() {
                    if at[k].unwrap_or(n) > d {
                        live.extend(need);
                    }
                }
                live.sort_unstable();
                live.dedup();
                live
            })
            .collect();
        JoinPlan { order: order.to_vec(), items, live }
    }
}

fn undo(b: &mut [Option<Value>], bound: &mut Vec<usize>, to: usize) {
    for v in bound.drain(to..) {
        b[v] = None;
    }
}

/// Per rule, the heads of its applicable instances (all strengths).
type Applicable = HashMap<Lit, Vec<usize>>;

impl Model<'_> {
    fn entry(&self, (t, i): (Tier, usize)) -> Option<&Entry> {
        self.tiers[tier_ix(t)].get(i)
    }

    fn in_d(&self, l: &Lit) -> bool {
        self.member[0].contains_key(l)
    }

    fn in_set(&self, set: Set, l: &Lit) -> bool {
        self.in_d(l)
            || match set {
                Set::Definite => false,
                Set::Supported => self.member[1].contains_key(l),
                Set::Concluded => self.member[2].contains_key(l),
            }
    }

    /// The tuples of each set, by relation and sign.
    fn index(&mut self) {
        for (t, sets) in
            [(0, &[Set::Definite, Set::Supported, Set::Concluded][..]), (1, &[Set::Supported]), (2, &[Set::Concluded])]
        {
            for e in &self.tiers[t] {
                for &s in sets {
                    self.tuples.entry((s, e.lit.0, e.lit.1)).or_default().push(e.lit.2.clone());
                }
            }
        }
    }

    /// The tuples of `set` for `rel`/`negative` whose columns `cols` hold `key`.
    fn lookup(&mut self, set: Set, rel: usize, negative: bool, cols: &[usize], key: &[Value]) -> Vec<Vec<Value>> {
        self.lookup_projected(set, rel, negative, None, cols, key)
    }

    /// The tuples of `set` for `rel`/`negative`, or (`Some`) their projections on the columns
    /// `keep` (each once), whose columns `cols` (positions in the projection) hold `key`.
    fn lookup_projected(
        &mut self,
        set: Set,
        rel: usize,
        negative: bool,
        keep: Option<&[usize]>,
        cols: &[usize],
        key: &[Value],
    ) -> Vec<Vec<Value>> {
        if let Some(keep) = keep {
            if !self.projected.contains_key(&(set, rel, negative, keep.to_vec())) {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                for t in self.tuples.get(&(set, rel, negative)).into_iter().flatten() {
                    let p: Vec<Value> = keep.iter().map(|&c| t[c].clone()).collect();
                    if seen.insert(p.clone()) {
                        out.push(p);
                    }
                }
                self.projected.insert((set, rel, negative, keep.to_vec()), out);
            }
        }
        let all = match keep {
            None => self.tuples.get(&(set, rel, negative)),
            Some(keep) => self.projected.get(&(set, rel, negative, keep.to_vec())),
        };
        let Some(all) = all else { return Vec::new() };
        if cols.is_empty() {
            return all.clone();
        }
        let ix = self.indices.entry(((set, rel, negative, keep.map(<[usize]>::to_vec)), cols.to_vec())).or_insert_with(
            || {
                let mut ix = Index::new();
                for (i, t) in all.iter().enumerate() {
                    ix.entry(cols.iter().map(|&c| t[c].clone()).collect()).or_default().push(i);
                }
                ix
            },
        );
        ix.get(key).map_or_else(Vec::new, |is| is.iter().map(|&i| all[i].clone()).collect())
    }

    /// Every binding of `rule`'s body over the layers: its literals looked up in `+D` only
    /// (`definite`) or as their status asks, its comparisons and negations true. A lone
    /// variable (one that occurs once in the body, in a literal, and nowhere else in the rule)
    /// binds nothing another part of the rule reads: its literal is an existence test on its
    /// other columns, joined over their distinct values, and the variable is left unbound. So
    /// a case's cost stays linear where a lone variable has many values.
    fn solve(&mut self, rule: &Rule, definite: bool, found: &mut Vec<Vec<Option<Value>>>) {
        if rule.never {
            return;
        }
        let lone = lone_variables(rule);
        let lits: Vec<(Set, &Pattern, Vec<usize>)> = rule
            .body
            .iter()
            .filter_map(|i| match i {
                Item::Literal { supported, lit } => Some((
                    if definite {
                        Set::Definite
                    } else if *supported {
                        Set::Supported
                    } else {
                        Set::Concluded
                    },
                    lit,
                    (0..lit.args.len()).filter(|&c| !matches!(lit.args[c], Term::Var(v) if lone[v])).collect(),
                )),
                _ => None,
            })
            .collect();
        // Tests first (a literal that binds nothing new), then the most bound: a join that never
        // scans what a bound column can look up, nor extends a binding a test would refuse.
        let mut order: Vec<usize> = Vec::new();
        let mut known = vec![false; rule.vars.len()];
        while order.len() < lits.len() {
            let score = |i: usize| {
                let (_, p, keep) = &lits[i];
                let free = |c: &usize| matches!(p.args[*c], Term::Var(v) if !known[v]);
                (keep.iter().all(|c| !free(c)), keep.iter().filter(|c| !free(c)).count())
            };
            let next = (0..lits.len()).filter(|i| !order.contains(i)).max_by_key(|&i| (score(i), usize::MAX - i));
            let Some(next) = next else { break };
            for t in &lits[next].1.args {
                if let Term::Var(v) = t {
                    known[*v] = true;
                }
            }
            order.push(next);
        }
        let plan = JoinPlan::new(rule, &lits, &order);
        let mut b = vec![None; rule.vars.len()];
        let mut seen = HashSet::new();
        self.join(rule, &lits, &plan, 0, &mut b, &mut seen, found);
    }

    /// The bindings of the literals `plan.order[depth..]` extending `b`, each with the items
    /// [`JoinPlan::items`] checks once its variables are bound. A subtree is walked once for
    /// each value of the variables still live at its depth ([`JoinPlan::live`]): the heads it
    /// finds depend on nothing else, so where a variable no later part of the rule reads has
    /// many values (a rook with every king), one of them stands for all.
    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        rule: &Rule,
        lits: &[(Set, &Pattern, Vec<usize>)],
        plan: &JoinPlan,
        depth: usize,
        b: &mut Vec<Option<Value>>,
        seen: &mut HashSet<(usize, Vec<Option<Value>>)>,
        found: &mut Vec<Vec<Option<Value>>>,
    ) {
        if !plan.items[depth].iter().all(|&i| self.item_holds(&rule.body[i], b)) {
            return;
        }
        let live: Vec<Option<Value>> = plan.live[depth].iter().map(|&v| b[v].clone()).collect();
        if !seen.insert((depth, live)) {
            return;
        }
        if depth == plan.order.len() {
            found.push(b.clone());
            return;
        }
        let (set, p, keep) = &lits[plan.order[depth]];
        let (mut cols, mut key) = (Vec::new(), Vec::new());
        for (j, &c) in keep.iter().enumerate() {
            if let Some(v) = eval(&p.args[c], b) {
                cols.push(j);
                key.push(v);
            }
        }
        let mut bound = Vec::new();
        let projected = (keep.len() < p.args.len()).then_some(keep.as_slice());
        for t in self.lookup_projected(*set, p.rel, p.negative, projected, &cols, &key) {
            if unify_columns(p, keep, &t, b, &mut bound) {
                self.join(rule, lits, plan, depth + 1, b, seen, found);
            }
            undo(b, &mut bound, 0);
        }
    }

    /// Whether the comparison or negation `item` holds under `b`, its variables bound.
    fn item_holds(&mut self, item: &Item, b: &[Option<Value>]) -> bool {
        match item {
            Item::Literal { .. } => true,
            Item::Compare(op, l, r) => matches!((eval(l, b), eval(r, b)), (Some(l), Some(r)) if compare(op, &l, &r)),
            Item::Not(p) => {
                let (mut cols, mut key) = (Vec::new(), Vec::new());
                for (c, t) in p.args.iter().enumerate() {
                    if let Some(v) = eval(t, b) {
                        cols.push(c);
                        key.push(v);
                    }
                }
                self.lookup(Set::Concluded, p.rel, p.negative, &cols, &key).is_empty()
            }
        }
    }

    fn head(rule: &Rule, b: &[Option<Value>]) -> Option<Lit> {
        let args = rule.head.args.iter().map(|t| eval(t, b)).collect::<Option<Vec<_>>>()?;
        Some((rule.head.rel, rule.head.negative, args))
    }

    /// Every applicable rule instance's head (SEMANTICS §7 "Applicable"), by rule.
    fn applicable(&mut self) -> Result<Applicable, Failure> {
        let mut out: Applicable = HashMap::new();
        for (r, rule) in self.pkg.rules.iter().enumerate() {
            let mut found = Vec::new();
            self.solve(rule, false, &mut found);
            for b in found {
                let Some(h) = Self::head(rule, &b) else {
                    return fail(None, format!("rule {}", rule.id), "a head variable no premise binds");
                };
                let rules = out.entry(h).or_default();
                if !rules.contains(&r) {
                    rules.push(r);
                }
            }
        }
        Ok(out)
    }

    /// Every entry justified at a lower rank.
    fn sound(&mut self, nodes: &[Node], facts: &HashSet<Lit>, applicable: &Applicable) -> Result<(), Failure> {
        let pkg = self.pkg;
        for t in [Tier::D, Tier::S, Tier::C] {
            for i in 0..self.tiers[tier_ix(t)].len() {
                let e = &self.tiers[tier_ix(t)][i];
                let step = format!("{}[{i}]", t.name());
                let lit = e.lit.clone();
                let at = |reason: String| Failure { literal: Some(pkg.text(&lit)), step: step.clone(), reason };
                let (node, refs, beats) = match &e.how {
                    How::Fact if t == Tier::D && facts.contains(&lit) => continue,
                    How::Fact => return Err(at("claimed an input fact, but the case line does not state it".into())),
                    How::By { node, refs, beats } => (nodes[*node], refs.clone(), beats.clone()),
                };
                let rank = e.rank;
                let mut premises = Vec::new();
                for &r in &refs {
                    let p =
                        self.entry(r).ok_or_else(|| at(format!("premise {}[{}] is not listed", r.0.name(), r.1)))?;
                    if p.rank >= rank {
                        return Err(at(format!(
                            "premise {} ({}[{}]) has rank {}, not below this entry's rank {rank}",
                            pkg.text(&p.lit),
                            r.0.name(),
                            r.1,
                            p.rank
                        )));
                    }
                    premises.push((r.0, p.lit.clone()));
                }
                match node {
                    Node::Closure(c) => {
                        let c = &pkg.closures[c];
                        let step_reason = |why: &str| at(format!("closure {}: {why}", c.id));
                        if t != Tier::D || !lit.1 || lit.0 != c.predicate {
                            return Err(step_reason("it derives only the explicit negative of its predicate, as +D"));
                        }
                        let domain = (c.domain, false, lit.2.clone());
                        if premises != [(Tier::D, domain.clone())] && premises != [(Tier::C, domain)] {
                            return Err(step_reason("its one premise is the concluded domain tuple"));
                        }
                        if self.in_set(Set::Supported, &(lit.0, false, lit.2.clone())) {
                            return Err(step_reason("the positive literal is supported"));
                        }
                    }
                    Node::Priority(_) => return Err(at("a priority derives nothing".into())),
                    Node::Rule(r) => {
                        let rule = &pkg.rules[r];
                        let step_reason = |why: String| at(format!("rule {}: {why}", rule.id));
                        let strength_ok = match t {
                            Tier::D => rule.strength == Strength::Strict,
                            _ => rule.strength != Strength::Defeater,
                        };
                        if !strength_ok {
                            return Err(step_reason(format!(
                                "a {:?} rule does not derive {}",
                                rule.strength,
                                t.name()
                            )));
                        }
                        let b = self.instance(rule, t == Tier::D, &lit, &premises).map_err(step_reason)?;
                        let _ = b;
                        if t == Tier::C {
                            let complement = (lit.0, !lit.1, lit.2.clone());
                            if self.in_d(&complement) {
                                return Err(step_reason("its complement is +D".into()));
                            }
                            self.beaten(nodes, &lit, &beats, applicable).map_err(at)?;
                        } else if !beats.is_empty() {
                            return Err(step_reason("attacks are listed only on +d entries".into()));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Matches the premises of an instance of `rule` for `head` against its body: the binding,
    /// or why there is none.
    fn instance(
        &mut self,
        rule: &Rule,
        definite: bool,
        head: &Lit,
        premises: &[(Tier, Lit)],
    ) -> Result<Vec<Option<Value>>, String> {
        if rule.never {
            return Err("its body holds `false`".into());
        }
        if (rule.head.rel, rule.head.negative) != (head.0, head.1) {
            return Err("its head is of another relation or sign".into());
        }
        let mut b = vec![None; rule.vars.len()];
        let mut bound = Vec::new();
        // Head variables first (arithmetic is checked once everything is bound).
        for (t, a) in rule.head.args.iter().zip(&head.2) {
            match t {
                Term::Var(v) if b[*v].is_none() => {
                    b[*v] = Some(a.clone());
                    bound.push(*v);
                }
                Term::Var(v) if b[*v].as_ref() != Some(a) => return Err("its head does not match the literal".into()),
                Term::Val(v) if v != a => return Err("its head does not match the literal".into()),
                _ => {}
            }
        }
        let lits: Vec<(bool, &Pattern)> = rule
            .body
            .iter()
            .filter_map(|i| match i {
                Item::Literal { supported, lit } => Some((*supported, lit)),
                _ => None,
            })
            .collect();
        let fits = |supported: bool, t: Tier| match (definite, t) {
            (true, t) => t == Tier::D,
            (false, Tier::D) => true,
            (false, Tier::S) => supported,
            (false, Tier::C) => !supported,
        };
        let mut used = vec![0usize; premises.len()];
        let mut budget = MATCH_BUDGET;
        let mut search = Search { lits: &lits, premises, fits: &fits, budget: &mut budget, used: &mut used };
        if !search.run(0, &mut b, &mut bound) {
            return Err(if budget == 0 {
                "its premises could not be matched within the search budget".into()
            } else {
                "its premises are not an instance of its body (a premise or binding does not fit)".into()
            });
        }
        let shown = |b: &[Option<Value>]| {
            rule.vars
                .iter()
                .zip(b)
                .map(|(v, x)| {
                    format!(
                        "{v}={}",
                        x.as_ref().map_or("_".into(), |x| match x {
                            Value::Int(i) => i.to_string(),
                            Value::Name(n) => n.clone(),
                        })
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if Self::head(rule, &b).as_ref() != Some(head) {
            return Err(format!("with {} its head is not the literal", shown(&b)));
        }
        if !rule.body.iter().all(|i| self.item_holds(i, &b)) {
            return Err(format!("with {} a comparison or negation of its body is false", shown(&b)));
        }
        Ok(b)
    }

    /// Every applicable rule for the complement of `lit` is beaten, as `beats` says, by an
    /// applicable rule for `lit` a priority ranks above it.
    fn beaten(&self, nodes: &[Node], lit: &Lit, beats: &[[usize; 3]], applicable: &Applicable) -> Result<(), String> {
        let pkg = self.pkg;
        let complement = (lit.0, !lit.1, lit.2.clone());
        let for_lit = applicable.get(lit).map_or(&[][..], Vec::as_slice);
        let attackers = applicable.get(&complement).map_or(&[][..], Vec::as_slice);
        let mut shown = HashSet::new();
        for &[s, t, p] in beats {
            let (Node::Rule(s), Node::Rule(t), Node::Priority(p)) = (nodes[s], nodes[t], nodes[p]) else {
                return Err("an attack names [attacking rule, beating rule, priority]".into());
            };
            let prio = &pkg.priorities[p];
            if (prio.higher, prio.lower) != (t, s) {
                return Err(format!(
                    "priority {} does not rank {} above {}",
                    prio.id, pkg.rules[t].id, pkg.rules[s].id
                ));
            }
            if !attackers.contains(&s) {
                return Err(format!("rule {} is listed as an attack but does not apply", pkg.rules[s].id));
            }
            if !for_lit.contains(&t) || pkg.rules[t].strength == Strength::Defeater {
                return Err(format!(
                    "rule {} beats no attack: it is no applicable strict or defeasible rule for the literal",
                    pkg.rules[t].id
                ));
            }
            shown.insert(s);
        }
        match attackers.iter().find(|s| !shown.contains(s)) {
            Some(&s) => Err(format!("the attack by rule {} applies and is not shown beaten", pkg.rules[s].id)),
            None => Ok(()),
        }
    }

    /// One step of every rule and closure over the layers derives nothing they do not list.
    fn fixpoint(&mut self, facts: &HashSet<Lit>, applicable: &Applicable) -> Result<(), Failure> {
        let pkg = self.pkg;
        let missing = |lit: &Lit, layer: &str, why: String| Failure {
            literal: Some(pkg.text(lit)),
            step: "fixpoint".into(),
            reason: format!("{why}, but the literal is not listed {layer}"),
        };
        for f in facts {
            if !self.in_d(f) {
                return Err(missing(f, "in +D", "the case line states it".into()));
            }
        }
        for rule in &pkg.rules {
            if rule.strength != Strength::Strict {
                continue;
            }
            let mut found = Vec::new();
            self.solve(rule, true, &mut found);
            for b in found {
                let h = Self::head(rule, &b).ok_or_else(|| Failure::line("a head variable no premise binds"))?;
                if !self.in_d(&h) {
                    return Err(missing(&h, "in +D", format!("strict rule {} applies over +D premises", rule.id)));
                }
            }
        }
        for (h, rules) in applicable {
            let Some(&r) = rules.iter().find(|&&r| pkg.rules[r].strength != Strength::Defeater) else { continue };
            if !self.in_set(Set::Supported, h) {
                return Err(missing(h, "in +S", format!("rule {} applies", pkg.rules[r].id)));
            }
            let complement = (h.0, !h.1, h.2.clone());
            if self.in_set(Set::Concluded, h) || self.in_d(&complement) {
                continue;
            }
            let winners: Vec<usize> =
                rules.iter().copied().filter(|&t| pkg.rules[t].strength != Strength::Defeater).collect();
            let attackers = applicable.get(&complement).map_or(&[][..], Vec::as_slice);
            if attackers.iter().all(|&s| winners.iter().any(|&t| pkg.beats(t, s).is_some())) {
                return Err(missing(
                    h,
                    "in +d",
                    format!("rule {} applies and every attack on it is beaten", pkg.rules[r].id),
                ));
            }
        }
        for c in &pkg.closures {
            let mut domain: Vec<Vec<Value>> =
                self.tuples.get(&(Set::Concluded, c.domain, false)).cloned().unwrap_or_default();
            domain.sort();
            for t in domain {
                let negative = (c.predicate, true, t.clone());
                if !self.in_set(Set::Supported, &(c.predicate, false, t)) && !self.in_d(&negative) {
                    return Err(missing(&negative, "in +D", format!("closure {} closes it", c.id)));
                }
            }
        }
        Ok(())
    }

    /// The ruling's `concluded`, `definite` and `contradictions` are what the layers say.
    fn ruling(&self, ruling: &[(String, Json)], case: &Case) -> Result<(), Failure> {
        let pkg = self.pkg;
        let get = |k: &str| ruling.iter().find(|(x, _)| x == k).map(|(_, v)| v);
        let listed = |key: &str| -> Result<HashSet<Lit>, Failure> {
            let bad = |why: String| Failure::line(&format!("the ruling's `{key}`: {why}"));
            let Some(Json::Obj(rels)) = get(key) else {
                return fail(None, "ruling", format!("the ruling has no object `{key}`"));
            };
            let mut out = HashSet::new();
            for (k, tuples) in rels {
                let Some(tuples) = tuples.as_array().filter(|t| !t.is_empty()) else {
                    return Err(bad(format!("`{k}` is not a non-empty list of tuples")));
                };
                for t in tuples {
                    let Some(args) = t.as_array() else { return Err(bad(format!("`{k}`: {t} is not a tuple"))) };
                    let mut lit = vec![Json::Str(k.clone())];
                    lit.extend(args.iter().cloned());
                    let lit = read_literal(pkg, &Json::Arr(lit)).map_err(bad)?;
                    if !out.insert(lit.clone()) {
                        return Err(bad(format!("{} is listed twice", pkg.text(&lit))));
                    }
                }
            }
            Ok(out)
        };
        let warnings: Vec<&str> = match get("warnings") {
            None => Vec::new(),
            Some(Json::Arr(w)) if !w.is_empty() => w.iter().map(|s| s.as_str().unwrap_or("\u{0}")).collect(),
            Some(_) => return fail(None, "ruling", "`warnings` is not a non-empty list of strings"),
        };
        if warnings != case.warnings {
            return fail(
                None,
                "ruling",
                format!("the ruling's warnings are {warnings:?}, reading the case line gives {:?}", case.warnings),
            );
        }
        let institutional = |l: &Lit| pkg.relations[l.0].institutional;
        let definite: HashSet<Lit> = self.tiers[0].iter().map(|e| e.lit.clone()).filter(institutional).collect();
        let mut concluded = definite.clone();
        concluded.extend(self.tiers[2].iter().map(|e| e.lit.clone()).filter(institutional));
        for (key, layer, mine) in [("concluded", "+d", &concluded), ("definite", "+D", &definite)] {
            let theirs = listed(key)?;
            if let Some(l) = theirs.difference(mine).min() {
                return fail(
                    Some(pkg.text(l)),
                    "ruling",
                    format!("the ruling lists it as {key}, but the certificate has it not {layer}"),
                );
            }
            if let Some(l) = mine.difference(&theirs).min() {
                return fail(
                    Some(pkg.text(l)),
                    "ruling",
                    format!("the certificate has it {layer}, but the ruling does not list it as {key}"),
                );
            }
        }
        let mut contradictions: Vec<String> = self.tiers[0]
            .iter()
            .filter(|e| !e.lit.1 && self.in_d(&(e.lit.0, true, e.lit.2.clone())))
            .map(|e| pkg.text(&e.lit))
            .collect();
        contradictions.sort();
        let theirs: Vec<String> = match get("contradictions") {
            Some(Json::Arr(c)) => c.iter().map(|s| s.as_str().unwrap_or_default().to_string()).collect(),
            _ => return fail(None, "ruling", "the ruling has no list `contradictions`"),
        };
        if theirs != contradictions {
            return fail(
                None,
                "ruling",
                format!("the contradictions are {contradictions:?}, the ruling says {theirs:?}"),
            );
        }
        Ok(())
    }
}

/// The search for a binding under which each body literal is one of the premises (of a layer
/// its status accepts), and every premise is some body literal.
struct Search<'a, F: Fn(bool, Tier) -> bool> {
    lits: &'a [(bool, &'a Pattern)],
    premises: &'a [(Tier, Lit)],
    fits: &'a F,
    budget: &'a mut usize,
    used: &'a mut Vec<usize>,
}

impl<F: Fn(bool, Tier) -> bool> Search<'_, F> {
    fn run(&mut self, i: usize, b: &mut [Option<Value>], bound: &mut Vec<usize>) -> bool {
        if i == self.lits.len() {
            return self.used.iter().all(|&u| u > 0);
        }
        let (supported, p) = self.lits[i];
        for j in 0..self.premises.len() {
            if *self.budget == 0 {
                return false;
            }
            *self.budget -= 1;
            let (t, l) = &self.premises[j];
            if (l.0, l.1) != (p.rel, p.negative) || !(self.fits)(supported, *t) {
                continue;
            }
            let mark = bound.len();
            if unify(p, &l.2, b, bound) {
                self.used[j] += 1;
                if self.run(i + 1, b, bound) {
                    return true;
                }
                self.used[j] -= 1;
            }
            undo(b, bound, mark);
        }
        false
    }
}
