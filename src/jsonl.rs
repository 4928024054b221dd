//! Cases in and rulings out as JSON Lines (CONTRACT.md), for any compiled package.

use crate::batch::{literal_string, slot, Batch, Output};
use crate::schema::{RelationKind, Schema};
use crate::value::{CaseId, Sym};
use crate::Package;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;

/// What a ruling run accepts beyond the facts.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Capabilities granted (`judgment:AUTHORITY`).
    pub grants: Vec<String>,
    /// Attach explanations to every concluded literal.
    pub explain: bool,
}

/// An input line: `(line number from 1, text)`.
pub type Line = (usize, String);

/// Lookup tables of a schema, built once per run.
pub struct Catalog {
    schema: &'static Schema,
    relations: HashMap<&'static str, usize>,
    constants: HashMap<(&'static str, &'static str), u32>,
}

impl Catalog {
    /// Indexes `schema`.
    pub fn new(schema: &'static Schema) -> Self {
        let relations = schema.relations.iter().enumerate().map(|(i, r)| (r.name, i)).collect();
        let constants = schema
            .constants
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.ty, c.name), i as u32))
            .collect();
        Catalog { schema, relations, constants }
    }

    /// The schema indexed.
    pub fn schema(&self) -> &'static Schema {
        self.schema
    }
}

/// One case read from a line, before interning.
struct ReadCase {
    case: Value,
    facts: Vec<(String, Value)>,
}

struct Facts(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Facts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Facts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of relation names to lists of tuples")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Facts, A::Error> {
                let mut out: Vec<(String, Value)> = Vec::new();
                while let Some(k) = m.next_key::<String>()? {
                    if out.iter().any(|(x, _)| *x == k) {
                        return Err(de::Error::custom(format!("duplicate key `{k}` in `facts`")));
                    }
                    out.push((k, m.next_value()?));
                }
                Ok(Facts(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for ReadCase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ReadCase;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a case object {\"case\":..., \"facts\":{...}}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ReadCase, A::Error> {
                let mut case: Option<Value> = None;
                let mut facts: Option<Facts> = None;
                while let Some(k) = m.next_key::<String>()? {
                    match k.as_str() {
                        "case" if case.is_none() => case = Some(m.next_value()?),
                        "facts" if facts.is_none() => facts = Some(m.next_value()?),
                        "case" | "facts" => return Err(de::Error::custom(format!("duplicate key `{k}`"))),
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown key `{other}` (a case has only `case` and `facts`)"
                            )))
                        }
                    }
                }
                let case = case.ok_or_else(|| de::Error::custom("missing key `case`"))?;
                let facts = facts.ok_or_else(|| de::Error::custom("missing key `facts`"))?;
                Ok(ReadCase { case, facts: facts.0 })
            }
        }
        d.deserialize_map(V)
    }
}

