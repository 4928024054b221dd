//! Writing ruling lines: straight from the output's sorted rows, a case's conclusions, then the
//! parts a line may add (warnings, why-not answers, explanations, the certificate) before the
//! object closes; and the error line of a line that gets no ruling.

use super::read::{Catalog, ExplainForm, Options};
use super::text::{json_str, push_json};
use crate::batch::{literal_string, slot, Batch, Output};
use crate::schema::Schema;
use crate::value::{CaseId, Sym};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// A ruling's `why_not` object: the answers to `batch.why_not[asked]`, a concluded literal with
/// its explanation from `explanations` (an input fact's is the fact itself).
pub(crate) fn why_not_entries(
    schema: &Schema,
    batch: &Batch,
    output: &Output,
    asked: std::ops::Range<usize>,
    explanations: &serde_json::Map<String, Value>,
) -> Value {
    let mut entries = serde_json::Map::new();
    let unknown = &batch.why_not_unknown;
    let mut u = unknown.partition_point(|(i, _)| *i < asked.start);
    for (k, (a, answer)) in
        batch.why_not[asked.clone()].iter().zip(output.why_not.get(asked.clone()).into_iter().flatten()).enumerate()
    {
        let index = asked.start + k;
        let names: Vec<&str> = unknown[u..].iter().take_while(|(i, _)| *i == index).map(|(_, n)| n.as_str()).collect();
        u += names.len();
        if !names.is_empty() && !answer.concluded {
            // About an entity the case does not have: that is the reason, not every rule's premises.
            let reasons: Vec<Value> =
                names.iter().map(|n| serde_json::json!({"kind": "unknown_entity", "entity": n})).collect();
            entries.insert(answer.literal.clone(), serde_json::json!({"concluded": false, "reasons": reasons}));
            continue;
        }
        // Explanations name their literals as `concluded` does (`batch::literal_string`); the
        // why-not answer writes an entity named `_` or holding an unseen character quoted.
        let key = format!(
            "{}{}",
            if a.negative { "~" } else { "" },
            literal_string(&schema.relations[a.rel as usize], &batch.interner, &a.args)
        );
        let explanation = explanations.get(&key).cloned().or_else(|| {
            let row = a.row();
            let given = batch.facts[slot(a.rel as usize, a.negative)].chunks_exact(row.len()).any(|r| r == row);
            given.then(|| serde_json::json!({"literal": answer.literal, "definite": true, "fact": "input"}))
        });
        entries.insert(answer.literal.clone(), answer.to_json(schema, explanation));
    }
    // A package compiled without explanations answers nothing.
    let answered = output.why_not.len().saturating_sub(asked.start);
    for a in batch.why_not[asked].iter().skip(answered) {
        let args: Vec<Option<i64>> = a.args.iter().map(|&v| Some(v)).collect();
        let literal = crate::why_not::literal_text(schema, &batch.interner, a.rel as usize, a.negative, &args);
        let unavailable = "the package was compiled without explanations (clir compile --no-explanations)";
        entries.insert(literal, serde_json::json!({"concluded": null, "unavailable": unavailable}));
    }
    Value::Object(entries)
}

/// The `case` value of a line, as its ruling line echoes it.
pub(super) enum CaseValue<'a> {
    /// A string without escapes or control characters, borrowed from the line.
    Name(&'a str),
    /// Any JSON value, as compact JSON text.
    Json(String),
}

impl CaseValue<'_> {
    /// Appends the value as JSON text.
    fn write(&self, out: &mut String) {
        match self {
            CaseValue::Name(name) => {
                out.push('"');
                out.push_str(name);
                out.push('"');
            }
            CaseValue::Json(v) => out.push_str(v),
        }
    }

    /// The value as JSON text.
    pub(super) fn json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// The error line of docs/FORMAT.md ("Ruling lines") for the line numbered `no`:
/// `{"case":CASE,"error":"line N: msg"}`, `case` being the case value as compact JSON text (`null` when the line has none).
pub fn error_line(case: &str, no: usize, msg: &str) -> String {
    let mut s = String::from("{\"case\":");
    s.push_str(case);
    s.push_str(",\"error\":");
    json_str(&mut s, &format!("line {no}: {msg}"));
    s.push('}');
    s
}

