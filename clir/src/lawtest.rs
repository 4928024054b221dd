//! Law test files (`clir test`): the worked rulings a rules team keeps beside its package, one
//! JSON object a line, each a case with what its ruling must and must not hold.
//!
//! ```json
//! {"case":"mate","facts":{"checkmate_delivered":[["g","w"]]},"expect":{"concluded":["game_won_by(g,w)"],"not_concluded":["game_drawn(g)"],"decided_by":{"game_won_by(g,w)":"urn:fide:laws:clir:chess#CheckmateWins"}}}
//! ```
//!
//! A test line is a case line (`case`, `facts`) with `expect` and, optionally, `grants` (the
//! capabilities its case is ruled under, as `--grant` gives them to `clir rule`). `expect` holds
//! any of: `concluded` and `not_concluded` (literals expected `+d` or not), `definite` and
//! `not_definite` (`+D` or not), `decided_by` (a concluded literal and the id of the rule its
//! explanation must name), and `error` (the case must be rejected, its error containing this
//! text). Literals are written as `why_not` and `contradictions` write them: `name(a,b)`,
//! `~name(a,b)` for a negative. Each test line yields one report line, in order:
//! `{"case":..,"line":..,"outcome":"passed"}`, or `"failed"` with `failures`, each naming what
//! was expected, of which literal, and what the ruling held; a failure about a literal carries
//! the case's why-not answer for it (`why_not`, as a ruling's `why_not` writes it: the rules for
//! the literal and what stopped each, or the explanation of a literal held).

use crate::batch::entity_text;
use crate::jsonl::{rule_chunk, Catalog, Options};
use crate::runner::{next_line, MAX_LINE_BYTES};
use crate::Package;
use serde_json::{json, Map, Value};
use std::io::{self, BufRead, Write};

/// What a run of a test file found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Test lines read (blank lines are not tests).
    pub tests: usize,
    /// Those that failed, or could not be read.
    pub failed: usize,
}

/// The expectations a test line may hold, in the order its failures are reported.
const EXPECTATIONS: [&str; 6] = ["error", "concluded", "not_concluded", "definite", "not_definite", "decided_by"];

/// Runs every test line of `input` against `pkg`, writing one report line a test line to `out`.
pub fn run(pkg: &dyn Package, input: impl BufRead, out: &mut impl Write) -> io::Result<Summary> {
    run_counting(pkg, input, out, None)
}

/// [`run`], adding the coverage of the cases ruled to `coverage` when given (`--coverage`).
pub fn run_counting(
    pkg: &dyn Package,
    mut input: impl BufRead,
    out: &mut impl Write,
    coverage: Option<&crate::coverage::Shared>,
) -> io::Result<Summary> {
    let cat = Catalog::new(pkg.schema());
    let mut summary = Summary::default();
    let (mut buf, mut no) = (Vec::new(), 0usize);
    while let Some(line) = next_line(&mut input, &mut buf, MAX_LINE_BYTES)? {
        no += 1;
        if line.trim().is_empty() {
            continue;
        }
        summary.tests += 1;
        let (case, failures) = match test_line(pkg, &cat, no, &line, coverage) {
            Ok(found) => found,
            Err((case, why)) => (case, vec![json!({ "error": why })]),
        };
        let mut report = json!({ "case": case, "line": no, "outcome": "passed" });
        if !failures.is_empty() {
            summary.failed += 1;
            report["outcome"] = json!("failed");
            report["failures"] = Value::Array(failures);
        }
        writeln!(out, "{report}")?;
    }
    Ok(summary)
}

