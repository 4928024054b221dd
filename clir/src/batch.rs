//! Batches of cases in the flat form generated code evaluates, and their results.

pub use crate::schema::slot;
use crate::schema::{RelationInfo, Schema};
use crate::value::{CaseId, Fact, Interner, Row, Sym};
use datafrog::Relation;

/// The facts of a batch of cases: per relation and sign, rows `[case, arg..]` flattened.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Names of the batch's entities (constants first).
    pub interner: Interner,
    /// Number of cases.
    pub cases: u32,
    /// `facts[slot(rel, neg)]`: rows of `1 + arity` values.
    pub facts: Vec<Vec<i64>>,
    /// Also compute the rule instances explanations are made of.
    pub explain: bool,
    /// The literals cases ask why-not about, answered in [`Output::why_not`] in this order.
    pub why_not: Vec<crate::reason::Asked>,
    /// What reading the cases noted without rejecting them (a name that is none of the declared
    /// constants of its column's type), per case, in reading order.
    pub warnings: Vec<(CaseId, String)>,
    /// Per asked literal that names entities its case's facts never mention: its index in
    /// [`Batch::why_not`] and such a name, in index order. Its answer says so instead of
    /// listing every rule's premises about an entity the case does not have.
    pub why_not_unknown: Vec<(usize, String)>,
    /// At most this many tuples derived by the joins of each case (`None`: no bound); a case
    /// past it is listed in [`Output::over_budget`] (`--max-case-tuples`, docs/SECURITY.md).
    pub max_case_tuples: Option<u64>,
}

impl Batch {
    /// An empty batch for a package.
    pub fn new(schema: &Schema) -> Self {
        Batch {
            interner: Interner::with_constants(&schema.constant_names()),
            cases: 0,
            facts: vec![Vec::new(); schema.relations.len() * 2],
            explain: false,
            why_not: Vec::new(),
            warnings: Vec::new(),
            why_not_unknown: Vec::new(),
            max_case_tuples: None,
        }
    }

    /// Starts a new case and returns its id.
    pub fn add_case(&mut self) -> CaseId {
        self.cases += 1;
        CaseId(self.cases - 1)
    }

    /// Adds a fact of relation `rel` to `case`; `args` are flat column values.
    pub fn push(&mut self, case: CaseId, rel: usize, negative: bool, args: &[i64]) {
        let rows = &mut self.facts[slot(rel, negative)];
        rows.push(case.0 as i64);
        rows.extend_from_slice(args);
    }

    /// The id of entity `name`.
    pub fn entity(&mut self, name: &str) -> Sym {
        self.interner.intern(name)
    }

    /// Adds the fact `fact` (its case first) of relation `rel` with sign `negative`.
    pub fn add<T: Fact>(&mut self, rel: usize, negative: bool, fact: T) {
        fact.push_flat(&mut self.facts[slot(rel, negative)]);
    }

    /// The input facts of relation `rel` with sign `negative`, as a sorted relation of tuples.
    ///
    /// Rows come case by case (cases are read in order), each case's in the order it gave
    /// them: each case's few rows are sorted on their own, which leaves the whole sorted, to be
    /// checked rather than sorted again (a sort of the batch allocates room for half of it).
    /// Rows in any other order are still sorted whole.
    pub fn input<T: Fact>(&self, rel: usize, negative: bool) -> Relation<T> {
        let rows = &self.facts[slot(rel, negative)];
        let mut tuples: Vec<T> = Vec::with_capacity(rows.len() / (T::ARITY + 1));
        let (mut case, mut from) = (None, 0);
        for row in rows.chunks_exact(T::ARITY + 1) {
            if case != Some(row[0]) {
                tuples[from..].sort_unstable();
                (case, from) = (Some(row[0]), tuples.len());
            }
            tuples.push(T::from_flat_row(row));
        }
        tuples[from..].sort_unstable();
        if !tuples.is_sorted() {
            tuples.sort_unstable();
        }
        tuples.dedup();
        Relation { elements: tuples }
    }

    /// Rows of a relation and sign, typed, with their case.
    pub fn rows(&self, rel: usize, negative: bool, arity: usize) -> impl Iterator<Item = (CaseId, &[i64])> + '_ {
        self.facts[slot(rel, negative)].chunks_exact(arity + 1).map(|r| (CaseId(r[0] as u32), &r[1..]))
    }
}