/// Rows of a slot, in case order (copied and sorted only when they are not).
pub(crate) fn by_case(rows: &[i64], stride: usize) -> Cow<'_, [i64]> {
    let sorted = rows.chunks_exact(stride).zip(rows.chunks_exact(stride).skip(1)).all(|(a, b)| a[0] <= b[0]);
    if sorted {
        Cow::Borrowed(rows)
    } else {
        let mut v: Vec<&[i64]> = rows.chunks_exact(stride).collect();
        v.sort_by_key(|r| r[0]);
        Cow::Owned(v.concat())
    }
}

/// Per case of a batch, the parts of some lists of rows that hold its rows: the list and the
/// range of its offsets, in list order. Built in one pass over the rows, so writing a case
/// costs its own rows, not one look at every list.
struct ByCase {
    /// Per case, where its parts start in `parts` (and, one past, where they end).
    start: Vec<u32>,
    /// `(list, first row offset, end offset)`.
    parts: Vec<(u32, u32, u32)>,
}

impl ByCase {
    /// `lists` of `(rows in case order, stride)` for a batch of `cases` cases: the parts of
    /// each case counted in one pass over the lists, then put in place in a second, so that
    /// nothing is gathered and sorted in between.
    fn new<'r>(cases: usize, lists: impl Iterator<Item = (&'r [i64], usize)> + Clone) -> Self {
        let mut start = vec![0u32; cases + 1];
        // A row of no case of the batch (none is) would be left out, not fail the batch.
        for (rows, stride) in lists.clone() {
            for_each_run(rows, stride, |case, _, _| {
                if case < cases {
                    start[case + 1] += 1;
                }
            });
        }
        for c in 0..cases {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let mut parts = vec![(0, 0, 0); start[cases] as usize];
        for (k, (rows, stride)) in lists.enumerate() {
            for_each_run(rows, stride, |case, from, to| {
                if case < cases {
                    parts[next[case] as usize] = (k as u32, from as u32, to as u32);
                    next[case] += 1;
                }
            });
        }
        ByCase { start, parts }
    }

    /// The parts of `case`.
    fn of(&self, case: usize) -> &[(u32, u32, u32)] {
        match (self.start.get(case), self.start.get(case + 1)) {
            (Some(&a), Some(&b)) => &self.parts[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Calls `f(case, from, to)` for each run of rows of one case in `rows` (rows of `stride` values,
/// their case first, in case order): the offsets of its first row and past its last.
fn for_each_run(rows: &[i64], stride: usize, mut f: impl FnMut(usize, usize, usize)) {
    let mut at = 0;
    while at < rows.len() {
        let (case, from) = (rows[at], at);
        while at < rows.len() && rows[at] == case {
            at += stride.max(1);
        }
        f(case as usize, from, at);
    }
}

/// The offsets of the arguments of the rows at `range` of `rows` (rows of `stride` values,
/// their case first, of a relation of `params`) into `tuples`, in the order a ruling lists
/// them: element-wise, Integers numerically, entity names by their bytes ([`cmp_tuple`]).
pub(crate) fn tuple_order(
    cat: &Catalog,
    interner: &crate::value::Interner,
    params: &[crate::schema::ParamInfo],
    rows: &[i64],
    stride: usize,
    range: std::ops::Range<usize>,
    tuples: &mut Vec<usize>,
) {
    let arity = stride - 1;
    tuples.clear();
    tuples.extend(range.step_by(stride.max(1)).map(|t| t + 1));
    if tuples.len() > 1 {
        let rank = &cat.constant_rank;
        tuples.sort_by(|&a, &b| {
            for ((x, y), p) in rows[a..a + arity].iter().zip(&rows[b..b + arity]).zip(params) {
                let o = if p.integer || x == y {
                    x.cmp(y)
                } else if let (Some(x), Some(y)) = (rank.get(*x as usize), rank.get(*y as usize)) {
                    x.cmp(y)
                } else {
                    interner.name(Sym(*x as u32)).as_bytes().cmp(interner.name(Sym(*y as u32)).as_bytes())
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }
}

/// What a ruling line adds to its case's conclusions.
pub(super) struct Parts<'a> {
    /// The case's warnings, in order.
    pub warnings: &'a [(CaseId, String)],
    /// The case's asked literals, as a range of `batch.why_not`.
    pub asked: Option<std::ops::Range<usize>>,
    /// The case line as read (what a certificate hashes).
    pub line: &'a str,
}

/// Writes the ruling lines of a batch.
pub(super) struct Writer<'b> {
    cat: &'b Catalog,
    batch: &'b Batch,
    output: &'b Output,
    opts: &'b Options,
    /// Per key of `cat.keys`: its stride and its concluded and definite rows in case order.
    layers: Vec<(usize, [Cow<'b, [i64]>; 2])>,
    /// The concluded and definite rows of each case.
    by_case: [ByCase; 2],
    /// Per relation: contradiction rows, in case order.
    contradictions: Vec<Cow<'b, [i64]>>,
    contradicted: ByCase,
    /// Offsets of the current case's rows in a slot.
    tuples: Vec<usize>,
    /// The current case's concluded keys as written: key, its text in the line, its rows.
    written: Vec<(u32, std::ops::Range<usize>, std::ops::Range<usize>)>,
    literals: Vec<String>,
    /// Every name of the batch's interner as a JSON string, quoted and escaped once a name
    /// rather than once a tuple, one after another.
    quoted: String,
    /// Where each name ends in `quoted`, by id.
    quoted_ends: Vec<usize>,
}

impl<'b> Writer<'b> {
    pub(super) fn new(cat: &'b Catalog, batch: &'b Batch, out: &'b Output, opts: &'b Options) -> Self {
        let rows =
            |v: &'b Vec<Vec<i64>>, s: usize, stride: usize| by_case(v.get(s).map_or(&[][..], |r| &r[..]), stride);
        let layers: Vec<(usize, [Cow<'b, [i64]>; 2])> = cat
            .keys
            .iter()
            .map(|&(s, _)| {
                let stride = cat.schema.relations[s / 2].params.len() + 1;
                (stride, [rows(&out.concluded, s, stride), rows(&out.definite, s, stride)])
            })
            .collect();
        let cases = batch.cases as usize;
        let by_case = [0, 1].map(|l| ByCase::new(cases, layers.iter().map(|(stride, r)| (&r[l][..], *stride))));
        let contradictions: Vec<Cow<'b, [i64]>> = cat
            .schema
            .relations
            .iter()
            .enumerate()
            .map(|(r, info)| rows(&out.contradictions, r, info.params.len() + 1))
            .collect();
        let strides = cat.schema.relations.iter().map(|info| info.params.len() + 1);
        let contradicted = ByCase::new(cases, contradictions.iter().map(|r| &r[..]).zip(strides));
        let (mut quoted, mut quoted_ends) = (String::new(), Vec::with_capacity(batch.interner.len()));
        for i in 0..batch.interner.len() {
            json_str(&mut quoted, batch.interner.name(Sym(i as u32)));
            quoted_ends.push(quoted.len());
        }
        Writer {
            cat,
            batch,
            output: out,
            opts,
            layers,
            by_case,
            contradictions,
            contradicted,
            tuples: Vec::new(),
            written: Vec::new(),
            literals: Vec::new(),
            quoted,
            quoted_ends,
        }
    }

    /// Name `sym` as a JSON string.
    fn quoted(&self, sym: i64) -> &str {
        let id = sym as usize;
        match self.quoted_ends.get(id) {
            Some(&end) => &self.quoted[if id == 0 { 0 } else { self.quoted_ends[id - 1] }..end],
            None => "\"<unknown>\"",
        }
    }

    /// Appends key `k` of `layer` (0 concluded, 1 definite) with its tuples at offsets
    /// `from..to` of its rows, in tuple order: `"key":[[..],..]`.
    fn part(&mut self, out: &mut String, layer: usize, k: usize, from: usize, to: usize) {
        let interner = &self.batch.interner;
        let (stride, layers) = &self.layers[k];
        let rows: &[i64] = &layers[layer];
        let (slot, key) = &self.cat.keys[k];
        let params = self.cat.schema.relations[slot / 2].params;
        let arity = *stride - 1;
        tuple_order(self.cat, interner, params, rows, *stride, from..to, &mut self.tuples);
        out.push_str(key);
        // A case's list of a key is never empty: its rows are why it is written.
        for (i, &t) in self.tuples.iter().enumerate() {
            out.push_str(if i == 0 { "[[" } else { "],[" });
            for (j, (v, p)) in rows[t..t + arity].iter().zip(params).enumerate() {
                if j > 0 {
                    out.push(',');
                }
                if p.integer {
                    out.push_str(itoa::Buffer::new().format(*v));
                } else {
                    out.push_str(self.quoted(*v));
                }
            }
        }
        out.push_str("]]");
    }

    /// Appends the ruling line of case `id`, ended by `\n`: its conclusions
    /// ([`Self::conclusions`]), then the parts a line may add, in this order: its warnings, the
    /// answers to its `why_not`, its explanations (with `--explain`) and its certificate (with
    /// `--certify`); then the object closes.
    pub(super) fn ruling_line(&mut self, out: &mut String, case: &CaseValue, id: u32, parts: Parts<'_>) {
        self.conclusions(out, case, id);
        if !parts.warnings.is_empty() {
            let warnings: Vec<&str> = parts.warnings.iter().map(|(_, w)| w.as_str()).collect();
            out.push_str(",\"warnings\":");
            out.push_str(&serde_json::to_string(&warnings).unwrap_or_default());
        }
        let (schema, batch, output, opts) = (self.cat.schema, self.batch, self.output, self.opts);
        if opts.explain || parts.asked.is_some() {
            let full = opts.explain && opts.explain_form == ExplainForm::Full;
            let ex = if full || parts.asked.is_some() {
                crate::explain::explain_case(schema, batch, output, id)
            } else {
                serde_json::Map::new()
            };
            if let Some(range) = parts.asked {
                out.push_str(",\"why_not\":");
                push_json(out, &why_not_entries(schema, batch, output, range, &ex));
            }
            if full {
                out.push_str(",\"explanations\":");
                push_json(out, &ex);
            } else if opts.explain {
                out.push_str(",\"derivations\":");
                push_json(out, &crate::explain::explain_case_refs(schema, batch, output, id));
            }
        }
        if opts.certify {
            out.push_str(",\"certificate\":");
            push_json(out, &crate::certificate::certificate(schema, batch, output, id, parts.line));
        }
        out.push_str("}\n");
    }

    /// Appends the conclusions of case `id`: its `case`, `concluded`, `definite` and
    /// `contradictions`, leaving the object open.
    fn conclusions(&mut self, out: &mut String, case: &CaseValue, id: u32) {
        out.push_str("{\"case\":");
        case.write(out);
        // The concluded keys written, in key order: `(key, text in out, rows)`. A definite key
        // listing the same rows as its concluded one (+D mostly is +d) copies its text.
        self.written.clear();
        for (layer, name) in [(0, ",\"concluded\":{"), (1, "},\"definite\":{")] {
            out.push_str(name);
            let mut concluded = 0;
            for i in 0..self.by_case[layer].of(id as usize).len() {
                if i > 0 {
                    out.push(',');
                }
                let (k, from, to) = self.by_case[layer].of(id as usize)[i];
                let (from, to) = (from as usize, to as usize);
                if layer == 1 {
                    while self.written.get(concluded).is_some_and(|w| w.0 < k) {
                        concluded += 1;
                    }
                    if let Some((_, text, rows)) = self.written.get(concluded).filter(|w| w.0 == k) {
                        let (concluded_rows, definite_rows) =
                            (&self.layers[k as usize].1[0], &self.layers[k as usize].1[1]);
                        if concluded_rows[rows.clone()] == definite_rows[from..to] {
                            out.extend_from_within(text.clone());
                            continue;
                        }
                    }
                }
                let start = out.len();
                self.part(out, layer, k as usize, from, to);
                if layer == 0 {
                    self.written.push((k, start..out.len(), from..to));
                }
            }
        }
        out.push_str("},\"contradictions\":[");
        self.literals.clear();
        for &(r, from, to) in self.contradicted.of(id as usize) {
            let info = &self.cat.schema.relations[r as usize];
            let rows = &self.contradictions[r as usize];
            for row in rows[from as usize..to as usize].chunks_exact(info.params.len() + 1) {
                self.literals.push(literal_string(info, &self.batch.interner, &row[1..]));
            }
        }
        self.literals.sort();
        for (i, l) in self.literals.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_str(out, l);
        }
        out.push(']');
    }
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

#[cfg(test)]
mod tests {
    use super::{cmp_tuple, Batch, ByCase, CaseValue, Catalog, Options, Output, Parts, Writer};
    use crate::schema::{ConstantInfo, ParamInfo, RelationInfo, Schema};
    use proptest::prelude::*;
    use serde_json::Value;

    /// A line that adds nothing to its conclusions.
    const NO_PARTS: Parts<'static> = Parts { warnings: &[], asked: None, line: "" };

    proptest! {
        /// The parts of each case are those a look at every list finds: per list in order, the
        /// offsets of its rows of that case; rows of no case of the batch are in no part.
        #[test]
        fn by_case_finds_each_case_rows_in_every_list(
            lists in prop::collection::vec((prop::collection::vec((0i64..7, any::<i64>()), 0..12), 1usize..3), 0..6),
            cases in 0usize..6,
        ) {
            // Rows of `stride` values, their case first, in case order.
            let flat: Vec<(Vec<i64>, usize)> = lists
                .into_iter()
                .map(|(mut rows, stride)| {
                    rows.sort_by_key(|r| r.0);
                    (rows.iter().flat_map(|&(c, v)| std::iter::once(c).chain(std::iter::repeat_n(v, stride - 1))).collect(), stride)
                })
                .collect();
            let index = ByCase::new(cases, flat.iter().map(|(rows, stride)| (&rows[..], *stride)));
            for case in 0..cases + 2 {
                let mut want = Vec::new();
                for (k, (rows, stride)) in flat.iter().enumerate() {
                    let at: Vec<usize> = (0..rows.len()).step_by(*stride).filter(|&i| rows[i] == case as i64).collect();
                    if let (Some(&from), Some(&last), true) = (at.first(), at.last(), case < cases) {
                        want.push((k as u32, from as u32, (last + stride) as u32));
                    }
                }
                prop_assert_eq!(index.of(case), &want[..]);
            }
        }
    }

    static WON: Schema = Schema {
        package: "test.writer",
        version: "1",
        seal: "",
        in_force: None,
        until: None,
        relations: &[
            RelationInfo::institutional(
                "won",
                &[ParamInfo::entity("game", "Game"), ParamInfo::entity("s", "State"), ParamInfo::integer("n")],
            ),
            RelationInfo::institutional("drawn", &[ParamInfo::entity("game", "Game")]),
        ],
        // Declared out of byte order, as packages declare them.
        constants: &[
            ConstantInfo::new("Playing", "State"),
            ConstantInfo::new("Ended", "State"),
            ConstantInfo::new("Open", "State"),
        ],
        fragments: &[],
        rules: &[],
        priorities: &[],
        closures: &[],
        texts: crate::schema::Texts::new(&[], &[]),
    };

    proptest! {
        /// A ruling lists a relation's tuples in [`cmp_tuple`]'s order, whatever the ids of their
        /// names: constants (ranked once by the catalog) and other names, mixed in a column.
        #[test]
        fn a_ruling_lists_tuples_in_name_order(tuples in prop::collection::btree_set((0usize..3, 0usize..6, -2i64..2), 1..12)) {
            let cat = Catalog::new(&WON);
            let mut batch = Batch::new(&WON);
            let case = batch.add_case();
            let names = ["g2", "g10", "Playing", "Ended", "Open", "Ajar", "Zed"];
            let mut rows = Vec::new();
            for &(g, st, n) in &tuples {
                rows.extend([case.0 as i64, batch.entity(names[g]).0 as i64, batch.entity(names[2 + st.min(4)]).0 as i64, n]);
            }
            let mut sorted: Vec<[i64; 4]> = rows.chunks_exact(4).map(|r| [r[0], r[1], r[2], r[3]]).collect();
            sorted.sort();
            sorted.dedup();
            let mut output = Output::new(2);
            output.concluded[0] = sorted.concat();
            let mut out = String::new();
            let opts = Options::default();
            Writer::new(&cat, &batch, &output, &opts).ruling_line(&mut out, &CaseValue::Name("c"), case.0, NO_PARTS);
            let ruling: Value = serde_json::from_str(&out).unwrap();
            let listed = ruling["concluded"]["won"].as_array().unwrap().clone();
            let mut expected: Vec<Vec<Value>> = listed.iter().map(|t| t.as_array().unwrap().clone()).collect();
            expected.sort_by(|a, b| cmp_tuple(a, b));
            prop_assert_eq!(listed.len(), sorted.len());
            prop_assert_eq!(Value::from(listed), Value::from(expected));
        }

        /// Each case's `concluded` and `definite` objects list exactly that layer's rows of the
        /// case, whether a definite key lists what its concluded key does (its text is then
        /// copied) or less.
        #[test]
        fn each_layer_lists_its_own_rows(rows in prop::collection::vec((0u32..2, 0usize..4, 0usize..3, 0usize..2, 0u8..4), 0..24)) {
            let cat = Catalog::new(&WON);
            let mut batch = Batch::new(&WON);
            let cases = [batch.add_case(), batch.add_case()];
            let names = ["g1", "Playing", "Ended", "Open"];
            let mut output = Output::new(2);
            // Per case, per layer: the expected object.
            let mut expected = vec![[serde_json::Map::new(), serde_json::Map::new()]; 2];
            let mut flat: Vec<Vec<Vec<Vec<i64>>>> = vec![vec![Vec::new(); 4]; 2];
            for &(case, name, state, rel, layers) in &rows {
                let row = if rel == 0 {
                    vec![case as i64, batch.entity(names[name]).0 as i64, batch.entity(names[1 + state]).0 as i64, 7]
                } else {
                    vec![case as i64, batch.entity(names[name]).0 as i64]
                };
                // Layers: 1 concluded only, 2 or 3 both (+D is within +d); 0 neither.
                for (layer, slots) in flat.iter_mut().enumerate() {
                    if layers >= 2 || (layers == 1 && layer == 0) {
                        slots[rel * 2].push(row.clone());
                    }
                }
            }
            for (layer, slots) in flat.iter_mut().enumerate() {
                for (slot, list) in slots.iter_mut().enumerate() {
                    list.sort();
                    list.dedup();
                    let target = if layer == 0 { &mut output.concluded[slot] } else { &mut output.definite[slot] };
                    *target = list.concat();
                    let key = if slot == 0 { "won" } else { "drawn" };
                    for row in list.iter() {
                        let tuple: Vec<Value> = row[1..].iter().enumerate().map(|(i, &v)| if slot == 0 && i == 2 { Value::from(v) } else { Value::from(batch.interner.name(crate::Sym(v as u32))) }).collect();
                        let listed = expected[row[0] as usize][layer].entry(key).or_insert_with(|| Value::Array(Vec::new()));
                        listed.as_array_mut().unwrap().push(Value::from(tuple));
                    }
                }
            }
            for per_case in expected.iter_mut() {
                for object in per_case.iter_mut() {
                    for listed in object.values_mut() {
                        let mut tuples: Vec<Vec<Value>> = listed.as_array().unwrap().iter().map(|t| t.as_array().unwrap().clone()).collect();
                        tuples.sort_by(|a, b| cmp_tuple(a, b));
                        *listed = Value::from(tuples);
                    }
                }
            }
            let opts = Options::default();
            let mut writer = Writer::new(&cat, &batch, &output, &opts);
            for case in cases {
                let mut out = String::new();
                writer.ruling_line(&mut out, &CaseValue::Name("c"), case.0, NO_PARTS);
                let ruling: Value = serde_json::from_str(&out).unwrap();
                let [concluded, definite] = &expected[case.0 as usize];
                prop_assert_eq!(&ruling["concluded"], &Value::Object(concluded.clone()));
                prop_assert_eq!(&ruling["definite"], &Value::Object(definite.clone()));
            }
        }
    }
}
