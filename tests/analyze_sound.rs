//! `clir_codegen::analyze` on random packages (`clir_reference::random`), every witness ruled by
//! the reference evaluator: each conflict it confirms shows, ruled again, both rules applicable
//! for its literal and the literal contradictory (strict) or undecided (defeasible); each rule it
//! proves dead is applicable in no case (its witnesses' nor the random fact sets'); each priority
//! it proves idle has its two rules applicable together in none. `CLIR_ANALYZE_SEEDS` sets how
//! many packages (default 80).

use clir_codegen::analyze::{self, Bounds, ConflictKind, Exercised, Finding, Ruled, Standing, Value as V};
use clir_codegen::ir::{ArithOp, CmpOp, Status};
use clir_codegen::resolve::{resolve, Program, RItem, RTerm};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_reference::random::{self, Config, GRANT};
use clir_reference::{Reference, Standing as Layers, Val};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The case line of a candidate (as `clir analyze` writes it, without `why_not`).
fn case_line(p: &Program, c: &analyze::Candidate) -> Value {
    let mut facts = Map::new();
    for f in &c.facts {
        let key = format!("{}{}", if f.negative { "~" } else { "" }, p.relations[f.rel].name);
        let tuple: Vec<Value> = f
            .args
            .iter()
            .map(|a| match a {
                V::Int(i) => json!(i),
                V::Name(s) | V::Str(s) => json!(s),
            })
            .collect();
        if let Value::Array(ts) = facts.entry(key).or_insert_with(|| json!([])) {
            ts.push(Value::Array(tuple));
        }
    }
    json!({"case": "w", "facts": facts})
}

fn val(v: &V) -> Val {
    match v {
        V::Int(i) => Val::Int(*i),
        V::Name(s) | V::Str(s) => Val::Str(s.clone()),
    }
}

/// The value of `t` under `b`, `None` when a variable is unbound or arithmetic overflows.
fn term(p: &Program, r: usize, t: RTerm, b: &BTreeMap<usize, Val>) -> Option<Val> {
    let rule = &p.rules[r];
    Some(match t {
        RTerm::Var(v) => b.get(&v)?.clone(),
        RTerm::Const(c) => Val::Str(p.constants[c].name.clone()),
        RTerm::Int(i) => Val::Int(i),
        RTerm::Str(s) => Val::Str(p.strings[s].clone()),
        RTerm::Arith(i) => {
            let (op, x, y) = rule.ariths[i];
            let (Val::Int(x), Val::Int(y)) = (term(p, r, x, b)?, term(p, r, y, b)?) else { return None };
            Val::Int(match op {
                ArithOp::Add => x.checked_add(y)?,
                ArithOp::Sub => x.checked_sub(y)?,
                ArithOp::Mul => x.checked_mul(y)?,
            })
        }
    })
}

