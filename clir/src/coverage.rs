//! Coverage by rule, article and priority over the cases of a run (`clir rule --coverage FILE`,
//! `clir test --coverage FILE`): which rules a set of cases exercises, which exceptions it
//! reaches, which priorities decide, and which rules it never applies (docs/DECISIONS.md 48).
//!
//! Counted from the ground rule instances the generated code reports (`Batch::explain`), in the
//! terms of docs/SEMANTICS.md §4: an instance is *applicable* when its body holds; it is
//! *attacked* when some applicable rule (defeaters included) has the complement of its head; it
//! is *beaten* when one of those attackers is ranked above it by a priority, and it *beats* when
//! it is ranked above one of them.

use crate::batch::{slot, Output};
use crate::explain::Source;
use crate::schema::Schema;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// A coverage the ruler threads of one run add their batches to.
pub type Shared = std::sync::Arc<std::sync::Mutex<Coverage>>;

/// What one rule did over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleCounts {
    /// Applicable ground instances (body held).
    pub applicable: u64,
    /// Ground instances over definite premises (a strict rule deriving `+D`).
    pub definite: u64,
    /// Applicable instances whose head was concluded (`+d`).
    pub concluded: u64,
    /// Applicable instances attacked by an applicable rule for the complement.
    pub attacked: u64,
    /// Applicable instances an attacker ranked above them by a priority.
    pub beaten: u64,
    /// Applicable instances ranked above one of their attackers.
    pub beat: u64,
}

impl RuleCounts {
    fn add(&mut self, other: &RuleCounts) {
        self.applicable += other.applicable;
        self.definite += other.definite;
        self.concluded += other.concluded;
        self.attacked += other.attacked;
        self.beaten += other.beaten;
        self.beat += other.beat;
    }

    fn json(&self) -> Value {
        json!({
            "applicable": self.applicable, "definite": self.definite, "concluded": self.concluded,
            "attacked": self.attacked, "beaten": self.beaten, "beat": self.beat,
        })
    }
}

/// Coverage of one package over the cases ruled so far; [`Coverage::merge`] adds another's.
#[derive(Debug, Clone)]
pub struct Coverage {
    schema: &'static Schema,
    /// Cases counted.
    pub cases: u64,
    /// Per rule, in the schema's order.
    pub rules: Vec<RuleCounts>,
    /// Per priority: the times its higher rule beat an applicable instance of its lower one.
    pub priorities: Vec<u64>,
    /// Per closure: the negatives it derived.
    pub closures: Vec<u64>,
    /// The priority ranking `(higher, lower)` rules, by index in the schema's priorities.
    ranked: HashMap<(u32, u32), usize>,
}

/// A ground literal of one case: `(case, relation, negative, arguments)`.
type Lit<'a> = (u32, u32, bool, &'a [i64]);

impl Coverage {
    /// Nothing counted yet, for the package `schema` describes.
    pub fn new(schema: &'static Schema) -> Coverage {
        Coverage {
            schema,
            cases: 0,
            rules: vec![RuleCounts::default(); schema.rules.len()],
            priorities: vec![0; schema.priorities.len()],
            closures: vec![0; schema.closures.len()],
            ranked: schema.priorities.iter().enumerate().map(|(i, p)| ((p.higher, p.lower), i)).collect(),
        }
    }

