//! Cases in and rulings out as JSON Lines (CONTRACT.md), for any compiled package.
//!
//! A line is read straight into the batch's flat rows: names borrowed from the line, no
//! `serde_json::Value` per fact (only the `case` value and the values an error message quotes
//! are kept as JSON). A ruling line is written straight from the output's sorted rows.

use crate::batch::{literal_string, slot, Batch, Output};
use crate::schema::{RelationKind, Schema};
use crate::value::{CaseId, FastMap, Interner, Sym};
use crate::Package;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

mod fast;
mod keys;

pub use keys::{table_sizes, FindKey, KeyTable};

/// What a ruling run accepts beyond the facts.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Capabilities granted (`judgment:AUTHORITY`).
    pub grants: Vec<String>,
    /// Attach explanations to every concluded literal.
    pub explain: bool,
    /// The form explanations take with `explain`: `explanations` (full) or `derivations` (refs).
    pub explain_form: ExplainForm,
    /// A name at a column whose type declares constants must be one of them: otherwise the
    /// line is an error line, not a ruling with a `warnings` entry (`--strict-constants`).
    pub strict_constants: bool,
    /// Where each batch's coverage is added (`--coverage`): its rule instances are computed, as
    /// for explanations, and counted ([`crate::coverage`]).
    pub coverage: Option<crate::coverage::Shared>,
    /// Attach to every ruling its certificate (`clir::certificate`, docs/CERTIFICATES.md).
    pub certify: bool,
    /// At most this many tuples derived by one case's joins (`--max-case-tuples`; `None`: no
    /// bound): past it the case's line is an error line, and the other cases of its batch are
    /// ruled as without it.
    pub max_case_tuples: Option<u64>,
    /// Where the grants come from, so that a judgment fact refused for want of one says how to
    /// get it in the caller's terms.
    pub granted_by: GrantedBy,
}

/// Where a caller's capabilities come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GrantedBy {
    /// The command line's `--grant CAP`.
    #[default]
    CommandLine,
    /// A service's bearer token.
    Token,
    /// A law test line's `grants`.
    TestLine,
}

impl GrantedBy {
    /// How a caller gets capability `cap`, in its own terms.
    fn how(self, cap: &str) -> String {
        match self {
            GrantedBy::CommandLine => format!("it is accepted only with --grant {cap}"),
            GrantedBy::Token => format!("it is accepted only from a bearer token that grants {cap}"),
            GrantedBy::TestLine => format!("it is accepted only in a test line whose `grants` list {cap}"),
        }
    }
}

/// The form of `--explain` (docs/EXPLAIN.md; the refs form is
/// [`crate::explain::explain_case_refs`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "command", derive(clap::ValueEnum))]
pub enum ExplainForm {
    /// `explanations`: per concluded literal its whole proof, each derivation with its rule's
    /// label, strength and articles.
    #[default]
    Full,
    /// `derivations`: one flat table of the proofs' derivations, each literal once, premises by
    /// their literal, rules, closures and priorities by id.
    Refs,
}

/// The `--max-case-tuples` of the `clir` commands: about 1 GB for a case at its limit with
/// `--certify`, the costliest output (docs/SECURITY.md).
pub const DEFAULT_MAX_CASE_TUPLES: u64 = 4_000_000;

/// The error text of a case past its budget of derived tuples.
pub fn over_budget(limit: u64) -> String {
    format!(
        "the case derives more than {limit} tuples (--max-case-tuples): a rule multiplies its facts; \
         split the case or raise the limit"
    )
}

impl Options {
    /// Whether facts of a judgment relation reserved to `capability` are accepted.
    fn grants(&self, capability: Option<&str>) -> bool {
        let cap = capability.unwrap_or("");
        self.grants.iter().any(|g| g == cap)
    }
}

/// An input line: `(line number from 1, text)`.
pub type Line = (usize, String);

/// What the compiler knows of a package's lines, as tables computed when the package is
/// compiled (generated code declares one `static CODEC`): the relation keys a case line may
/// give, found by a perfect hash, and the keys of a ruling line, escaped.
pub struct Codec {
    /// The keys of `facts` a case may give (`name` and `~name` of every empirical and judgment
    /// relation).
    pub keys: &'static dyn FindKey,
    /// Per key of `keys`, in its order: its slot ([`slot`]).
    pub slots: &'static [u32],
    /// The keys of a ruling's `concluded` and `definite` objects in the order they are written
    /// (sorted), each with its slot, written as JSON `"key":`.
    pub ruling_keys: &'static [(u32, &'static str)],
}

/// Lookup tables of a schema, built once per run.
pub struct Catalog {
    schema: &'static Schema,
    /// The package's generated tables, when it has them.
    codec: Option<&'static Codec>,
    relations: FastMap<&'static str, usize>,
    /// Per slot ([`slot`]) of an empirical or judgment relation whose name needs no escape:
    /// its key as a case line writes it, between quotes (`"~name"` for the negative slot).
    quoted_input_keys: Vec<Option<Box<[u8]>>>,
    /// Per id of a constant (as every batch's interner numbers them): its place among the
    /// constants' names in byte order, the order ruling lines list tuples in.
    constant_rank: Vec<u32>,
    /// Per relation, per parameter: the constants of the parameter's type, `(name, id)`.
    constants: Vec<Vec<Vec<(&'static str, u32)>>>,
    /// The keys of a ruling's `concluded` and `definite` objects in the order they are written
    /// (sorted, as a JSON object map sorts them): the slot and `"key":`.
    keys: Vec<(usize, String)>,
}

impl Catalog {
    /// Indexes `schema`.
    pub fn new(schema: &'static Schema) -> Self {
        let relations = schema.relations.iter().enumerate().map(|(i, r)| (r.name, i)).collect();
        let constants = schema
            .relations
            .iter()
            .map(|r| {
                r.params
                    .iter()
                    .map(|p| {
                        let of_type = schema.constants.iter().enumerate().filter(|(_, c)| !p.integer && c.ty == p.ty);
                        of_type.map(|(i, c)| (c.name, i as u32)).collect()
                    })
                    .collect()
            })
            .collect();
        let mut keys: Vec<(String, usize)> = Vec::new();
        for (rel, info) in schema.relations.iter().enumerate() {
            if info.kind == RelationKind::Institutional {
                keys.push((info.name.to_string(), slot(rel, false)));
                keys.push((format!("~{}", info.name), slot(rel, true)));
            }
        }
        keys.sort();
        let keys = keys
            .into_iter()
            .map(|(k, s)| {
                let mut key = String::new();
                json_str(&mut key, &k);
                key.push(':');
                (s, key)
            })
            .collect();
        let quoted_input_keys = schema
            .relations
            .iter()
            .flat_map(|info| [(info, ""), (info, "~")])
            .map(|(info, sign)| {
                (info.kind != RelationKind::Institutional && is_plain(info.name))
                    .then(|| format!("\"{sign}{}\"", info.name).into_bytes().into_boxed_slice())
            })
            .collect();
        let names = Interner::with_constants(&schema.constant_names());
        let mut by_name: Vec<u32> = (0..names.len() as u32).collect();
        by_name.sort_by_key(|&id| names.name(Sym(id)));
        let mut constant_rank = vec![0; by_name.len()];
        for (rank, &id) in by_name.iter().enumerate() {
            constant_rank[id as usize] = rank as u32;
        }
        Catalog { schema, codec: None, relations, constants, quoted_input_keys, constant_rank, keys }
    }

