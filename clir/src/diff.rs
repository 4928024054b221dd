//! What a new version of a law changes: the rulings of one case under two compiled packages,
//! compared by relation name (docs/FORMAT.md "Diff lines").
//!
//! Two versions of one law may number their relations differently, intern their constants in a
//! different order and even declare different relations, so nothing here compares flat rows:
//! both sides are first read into a [`Ruling`] of relation names and decoded values, from an
//! [`Output`] ([`Ruling::of_case`]) or from a ruling line ([`Side::from_line`]), and
//! [`compare`] decides whether they differ and which concluded literals NEW gains or loses. A
//! ruling differs when its `concluded`, `definite` or `contradictions` differ; explanations (and
//! any other key of a ruling line) never count. An error line differs from a ruling, and from an
//! error line with another message; two error lines with the same message do not differ.
//!
//! `clir diff` compares the ruling lines of two `clir run` binaries with [`diff_lines`]; a
//! program with both packages compiled in calls [`rulings`] on case lines, or [`Ruling::of_case`]
//! and [`compare`] on the outputs of its own batches.
//!
//! ```
//! use clir::diff::{compare, Side};
//! let old = Side::from_line(r#"{"case":"g","concluded":{},"definite":{},"contradictions":[]}"#).unwrap();
//! let new = Side::from_line(
//!     r#"{"case":"g","concluded":{"game_drawn":[["g"]]},"definite":{},"contradictions":[]}"#,
//! )
//! .unwrap();
//! let change = compare(&old.1, &new.1).expect("the rulings differ");
//! assert_eq!(clir::diff::literals_json(&change.added).to_string(), r#"{"game_drawn":[["g"]]}"#);
//! assert!(change.removed.is_empty());
//! ```

use crate::batch::{case_contradictions, slot, Output};
use crate::jsonl::{rule_chunk, Catalog, Line, Options};
use crate::schema::{RelationKind, Schema};
use crate::value::{CaseId, Interner, Sym};
use crate::Package;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One argument of a concluded literal, decoded: ordered as ruling lines order tuples (Integers
/// first and numerically, then entity names by their bytes).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// An Integer.
    Int(i64),
    /// An entity (or String) by name.
    Name(String),
}

impl Atom {
    fn json(&self) -> Value {
        match self {
            Atom::Int(i) => Value::from(*i),
            Atom::Name(s) => Value::from(s.as_str()),
        }
    }
}

/// Literals by key (`name`, or `~name` for negatives, as `concluded` writes them), each key with
/// its sorted set of tuples. A key is present only with a tuple.
pub type Literals = BTreeMap<String, BTreeSet<Vec<Atom>>>;

/// The part of a ruling a diff compares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ruling {
    /// The `+d` literals.
    pub concluded: Literals,
    /// The `+D` literals.
    pub definite: Literals,
    /// The literals whose both signs are `+D`, written `name(a,b)`.
    pub contradictions: BTreeSet<String>,
}

/// One side of a comparison: the case was ruled, or it was rejected with an error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    /// A ruling.
    Ruled(Ruling),
    /// An error line's `error`.
    Error(String),
}

/// How NEW's ruling of a case differs from OLD's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Concluded literals NEW has and OLD has not.
    pub added: Literals,
    /// Concluded literals OLD has and NEW has not.
    pub removed: Literals,
}