/// The head tuples of every applicable instance of rule `r` in a case whose layers are `st`
/// (SEMANTICS §7: established premises `+d`, supported ones `+S`, comparisons true, a `not L`
/// item with no `+d` match).
fn instances(p: &Program, st: &Layers, r: usize) -> Vec<Vec<Val>> {
    let rule = &p.rules[r];
    if rule.never {
        return Vec::new();
    }
    let lits: Vec<(Status, &clir_codegen::resolve::RLiteral)> = rule
        .body
        .iter()
        .filter_map(|i| match i {
            RItem::Literal(s, l) => Some((*s, l)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    let mut stack: Vec<(usize, BTreeMap<usize, Val>)> = vec![(0, BTreeMap::new())];
    while let Some((at, b)) = stack.pop() {
        if let Some((status, l)) = lits.get(at) {
            let layer = if *status == Status::Supported { &st.supported } else { &st.concluded };
            let key = (p.relations[l.rel].name.clone(), l.negative);
            for tuple in layer.get(&key).into_iter().flatten() {
                let mut nb = b.clone();
                let ok = l.args.iter().zip(tuple).all(|(&a, v)| match a {
                    RTerm::Var(x) => match nb.get(&x) {
                        Some(w) => w == v,
                        None => {
                            nb.insert(x, v.clone());
                            true
                        }
                    },
                    t => term(p, r, t, &nb).as_ref() == Some(v),
                });
                if ok {
                    stack.push((at + 1, nb));
                }
            }
            continue;
        }
        let filters = rule.body.iter().all(|i| match i {
            RItem::Comparison(op, x, y) => match (term(p, r, *x, &b), term(p, r, *y, &b)) {
                (Some(Val::Int(x)), Some(Val::Int(y))) => match op {
                    CmpOp::Eq => x == y,
                    CmpOp::Ne => x != y,
                    CmpOp::Lt => x < y,
                    CmpOp::Le => x <= y,
                    CmpOp::Gt => x > y,
                    CmpOp::Ge => x >= y,
                },
                (Some(x), Some(y)) => match op {
                    CmpOp::Eq => x == y,
                    CmpOp::Ne => x != y,
                    _ => false,
                },
                _ => false,
            },
            RItem::Not(l) => {
                let key = (p.relations[l.rel].name.clone(), l.negative);
                !st.concluded.get(&key).into_iter().flatten().any(|tuple| {
                    l.args.iter().zip(tuple).all(|(&a, v)| match a {
                        RTerm::Var(x) => b.get(&x).is_none_or(|w| w == v),
                        t => term(p, r, t, &b).as_ref() == Some(v),
                    })
                })
            }
            RItem::Literal(..) => true,
        });
        if filters {
            if let Some(head) = rule.head.args.iter().map(|&a| term(p, r, a, &b)).collect::<Option<Vec<Val>>>() {
                if !out.contains(&head) {
                    out.push(head);
                }
            }
        }
    }
    out
}

fn standing(st: &Layers, name: &str, negative: bool, args: &[Val]) -> Standing {
    let has = |layer: &clir_reference::Layer| {
        layer.get(&(name.to_string(), negative)).is_some_and(|ts| ts.iter().any(|t| t.as_slice() == args))
    };
    Standing { definite: has(&st.definite), supported: has(&st.supported), concluded: has(&st.concluded) }
}

/// Whether the two rules of priority `i` are applicable for one literal in a case.
fn together(p: &Program, st: &Layers, i: usize) -> bool {
    let s = &p.superiority[i];
    let hi = instances(p, st, s.higher);
    let (a, b) = (&p.rules[s.higher].head, &p.rules[s.lower].head);
    a.rel == b.rel && a.negative != b.negative && instances(p, st, s.lower).iter().any(|t| hi.contains(t))
}

#[test]
fn every_finding_on_random_packages_is_shown_by_its_witness_or_proven() {
    let seeds: u64 = std::env::var("CLIR_ANALYZE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(80);
    let bounds = Bounds { steps: 400, ..Bounds::default() };
    let grants = [GRANT.to_string()];
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for seed in 0..seeds {
        let bytes = random::package_bytes(seed, &Config::default());
        let doc = verify_bytes(&bytes, &VerifyOptions::default()).into_document().expect("a random package verifies");
        let p = resolve(&doc).expect("a random package resolves");
        let reference = Reference::new(&doc).expect("the reference takes it");
        let a = analyze::analyze(&p, &bounds);
        // Every witness ruled by the reference.
        let layers: Vec<Option<Layers>> =
            a.candidates.iter().map(|c| reference.standing(&case_line(&p, c), &grants).ok()).collect();
        let mut exercised =
            Exercised { applied: vec![false; p.rules.len()], decided: vec![false; p.superiority.len()] };
        let mut ruled: Vec<Option<Ruled>> = Vec::new();
        for (c, st) in a.candidates.iter().zip(&layers) {
            let Some(st) = st else {
                ruled.push(None);
                continue;
            };
            for r in 0..p.rules.len() {
                exercised.applied[r] |= !instances(&p, st, r).is_empty();
            }
            for i in 0..p.superiority.len() {
                exercised.decided[i] |= together(&p, st, i);
            }
            ruled.push(c.literal.as_ref().map(|(rel, args)| {
                let args: Vec<Val> = args.iter().map(val).collect();
                let name = &p.relations[*rel].name;
                let applicable = (0..p.rules.len())
                    .filter(|&r| p.rules[r].head.rel == *rel && instances(&p, st, r).contains(&args))
                    .collect();
                Ruled {
                    q: standing(st, name, false, &args),
                    not_q: standing(st, name, true, &args),
                    applicable: Some(applicable),
                }
            }));
        }
        let findings = analyze::confirm(&p, &a, &ruled, &exercised);
        // Random fact sets: no dead rule applies there, no idle priority's rules meet there.
        let mut others: Vec<Layers> = Vec::new();
        for s in 0..4 {
            for case in random::facts(seed * 16 + s, &doc) {
                others.extend(reference.standing(&case, &grants).ok());
            }
        }
        for f in &findings {
            match f {
                Finding::Conflict { kind, pos, neg, witness } => {
                    *counts.entry("conflict").or_default() += 1;
                    let c = &a.candidates[*witness];
                    let st = reference.standing(&case_line(&p, c), &grants).expect("the witness is a case");
                    let (rel, args) = c.literal.as_ref().expect("a conflict's witness has a literal");
                    let args: Vec<Val> = args.iter().map(val).collect();
                    let name = &p.relations[*rel].name;
                    let (q, nq) = (standing(&st, name, false, &args), standing(&st, name, true, &args));
                    match kind {
                        ConflictKind::Strict => assert!(q.definite && nq.definite, "seed {seed}: {f:?}"),
                        ConflictKind::Defeasible => assert!(
                            !q.concluded && !nq.concluded && q.supported && nq.supported,
                            "seed {seed}: {f:?}: {q:?} {nq:?}"
                        ),
                    }
                    for r in [*pos, *neg] {
                        assert!(instances(&p, &st, r).contains(&args), "seed {seed}: rule {r} not applicable: {f:?}");
                    }
                }
                Finding::Dead { rule, proof } => {
                    *counts.entry("dead").or_default() += 1;
                    for st in layers.iter().flatten().chain(&others) {
                        assert!(
                            instances(&p, st, *rule).is_empty(),
                            "seed {seed}: dead ({proof:?}) rule {rule} applies"
                        );
                    }
                }
                Finding::IdlePriority { priority, proof: Some(proof) } => {
                    *counts.entry("idle proven").or_default() += 1;
                    for st in layers.iter().flatten().chain(&others) {
                        assert!(
                            !together(&p, st, *priority),
                            "seed {seed}: idle ({proof:?}) priority {priority} decides"
                        );
                    }
                }
                Finding::IdlePriority { proof: None, .. } => *counts.entry("idle within bounds").or_default() += 1,
                Finding::NotFoundApplicable { .. } => *counts.entry("not found applicable").or_default() += 1,
            }
        }
        *counts.entry("witnesses").or_default() += a.candidates.len();
    }
    eprintln!("{seeds} random packages: {counts:?}");
    // Not vacuous: conflicts are found and witnesses ruled.
    assert!(counts.get("conflict").copied().unwrap_or(0) > 0, "{counts:?}");
    assert!(counts.get("witnesses").copied().unwrap_or(0) > 100, "{counts:?}");
}

/// Every tuple an input relation `rel` can hold over the small domain: per entity type one
/// name and its constants, per Integer column the package's Integer literals and their
/// neighbours; `None` past `cap` tuples.
fn tuples(p: &Program, rel: usize, ints: &[i64], cap: usize) -> Option<Vec<Vec<Val>>> {
    use clir_codegen::resolve::Ty;
    let mut out: Vec<Vec<Val>> = vec![Vec::new()];
    for (_, ty) in &p.relations[rel].params {
        let column: Vec<Val> = match ty {
            Ty::Integer => ints.iter().map(|&i| Val::Int(i)).collect(),
            Ty::Entity(t) => {
                let mut v = vec![Val::Str("a".into())];
                v.extend(p.constants.iter().filter(|c| c.ty == *t).map(|c| Val::Str(c.name.clone())));
                v
            }
            Ty::String => vec![Val::Str("a".into())],
        };
        out = out.iter().flat_map(|t| column.iter().map(move |v| [t.clone(), vec![v.clone()]].concat())).collect();
        if out.len() > cap {
            return None;
        }
    }
    Some(out)
}

/// The pairs (rule for `q`, rule for `~q`, no priority between them) that conflict in some case
/// (both applicable for one `q`, which is undecided, or definite with its complement while
/// both rules are strict) with `facts` (each fact a relation name, sign and tuple) stated or not: every subset.
fn exhaustive_conflicts(
    p: &Program,
    reference: &Reference,
    facts: &[(String, bool, Vec<Val>)],
) -> std::collections::BTreeSet<(usize, usize)> {
    use clir_codegen::ir::Strength;
    let grants = [GRANT.to_string()];
    let pairs: Vec<(usize, usize)> = (0..p.rules.len())
        .flat_map(|x| (0..p.rules.len()).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let (a, b) = (&p.rules[x], &p.rules[y]);
            a.head.rel == b.head.rel
                && !a.head.negative
                && b.head.negative
                && a.strength != Strength::Defeater
                && b.strength != Strength::Defeater
                && !p.superiority.iter().any(|s| (s.higher, s.lower) == (x, y) || (s.higher, s.lower) == (y, x))
        })
        .collect();
    let mut found = std::collections::BTreeSet::new();
    for mask in 0u32..(1 << facts.len()) {
        let mut by_rel = Map::new();
        for (i, (name, neg, tuple)) in facts.iter().enumerate() {
            if mask & (1 << i) != 0 {
                let key = format!("{}{name}", if *neg { "~" } else { "" });
                let t: Vec<Value> = tuple
                    .iter()
                    .map(|v| match v {
                        Val::Int(i) => json!(i),
                        Val::Str(s) => json!(s),
                    })
                    .collect();
                if let Value::Array(ts) = by_rel.entry(key).or_insert_with(|| json!([])) {
                    ts.push(Value::Array(t));
                }
            }
        }
        let Ok(st) = reference.standing(&json!({"case": "x", "facts": by_rel}), &grants) else { continue };
        for &(x, y) in &pairs {
            if found.contains(&(x, y)) {
                continue;
            }
            let name = &p.relations[p.rules[x].head.rel].name;
            let ys = instances(p, &st, y);
            for t in instances(p, &st, x).iter().filter(|t| ys.contains(t)) {
                let (q, nq) = (standing(&st, name, false, t), standing(&st, name, true, t));
                let undecided = !q.concluded && !nq.concluded && q.supported && nq.supported;
                let strict = [x, y].iter().all(|&r| p.rules[r].strength == Strength::Strict);
                if undecided || (strict && q.definite && nq.definite) {
                    found.insert((x, y));
                }
            }
        }
    }
    found
}

/// Completeness within a bound: on small random packages whose input facts over a small domain
/// are few enough to try every case, every pair of rules that conflicts in some case is a
/// conflict `analyze` confirms, unless its search reached a bound.
#[test]
fn on_small_packages_no_conflict_an_exhaustive_search_finds_is_missed() {
    let seeds: u64 = std::env::var("CLIR_ANALYZE_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(80);
    let cfg = Config {
        max_entity_types: 1,
        max_inputs: 2,
        max_layers: 2,
        max_preds_per_layer: 2,
        max_rules_per_pred: 2,
        max_body_literals: 2,
        max_arity: 2,
        adversarial: false,
    };
    let bounds = Bounds::default();
    let grants = [GRANT.to_string()];
    let (mut tried, mut conflicts, mut missed) = (0, 0, Vec::new());
    for seed in 0..seeds * 16 {
        let bytes = random::package_bytes(seed, &cfg);
        let doc = verify_bytes(&bytes, &VerifyOptions::default()).into_document().expect("a random package verifies");
        let p = resolve(&doc).expect("a random package resolves");
        let reference = Reference::new(&doc).expect("the reference takes it");
        let mut ints: Vec<i64> = vec![0];
        for r in &p.rules {
            for item in &r.body {
                if let RItem::Comparison(_, a, b) = item {
                    for t in [a, b] {
                        if let RTerm::Int(i) = t {
                            ints.extend([i.saturating_sub(1), *i, i.saturating_add(1)]);
                        }
                    }
                }
            }
            for t in r.head.args.iter().chain(r.body.iter().flat_map(|i| match i {
                RItem::Literal(_, l) | RItem::Not(l) => l.args.iter(),
                _ => [].iter(),
            })) {
                if let RTerm::Int(i) = t {
                    ints.push(*i);
                }
            }
        }
        ints.sort_unstable();
        ints.dedup();
        let mut facts: Vec<(String, bool, Vec<Val>)> = Vec::new();
        let mut small = true;
        for (rel, r) in p.relations.iter().enumerate() {
            if r.kind == clir_codegen::ir::RelationKind::Institutional {
                continue;
            }
            match tuples(&p, rel, &ints, 12) {
                Some(ts) => {
                    for t in ts {
                        facts.push((r.name.clone(), false, t.clone()));
                        facts.push((r.name.clone(), true, t));
                    }
                }
                None => small = false,
            }
        }
        if !small || facts.len() > 12 {
            continue;
        }
        let a = analyze::analyze(&p, &bounds);
        if a.cut != (0, 0, 0) {
            continue;
        }
        tried += 1;
        let exhaustive = exhaustive_conflicts(&p, &reference, &facts);
        conflicts += exhaustive.len();
        // Confirmed as `clir analyze` confirms, the reference ruling the witnesses.
        let layers: Vec<Option<Layers>> =
            a.candidates.iter().map(|c| reference.standing(&case_line(&p, c), &grants).ok()).collect();
        let ruled: Vec<Option<Ruled>> = a
            .candidates
            .iter()
            .zip(&layers)
            .map(|(c, st)| {
                let (st, (rel, args)) = (st.as_ref()?, c.literal.as_ref()?);
                let args: Vec<Val> = args.iter().map(val).collect();
                let name = &p.relations[*rel].name;
                let applicable = (0..p.rules.len())
                    .filter(|&r| p.rules[r].head.rel == *rel && instances(&p, st, r).contains(&args))
                    .collect();
                Some(Ruled {
                    q: standing(st, name, false, &args),
                    not_q: standing(st, name, true, &args),
                    applicable: Some(applicable),
                })
            })
            .collect();
        let findings = analyze::confirm(&p, &a, &ruled, &Exercised::default());
        for (x, y) in exhaustive {
            let found =
                findings.iter().any(|f| matches!(f, Finding::Conflict { pos, neg, .. } if (*pos, *neg) == (x, y)));
            if !found {
                missed.push(format!("seed {seed}: {} against {}", p.rules[x].id, p.rules[y].id));
            }
        }
        if tried >= seeds {
            break;
        }
    }
    eprintln!("{tried} small packages searched exhaustively: {conflicts} conflicting pairs, {} missed", missed.len());
    assert!(
        tried >= seeds / 4 && conflicts > 0,
        "too few packages or conflicts to show anything: {tried}, {conflicts}"
    );
    assert!(missed.is_empty(), "conflicts analyze missed:\n{}", missed.join("\n"));
}