    /// Indexes `pkg`'s schema, reading and writing lines with its generated tables when it has
    /// them ([`Package::codec`]).
    pub fn of(pkg: &dyn Package) -> Self {
        let mut cat = Catalog::new(pkg.schema());
        // Tables that do not say what the schema says (a bug) are not used: the lines are then
        // read and written as without them, never differently.
        cat.codec = pkg.codec().filter(|codec| cat.codec_agrees(codec));
        cat
    }

    /// Whether lines are read with the package's generated tables ([`Catalog::of`]).
    pub fn generated(&self) -> bool {
        self.codec.is_some()
    }

    /// Whether `codec` holds exactly the schema's input keys, each at its slot, and its ruling
    /// keys as this catalog writes them.
    fn codec_agrees(&self, codec: &Codec) -> bool {
        let mut inputs = 0;
        for (rel, info) in self.schema.relations.iter().enumerate() {
            let input = info.kind != RelationKind::Institutional;
            for negative in [false, true] {
                let key = if negative { format!("~{}", info.name) } else { info.name.to_string() };
                let found = codec.keys.find(key.as_bytes()).and_then(|k| codec.slots.get(k));
                if found != input.then_some(&(slot(rel, negative) as u32)) {
                    return false;
                }
                inputs += input as usize;
            }
        }
        let ruling = codec.ruling_keys.iter().map(|&(s, k)| (s as usize, k));
        inputs == codec.slots.len() && ruling.eq(self.keys.iter().map(|(s, k)| (*s, k.as_str())))
    }

    /// ` (did you mean `X`?)` for a relation name the package does not declare, when one of its
    /// relations is close.
    pub fn did_you_mean(&self, name: &str) -> String {
        crate::suggest::did_you_mean(name, self.schema.relations.iter().map(|r| r.name))
    }

    /// The relation and sign of a key of `facts` a case may give (an empirical or judgment
    /// relation, `~` for its negatives), by the package's perfect hash when it has one; `None`
    /// for any other key (which the full reader rejects with its message). Without generated
    /// tables, an institutional relation's key gives its relation too.
    fn input_key(&self, key: &str) -> Option<(usize, bool)> {
        if let Some(codec) = self.codec {
            let s = *codec.slots.get(codec.keys.find(key.as_bytes())?)? as usize;
            return Some((s / 2, s % 2 == 1));
        }
        let (negative, name) = match key.strip_prefix('~') {
            Some(n) => (true, n),
            None => (false, key),
        };
        Some((*self.relations.get(name)?, negative))
    }

    /// The key of input slot `s` between quotes, as [`Catalog::input_key`] takes it, when it
    /// is a key of a case's facts and is written the same with or without JSON's escapes.
    fn quoted_input_key(&self, s: usize) -> Option<&[u8]> {
        self.quoted_input_keys.get(s)?.as_deref()
    }

    /// The schema indexed.
    pub fn schema(&self) -> &'static Schema {
        self.schema
    }
}

// ---------------------------------------------------------------------------------------------
// Reading a line.

/// A string, borrowed from the line unless it had escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// An argument of a fact as read: a string, an Integer, or anything else (kept as JSON for
/// the error message).
enum Arg<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Other(Value),
}

impl Arg<'_> {
    /// The argument as JSON (as an error message quotes it).
    fn json(&self) -> Value {
        match self {
            Arg::Str(s) => Value::String(s.to_string()),
            Arg::Int(i) => Value::from(*i),
            Arg::Other(v) => v.clone(),
        }
    }
}

/// Builds the JSON value of whatever a visitor is handed (for what is kept only to be quoted).
macro_rules! visit_other {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok($wrap(Value::Bool(v)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok($wrap(Value::from(v)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok($wrap(Value::String(v.to_owned())))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($wrap(Value::Null))
        }
        fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
            strict_map(m).map($wrap)
        }
    };
}

/// A JSON value read as serde_json's `Value` is, except that an object with a duplicate key is
/// an error (the `case` value is echoed into the ruling: it must be what the line says).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strict;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            visit_other!(Strict);
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
                let mut items = Vec::new();
                while let Some(Strict(v)) = seq.next_element()? {
                    items.push(v);
                }
                Ok(Strict(Value::Array(items)))
            }
        }
        d.deserialize_any(V)
    }
}

/// Reads an object of [`Strict`] values, refusing a duplicate key.
fn strict_map<'de, A: MapAccess<'de>>(mut m: A) -> Result<Value, A::Error> {
    let mut map = serde_json::Map::new();
    while let Some(k) = m.next_key::<String>()? {
        let Strict(v) = m.next_value()?;
        if map.contains_key(&k) {
            return Err(de::Error::custom(format!("duplicate key `{k}` in the `case` value")));
        }
        map.insert(k, v);
    }
    Ok(Value::Object(map))
}

