//! The package, read from its JSON (SEMANTICS §2-6): relations, constants, rules, priorities
//! and closures, as the checker evaluates them.

use crate::json::{self, J as Json};
use std::collections::HashMap;

type Map<K, V> = [(K, V)];

/// A ground value: an Integer, or a name (an entity, a constant by its name, a String).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// An Integer.
    Int(i64),
    /// An entity or constant name, or a String's text.
    Name(String),
}

/// A term of a rule.
#[derive(Clone, Debug)]
pub enum Term {
    /// The rule's variable of this index.
    Var(usize),
    /// A constant, an Integer or a String.
    Val(Value),
    /// Integer arithmetic (wrapping): `add`, `sub` or `mul`.
    Arith(char, Box<Term>, Box<Term>),
}

/// A literal of a rule: relation index, strong negation, terms.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Relation index.
    pub rel: usize,
    /// Strong negation.
    pub negative: bool,
    /// One term a parameter.
    pub args: Vec<Term>,
}

/// A body item.
#[derive(Clone, Debug)]
pub enum Item {
    /// A literal asked as concluded (`supported: false`) or as supported.
    Literal {
        /// Asked only as supported.
        supported: bool,
        /// The literal.
        lit: Pattern,
    },
    /// A comparison: `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
    Compare(String, Term, Term),
    /// Negation as failure: no concluded literal matches.
    Not(Pattern),
}

/// How strong a rule is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// Strict.
    Strict,
    /// Defeasible.
    Defeasible,
    /// Defeater.
    Defeater,
}

/// A rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Node id.
    pub id: String,
    /// Strength.
    pub strength: Strength,
    /// Variable ids, in declaration order.
    pub vars: Vec<String>,
    /// Head.
    pub head: Pattern,
    /// Body items.
    pub body: Vec<Item>,
    /// The body holds `false`: the rule never applies.
    pub never: bool,
}

/// Who may give a relation's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Facts a case states.
    Empirical,
    /// Facts a case states only under the relation's capability (`--grant`).
    Judgment,
    /// Derived by rules only: a case never states them.
    Institutional,
}

/// A relation.
#[derive(Clone, Debug)]
pub struct Relation {
    /// Name, as cases and rulings write it.
    pub name: String,
    /// Per parameter: whether it holds Integers.
    pub integer: Vec<bool>,
    /// Per parameter: its name and its type's name (`Integer`, `String` or a type's `name`).
    pub params: Vec<(String, String)>,
    /// Whether its facts come from rules only.
    pub institutional: bool,
    /// Empirical, judgment or institutional.
    pub kind: Kind,
    /// The capability a judgment relation's facts need (its `external_decl`).
    pub capability: Option<String>,
}

/// A closure policy.
#[derive(Clone, Debug)]
pub struct Closure {
    /// Node id.
    pub id: String,
    /// The relation closed.
    pub predicate: usize,
    /// The relation whose concluded tuples it closes over.
    pub domain: usize,
}

/// A priority: `higher` beats `lower` (rule indices).
#[derive(Clone, Debug)]
pub struct Priority {
    /// Node id.
    pub id: String,
    /// The winning rule.
    pub higher: usize,
    /// The losing rule.
    pub lower: usize,
}

/// A node a certificate may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A rule.
    Rule(usize),
    /// A closure policy.
    Closure(usize),
    /// A priority.
    Priority(usize),
}

/// A package as the checker reads it.
#[derive(Clone, Debug)]
pub struct Package {
    /// `sha256:` and the hex sha256 of the file's bytes.
    pub seal: String,
    /// The package's name (`package.name`).
    pub name: String,
    /// The package's version (`package.version`).
    pub version: String,
    /// The earliest date a source edition is in force from (`YYYY-MM-DD`), if any.
    pub in_force: Option<String>,
    /// The earliest date a source edition stopped being in force, if any.
    pub until: Option<String>,
    /// Every constant a case may name, with its type's name: the declared constants, and the
    /// Strings the rules write (type `String`) that are no constant's name.
    pub constants: Vec<(String, String)>,
    /// Relations.
    pub relations: Vec<Relation>,
    /// Relation index by name.
    pub by_name: HashMap<String, usize>,
    /// Rules.
    pub rules: Vec<Rule>,
    /// Priorities.
    pub priorities: Vec<Priority>,
    /// Closures.
    pub closures: Vec<Closure>,
    /// Rules, closures and priorities by id.
    pub nodes: HashMap<String, Node>,
}