/// Rules test line `no` and checks it: its case value and its failures, or why it is no test.
fn test_line(
    pkg: &dyn Package,
    cat: &Catalog,
    no: usize,
    line: &str,
    coverage: Option<&crate::coverage::Shared>,
) -> Result<(Value, Vec<Value>), (Value, String)> {
    if let Some(why) = crate::jsonl::unreadable_reason(line) {
        return Err((Value::Null, why.to_string()));
    }
    let mut obj: Map<String, Value> = match serde_json::from_str::<Strict>(line).map(|s| s.0) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err((Value::Null, "a test line is a JSON object".into())),
        Err(e) if e.is_data() => return Err((Value::Null, e.to_string())),
        Err(e) => return Err((Value::Null, format!("not JSON: {e}"))),
    };
    let case = obj.get("case").cloned().unwrap_or(Value::Null);
    let fail = |why: String| Err((case.clone(), why));
    let expect = match obj.remove("expect") {
        Some(Value::Object(e)) => e,
        Some(_) => return fail("`expect` is an object".into()),
        None => return fail("a test line has `expect` (what its ruling must hold)".into()),
    };
    if let Some(k) = expect.keys().find(|k| !EXPECTATIONS.contains(&k.as_str())) {
        return fail(format!("unknown expectation `{k}` (one of {})", EXPECTATIONS.join(", ")));
    }
    let grants = match obj.remove("grants") {
        None => Vec::new(),
        Some(Value::Array(g)) if g.iter().all(Value::is_string) => {
            g.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
        }
        Some(_) => return fail("`grants` is a list of capabilities (`judgment:AUTHORITY`)".into()),
    };
    if let Err(why) = pkg.schema().check_grants(&grants) {
        return fail(why);
    }
    let decided_by = match expect.get("decided_by") {
        None => Map::new(),
        Some(Value::Object(d)) if d.values().all(Value::is_string) => d.clone(),
        Some(_) => return fail("`decided_by` maps a literal to a rule id".into()),
    };
    let opts = Options {
        grants,
        explain: !decided_by.is_empty(),
        coverage: coverage.cloned(),
        granted_by: crate::jsonl::GrantedBy::TestLine,
        ..Default::default()
    };
    let case_line = Value::Object(obj.clone()).to_string();
    let (ruled, _) = rule_chunk(pkg, cat, &[(no, case_line)], &opts);
    let ruling: Value = ruled.first().and_then(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    let mut failures = Vec::new();
    let error = ruling.get("error").and_then(Value::as_str);
    match (expect.get("error"), error) {
        (Some(Value::String(want)), Some(got)) if got.contains(want.as_str()) => return Ok((case, failures)),
        (Some(Value::String(want)), got) => {
            failures.push(json!({ "expected": "error", "text": want, "got": got.unwrap_or("the case was ruled") }));
            return Ok((case, failures));
        }
        (Some(_), _) => return fail("`error` is a text the case's error must contain".into()),
        (None, Some(got)) => {
            failures.push(json!({ "expected": "a ruling", "got": got }));
            return Ok((case, failures));
        }
        (None, None) => {}
    }
    for (kind, section, wanted) in [
        ("concluded", "concluded", true),
        ("not_concluded", "concluded", false),
        ("definite", "definite", true),
        ("not_definite", "definite", false),
    ] {
        let Some(listed) = expect.get(kind) else { continue };
        let Some(listed) = listed.as_array().filter(|l| l.iter().all(Value::is_string)) else {
            return fail(format!("`{kind}` is a list of literals (`name(a,b)`)"));
        };
        let held = literals(&ruling[section]);
        for lit in listed.iter().filter_map(Value::as_str) {
            let lit = canonical(cat, lit).map_err(|why| (case.clone(), why))?;
            if held.contains(&lit) != wanted {
                let got = if wanted { format!("not {section}") } else { section.to_string() };
                failures.push(json!({ "expected": kind, "literal": lit, "got": got }));
            }
        }
    }
    for (lit, rule) in &decided_by {
        let lit = canonical(cat, lit).map_err(|why| (case.clone(), why))?;
        let got =
            ruling["explanations"][&lit]["rule"].as_str().map_or("not concluded".into(), |r| format!("decided by {r}"));
        if ruling["explanations"][&lit]["rule"].as_str() != rule.as_str() {
            failures.push(json!({ "expected": "decided_by", "literal": lit, "rule": rule, "got": got }));
        }
    }
    why_not(pkg, cat, no, obj, &opts, &mut failures);
    Ok((case, failures))
}