impl<'de> Deserialize<'de> for Arg<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Arg<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Arg<'de>, E> {
                Ok(Arg::Other(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Arg<'de>, E> {
                Ok(Arg::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Arg<'de>, E> {
                Ok(i64::try_from(v).map(Arg::Int).unwrap_or_else(|_| Arg::Other(Value::from(v))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Arg<'de>, E> {
                // serde_json reads the JSON integer `-0` as the float -0.0 (and cannot tell it
                // from `-0.0`): it is the Integer 0 (docs/DECISIONS.md).
                if v == 0.0 && v.is_sign_negative() {
                    return Ok(Arg::Int(0));
                }
                Ok(Arg::Other(Value::from(v)))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Arg<'de>, E> {
                Ok(Arg::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Arg<'de>, E> {
                Ok(Arg::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Arg<'de>, E> {
                Ok(Arg::Str(Cow::Owned(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Arg<'de>, E> {
                Ok(Arg::Other(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Arg<'de>, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(s)).map(Arg::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Arg<'de>, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(m)).map(Arg::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A range of a `Read`'s vectors, or the JSON value that stood where a list was expected.
type Span = Result<(usize, usize), Value>;

/// One case read from a line, before validation and interning; its vectors are reused from line
/// to line of a chunk.
#[derive(Default)]
struct Read<'a> {
    /// The `case` value as compact JSON text: as written, less white space between tokens.
    case: Cow<'a, str>,
    /// Per key of `facts`: the key and its tuples (a span of `tuples`).
    facts: Vec<(Cow<'a, str>, Span)>,
    /// Per tuple: its arguments (a span of `args`).
    tuples: Vec<Span>,
    args: Vec<Arg<'a>>,
    /// The literals of `why_not`, as written.
    why_not: Vec<Cow<'a, str>>,
    /// `as_of`: the date the case is ruled at (`YYYY-MM-DD`).
    as_of: Option<Cow<'a, str>>,
}

impl Read<'_> {
    fn clear(&mut self) {
        self.case = Cow::Borrowed("null");
        self.facts.clear();
        self.tuples.clear();
        self.args.clear();
        self.why_not.clear();
        self.as_of = None;
    }
}

/// Reads `{"case":..,"facts":{..}}`.
struct CaseSeed<'r, 'a>(&'r mut Read<'a>);

impl<'de> DeserializeSeed<'de> for CaseSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for CaseSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a case object {\"case\":..., \"facts\":{...}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let (mut case, mut facts, mut why_not, mut as_of) = (false, false, false, false);
        while let Some(k) = m.next_key::<Str<'de>>()? {
            match &*k.0 {
                "case" if !case => {
                    let raw: &'de RawValue = m.next_value()?;
                    if raw.get().starts_with(['{', '[']) {
                        // Inside an object or list, a duplicate key is an error.
                        serde_json::from_str::<Strict>(raw.get()).map_err(|e| {
                            // The message without the position inside the value: the line's
                            // position is added to it.
                            let text = e.to_string();
                            let suffix = format!(" at line {} column {}", e.line(), e.column());
                            de::Error::custom(text.strip_suffix(&suffix).unwrap_or(&text))
                        })?;
                    }
                    self.0.case = compact_json(raw.get());
                    case = true;
                }
                "facts" if !facts => {
                    m.next_value_seed(FactsSeed(&mut *self.0))?;
                    facts = true;
                }
                "why_not" if !why_not => {
                    let asked: Vec<Str<'de>> = m.next_value()?;
                    if asked.len() > MAX_WHY_NOT_PER_CASE {
                        return Err(de::Error::custom(format!(
                            "`why_not` asks about {} literals; at most {MAX_WHY_NOT_PER_CASE} are answered a case",
                            asked.len()
                        )));
                    }
                    self.0.why_not.extend(asked.into_iter().map(|s| s.0));
                    why_not = true;
                }
                "as_of" if !as_of => {
                    let date: Str<'de> = m.next_value()?;
                    if !is_iso_date(&date.0) {
                        return Err(de::Error::custom(format!(
                            "`as_of` is a date written YYYY-MM-DD, got `{}`",
                            date.0
                        )));
                    }
                    self.0.as_of = Some(date.0);
                    as_of = true;
                }
                "case" | "facts" | "why_not" | "as_of" => {
                    return Err(de::Error::custom(format!("duplicate key `{}`", k.0)))
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key `{other}` (a case has only `case`, `facts`, `why_not` and `as_of`)"
                    )))
                }
            }
        }
        if !case {
            return Err(de::Error::custom("missing key `case`"));
        }
        if !facts {
            return Err(de::Error::custom("missing key `facts`"));
        }
        Ok(())
    }
}

/// Reads the `facts` object.
struct FactsSeed<'r, 'a>(&'r mut Read<'a>);

impl<'de> DeserializeSeed<'de> for FactsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FactsSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of relation names to lists of tuples")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        // The few keys of a case are compared one by one; past `SCAN_KEYS`, a set (SipHash with
        // a random key: the keys are the sender's) keeps a line of many keys linear.
        const SCAN_KEYS: usize = 16;
        let mut seen: std::collections::HashSet<Cow<'de, str>> = std::collections::HashSet::new();
        while let Some(k) = m.next_key::<Str<'de>>()? {
            let facts = &self.0.facts;
            let duplicate = if facts.len() < SCAN_KEYS {
                facts.iter().any(|(x, _)| *x == k.0)
            } else {
                if seen.is_empty() {
                    seen.extend(facts.iter().map(|(x, _)| x.clone()));
                }
                !seen.insert(k.0.clone())
            };
            if duplicate {
                return Err(de::Error::custom(format!("duplicate key `{}` in `facts`", k.0)));
            }
            let span = m.next_value_seed(ListSeed { read: &mut *self.0, tuples: true })?;
            self.0.facts.push((k.0, span));
        }
        Ok(())
    }
}

/// Reads a relation's list of tuples (`tuples`) or a tuple's list of arguments; anything else
/// is kept as JSON.
struct ListSeed<'r, 'a> {
    read: &'r mut Read<'a>,
    tuples: bool,
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_, 'de> {
    type Value = Span;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Span, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_, 'de> {
    type Value = Span;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    visit_other!(Err);
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Span, A::Error> {
        if self.tuples {
            // A tuple's arguments go to `args` as it is read, its span to `tuples` after.
            let start = self.read.tuples.len();
            while let Some(t) = s.next_element_seed(ListSeed { read: &mut *self.read, tuples: false })? {
                self.read.tuples.push(t);
            }
            Ok(Ok((start, self.read.tuples.len())))
        } else {
            let start = self.read.args.len();
            while let Some(a) = s.next_element::<Arg<'de>>()? {
                self.read.args.push(a);
            }
            Ok(Ok((start, self.read.args.len())))
        }
    }
}

/// A validated argument: its flat value, or the `args` index of an entity name to intern.
#[derive(Clone, Copy)]
enum Flat {
    Value(i64),
    Intern(usize),
}

/// The most literals one case's `why_not` may ask about (docs/SECURITY.md): each answer lists
/// every rule for its literal, so the answer to a line is bounded by the line.
pub const MAX_WHY_NOT_PER_CASE: usize = 1024;

/// The most facts (tuples, positive and negative) one case may give (docs/SECURITY.md).
pub const MAX_FACTS_PER_CASE: usize = 10_000_000;

/// Validates a read case and adds it to `batch`, or says why the line is an error line.
/// `rows` and `flat` are scratch space.
fn add_case<'a>(
    cat: &Catalog,
    batch: &mut Batch,
    read: &Read<'a>,
    opts: &Options,
    rows: &mut Vec<(usize, bool, usize)>,
    flat: &mut Vec<Flat>,
    names: &mut FastMap<&'a str, i64>,
) -> Result<u32, String> {
    if read.tuples.len() > MAX_FACTS_PER_CASE {
        return Err(format!("the case has {} facts; at most {MAX_FACTS_PER_CASE} are accepted", read.tuples.len()));
    }
    if let Some(date) = &read.as_of {
        in_force_at(cat.schema, date)?;
    }
    // Validate everything before touching the batch, so an error leaves no fact behind.
    rows.clear();
    flat.clear();
    let mut notes: Vec<String> = Vec::new();
    for (key, tuples) in &read.facts {
        let (negative, name) = match key.strip_prefix('~') {
            Some(n) => (true, n),
            None => (false, &**key),
        };
        let Some(&rel) = cat.relations.get(name) else {
            return Err(format!("unknown relation `{name}`{}", cat.did_you_mean(name)));
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
                if !opts.grants(info.capability) {
                    return Err(format!(
                        "relation `{name}` is a judgment reserved to capability `{cap}`; {}",
                        opts.granted_by.how(cap)
                    ));
                }
            }
            RelationKind::Empirical => {}
        }
        let signature = || info.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect::<Vec<_>>().join(", ");
        let &Ok((t0, t1)) = tuples else {
            return Err(format!("relation `{key}`: expected a list of tuples"));
        };
        for t in &read.tuples[t0..t1] {
            let (a0, a1) = match t {
                Ok(span) => *span,
                Err(t) => return Err(format!("relation `{key}`: each tuple must be a list of arguments, got {t}")),
            };
            let args = &read.args[a0..a1];
            if args.len() != info.params.len() {
                return Err(format!(
                    "relation `{name}` takes {} argument{} ({}), got {}",
                    info.params.len(),
                    if info.params.len() == 1 { "" } else { "s" },
                    signature(),
                    args.len()
                ));
            }
            rows.push((rel, negative, flat.len()));
            for (i, (a, p)) in args.iter().zip(info.params).enumerate() {
                if p.integer {
                    match a {
                        Arg::Int(v) => flat.push(Flat::Value(*v)),
                        _ => {
                            return Err(format!(
                                "relation `{name}`: argument `{}` is an Integer, got {}",
                                p.name,
                                a.json()
                            ))
                        }
                    }
                } else {
                    match a {
                        Arg::Str(s) => match cat.constants[rel][i].iter().find(|(c, _)| *c == &**s) {
                            Some(&(_, c)) => flat.push(Flat::Value(c as i64)),
                            None if cat.constants[rel][i].is_empty() => flat.push(Flat::Intern(a0 + i)),
                            None => {
                                // An entity of a type that also has named values: an error under
                                // `strict_constants`, else a warning when it looks like one of
                                // them misspelt (DECISIONS 44).
                                let declared = cat.constants[rel][i].iter().map(|(c, _)| *c);
                                let close = crate::suggest::closest(s, declared.clone());
                                if opts.strict_constants || close.is_some() {
                                    let note = format!(
                                        "relation `{name}`: argument `{}`: `{s}` is not a declared {}{} (declared: {})",
                                        p.name,
                                        p.ty,
                                        close.map_or(String::new(), |c| format!(" (did you mean `{c}`?)")),
                                        declared.collect::<Vec<_>>().join(", ")
                                    );
                                    if opts.strict_constants {
                                        return Err(note);
                                    }
                                    let note = format!("{note}; it was read as a new {}", p.ty);
                                    if !notes.contains(&note) {
                                        notes.push(note);
                                    }
                                }
                                flat.push(Flat::Intern(a0 + i));
                            }
                        },
                        _ => {
                            return Err(format!(
                                "relation `{name}`: argument `{}` is a `{}` entity (a string), got {}",
                                p.name,
                                p.ty,
                                a.json()
                            ))
                        }
                    }
                }
            }
        }
    }
    let asked = read.why_not.iter().map(|text| parse_asked(cat, text)).collect::<Result<Vec<_>, String>>()?;
    let case = batch.add_case();
    batch.warnings.extend(notes.into_iter().map(|n| (case, n)));
    // The names the case's facts give, to tell an asked literal about an entity it never mentions.
    let mentioned: std::collections::HashSet<&str> = if asked.is_empty() {
        Default::default()
    } else {
        read.args.iter().filter_map(|a| if let Arg::Str(s) = a { Some(&**s) } else { None }).collect()
    };
    for (rel, negative, args) in asked {
        let index = batch.why_not.len();
        let args = args
            .into_iter()
            .map(|a| match a {
                AskedArg::Value(v) => v,
                AskedArg::Name(n) => {
                    if !mentioned.contains(&*n) {
                        batch.why_not_unknown.push((index, n.to_string()));
                    }
                    batch.entity(&n).0 as i64
                }
            })
            .collect();
        batch.why_not.push(crate::why_not::Asked { case, rel: rel as u32, negative, args });
    }
    let mut values = [0i64; 16];
    let mut buf = Vec::new();
    // The few names of one case, most of them repeated from fact to fact: a linear look-up
    // among the first LOCAL_NAMES of them, then the chunk's map of borrowed names (a hash map:
    // a case of 10^5 distinct names costs linear time), then the batch's interner.
    const LOCAL_NAMES: usize = 16;
    let mut local: Vec<(&str, i64)> = Vec::with_capacity(LOCAL_NAMES);
    for &(rel, negative, start) in rows.iter() {
        let arity = cat.schema.relations[rel].params.len();
        let vals: &mut [i64] = if arity <= values.len() {
            &mut values[..arity]
        } else {
            buf.resize(arity, 0);
            &mut buf[..]
        };
        for (v, f) in vals.iter_mut().zip(&flat[start..start + arity]) {
            *v = match *f {
                Flat::Value(x) => x,
                Flat::Intern(i) => match &read.args[i] {
                    // Names borrowed from the chunk's lines are remembered for the whole chunk
                    // in front of the batch's interner.
                    Arg::Str(Cow::Borrowed(s)) => match local.iter().find(|(n, _)| n == s) {
                        Some(&(_, id)) => id,
                        None => {
                            let id = *names.entry(s).or_insert_with(|| batch.entity(s).0 as i64);
                            if local.len() < LOCAL_NAMES {
                                local.push((s, id));
                            }
                            id
                        }
                    },
                    Arg::Str(s) => batch.entity(s).0 as i64,
                    _ => unreachable!("validated as a string"),
                },
            };
        }
        batch.push(case, rel, negative, vals);
    }
    Ok(case.0)
}