/// Adds one parsed case to `batch`, or says why the line is an error line.
fn add_case(cat: &Catalog, batch: &mut Batch, read: &ReadCase, opts: &Options) -> Result<CaseId, String> {
    // Validate everything before touching the batch, so an error leaves no fact behind.
    let mut rows: Vec<(usize, bool, Vec<Result<i64, String>>)> = Vec::new();
    for (key, tuples) in &read.facts {
        let (negative, name) = match key.strip_prefix('~') {
            Some(n) => (true, n),
            None => (false, key.as_str()),
        };
        let Some(&rel) = cat.relations.get(name) else {
            return Err(format!("unknown relation `{name}`"));
        };
        let info = &cat.schema.relations[rel];
        match info.kind {
            RelationKind::Institutional => {
                return Err(format!(
                    "relation `{name}` is institutional: it is derived by rules and cannot be given as input"
                ))
            }
            RelationKind::Judgment => {
                let cap = info.capability.unwrap_or("");
                if !opts.grants.iter().any(|g| g == cap) {
                    return Err(format!(
                        "relation `{name}` is a judgment reserved to capability `{cap}`; it is accepted only with --grant {cap}"
                    ));
                }
            }
            RelationKind::Empirical => {}
        }
        let signature = || {
            info.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect::<Vec<_>>().join(", ")
        };
        let Value::Array(list) = tuples else {
            return Err(format!("relation `{key}`: expected a list of tuples"));
        };
        for t in list {
            let Value::Array(args) = t else {
                return Err(format!("relation `{key}`: each tuple must be a list of arguments, got {t}"));
            };
            if args.len() != info.params.len() {
                return Err(format!(
                    "relation `{name}` takes {} argument{} ({}), got {}",
                    info.params.len(),
                    if info.params.len() == 1 { "" } else { "s" },
                    signature(),
                    args.len()
                ));
            }
            let mut vals = Vec::with_capacity(args.len());
            for (a, p) in args.iter().zip(info.params) {
                if p.integer {
                    match a.as_i64() {
                        Some(i) => vals.push(Ok(i)),
                        None => {
                            return Err(format!(
                                "relation `{name}`: argument `{}` is an Integer, got {a}",
                                p.name
                            ))
                        }
                    }
                } else {
                    match a.as_str() {
                        Some(s) => match cat.constants.get(&(p.ty, s)) {
                            Some(&c) => vals.push(Ok(c as i64)),
                            None => vals.push(Err(s.to_string())),
                        },
                        None => {
                            return Err(format!(
                                "relation `{name}`: argument `{}` is a `{}` entity (a string), got {a}",
                                p.name, p.ty
                            ))
                        }
                    }
                }
            }
            rows.push((rel, negative, vals));
        }
    }
    let case = batch.add_case();
    let mut flat = Vec::new();
    for (rel, negative, vals) in rows {
        flat.clear();
        for v in vals {
            flat.push(match v {
                Ok(i) => i,
                Err(name) => batch.entity(&name).0 as i64,
            });
        }
        batch.push(case, rel, negative, &flat);
    }
    Ok(case)
}

fn read_line(line: &str) -> Result<ReadCase, (Value, String)> {
    match serde_json::from_str::<ReadCase>(line) {
        Ok(r) => Ok(r),
        Err(e) => {
            // Recover the case name for the error line when the JSON itself is readable.
            let case = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("case").cloned())
                .unwrap_or(Value::Null);
            Err((case, e.to_string()))
        }
    }
}

/// Rules a chunk of lines as one batch; returns exactly one output line per input line, in
/// order, and how many of them are error lines.
pub fn rule_chunk(pkg: &dyn Package, cat: &Catalog, lines: &[Line], opts: &Options) -> (Vec<String>, usize) {
    let mut batch = Batch::new(cat.schema);
    batch.explain = opts.explain;
    let mut slots: Vec<Result<(Value, CaseId), String>> = Vec::with_capacity(lines.len());
    for (no, text) in lines {
        let r = match read_line(text) {
            Ok(read) => match add_case(cat, &mut batch, &read, opts) {
                Ok(id) => Ok((read.case, id)),
                Err(msg) => Err(error_line(&read.case, *no, &msg)),
            },
            Err((case, msg)) => Err(error_line(&case, *no, &msg)),
        };
        slots.push(r);
    }
    let output = if batch.cases > 0 { pkg.evaluate(&batch) } else { Output::default() };
    let rendered = render(cat.schema, &batch, &output);
    let mut errors = 0;
    let out = slots
        .into_iter()
        .map(|s| match s {
            Ok((case, id)) => {
                let (concluded, definite, contradictions) = &rendered[id.0 as usize];
                let mut o = Map::new();
                o.insert("case".into(), case);
                o.insert("concluded".into(), Value::Object(concluded.clone()));
                o.insert("definite".into(), Value::Object(definite.clone()));
                o.insert("contradictions".into(), Value::Array(contradictions.iter().cloned().map(Value::String).collect()));
                if opts.explain {
                    let ex = crate::explain::explain_case(cat.schema, &batch, &output, id.0);
                    o.insert("explanations".into(), Value::Object(ex));
                    return ordered(&o, &["case", "concluded", "definite", "contradictions", "explanations"]);
                }
                ordered(&o, &["case", "concluded", "definite", "contradictions"])
            }
            Err(line) => {
                errors += 1;
                line
            }
        })
        .collect();
    (out, errors)
}