    /// Counts the `cases` cases of one evaluated batch, whose output holds its instances.
    pub fn add(&mut self, out: &Output, cases: u64) {
        self.cases += cases;
        let schema = self.schema;
        // The applicable rules per ground head.
        let mut heads: HashMap<Lit, Vec<u32>> = HashMap::new();
        for i in &out.instances {
            match i.source {
                Source::Rule { rule, definite: false } => {
                    heads.entry((i.case, i.rel, i.negative, &i.head)).or_default().push(rule)
                }
                Source::Rule { rule, definite: true } => self.rules[rule as usize].definite += 1,
                Source::Closure { closure } => self.closures[closure as usize] += 1,
            }
        }
        let mut concluded: HashSet<Lit> = HashSet::new();
        for (rel, info) in schema.relations.iter().enumerate() {
            for negative in [false, true] {
                let rows = out.concluded.get(slot(rel, negative)).map(Vec::as_slice).unwrap_or(&[]);
                for r in rows.chunks_exact(info.params.len() + 1) {
                    concluded.insert((r[0] as u32, rel as u32, negative, &r[1..]));
                }
            }
        }
        for (&(case, rel, negative, args), rules) in &heads {
            let attackers = heads.get(&(case, rel, !negative, args)).map(Vec::as_slice).unwrap_or(&[]);
            let head_concluded = concluded.contains(&(case, rel, negative, args));
            for &rule in rules {
                let c = &mut self.rules[rule as usize];
                c.applicable += 1;
                c.concluded += u64::from(head_concluded && schema.rules[rule as usize].strength != "defeater");
                c.attacked += u64::from(!attackers.is_empty());
                c.beaten += u64::from(attackers.iter().any(|&a| self.ranked.contains_key(&(a, rule))));
                let beats: Vec<usize> =
                    attackers.iter().filter_map(|&a| self.ranked.get(&(rule, a)).copied()).collect();
                c.beat += u64::from(!beats.is_empty());
                for p in beats {
                    self.priorities[p] += 1;
                }
            }
        }
    }

    /// An empty coverage of `schema`'s package, for the ruler threads of a run to share.
    pub fn shared(schema: &'static Schema) -> Shared {
        std::sync::Arc::new(std::sync::Mutex::new(Coverage::new(schema)))
    }

    /// Adds the counts of `other`, of the same package.
    pub fn merge(&mut self, other: &Coverage) {
        self.cases += other.cases;
        for (a, b) in self.rules.iter_mut().zip(&other.rules) {
            a.add(b);
        }
        for (a, b) in self.priorities.iter_mut().zip(&other.priorities) {
            *a += b;
        }
        for (a, b) in self.closures.iter_mut().zip(&other.closures) {
            *a += b;
        }
    }

    /// The coverage document (docs/FORMAT.md, "Coverage"): per rule, per article (the rules
    /// resting on each fragment, and the unanchored ones under `null`), per priority and per
    /// closure, and the rules never applied.
    pub fn to_json(&self) -> Value {
        let s = self.schema;
        let applied = |c: &RuleCounts| c.applicable + c.definite > 0;
        let rules: Vec<Value> = s
            .rules
            .iter()
            .zip(&self.rules)
            .map(|(r, c)| {
                let mut v = c.json();
                let articles: Vec<&str> = r.anchors.iter().map(|&f| s.fragments[f as usize].locator).collect();
                let m = v.as_object_mut().expect("an object");
                m.insert("rule".into(), json!(r.id));
                m.insert("strength".into(), json!(r.strength));
                m.insert("articles".into(), json!(articles));
                v
            })
            .collect();
        // Per fragment in the schema's order, then the unanchored rules.
        let mut groups: Vec<(Option<&str>, Vec<usize>)> =
            s.fragments.iter().map(|f| (Some(f.locator), Vec::new())).collect();
        groups.push((None, Vec::new()));
        for (i, r) in s.rules.iter().enumerate() {
            if r.anchors.is_empty() {
                groups.last_mut().expect("the unanchored group").1.push(i);
            }
            for &f in r.anchors {
                groups[f as usize].1.push(i);
            }
        }
        let articles: Vec<Value> = groups
            .iter()
            .filter(|(_, rules)| !rules.is_empty())
            .map(|(locator, rules)| {
                let mut total = RuleCounts::default();
                for &i in rules {
                    total.add(&self.rules[i]);
                }
                let mut v = total.json();
                let m = v.as_object_mut().expect("an object");
                m.insert("article".into(), json!(locator));
                m.insert("rules".into(), json!(rules.len()));
                m.insert("rules_applied".into(), json!(rules.iter().filter(|&&i| applied(&self.rules[i])).count()));
                v
            })
            .collect();
        let priorities: Vec<Value> = s
            .priorities
            .iter()
            .zip(&self.priorities)
            .map(|(p, n)| {
                json!({"priority": p.id, "higher": s.rules[p.higher as usize].id,
                       "lower": s.rules[p.lower as usize].id, "decided": n})
            })
            .collect();
        let closures: Vec<Value> =
            s.closures.iter().zip(&self.closures).map(|(c, n)| json!({"closure": c.id, "derived": n})).collect();
        let never: Vec<&str> =
            s.rules.iter().zip(&self.rules).filter(|(_, c)| !applied(c)).map(|(r, _)| r.id).collect();
        json!({
            "package": s.package, "version": s.version, "seal": s.seal, "cases": self.cases,
            "rules": rules, "articles": articles, "priorities": priorities, "closures": closures,
            "never_applied": never,
        })
    }
}