/// An argument of an asked literal: a value, or an entity name to intern.
enum AskedArg {
    Value(i64),
    Name(String),
}

/// Reads a `why_not` literal, `name(a,b)` or `~name(a,b)` as `contradictions` writes it (a
/// name bare or as a JSON string; `name` or `name()` without parameters).
fn parse_asked(cat: &Catalog, text: &str) -> Result<(usize, bool, Vec<AskedArg>), String> {
    let bad = |why: &str| format!("why_not: `{text}` is not a literal ({why})");
    // A relation name is written as declared, white space and all.
    let (negative, t) = match text.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    // The name ends at a `(`: the last one after which a declared relation's name ends (a name
    // may hold parentheses), else the first.
    let opens = t.match_indices('(').map(|(i, _)| i);
    let open = opens.clone().rfind(|&i| cat.relations.contains_key(&t[..i])).or(opens.clone().next());
    let (name, inner) = match open {
        Some(open) if !cat.relations.contains_key(t) => {
            let inner = t[open + 1..].strip_suffix(')').ok_or_else(|| bad("no closing `)`"))?;
            (&t[..open], Some(inner))
        }
        _ => (t, None),
    };
    let &rel = cat
        .relations
        .get(name)
        .ok_or_else(|| format!("why_not: unknown relation `{name}` in `{text}`{}", cat.did_you_mean(name)))?;
    let info = &cat.schema.relations[rel];
    let mut words: Vec<String> = Vec::new();
    let mut raw: Vec<bool> = Vec::new();
    if let Some(inner) = inner.filter(|s| !s.trim().is_empty()) {
        let mut rest = inner;
        loop {
            let r = rest.trim_start();
            let (word, after, quoted) = if r.starts_with('"') {
                let mut de = serde_json::Deserializer::from_str(r).into_iter::<String>();
                let word = match de.next() {
                    Some(Ok(w)) => w,
                    _ => return Err(bad("a quoted name is not a JSON string")),
                };
                (word, &r[de.byte_offset()..], true)
            } else {
                let end = r.find(',').unwrap_or(r.len());
                (r[..end].trim().to_string(), &r[end..], false)
            };
            words.push(word);
            raw.push(!quoted);
            let after = after.trim_start();
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => break,
                None => return Err(bad("expected `,` or `)` after an argument")),
            }
        }
    }
    if words.len() != info.params.len() {
        return Err(format!(
            "why_not: relation `{name}` takes {} argument{}, `{text}` gives {}",
            info.params.len(),
            if info.params.len() == 1 { "" } else { "s" },
            words.len()
        ));
    }
    let mut args = Vec::with_capacity(words.len());
    for (i, ((w, bare), p)) in words.into_iter().zip(raw).zip(info.params).enumerate() {
        if p.integer {
            let v = w
                .parse::<i64>()
                .ok()
                .filter(|_| bare)
                .ok_or_else(|| format!("why_not: in `{text}`, argument `{}` is an Integer, got `{w}`", p.name))?;
            args.push(AskedArg::Value(v));
        } else if w.is_empty() {
            return Err(bad("an empty argument"));
        } else if bare && w == "_" {
            // In an answer a bare `_` is an argument no value binds; a question names every one.
            return Err(format!(
                "why_not: in `{text}`, argument `{}` is `_`, which stands for no value; the entity named `_` is written \"_\"",
                p.name
            ));
        } else {
            match cat.constants[rel][i].iter().find(|(c, _)| *c == w) {
                Some(&(_, c)) => args.push(AskedArg::Value(c as i64)),
                None => args.push(AskedArg::Name(w)),
            }
        }
    }
    Ok((rel, negative, args))
}