fn error_line(case: &Value, no: usize, msg: &str) -> String {
    let mut o = Map::new();
    o.insert("case".into(), case.clone());
    o.insert("error".into(), Value::String(format!("line {no}: {msg}")));
    ordered(&o, &["case", "error"])
}

/// Writes an object with its keys in the given order (CONTRACT.md's order).
fn ordered(o: &Map<String, Value>, keys: &[&str]) -> String {
    let mut s = String::from("{");
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&Value::String(k.to_string()).to_string());
        s.push(':');
        s.push_str(&o.get(*k).cloned().unwrap_or(Value::Null).to_string());
    }
    s.push('}');
    s
}

type Rendered = (Map<String, Value>, Map<String, Value>, Vec<String>);

/// Per case: `concluded`, `definite` and `contradictions` as JSON.
fn render(schema: &Schema, batch: &Batch, out: &Output) -> Vec<Rendered> {
    let n = batch.cases as usize;
    let mut result: Vec<Rendered> = (0..n).map(|_| (Map::new(), Map::new(), Vec::new())).collect();
    let value = |p: &crate::schema::ParamInfo, v: i64| -> Value {
        if p.integer {
            Value::from(v)
        } else {
            Value::String(batch.interner.name(Sym(v as u32)).to_string())
        }
    };
    for (rel, info) in schema.relations.iter().enumerate() {
        let stride = info.params.len() + 1;
        if info.kind == RelationKind::Institutional {
            for neg in [false, true] {
                let key = format!("{}{}", if neg { "~" } else { "" }, info.name);
                for (layer, rows) in [(0, &out.concluded), (1, &out.definite)] {
                    let Some(rows) = rows.get(slot(rel, neg)) else { continue };
                    let mut per_case: Vec<Vec<Vec<Value>>> = Vec::new();
                    for row in rows.chunks_exact(stride) {
                        let c = row[0] as usize;
                        if per_case.len() <= c {
                            per_case.resize(c + 1, Vec::new());
                        }
                        per_case[c].push(info.params.iter().zip(&row[1..]).map(|(p, &v)| value(p, v)).collect());
                    }
                    for (c, mut tuples) in per_case.into_iter().enumerate() {
                        if tuples.is_empty() || c >= n {
                            continue;
                        }
                        tuples.sort_by(|a, b| cmp_tuple(a, b));
                        let arr = Value::Array(tuples.into_iter().map(Value::Array).collect());
                        let target = if layer == 0 { &mut result[c].0 } else { &mut result[c].1 };
                        target.insert(key.clone(), arr);
                    }
                }
            }
        }
        if let Some(rows) = out.contradictions.get(rel) {
            for row in rows.chunks_exact(stride) {
                if let Some(r) = result.get_mut(row[0] as usize) {
                    r.2.push(literal_string(info, &batch.interner, &row[1..]));
                }
            }
        }
    }
    for r in &mut result {
        r.2.sort();
    }
    result
}

/// Tuple order of rulings: element-wise; Integers before entities, Integers numerically,
/// entity names by their bytes.
pub fn cmp_tuple(a: &[Value], b: &[Value]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Value::Number(p), Value::Number(q)) => p.as_i64().cmp(&q.as_i64()),
            (Value::Number(_), _) => std::cmp::Ordering::Less,
            (_, Value::Number(_)) => std::cmp::Ordering::Greater,
            (Value::String(p), Value::String(q)) => p.as_bytes().cmp(q.as_bytes()),
            _ => std::cmp::Ordering::Equal,
        };
        if o != std::cmp::Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}