const INTEGER: &str = "urn:law:std#Integer";
const STRING: &str = "urn:law:std#String";

/// The value of key `key` of an object's entries.
fn get<'a>(o: &'a Map<String, Json>, key: &str) -> Option<&'a Json> {
    o.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn field<'a>(o: &'a Map<String, Json>, key: &str, at: &str) -> Result<&'a Json, String> {
    get(o, key).ok_or_else(|| format!("{at}: no `{key}`"))
}

fn text<'a>(o: &'a Map<String, Json>, key: &str, at: &str) -> Result<&'a str, String> {
    field(o, key, at)?.as_str().ok_or_else(|| format!("{at}: `{key}` is not a string"))
}

fn object<'a>(v: &'a Json, at: &str) -> Result<&'a Map<String, Json>, String> {
    v.as_object().map(Vec::as_slice).ok_or_else(|| format!("{at}: not an object"))
}

fn list<'a>(o: &'a Map<String, Json>, key: &str, at: &str) -> Result<&'a Vec<Json>, String> {
    field(o, key, at)?.as_array().ok_or_else(|| format!("{at}: `{key}` is not a list"))
}

fn reference<'a>(o: &'a Map<String, Json>, key: &str, at: &str) -> Result<&'a str, String> {
    match field(o, key, at)? {
        Json::Str(s) => Ok(s),
        Json::Obj(r) => text(r, "id", at),
        _ => Err(format!("{at}: `{key}` is no reference")),
    }
}

/// The sha256 of `bytes`, written `sha256:HEX`.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Whether `s` is a date written `YYYY-MM-DD` with a month 01-12 and a day 01-31 (how a
/// source edition's `lifecycle` dates are read).
fn is_lifecycle_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && (1..=12).contains(&num(5..7))
        && (1..=31).contains(&num(8..10))
}

/// The hashes of SEMANTICS §1 that the file itself carries: it is its own canonical JSON, each
/// node's `contentHash` is the sha256 of its canonical bytes without that key, and each text of
/// a fragment carries the sha256 of its text. `Err` names the first that does not hold.
fn verify_hashes(doc: &Json, bytes: &[u8]) -> Result<(), String> {
    let canonical = json::canonical(doc);
    if canonical != bytes {
        let at = canonical.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(canonical.len().min(bytes.len()));
        return Err(format!("the package file is not canonical JSON (SEMANTICS §1): first difference at byte {at}"));
    }
    let nodes = list(object(doc, "the package")?, "nodes", "the package")?;
    for (i, n) in nodes.iter().enumerate() {
        let n = object(n, "a node")?;
        let id = get(n, "id").and_then(Json::as_str).unwrap_or("?");
        let computed = sha256(&json::canonical_without(n, "contentHash"));
        match get(n, "contentHash").and_then(Json::as_str) {
            Some(found) if found == computed => {}
            found => {
                return Err(format!(
                "node {i} ({id}): its contentHash is {}, but its content hashes to {computed}: the package was changed",
                found.unwrap_or("missing")
            ))
            }
        }
        for (j, t) in get(n, "texts").and_then(Json::as_array).into_iter().flatten().enumerate() {
            let Some(t) = t.as_object() else { continue };
            let Some(body) = get(t, "text").and_then(Json::as_str) else { continue };
            let computed = sha256(body.as_bytes());
            match get(t, "contentHash").and_then(Json::as_str) {
                Some(found) if found == computed => {}
                found => {
                    return Err(format!(
                        "node {i} ({id}), text {j}: its contentHash is {}, but the text hashes to {computed}: the package was changed",
                        found.unwrap_or("missing")
                    ))
                }
            }
        }
    }
    Ok(())
}