/// Reads one line into `read`; on an error, the case value (when the line is JSON) and the
/// message.
fn read_line<'a>(line: &'a str, read: &mut Read<'a>) -> Result<(), (Cow<'a, str>, String)> {
    read.clear();
    let mut de = serde_json::Deserializer::from_str(line);
    match CaseSeed(read).deserialize(&mut de).and_then(|()| de.end()) {
        Ok(()) => Ok(()),
        Err(e) => {
            // Recover the case value for the error line when the JSON itself is readable.
            #[derive(Deserialize)]
            struct Recover<'a> {
                #[serde(borrow)]
                case: Option<&'a RawValue>,
            }
            let case = serde_json::from_str::<Recover>(line).ok().and_then(|r| r.case);
            Err((case.map_or(Cow::Borrowed("null"), |c| compact_json(c.get())), json_error(&e)))
        }
    }
}

/// `Err` when the law of `schema` is not in force at `date` (`YYYY-MM-DD`): before the date it
/// is in force from, or on or after the date it stopped being (DECISIONS 45).
pub fn in_force_at(schema: &Schema, date: &str) -> Result<(), String> {
    let law = format!("{} {}", schema.package, schema.version);
    if let Some(from) = schema.in_force.filter(|from| date < *from) {
        return Err(format!("the case is dated {date} (as_of), before {law} is in force ({from})"));
    }
    if let Some(until) = schema.until.filter(|until| date >= *until) {
        return Err(format!("the case is dated {date} (as_of), when {law} is no longer in force (since {until})"));
    }
    Ok(())
}