/// What a batch concluded, in flat rows `[case, arg..]` sorted by case.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// `+d` tuples per `slot(rel, neg)` (institutional relations).
    pub concluded: Vec<Vec<i64>>,
    /// `+D` tuples per `slot(rel, neg)` (institutional relations).
    pub definite: Vec<Vec<i64>>,
    /// Per relation: tuples whose both signs are `+D`.
    pub contradictions: Vec<Vec<i64>>,
    /// With `Batch::explain` (or a why-not asked): every rule instance and closure negative.
    pub instances: Vec<crate::instance::Instance>,
    /// The answer to each of [`Batch::why_not`], in order (empty for a package compiled
    /// without explanations).
    pub why_not: Vec<crate::reason::WhyNot>,
    /// The cases whose joins derived more tuples than [`Batch::max_case_tuples`], in order:
    /// their layers are incomplete, and they are answered with an error line.
    pub over_budget: Vec<CaseId>,
}

impl Output {
    /// An empty output for a package of `relations` relations.
    pub fn new(relations: usize) -> Output {
        Output {
            concluded: vec![Vec::new(); relations * 2],
            definite: vec![Vec::new(); relations * 2],
            contradictions: vec![Vec::new(); relations],
            instances: Vec::new(),
            why_not: Vec::new(),
            over_budget: Vec::new(),
        }
    }

    /// Orders the explanation instances by case, keeping their order within a case, so that
    /// [`crate::explain::explain_case`] finds a case's instances as one range.
    pub fn sort_instances(&mut self) {
        self.instances.sort_by_key(|i| i.case);
    }

    /// Records the `+d` and `+D` conclusions of institutional relation `rel` with sign `negative`.
    pub fn conclude<T: Fact>(&mut self, rel: usize, negative: bool, concluded: &Relation<T>, definite: &Relation<T>) {
        self.concluded[slot(rel, negative)] = flat(concluded);
        self.definite[slot(rel, negative)] = flat(definite);
    }

    /// Records institutional relation `rel`: per sign (`[positive, negative]`) what is concluded
    /// and what is definite, then the tuples whose both signs are definite.
    pub fn conclude_relation<T: Fact>(
        &mut self,
        rel: usize,
        concluded: [&Relation<T>; 2],
        definite: [&Relation<T>; 2],
    ) {
        self.conclude(rel, false, concluded[0], definite[0]);
        self.conclude(rel, true, concluded[1], definite[1]);
        self.contradict(rel, definite[0], definite[1]);
    }

    /// Records the tuples of relation `rel` whose both signs are definite.
    pub fn contradict<T: Fact>(&mut self, rel: usize, positive: &Relation<T>, negative: &Relation<T>) {
        self.contradictions[rel] = flat(&crate::rt::intersection(positive, negative));
    }

    /// What was concluded of relation `rel` with sign `negative` in `case`, typed.
    pub fn conclusions<T: Row>(&self, rel: usize, negative: bool, case: CaseId) -> Conclusions<T> {
        Conclusions {
            concluded: case_rows(&self.concluded[slot(rel, negative)], T::ARITY, case),
            definite: case_rows(&self.definite[slot(rel, negative)], T::ARITY, case),
        }
    }
}

fn flat<T: Fact>(r: &Relation<T>) -> Vec<i64> {
    let mut out = Vec::with_capacity(r.len() * (T::ARITY + 1));
    for t in r.iter() {
        t.push_flat(&mut out);
    }
    out
}

/// Flattens relation tuples `(case, cols..)` into rows.
pub fn flatten<I, F>(tuples: I, mut row: F) -> Vec<i64>
where
    I: IntoIterator,
    F: FnMut(&mut Vec<i64>, I::Item),
{
    let mut out = Vec::new();
    for t in tuples {
        row(&mut out, t);
    }
    out
}

/// The conclusions of one relation and sign for one case, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conclusions<T> {
    /// Concluded (`+d`).
    pub concluded: Vec<T>,
    /// Definite (`+D`), a subset of `concluded`.
    pub definite: Vec<T>,
}

impl<T: PartialEq> Conclusions<T> {
    /// Whether `t` is concluded.
    pub fn is_concluded(&self, t: &T) -> bool {
        self.concluded.contains(t)
    }

    /// Whether `t` is definite.
    pub fn is_definite(&self, t: &T) -> bool {
        self.definite.contains(t)
    }
}