impl Package {
    /// Reads a package file; `Err` says what part of it could not be read, or which of its
    /// hashes does not recompute (a tampered file is refused before any case is checked).
    pub fn parse(bytes: &[u8]) -> Result<Package, String> {
        let doc = json::parse_slice(bytes).map_err(|e| format!("the package is not JSON: {e}"))?;
        verify_hashes(&doc, bytes)?;
        let top = object(&doc, "the package")?;
        let info = object(field(top, "package", "the package")?, "the package's `package`")?;
        let (name, version) =
            (text(info, "name", "package")?.to_string(), text(info, "version", "package")?.to_string());
        let nodes = list(top, "nodes", "the package")?;
        let mut relations = Vec::new();
        let mut rel_ids: HashMap<String, usize> = HashMap::new();
        let mut constants: HashMap<String, String> = HashMap::new();
        let mut type_names: HashMap<String, String> = HashMap::new();
        let mut capabilities: HashMap<String, String> = HashMap::new();
        let (mut in_force, mut until): (Option<String>, Option<String>) = (None, None);
        let mut declared: Vec<(String, String)> = Vec::new();
        for n in nodes {
            let n = object(n, "a node")?;
            match get(n, "kind").and_then(Json::as_str) {
                Some("type_decl") => {
                    if let (Some(id), Some(name)) =
                        (get(n, "id").and_then(Json::as_str), get(n, "name").and_then(Json::as_str))
                    {
                        type_names.insert(id.to_string(), name.to_string());
                    }
                }
                Some("external_decl") => {
                    if let (Some(sym), Some(cap)) =
                        (get(n, "symbol").and_then(Json::as_str), get(n, "capability").and_then(Json::as_str))
                    {
                        capabilities.insert(sym.to_string(), cap.to_string());
                    }
                }
                Some("source_edition") => {
                    for e in get(n, "lifecycle").and_then(Json::as_array).into_iter().flatten() {
                        let (Some(status), Some(date)) =
                            (e.get("status").and_then(Json::as_str), e.get("extent").and_then(Json::as_str))
                        else {
                            continue;
                        };
                        if !is_lifecycle_date(date) {
                            continue;
                        }
                        let slot = match status {
                            "in_force" => &mut in_force,
                            "superseded" | "repealed" | "expired" | "revoked" => &mut until,
                            _ => continue,
                        };
                        if slot.as_deref().is_none_or(|d| date < d) {
                            *slot = Some(date.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        let type_name = |t: &str| match t {
            INTEGER => "Integer".to_string(),
            STRING => "String".to_string(),
            other => type_names.get(other).cloned().unwrap_or_else(|| other.to_string()),
        };
        for n in nodes {
            let n = object(n, "a node")?;
            if get(n, "kind").and_then(Json::as_str) != Some("symbol_decl") {
                continue;
            }
            let id = text(n, "id", "a symbol_decl")?;
            match text(n, "symbolKind", id)? {
                "constant" => {
                    let name = text(n, "name", id)?.to_string();
                    let ty = get(n, "returnType").and_then(|t| t.get("name")).and_then(Json::as_str).unwrap_or("");
                    declared.push((name.clone(), type_name(ty)));
                    constants.insert(id.to_string(), name);
                }
                "relation" => {
                    let (mut integer, mut params) = (Vec::new(), Vec::new());
                    for p in list(n, "parameters", id)? {
                        let p = object(p, id)?;
                        let ty = text(object(field(p, "type", id)?, id)?, "name", id)?;
                        integer.push(ty == INTEGER);
                        let pname = get(p, "name").and_then(Json::as_str).unwrap_or_default();
                        params.push((pname.to_string(), type_name(ty)));
                    }
                    let kind = match get(n, "relationKind").and_then(Json::as_str) {
                        Some("institutional") => Kind::Institutional,
                        Some("judgment") => Kind::Judgment,
                        _ => Kind::Empirical,
                    };
                    rel_ids.insert(id.to_string(), relations.len());
                    relations.push(Relation {
                        name: text(n, "name", id)?.to_string(),
                        integer,
                        params,
                        institutional: kind == Kind::Institutional,
                        kind,
                        capability: capabilities.get(id).cloned(),
                    });
                }
                _ => {}
            }
        }
        let by_name = relations.iter().enumerate().map(|(i, r)| (r.name.clone(), i)).collect();
        let reader = Reader { rel_ids: &rel_ids, constants: &constants };
        let mut rules = Vec::new();
        let mut node_ix = HashMap::new();
        for n in nodes {
            let n = object(n, "a node")?;
            if get(n, "kind").and_then(Json::as_str) == Some("rule") {
                let rule = reader.rule(n)?;
                node_ix.insert(rule.id.clone(), Node::Rule(rules.len()));
                rules.push(rule);
            }
        }
        let (mut priorities, mut closures) = (Vec::new(), Vec::new());
        for n in nodes {
            let n = object(n, "a node")?;
            match get(n, "kind").and_then(Json::as_str) {
                Some("priority_rule") => {
                    let id = text(n, "id", "a priority_rule")?;
                    let rule = |key: &str| match node_ix.get(reference(n, key, id)?) {
                        Some(&Node::Rule(r)) => Ok(r),
                        _ => Err(format!("{id}: `{key}` names no rule")),
                    };
                    let (higher, lower) = (rule("higher")?, rule("lower")?);
                    node_ix.insert(id.to_string(), Node::Priority(priorities.len()));
                    priorities.push(Priority { id: id.to_string(), higher, lower });
                }
                Some("closure_policy") => {
                    let id = text(n, "id", "a closure_policy")?;
                    let (predicate, domain) = (
                        reader.relation(reference(n, "predicate", id)?, id)?,
                        reader.relation(reference(n, "domain", id)?, id)?,
                    );
                    node_ix.insert(id.to_string(), Node::Closure(closures.len()));
                    closures.push(Closure { id: id.to_string(), predicate, domain });
                }
                _ => {}
            }
        }
        // The Strings the rules write, each once, that are no constant's name: constants of
        // type `String`, as a case's String arguments are compared with them.
        fn strings_of(t: &Term, declared: &[(String, String)], out: &mut Vec<String>) {
            match t {
                Term::Val(Value::Name(s)) if !declared.iter().any(|(c, _)| c == s) && !out.contains(s) => {
                    out.push(s.clone())
                }
                Term::Arith(_, l, r) => {
                    strings_of(l, declared, out);
                    strings_of(r, declared, out);
                }
                _ => {}
            }
        }
        let mut strings: Vec<String> = Vec::new();
        for r in &rules {
            let mut terms: Vec<&Term> = r.head.args.iter().collect();
            for i in &r.body {
                match i {
                    Item::Literal { lit, .. } | Item::Not(lit) => terms.extend(&lit.args),
                    Item::Compare(_, l, r) => terms.extend([l, r]),
                }
            }
            for t in terms {
                strings_of(t, &declared, &mut strings);
            }
        }
        declared.extend(strings.into_iter().map(|s| (s, "String".to_string())));
        Ok(Package {
            seal: sha256(bytes),
            name,
            version,
            in_force,
            until,
            constants: declared,
            relations,
            by_name,
            rules,
            priorities,
            closures,
            nodes: node_ix,
        })
    }

    /// Whether rule `higher` beats rule `lower` by a priority: the priority's index.
    pub fn beats(&self, higher: usize, lower: usize) -> Option<usize> {
        self.priorities.iter().position(|p| p.higher == higher && p.lower == lower)
    }
}

/// Resolves references of rules while reading them.
struct Reader<'a> {
    rel_ids: &'a HashMap<String, usize>,
    constants: &'a HashMap<String, String>,
}

impl Reader<'_> {
    fn relation(&self, id: &str, at: &str) -> Result<usize, String> {
        self.rel_ids.get(id).copied().ok_or_else(|| format!("{at}: `{id}` is no relation"))
    }

    fn rule(&self, n: &Map<String, Json>) -> Result<Rule, String> {
        let id = text(n, "id", "a rule")?;
        let strength = match text(n, "strength", id)? {
            "strict" => Strength::Strict,
            "defeasible" => Strength::Defeasible,
            "defeater" => Strength::Defeater,
            other => return Err(format!("{id}: unknown strength `{other}`")),
        };
        let mut vars = Vec::new();
        for v in list(n, "variables", id)? {
            vars.push(text(object(v, id)?, "id", id)?.to_string());
        }
        let head = self.literal(object(field(n, "head", id)?, id)?, &vars, id)?;
        let (mut body, mut never) = (Vec::new(), false);
        self.items(object(field(n, "body", id)?, id)?, &vars, id, &mut body, &mut never, 0)?;
        Ok(Rule { id: id.to_string(), strength, vars, head, body, never })
    }

    fn items(
        &self,
        f: &Map<String, Json>,
        vars: &[String],
        at: &str,
        out: &mut Vec<Item>,
        never: &mut bool,
        depth: usize,
    ) -> Result<(), String> {
        if depth > 64 {
            return Err(format!("{at}: a body nested deeper than 64 levels"));
        }
        match text(f, "kind", at)? {
            "and" => {
                for item in list(f, "items", at)? {
                    self.items(object(item, at)?, vars, at, out, never, depth + 1)?;
                }
            }
            "boolean" => *never |= field(f, "value", at)? == &Json::Bool(false),
            "literal" => out.push(Item::Literal { supported: false, lit: self.literal(f, vars, at)? }),
            "status" => {
                let supported = match text(f, "status", at)? {
                    "established" => false,
                    "supported" => true,
                    other => return Err(format!("{at}: unknown status `{other}`")),
                };
                out.push(Item::Literal {
                    supported,
                    lit: self.literal(object(field(f, "formula", at)?, at)?, vars, at)?,
                });
            }
            "not" => out.push(Item::Not(self.literal(object(field(f, "formula", at)?, at)?, vars, at)?)),
            "comparison" => out.push(Item::Compare(
                text(f, "op", at)?.to_string(),
                self.term(object(field(f, "left", at)?, at)?, vars, at, 0)?,
                self.term(object(field(f, "right", at)?, at)?, vars, at, 0)?,
            )),
            other => return Err(format!("{at}: unknown body item `{other}`")),
        }
        Ok(())
    }

    fn literal(&self, o: &Map<String, Json>, vars: &[String], at: &str) -> Result<Pattern, String> {
        let rel = self.relation(text(o, "predicate", at)?, at)?;
        let negative = text(o, "polarity", at)? == "negative";
        let args =
            list(o, "args", at)?.iter().map(|a| self.term(object(a, at)?, vars, at, 0)).collect::<Result<_, _>>()?;
        Ok(Pattern { rel, negative, args })
    }

    fn term(&self, o: &Map<String, Json>, vars: &[String], at: &str, depth: usize) -> Result<Term, String> {
        if depth > 64 {
            return Err(format!("{at}: a term nested deeper than 64 levels"));
        }
        match text(o, "kind", at)? {
            "var" => {
                let v = text(o, "var", at)?;
                vars.iter()
                    .position(|x| x == v)
                    .map(Term::Var)
                    .ok_or_else(|| format!("{at}: undeclared variable `{v}`"))
            }
            "const_ref" | "entity_ref" => {
                let id = text(o, "id", at)?;
                let name = self.constants.get(id).ok_or_else(|| format!("{at}: `{id}` is no constant"))?;
                Ok(Term::Val(Value::Name(name.clone())))
            }
            "value" => {
                let ty = text(object(field(o, "type", at)?, at)?, "name", at)?;
                match (ty, field(o, "value", at)?) {
                    (INTEGER, v) => {
                        v.as_i64().map(|i| Term::Val(Value::Int(i))).ok_or_else(|| format!("{at}: not an Integer"))
                    }
                    (STRING, Json::Str(s)) => Ok(Term::Val(Value::Name(s.clone()))),
                    _ => Err(format!("{at}: a value of unknown type `{ty}`")),
                }
            }
            "arith" => {
                let op = match text(o, "op", at)? {
                    "add" => '+',
                    "sub" => '-',
                    "mul" => '*',
                    other => return Err(format!("{at}: unknown arithmetic `{other}`")),
                };
                let left = self.term(object(field(o, "left", at)?, at)?, vars, at, depth + 1)?;
                let right = self.term(object(field(o, "right", at)?, at)?, vars, at, depth + 1)?;
                Ok(Term::Arith(op, Box::new(left), Box::new(right)))
            }
            other => Err(format!("{at}: unknown term `{other}`")),
        }
    }
}