/// Whether `s` is a calendar date written `YYYY-MM-DD`: a month 01-12 and a day that month has
/// in that year of the proleptic Gregorian calendar (February 29 only in a leap year: one
/// divisible by 4, and by 400 when by 100, so 2000-02-29 is a date and 1900-02-29 is not). The
/// one check of every `as_of`: case lines, `rule_arrow`'s column and the Python `Case.as_of`.
pub fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = [0, 1, 2, 3, 5, 6, 8, 9].iter().all(|&i| b.get(i).is_some_and(u8::is_ascii_digit));
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !digits {
        return false;
    }
    let num = |r: std::ops::Range<usize>| b[r].iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// A JSON error of a case line, placed by its column only: the error line already says which
/// line (serde_json would add " at line 1 column 12").
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) if e.line() > 0 => format!("{message} (column {})", e.column()),
        _ => text,
    }
}

/// Checks a case line as [`rule_chunk_into`] would read it, without ruling it, and returns its
/// facts: per fact, its key in `facts` (`~name` for a negative) and its tuple as JSON text,
/// written as serde_json writes it. `Err` holds the message its error line would give (without
/// the `line N: ` prefix).
pub fn case_facts(cat: &Catalog, line: &str, opts: &Options) -> Result<Vec<(String, String)>, String> {
    let mut read = Read::default();
    read_line(line, &mut read).map_err(|(_, msg)| msg)?;
    let mut batch = Batch::new(cat.schema);
    let (mut rows, mut flat, mut names) = (Vec::new(), Vec::new(), FastMap::default());
    add_case(cat, &mut batch, &read, opts, &mut rows, &mut flat, &mut names)?;
    let mut facts = Vec::with_capacity(read.tuples.len());
    for (key, tuples) in &read.facts {
        // A case that reads has lists of lists only.
        let &Ok((t0, t1)) = tuples else { continue };
        for &(a0, a1) in read.tuples[t0..t1].iter().flatten() {
            let mut tuple = String::from("[");
            for (i, arg) in read.args[a0..a1].iter().enumerate() {
                if i > 0 {
                    tuple.push(',');
                }
                match arg {
                    Arg::Str(s) => json_str(&mut tuple, s),
                    Arg::Int(v) => tuple.push_str(&v.to_string()),
                    Arg::Other(v) => json_value(&mut tuple, v),
                }
            }
            tuple.push(']');
            facts.push((key.to_string(), tuple));
        }
    }
    Ok(facts)
}

// ---------------------------------------------------------------------------------------------
// Ruling a chunk.

/// Rules a chunk of lines as one batch; returns exactly one output line per input line, in
/// order, and how many of them are error lines.
pub fn rule_chunk(pkg: &dyn Package, cat: &Catalog, lines: &[Line], opts: &Options) -> (Vec<String>, usize) {
    let mut out = String::new();
    let errors = rule_chunk_into(pkg, cat, lines, opts, &mut out);
    (out.lines().map(str::to_string).collect(), errors)
}