impl Ruling {
    /// The ruling of `case` in `out`, the output of a batch of `schema`'s package whose entities
    /// `interner` names.
    pub fn of_case(schema: &Schema, interner: &Interner, out: &Output, case: CaseId) -> Ruling {
        let mut ruling = Ruling::default();
        for (rel, info) in schema.relations.iter().enumerate() {
            if info.kind != RelationKind::Institutional {
                continue;
            }
            let stride = info.params.len() + 1;
            for negative in [false, true] {
                let key = if negative { format!("~{}", info.name) } else { info.name.to_string() };
                for (layer, into) in [(&out.concluded, &mut ruling.concluded), (&out.definite, &mut ruling.definite)] {
                    let Some(rows) = layer.get(slot(rel, negative)) else { continue };
                    let tuples: BTreeSet<Vec<Atom>> = rows
                        .chunks_exact(stride)
                        .filter(|r| r[0] == case.0 as i64)
                        .map(|r| {
                            r[1..]
                                .iter()
                                .zip(info.params)
                                .map(|(&v, p)| {
                                    if p.integer {
                                        Atom::Int(v)
                                    } else {
                                        Atom::Name(interner.name(Sym(v as u32)).to_string())
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    if !tuples.is_empty() {
                        into.insert(key.clone(), tuples);
                    }
                }
            }
        }
        ruling.contradictions = case_contradictions(schema, out, interner, case).into_iter().collect();
        ruling
    }
}

/// The keys of a ruling line a diff reads; the others are skipped.
#[derive(serde::Deserialize)]
struct LineDe {
    #[serde(default)]
    case: Value,
    error: Option<Value>,
    concluded: Option<Literals>,
    definite: Option<Literals>,
    contradictions: Option<BTreeSet<String>>,
}

impl<'de> serde::Deserialize<'de> for Atom {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Atom, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Atom;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an Integer or a name")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Atom, E> {
                Ok(Atom::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Atom, E> {
                i64::try_from(v).map(Atom::Int).map_err(|_| E::custom(format!("{v} is not an Integer")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Atom, E> {
                Ok(Atom::Name(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Atom, E> {
                Ok(Atom::Name(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Side {
    /// A ruling line read: its `case` value and what it says. A line that is neither a ruling
    /// nor an error line (not JSON, missing keys) is an `Err`.
    ///
    /// Only `case`, `error`, `concluded`, `definite` and `contradictions` are read into memory;
    /// explanations and any other key are skipped as they are parsed.
    pub fn from_line(line: &str) -> Result<(Value, Side), String> {
        let l: LineDe = serde_json::from_str(line).map_err(|e| format!("not a ruling line ({e}): {line:.200}"))?;
        l.side()
    }

    /// What a ruling line's object says.
    pub fn from_value(v: &Value) -> Result<Side, String> {
        let l = <LineDe as serde::Deserialize>::deserialize(v).map_err(|e| format!("not a ruling line ({e})"))?;
        l.side().map(|(_, side)| side)
    }

    fn concluded(&self) -> Option<&Literals> {
        match self {
            Side::Ruled(r) => Some(&r.concluded),
            Side::Error(_) => None,
        }
    }
}

impl LineDe {
    fn side(self) -> Result<(Value, Side), String> {
        let l = self;
        // A line with an `error` is an error line, whatever else it holds.
        if let Some(e) = l.error {
            return Ok((l.case, Side::Error(e.as_str().map_or_else(|| e.to_string(), str::to_string))));
        }
        let (Some(concluded), Some(definite), Some(contradictions)) = (l.concluded, l.definite, l.contradictions)
        else {
            return Err("not a ruling line (no `concluded`, `definite` or `contradictions`)".to_string());
        };
        let nonempty = |mut m: Literals| {
            m.retain(|_, t| !t.is_empty());
            m
        };
        let ruling = Ruling { concluded: nonempty(concluded), definite: nonempty(definite), contradictions };
        Ok((l.case, Side::Ruled(ruling)))
    }
}

/// Whether NEW's side differs from OLD's, and if so the concluded literals NEW gains and loses.
///
/// Two rulings differ when their `concluded`, `definite` or `contradictions` differ. An error
/// differs from a ruling (the ruling's concluded literals are then all added, or all removed)
/// and from another error message; the same error on both sides is no change.
pub fn compare(old: &Side, new: &Side) -> Option<Change> {
    if old == new {
        return None;
    }
    let empty = Literals::new();
    let (o, n) = (old.concluded().unwrap_or(&empty), new.concluded().unwrap_or(&empty));
    Some(Change { added: minus(n, o), removed: minus(o, n) })
}

/// The literals of `a` that `b` lacks.
fn minus(a: &Literals, b: &Literals) -> Literals {
    let mut out = Literals::new();
    for (key, tuples) in a {
        let rest: BTreeSet<Vec<Atom>> = match b.get(key) {
            Some(other) => tuples.difference(other).cloned().collect(),
            None => tuples.clone(),
        };
        if !rest.is_empty() {
            out.insert(key.clone(), rest);
        }
    }
    out
}

/// `literals` as a ruling's `concluded` writes them: `{"name":[[a,b],..],..}`, keys and tuples
/// sorted.
pub fn literals_json(literals: &Literals) -> Value {
    let mut m = Map::new();
    for (key, tuples) in literals {
        let rows = tuples.iter().map(|t| Value::Array(t.iter().map(Atom::json).collect())).collect();
        m.insert(key.clone(), Value::Array(rows));
    }
    Value::Object(m)
}

/// The ruling line `line` as the object a diff line carries: everything but its `case`, kept as
/// the ruler wrote it (key order, explanations) when the line starts with its `case` as ruling
/// lines do, else re-written.
fn without_case(line: &str) -> String {
    if let Some(rest) = line.strip_prefix("{\"case\":") {
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde::de::IgnoredAny>();
        if let Some(Ok(_)) = values.next() {
            let after = &rest[values.byte_offset()..];
            if let Some(tail) = after.strip_prefix(',') {
                return format!("{{{tail}");
            }
            if after == "}" {
                return "{}".to_string();
            }
        }
    }
    let mut v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("case");
    }
    v.to_string()
}

/// What [`diff_lines`] found for one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The diff line (without `\n`) when the rulings differ:
    /// `{"case":C,"old":RULING,"new":RULING,"added":{..},"removed":{..}}`, each RULING the
    /// ruling line's object without `case`, as its ruler wrote it.
    pub line: Option<String>,
    /// Whether OLD rejected the case (wrote an error line).
    pub old_rejected: bool,
    /// Whether NEW rejected the case.
    pub new_rejected: bool,
    /// The relations (by name, without `~`) whose `concluded` or `definite` literals differ
    /// ([`differing_relations`]); empty when the rulings do not differ.
    pub relations: BTreeSet<String>,
}

/// The relations (by name, without `~`) whose `concluded` or `definite` literals differ between
/// `old` and `new`: every relation the ruled side has when the other is an error line, none
/// between two error lines. A contradiction `name(a,b)` that only one side lists counts for the
/// relation named before its first `(`.
pub fn differing_relations(old: &Side, new: &Side) -> BTreeSet<String> {
    let empty = Ruling::default();
    let (o, n) = match (old, new) {
        (Side::Ruled(o), Side::Ruled(n)) => (o, n),
        (Side::Ruled(o), Side::Error(_)) => (o, &empty),
        (Side::Error(_), Side::Ruled(n)) => (&empty, n),
        (Side::Error(_), Side::Error(_)) => return BTreeSet::new(),
    };
    let mut out = BTreeSet::new();
    for (a, b) in [(&o.concluded, &n.concluded), (&o.definite, &n.definite)] {
        for key in a.keys().chain(b.keys()) {
            if a.get(key) != b.get(key) {
                out.insert(key.strip_prefix('~').unwrap_or(key).to_string());
            }
        }
    }
    for c in o.contradictions.symmetric_difference(&n.contradictions) {
        out.insert(c.split('(').next().unwrap_or_default().to_string());
    }
    out
}

/// Compares the ruling lines OLD and NEW wrote for one case (see [`Compared`]). `Err` when a
/// line is not a ruling line.
pub fn diff_lines(old_line: &str, new_line: &str) -> Result<Compared, String> {
    let (case, old) = Side::from_line(old_line).map_err(|e| format!("OLD: {e}"))?;
    let (_, new) = Side::from_line(new_line).map_err(|e| format!("NEW: {e}"))?;
    let line = compare(&old, &new).map(|change| {
        format!(
            "{{\"case\":{case},\"old\":{},\"new\":{},\"added\":{},\"removed\":{}}}",
            without_case(old_line),
            without_case(new_line),
            literals_json(&change.added),
            literals_json(&change.removed)
        )
    });
    let rejected = |s: &Side| matches!(s, Side::Error(_));
    let relations = if line.is_some() { differing_relations(&old, &new) } else { BTreeSet::new() };
    Ok(Compared { line, old_rejected: rejected(&old), new_rejected: rejected(&new), relations })
}

/// Rules `lines` (case lines, as `clir rule` reads them) with both packages and compares:
/// per line, `None` when its rulings do not differ, else its diff line (as [`Compared::line`]).
/// The packages need not number their relations alike. `Err` only if a ruling line does not
/// read back (a bug).
pub fn rulings(
    old: &dyn Package,
    new: &dyn Package,
    lines: &[Line],
    opts: &Options,
) -> Result<Vec<Option<String>>, String> {
    let (old_lines, _) = rule_chunk(old, &Catalog::new(old.schema()), lines, opts);
    let (new_lines, _) = rule_chunk(new, &Catalog::new(new.schema()), lines, opts);
    old_lines.iter().zip(&new_lines).map(|(o, n)| diff_lines(o, n).map(|c| c.line)).collect()
}

/// The relations of one version that the other lacks, by name: `(only in OLD, only in NEW)`,
/// each sorted. A relation of the same name is the same relation for a diff, whatever its
/// index, kind or parameters.
pub fn relations_only_in<'a>(old: &[&'a str], new: &[&'a str]) -> (Vec<&'a str>, Vec<&'a str>) {
    let (o, n): (BTreeSet<&str>, BTreeSet<&str>) = (old.iter().copied().collect(), new.iter().copied().collect());
    (o.difference(&n).copied().collect(), n.difference(&o).copied().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ParamInfo, RelationInfo};
    use crate::Batch;

    const G: &[ParamInfo] = &[ParamInfo::entity("game", "Game")];
    const GN: &[ParamInfo] = &[ParamInfo::entity("game", "Game"), ParamInfo::integer("n")];

    fn schema(relations: &'static [RelationInfo]) -> Schema {
        Schema {
            package: "demo.diff",
            version: "0.1.0",
            seal: "",
            in_force: None,
            until: None,
            relations,
            constants: &[],
            fragments: &[],
            rules: &[],
            priorities: &[],
            closures: &[],
            texts: crate::schema::Texts::new(&[], &[]),
        }
    }

    /// OLD numbers `drawn` 0 and `score` 1; NEW puts a new relation first and `drawn` last.
    static OLD: &[RelationInfo] = &[RelationInfo::institutional("drawn", G), RelationInfo::institutional("score", GN)];
    static NEW: &[RelationInfo] = &[
        RelationInfo::empirical("moves", GN),
        RelationInfo::institutional("score", GN),
        RelationInfo::institutional("drawn", G),
    ];

    #[test]
    fn outputs_compare_by_relation_name_not_index() {
        let (old_s, new_s) = (schema(OLD), schema(NEW));
        // The same two cases in each package's own batch: entities interned in another order.
        let mut old_b = Batch::new(&old_s);
        let (a, b) = (old_b.entity("a").0 as i64, old_b.entity("b").0 as i64);
        let mut new_b = Batch::new(&new_s);
        let (b2, a2) = (new_b.entity("b").0 as i64, new_b.entity("a").0 as i64);
        let mut old_out = Output::new(2);
        old_out.concluded[slot(0, false)] = vec![0, a, 1, b];
        old_out.definite[slot(0, false)] = vec![0, a, 1, b];
        old_out.concluded[slot(1, false)] = vec![0, a, 3];
        let mut new_out = Output::new(3);
        new_out.concluded[slot(2, false)] = vec![0, a2, 1, b2];
        new_out.definite[slot(2, false)] = vec![0, a2];
        new_out.concluded[slot(1, false)] = vec![0, a2, 3, 1, b2, 7];
        let side = |s: &Schema, b: &Batch, o: &Output, c| Side::Ruled(Ruling::of_case(s, &b.interner, o, CaseId(c)));
        // Case 0: the same ruling under both numberings.
        assert_eq!(compare(&side(&old_s, &old_b, &old_out, 0), &side(&new_s, &new_b, &new_out, 0)), None);
        // Case 1: NEW gains score(b,7) and `drawn(b)` is no longer definite.
        let change = compare(&side(&old_s, &old_b, &old_out, 1), &side(&new_s, &new_b, &new_out, 1)).unwrap();
        assert_eq!(literals_json(&change.added), serde_json::json!({"score": [["b", 7]]}));
        assert!(change.removed.is_empty());
        assert_eq!(relations_only_in(&["drawn", "score"], &["moves", "score", "drawn"]), (vec![], vec!["moves"]));
    }

    #[test]
    fn a_ruling_differs_by_concluded_definite_or_contradictions_never_by_explanations() {
        let line = |c: &str, d: &str, x: &str, extra: &str| {
            format!(r#"{{"case":"g","concluded":{c},"definite":{d},"contradictions":{x}{extra}}}"#)
        };
        let base = line(r#"{"p":[["g",2],["g",10]]}"#, "{}", "[]", "");
        // Tuples and keys in another order, explanations and why_not added: no change.
        let same = line(r#"{"p":[["g",10],["g",2]]}"#, "{}", "[]", r#","explanations":{"p(g,2)":{}}"#);
        assert_eq!(diff_lines(&base, &same).unwrap().line, None);
        for other in [
            line(r#"{"p":[["g",2],["g",10]]}"#, r#"{"p":[["g",2]]}"#, "[]", ""),
            line(r#"{"p":[["g",2],["g",10]]}"#, "{}", r#"["q(g)"]"#, ""),
        ] {
            let c = diff_lines(&base, &other).unwrap();
            let d: Value = serde_json::from_str(c.line.as_deref().unwrap()).unwrap();
            assert_eq!((&d["added"], &d["removed"]), (&serde_json::json!({}), &serde_json::json!({})), "{d}");
            assert_eq!(c.relations.len(), 1, "{d}: {:?}", c.relations);
        }
        let fewer = line(r#"{"p":[["g",2]],"~q":[["g"]]}"#, "{}", "[]", r#","explanations":{}"#);
        let d = diff_lines(&base, &fewer).unwrap().line.unwrap();
        assert_eq!(
            d,
            format!(
                r#"{{"case":"g","old":{},"new":{},"added":{{"~q":[["g"]]}},"removed":{{"p":[["g",10]]}}}}"#,
                format_args!("{{{}", &base[12..]),
                format_args!("{{{}", &fewer[12..])
            )
        );
    }

    #[test]
    fn errors_differ_unless_the_same() {
        let err = |m: &str| format!(r#"{{"case":null,"error":"{m}"}}"#);
        let ruled = r#"{"case":null,"concluded":{"p":[[1]]},"definite":{},"contradictions":[]}"#;
        let same = diff_lines(&err("line 1: x"), &err("line 1: x")).unwrap();
        assert_eq!(same, Compared { line: None, old_rejected: true, new_rejected: true, relations: BTreeSet::new() });
        let two = diff_lines(&err("line 1: x"), &err("line 1: y")).unwrap();
        assert!(two.relations.is_empty(), "two error lines differ in no relation");
        let d = two.line.unwrap();
        assert_eq!(
            d,
            r#"{"case":null,"old":{"error":"line 1: x"},"new":{"error":"line 1: y"},"added":{},"removed":{}}"#
        );
        let c = diff_lines(&err("e"), ruled).unwrap();
        assert!(c.old_rejected && !c.new_rejected);
        assert_eq!(c.relations, BTreeSet::from(["p".to_string()]), "every relation of the ruled side");
        let d: Value = serde_json::from_str(&c.line.unwrap()).unwrap();
        assert_eq!((&d["added"], &d["removed"]), (&serde_json::json!({"p": [[1]]}), &serde_json::json!({})));
        assert!(diff_lines("not json", ruled).is_err());
        assert!(diff_lines(r#"{"case":1}"#, ruled).is_err());
    }
}