/// A count of a coverage document: a non-negative integer within `u64`.
#[derive(Default)]
struct Count;

impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a count (a non-negative integer of at most 18446744073709551615)")
            }
            fn visit_u64<E>(self, _: u64) -> Result<Count, E> {
                Ok(Count)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Count, E> {
                u64::try_from(v).map(|_| Count).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Count, E> {
                // serde_json reads an integer beyond u64 (1e30, 18446744073709551616) as a float.
                Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

/// The counts of one entry of `rules`, `articles` (whose `rules` is a count), `priorities` or
/// `closures`, and of the document (`cases`); other keys are not looked at here.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
#[allow(dead_code)] // read for their checks only
struct Counts {
    cases: Count,
    rules: Count,
    rules_applied: Count,
    applicable: Count,
    definite: Count,
    concluded: Count,
    attacked: Count,
    beaten: Count,
    beat: Count,
    decided: Count,
    derived: Count,
}

/// The counts of a coverage document, each checked as it is read.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
#[allow(dead_code)] // read for their checks only
struct DocumentCounts {
    cases: Count,
    rules: Vec<Counts>,
    articles: Vec<Counts>,
    priorities: Vec<Counts>,
    closures: Vec<Counts>,
}

/// Checks every count of the coverage document `json` (its text, as `clir coverage` reads it):
/// each is a non-negative integer within `u64`. A count of -1, 1.5, 1e30 or `"3"` is an error
/// naming its line (the document is written one count a line), never shown as 0 by [`table`].
pub fn check_counts(json: &[u8]) -> Result<(), String> {
    match serde_json::from_slice::<DocumentCounts>(json) {
        Ok(_) => Ok(()),
        Err(e) => {
            let full = e.to_string();
            let at = format!(" at line {} column {}", e.line(), e.column());
            let why = full.strip_suffix(&at).unwrap_or(&full);
            Err(format!("line {}: {why}", e.line()))
        }
    }
}

/// The coverage document `doc` ([`Coverage::to_json`]) as a table for people: per article, then
/// per rule, then priorities and the rules never applied.
pub fn table(doc: &Value) -> String {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let list = |k: &str| doc.get(k).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("(unanchored)").to_string();
    let mut out = format!(
        "{} {}: {} cases\n\n{:<28} {:>6} {:>8} {:>11} {:>10} {:>9} {:>7}\n",
        text(doc, "package"),
        text(doc, "version"),
        n(doc, "cases"),
        "article",
        "rules",
        "applied",
        "applicable",
        "concluded",
        "attacked",
        "beaten"
    );
    for a in list("articles") {
        out.push_str(&format!(
            "{:<28} {:>6} {:>8} {:>11} {:>10} {:>9} {:>7}\n",
            text(a, "article"),
            n(a, "rules"),
            n(a, "rules_applied"),
            n(a, "applicable"),
            n(a, "concluded"),
            n(a, "attacked"),
            n(a, "beaten")
        ));
    }
    out.push_str(&format!(
        "\n{:<44} {:>11} {:>9} {:>10} {:>9} {:>7} {:>5}\n",
        "rule", "applicable", "definite", "concluded", "attacked", "beaten", "beat"
    ));
    for r in list("rules") {
        let id = text(r, "rule");
        let short = id.rsplit('#').next().unwrap_or(&id);
        out.push_str(&format!(
            "{:<44} {:>11} {:>9} {:>10} {:>9} {:>7} {:>5}\n",
            short,
            n(r, "applicable"),
            n(r, "definite"),
            n(r, "concluded"),
            n(r, "attacked"),
            n(r, "beaten"),
            n(r, "beat")
        ));
    }
    for p in list("priorities") {
        out.push_str(&format!("\npriority {}: decided {} times", text(p, "priority"), n(p, "decided")));
    }
    let never: Vec<String> = list("never_applied").iter().filter_map(Value::as_str).map(str::to_string).collect();
    out.push_str(&format!("\n\nnever applied ({}): {}\n", never.len(), never.join(", ")));
    out
}