/// Rules a chunk of lines as one batch, appending exactly one output line per input line (each
/// ended by `\n`) to `out`, in order; returns how many of them are error lines.
pub fn rule_chunk_into<S: AsRef<str>>(
    pkg: &dyn Package,
    cat: &Catalog,
    lines: &[(usize, S)],
    opts: &Options,
    out: &mut String,
) -> usize {
    let mut batch = Batch::new(cat.schema);
    batch.explain = opts.explain || opts.coverage.is_some() || opts.certify;
    batch.max_case_tuples = opts.max_case_tuples;
    let mut read = Read::default();
    let (mut rows, mut flat, mut names) = (Vec::new(), Vec::new(), FastMap::default());
    let mut scratch = fast::Scratch::default();
    // Per line: its case value and its case id in the batch, or its error line.
    let mut slots: Vec<Result<(CaseValue, u32), String>> = Vec::with_capacity(lines.len());
    // Per case with a why-not: its first asked literal in `batch.why_not` (they follow in order).
    let mut asked_from: FastMap<u32, usize> = FastMap::default();
    let chunk_bytes: usize = lines.iter().map(|(_, text)| text.as_ref().len()).sum();
    for (no, text) in lines {
        let text = text.as_ref();
        if slots.len() == 1 {
            reserve_like_first(&mut batch, lines[0].1.as_ref().len(), chunk_bytes);
        }
        if let Some(why) = text.strip_prefix(UNREADABLE) {
            slots.push(Err(error_line("null", *no, why)));
            continue;
        }
        if let Some(added) = fast::add_line(cat, &mut batch, text, opts, &mut scratch) {
            slots.push(Ok((CaseValue::Name(added.case), added.id)));
            continue;
        }
        let r = match read_line(text, &mut read) {
            Ok(()) => match add_case(cat, &mut batch, &read, opts, &mut rows, &mut flat, &mut names) {
                Ok(id) => {
                    if !read.why_not.is_empty() {
                        asked_from.insert(id, batch.why_not.len() - read.why_not.len());
                    }
                    Ok((CaseValue::Json(std::mem::take(&mut read.case).into_owned()), id))
                }
                Err(msg) => Err(error_line(&read.case, *no, &msg)),
            },
            Err((case, msg)) => Err(error_line(&case, *no, &msg)),
        };
        slots.push(r);
    }
    let mut output = if batch.cases > 0 { pkg.evaluate(&batch) } else { Output::default() };
    output.sort_instances();
    if let Some(coverage) = &opts.coverage {
        coverage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).add(&output, batch.cases as u64);
    }
    let mut w = Writer::new(cat, &batch, &output);
    let mut errors = 0;
    // The warnings of the cases, in case order: each case takes those at the front.
    let mut noted_from = 0;
    for (s, (no, text)) in slots.into_iter().zip(lines) {
        let s = match s {
            Ok((case, id)) if output.over_budget.binary_search(&CaseId(id)).is_ok() => {
                let limit = opts.max_case_tuples.unwrap_or(u64::MAX);
                Err(error_line(&case.json(), *no, &over_budget(limit)))
            }
            s => s,
        };
        match s {
            Ok((case, id)) => {
                w.ruling(out, &case, id);
                let noted = &batch.warnings[noted_from..];
                let n = noted.iter().take_while(|(c, _)| c.0 == id).count();
                if n > 0 {
                    let warnings: Vec<&str> = noted[..n].iter().map(|(_, w)| w.as_str()).collect();
                    out.pop();
                    out.push_str(",\"warnings\":");
                    out.push_str(&serde_json::to_string(&warnings).unwrap_or_default());
                    out.push('}');
                    noted_from += n;
                }
                let asked = asked_from.get(&id).map(|&from| {
                    let n = batch.why_not[from..].iter().take_while(|a| a.case.0 == id).count();
                    from..from + n
                });
                if opts.explain || asked.is_some() {
                    let full = opts.explain && opts.explain_form == ExplainForm::Full;
                    let ex = if full || asked.is_some() {
                        crate::explain::explain_case(cat.schema, &batch, &output, id)
                    } else {
                        serde_json::Map::new()
                    };
                    if let Some(range) = asked {
                        out.pop();
                        out.push_str(",\"why_not\":");
                        push_json(out, &why_not_entries(cat.schema, &batch, &output, range, &ex));
                        out.push('}');
                    }
                    if full {
                        out.pop();
                        out.push_str(",\"explanations\":");
                        push_json(out, &ex);
                        out.push('}');
                    } else if opts.explain {
                        out.pop();
                        out.push_str(",\"derivations\":");
                        push_json(out, &crate::explain::explain_case_refs(cat.schema, &batch, &output, id));
                        out.push('}');
                    }
                }
                if opts.certify {
                    out.pop();
                    out.push_str(",\"certificate\":");
                    push_json(out, &crate::certificate::certificate(cat.schema, &batch, &output, id, text.as_ref()));
                    out.push('}');
                }
                out.push('\n');
            }
            Err(line) => {
                errors += 1;
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    errors
}

/// After a chunk's first case (of `first_bytes` bytes, in a chunk of `chunk_bytes`): room in
/// each of the batch's rows for as many cases like it as the chunk's bytes hold, so that they
/// grow once rather than by doubling. A row takes at least a byte of its line for each value,
/// so the room is at most `chunk_bytes` values, whatever the first line.
fn reserve_like_first(batch: &mut Batch, first_bytes: usize, chunk_bytes: usize) {
    let cases = chunk_bytes / first_bytes.max(1);
    for rows in &mut batch.facts {
        rows.reserve(rows.len().saturating_mul(cases).min(chunk_bytes));
    }
}

/// Appends `value` as compact JSON: what its `Display` writes, without the formatter between
/// serde_json and the string (a quarter of the cost of `--explain`).
fn push_json(out: &mut String, value: &impl serde::Serialize) {
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

/// A ruling's `why_not` object: the answers to `batch.why_not[asked]`, a concluded literal with
/// its explanation from `explanations` (an input fact's is the fact itself).
fn why_not_entries(
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
enum CaseValue<'a> {
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
    fn json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }
}

/// How a reader marks a line it could not read as text (a NUL cannot start a JSON line).
const UNREADABLE: &str = "\u{0}clir-unreadable:";

/// A line that could not be read as text (not UTF-8, too long), for [`rule_chunk_into`]: it
/// gets the error line `line N: why`.
pub fn unreadable(why: &str) -> String {
    format!("{UNREADABLE}{why}")
}

/// Why a line marked by [`unreadable`] could not be read; `None` for a line of text.
pub fn unreadable_reason(line: &str) -> Option<&str> {
    line.strip_prefix(UNREADABLE)
}

/// The error line of CONTRACT.md for the line numbered `no`: `{"case":CASE,"error":"line N: msg"}`,
/// `case` being the case value as compact JSON text (`null` when the line has none).
pub fn error_line(case: &str, no: usize, msg: &str) -> String {
    let mut s = String::from("{\"case\":");
    s.push_str(case);
    s.push_str(",\"error\":");
    json_str(&mut s, &format!("line {no}: {msg}"));
    s.push('}');
    s
}

/// Whether `s` is written as a JSON string as it is, between quotes (serde_json escapes only
/// `"`, the backslash and control characters).
fn is_plain(s: &str) -> bool {
    s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// Writes `s` as a JSON string, as serde_json does.
pub(crate) fn json_str(out: &mut String, s: &str) {
    if is_plain(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&Value::from(s).to_string());
    }
}

/// Writes `v` as compact JSON.
fn json_value(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => json_str(out, s),
        other => out.push_str(&other.to_string()),
    }
}

/// `json`, a JSON value as written, without white space between its tokens: a case value comes
/// back as it was written (a number of any size or spelling, a string's escapes), and two values
/// written differently are never taken for one.
pub fn compact_json(json: &str) -> Cow<'_, str> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let bytes = json.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    let needs = bytes.iter().any(|&b| {
        let outside = !in_string;
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ => {}
        }
        outside && is_space(b)
    });
    if !needs {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ' ' | '\t' | '\n' | '\r' if !in_string => continue,
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Rows of a slot, in case order (copied and sorted only when they are not).
fn by_case(rows: &[i64], stride: usize) -> Cow<'_, [i64]> {
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

/// Writes the ruling lines of a batch.
struct Writer<'b> {
    cat: &'b Catalog,
    batch: &'b Batch,
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
    fn new(cat: &'b Catalog, batch: &'b Batch, out: &'b Output) -> Self {
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
        self.tuples.clear();
        self.tuples.extend((from..to).step_by(*stride).map(|t| t + 1));
        if self.tuples.len() > 1 {
            let rank = &self.cat.constant_rank;
            self.tuples.sort_by(|&a, &b| {
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

    /// Appends the ruling line of case `id` (without `\n`).
    fn ruling(&mut self, out: &mut String, case: &CaseValue, id: u32) {
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
        out.push_str("]}");
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
    use super::{cmp_tuple, compact_json, Batch, ByCase, CaseValue, Catalog, Output, Writer};
    use crate::schema::{ConstantInfo, ParamInfo, RelationInfo, Schema};
    use proptest::prelude::*;
    use serde_json::Value;

    /// `as_of` is a date of the calendar: the day exists in that month of that year.
    #[test]
    fn as_of_is_a_real_calendar_date() {
        for good in ["2023-01-31", "2023-02-28", "2024-02-29", "2000-02-29", "2023-04-30", "2023-12-31", "0000-01-01"] {
            assert!(super::is_iso_date(good), "{good}");
        }
        for bad in [
            "2023-02-30",
            "2024-02-30",
            "2023-04-31",
            "2023-02-29",
            "1900-02-29",
            "2023-06-31",
            "2023-09-31",
            "2023-11-31",
            "2023-00-10",
            "2023-13-01",
            "2023-01-00",
            "2023-01-32",
            "2023-1-01",
            "+023-01-01",
            "2023-01-0\u{661}",
            "",
            "2023-01-011",
        ] {
            assert!(!super::is_iso_date(bad), "{bad}");
        }
    }

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

    /// Any JSON value, with white space of every JSON kind between its tokens and strings that
    /// hold white space, quotes and escapes.
    fn spaced_json() -> impl Strategy<Value = String> {
        let ws = prop::sample::select(vec!["", " ", "\t", "\n", "\r\n", "  "]);
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("-0".to_string()),
            Just("1E2".to_string()),
            Just("18446744073709551617".to_string()),
            "[ a-z\"\\\\\t]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            Just("\"a \\\" b\"".to_string()),
        ];
        leaf.prop_recursive(3, 24, 4, move |inner| {
            let ws = ws.clone();
            prop_oneof![
                (prop::collection::vec((inner.clone(), ws.clone()), 0..4), ws.clone()).prop_map(|(items, w)| {
                    let items: Vec<String> = items.into_iter().map(|(v, w)| format!("{w}{v}{w}")).collect();
                    format!("[{w}{}]", items.join(","))
                }),
                (prop::collection::vec(("[a-z]{1,3}", inner, ws.clone()), 0..4)).prop_map(|items| {
                    let items: Vec<String> = items
                        .into_iter()
                        .enumerate()
                        .map(|(i, (k, v, w))| format!("{w}\"{k}{i}\"{w}:{w}{v}{w}"))
                        .collect();
                    format!("{{{}}}", items.join(","))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn compact_json_drops_only_the_white_space_between_tokens(json in spaced_json()) {
            let compact = compact_json(&json);
            let (a, b): (Value, Value) = (serde_json::from_str(&json).unwrap(), serde_json::from_str(&compact).unwrap());
            prop_assert_eq!(a, b);
            // Outside strings, no white space is left; inside them, every character stays.
            let strings = |s: &str| serde_json::from_str::<Value>(s).unwrap().to_string();
            prop_assert_eq!(strings(&json), strings(&compact));
            prop_assert_eq!(compact_json(&compact), compact.clone());
            let spaces_outside = {
                let (mut in_string, mut escaped, mut n) = (false, false, 0);
                for c in compact.chars() {
                    match c {
                        _ if escaped => escaped = false,
                        '\\' if in_string => escaped = true,
                        '"' => in_string = !in_string,
                        ' ' | '\t' | '\n' | '\r' if !in_string => n += 1,
                        _ => {}
                    }
                }
                n
            };
            prop_assert_eq!(spaces_outside, 0);
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
            Writer::new(&cat, &batch, &output).ruling(&mut out, &CaseValue::Name("c"), case.0);
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
            let mut writer = Writer::new(&cat, &batch, &output);
            for case in cases {
                let mut out = String::new();
                writer.ruling(&mut out, &CaseValue::Name("c"), case.0);
                let ruling: Value = serde_json::from_str(&out).unwrap();
                let [concluded, definite] = &expected[case.0 as usize];
                prop_assert_eq!(&ruling["concluded"], &Value::Object(concluded.clone()));
                prop_assert_eq!(&ruling["definite"], &Value::Object(definite.clone()));
            }
        }
    }

    #[test]
    fn numbers_and_escapes_stay_as_written() {
        assert_eq!(compact_json("18446744073709551616"), "18446744073709551616");
        assert_eq!(compact_json("[ 1E2 ,\t-0 ]"), "[1E2,-0]");
        assert_eq!(compact_json("\"a \\u0061 \\\" b\""), "\"a \\u0061 \\\" b\"");
        assert!(matches!(compact_json("{\"a\":1}"), std::borrow::Cow::Borrowed(_)));
    }
}