/// Adds to each failure about a literal the case's why-not answer for it (`why_not`): the rules
/// for it with the premise, comparison or attack that stopped each, or the explanation of a
/// literal held that was not expected. The case is ruled again, asking for them.
fn why_not(
    pkg: &dyn Package,
    cat: &Catalog,
    no: usize,
    mut case: Map<String, Value>,
    opts: &Options,
    failures: &mut [Value],
) {
    let mut asked: Vec<Value> = Vec::new();
    for lit in failures.iter().filter_map(|f| f.get("literal")) {
        if !asked.contains(lit) {
            asked.push(lit.clone());
        }
    }
    if asked.is_empty() {
        return;
    }
    case.insert("why_not".into(), Value::Array(asked));
    let (ruled, _) = rule_chunk(pkg, cat, &[(no, Value::Object(case).to_string())], opts);
    let Some(answers) = ruled.first().and_then(|l| serde_json::from_str::<Value>(l).ok()) else { return };
    for f in failures.iter_mut() {
        let Some(lit) = f.get("literal").and_then(Value::as_str).map(str::to_string) else { continue };
        if let Some(answer) = answers["why_not"].get(&lit) {
            f["why_not"] = answer.clone();
        }
    }
}

/// A JSON value read strictly: an object that holds a key twice is refused, wherever it is
/// (`expect`, one expectation, `facts`, the `case` value). serde_json keeps the last of two, so
/// `"expect":{"concluded":["x(a)"],"concluded":[]}` would pass whatever the ruling holds.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if obj.contains_key(&key) {
                let shown = Value::String(key).to_string();
                return Err(serde::de::Error::custom(format!(
                    "the key {shown} is written twice in one object (a test line holds each key once)"
                )));
            }
            obj.insert(key, v);
        }
        Ok(Value::Object(obj))
    }
}

/// The literals of a ruling's `concluded` or `definite` object, written as `why_not` writes them.
fn literals(section: &Value) -> Vec<String> {
    let Some(rels) = section.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    for (key, tuples) in rels {
        for t in tuples.as_array().into_iter().flatten() {
            let args: Vec<String> = t.as_array().into_iter().flatten().map(value_text).collect();
            out.push(format!("{key}({})", args.join(",")));
        }
    }
    out
}

/// A ruling's value as a written literal holds it.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => entity_text(s).into_owned(),
        other => other.to_string(),
    }
}

/// Literal `text` (`name(a,b)`, `~name(a,b)`, names bare or as JSON strings) written as the
/// ruling writes it, after checking its relation and arity against the package.
fn canonical(cat: &Catalog, text: &str) -> Result<String, String> {
    let bad = |why: &str| format!("`{text}` is not a literal ({why})");
    let t = text.trim();
    let (sign, rest) = t.strip_prefix('~').map_or(("", t), |r| ("~", r.trim_start()));
    let open = rest.find('(').ok_or_else(|| bad("no `(`"))?;
    let inner = rest[open + 1..].strip_suffix(')').ok_or_else(|| bad("no closing `)`"))?;
    let name = rest[..open].trim();
    let rel = cat
        .schema()
        .relations
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("unknown relation `{name}` in `{text}`{}", cat.did_you_mean(name)))?;
    let mut args = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let (arg, after) = if rest.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
            let s = stream.next().and_then(Result::ok).ok_or_else(|| bad("a quoted name does not end"))?;
            (entity_text(&s).into_owned(), &rest[stream.byte_offset()..])
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let word = rest[..end].trim();
            let arg = word.parse::<i64>().map_or_else(|_| word.to_string(), |i| i.to_string());
            (arg, &rest[end..])
        };
        args.push(arg);
        let after = after.trim_start();
        rest = match after.strip_prefix(',') {
            Some(r) => r.trim_start(),
            None if after.is_empty() => after,
            None => return Err(bad("arguments are separated by `,`")),
        };
    }
    if args.len() != rel.params.len() {
        return Err(format!("relation `{name}` takes {} arguments, `{text}` gives {}", rel.params.len(), args.len()));
    }
    Ok(format!("{sign}{name}({})", args.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ruling_is_read_as_literals_written_alike() {
        let section = json!({"game_won_by": [["g", "w"]], "~game_drawn": [["a b"]], "count": [["p", 3]]});
        let mut got = literals(&section);
        got.sort();
        assert_eq!(got, ["count(p,3)", "game_won_by(g,w)", "~game_drawn(\"a b\")"]);
        assert_eq!(value_text(&json!("x,y")), "\"x,y\"");
    }
}