/// Rows of `case` in flat `rows` of stride `1 + arity`, sorted by case as [`Output`] holds
/// them, decoded: the case's range is found by binary search, so reading every case of a batch
/// costs the batch's rows once, not once a case.
pub fn case_rows<T: Row>(rows: &[i64], arity: usize, case: CaseId) -> Vec<T> {
    let stride = arity + 1;
    rows[case_range(rows, stride, case.0)].chunks_exact(stride).map(|r| T::from_row(&r[1..])).collect()
}

/// The range of `rows` (flat rows of `stride` values, sorted by their first value, the case)
/// that holds the rows of `case`, found by binary search.
pub fn case_range(rows: &[i64], stride: usize, case: u32) -> std::ops::Range<usize> {
    let (n, key) = (rows.len() / stride, case as i64);
    let case_of = |i: usize| rows[i * stride];
    let first = partition(n, |i| case_of(i) < key);
    let end = first + partition(n - first, |i| case_of(first + i) <= key);
    first * stride..end * stride
}

/// The number of leading indices of `0..n` for which `before` holds (it holds for a prefix).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `name(a,b)`: a literal of `info` written with integers and entity names, each name as
/// [`entity_text`] writes it.
pub fn literal_string(info: &RelationInfo, interner: &Interner, args: &[i64]) -> String {
    let mut out = format!("{}(", info.name);
    for (i, (p, &v)) in info.params.iter().zip(args).enumerate() {
        if i > 0 {
            out.push(',');
        }
        if p.integer {
            out.push_str(&v.to_string());
        } else {
            out.push_str(&entity_text(interner.name(Sym(v as u32))));
        }
    }
    out.push(')');
    out
}

/// An entity name inside a written literal: bare when that cannot be misread, else as a JSON
/// string (empty, or holding `,`, `(`, `)`, `"`, a backslash, white space or a control character), so
/// that two different literals are never written alike (docs/DECISIONS.md).
pub fn entity_text(name: &str) -> std::borrow::Cow<'_, str> {
    let plain = !name.is_empty()
        && !name.chars().any(|c| matches!(c, ',' | '(' | ')' | '"' | '\\') || c.is_whitespace() || c.is_control());
    if plain {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(serde_json::Value::String(name.to_string()).to_string())
    }
}

/// The contradictions of `case` (literals whose both signs are `+D`), written `name(a,b)`, sorted.
pub fn case_contradictions(schema: &Schema, out: &Output, interner: &Interner, case: CaseId) -> Vec<String> {
    let mut v = Vec::new();
    for (rel, info) in schema.relations.iter().enumerate() {
        let Some(rows) = out.contradictions.get(rel) else { continue };
        for row in rows.chunks_exact(info.params.len() + 1) {
            if row[0] == case.0 as i64 {
                v.push(literal_string(info, interner, &row[1..]));
            }
        }
    }
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A case's rows found by binary search are exactly those a scan of the rows keeps.
        #[test]
        fn case_rows_finds_what_a_scan_finds(mut rows in prop::collection::vec((0u32..6, 0i64..4, 0i64..4), 0..40), case in 0u32..7) {
            rows.sort();
            let flat: Vec<i64> = rows.iter().flat_map(|&(c, a, b)| [c as i64, a, b]).collect();
            let found: Vec<(i64, i64)> = case_rows(&flat, 2, CaseId(case));
            let scanned: Vec<(i64, i64)> = rows.iter().filter(|r| r.0 == case).map(|&(_, a, b)| (a, b)).collect();
            prop_assert_eq!(found, scanned);
        }

        /// A batch's input relation is its rows sorted and deduplicated, whether they come case
        /// by case (as readers add them) or in any order.
        #[test]
        fn input_is_the_rows_sorted_and_deduplicated(mut rows in prop::collection::vec((0u32..6, 0i64..4, 0i64..4), 0..60), by_case: bool) {
            if by_case {
                rows.sort_by_key(|r| r.0);
            }
            let batch = Batch {
                interner: Interner::default(),
                cases: 6,
                facts: vec![rows.iter().flat_map(|&(c, a, b)| [c as i64, a, b]).collect()],
                explain: false,
                why_not: Vec::new(),
                warnings: Vec::new(),
                why_not_unknown: Vec::new(),
                max_case_tuples: None,
            };
            let input: Relation<(CaseId, Sym, Sym)> = batch.input(0, false);
            let mut expected: Vec<(CaseId, Sym, Sym)> = rows.iter().map(|&(c, a, b)| (CaseId(c), Sym(a as u32), Sym(b as u32))).collect();
            expected.sort();
            expected.dedup();
            prop_assert_eq!(&input.elements, &expected);
        }
    }
}
