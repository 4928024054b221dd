//! Reading case lines: the options a run is given, the catalog of a package's keys, and the full
//! reader, which reads a line straight into the batch's flat rows (names borrowed from the line,
//! no `serde_json::Value` per fact: only the `case` value and the values an error message quotes
//! are kept as JSON) or says why the line is an error line. [`super::fast`] reads the lines of
//! the common shape first; this reader decides every other line.

use super::keys::FindKey;
use super::text::{compact_json, is_plain, json_str, json_value};
use crate::batch::{slot, Batch};
use crate::schema::{ParamInfo, RelationKind, Schema};
use crate::value::{CaseId, FastMap, Interner, Sym};
use crate::Package;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

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
    pub(super) fn grants(&self, capability: Option<&str>) -> bool {
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
    pub(super) schema: &'static Schema,
    /// The package's generated tables, when it has them.
    pub(super) codec: Option<&'static Codec>,
    pub(super) relations: FastMap<&'static str, usize>,
    /// Per slot ([`slot`]) of an empirical or judgment relation whose name needs no escape:
    /// its key as a case line writes it, between quotes (`"~name"` for the negative slot).
    pub(super) quoted_input_keys: Vec<Option<Box<[u8]>>>,
    /// Per id of a constant (as every batch's interner numbers them): its place among the
    /// constants' names in byte order, the order ruling lines list tuples in.
    pub(super) constant_rank: Vec<u32>,
    /// Per relation, per parameter: the constants of the parameter's type, `(name, id)`.
    pub(super) constants: Vec<Vec<Vec<(&'static str, u32)>>>,
    /// The keys of a ruling's `concluded` and `definite` objects in the order they are written
    /// (sorted, as a JSON object map sorts them): the slot and `"key":`.
    pub(super) keys: Vec<(usize, String)>,
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
    pub(super) fn codec_agrees(&self, codec: &Codec) -> bool {
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
    pub(super) fn input_key(&self, key: &str) -> Option<(usize, bool)> {
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
    pub(super) fn quoted_input_key(&self, s: usize) -> Option<&[u8]> {
        self.quoted_input_keys.get(s)?.as_deref()
    }

    /// The constants of the type of parameter `param` of relation `rel`, `(name, id)`.
    #[cfg(feature = "arrow")]
    pub(crate) fn param_constants(&self, rel: usize, param: usize) -> &[(&'static str, u32)] {
        self.constants.get(rel).and_then(|r| r.get(param)).map_or(&[], Vec::as_slice)
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
pub(crate) enum Arg<'a> {
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
pub(crate) struct Read<'a> {
    /// The `case` value as compact JSON text: as written, less white space between tokens.
    pub(super) case: Cow<'a, str>,
    /// Per key of `facts`: the key and its tuples (a span of `tuples`).
    facts: Vec<(Cow<'a, str>, Span)>,
    /// Per tuple: its arguments (a span of `args`).
    tuples: Vec<Span>,
    args: Vec<Arg<'a>>,
    /// The literals of `why_not`, as written.
    pub(super) why_not: Vec<Cow<'a, str>>,
    /// `as_of`: the date the case is ruled at (`YYYY-MM-DD`).
    as_of: Option<Cow<'a, str>>,
}

impl<'a> Read<'a> {
    /// Empties the case read, keeping its vectors' room.
    pub(crate) fn clear(&mut self) {
        self.case = Cow::Borrowed("null");
        self.facts.clear();
        self.tuples.clear();
        self.args.clear();
        self.why_not.clear();
        self.as_of = None;
    }

    /// Starts the tuples of key `key` of `facts` (`name` or `~name`), for a case given by
    /// columns rather than a line (`clir::arrow`); [`Read::push_tuple`] adds them.
    #[cfg(feature = "arrow")]
    pub(crate) fn start_key(&mut self, key: &'a str) {
        let t = self.tuples.len();
        self.facts.push((Cow::Borrowed(key), Ok((t, t))));
    }

    /// Adds a tuple of `args` to the key last started (`None`: a null where the tuple stands,
    /// which the validation refuses as a line's `null` is).
    #[cfg(feature = "arrow")]
    pub(crate) fn push_tuple(&mut self, args: Option<&mut dyn Iterator<Item = Arg<'a>>>) {
        match args {
            Some(args) => {
                let a0 = self.args.len();
                self.args.extend(args);
                self.tuples.push(Ok((a0, self.args.len())));
            }
            None => self.tuples.push(Err(Value::Null)),
        }
        if let Some((_, Ok((_, end)))) = self.facts.last_mut() {
            *end = self.tuples.len();
        }
    }

    /// Adds a literal to `why_not`, refusing more than [`MAX_WHY_NOT_PER_CASE`] as a line's
    /// `why_not` is refused.
    #[cfg(feature = "arrow")]
    pub(crate) fn push_why_not(&mut self, literal: &'a str) -> Result<(), String> {
        self.why_not.push(Cow::Borrowed(literal));
        match self.why_not.len() {
            n if n > MAX_WHY_NOT_PER_CASE => Err(too_many_asked(n)),
            _ => Ok(()),
        }
    }

    /// Sets `as_of`, refusing what is not a date as a line's `as_of` is refused.
    #[cfg(feature = "arrow")]
    pub(crate) fn set_as_of(&mut self, date: &'a str) -> Result<(), String> {
        if !is_iso_date(date) {
            return Err(not_a_date(date));
        }
        self.as_of = Some(Cow::Borrowed(date));
        Ok(())
    }
}

/// Why a case's `why_not` of `n` literals is refused.
fn too_many_asked(n: usize) -> String {
    format!("`why_not` asks about {n} literals; at most {MAX_WHY_NOT_PER_CASE} are answered a case")
}

/// Why an `as_of` of `date` is refused.
fn not_a_date(date: &str) -> String {
    format!("`as_of` is a date written YYYY-MM-DD, got `{date}`")
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
                        return Err(de::Error::custom(too_many_asked(asked.len())));
                    }
                    self.0.why_not.extend(asked.into_iter().map(|s| s.0));
                    why_not = true;
                }
                "as_of" if !as_of => {
                    let date: Str<'de> = m.next_value()?;
                    if !is_iso_date(&date.0) {
                        return Err(de::Error::custom(not_a_date(&date.0)));
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
pub(super) enum Flat {
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
pub(super) fn add_case<'a>(
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
    for facts in &read.facts {
        validate_facts(cat, read, opts, facts, rows, flat, &mut notes)?;
    }
    let asked = read.why_not.iter().map(|text| parse_asked(cat, text)).collect::<Result<Vec<_>, String>>()?;
    let case = batch.add_case();
    batch.warnings.extend(notes.into_iter().map(|n| (case, n)));
    add_asked(batch, read, case, asked);
    add_rows(cat, batch, read, case, rows, flat, names);
    Ok(case.0)
}

/// The scratch space [`add_case`] reuses from case to case, for a reader that fills a [`Read`]
/// itself (`clir::arrow`): every check and message of a case line's, none of its JSON.
#[cfg(feature = "arrow")]
#[derive(Default)]
pub(crate) struct Adder<'a> {
    rows: Vec<(usize, bool, usize)>,
    flat: Vec<Flat>,
    names: FastMap<&'a str, i64>,
}

#[cfg(feature = "arrow")]
impl<'a> Adder<'a> {
    /// Validates `read` and adds it to `batch` as [`add_case`] does: its case id, or the
    /// message of its error line.
    pub(crate) fn add(
        &mut self,
        cat: &Catalog,
        batch: &mut Batch,
        read: &Read<'a>,
        opts: &Options,
    ) -> Result<u32, String> {
        add_case(cat, batch, read, opts, &mut self.rows, &mut self.flat, &mut self.names)
    }

    /// Forgets the names remembered for a batch (call it before each new batch: a name's id
    /// belongs to the batch that interned it).
    pub(crate) fn new_batch(&mut self) {
        self.names.clear();
    }
}

/// The relation of a case's `facts` key (`name` or `~name`) and its sign, when the case may give
/// its facts: an empirical relation, or a judgment the run is granted.
fn input_relation<'k>(cat: &Catalog, opts: &Options, key: &'k str) -> Result<(usize, bool, &'k str), String> {
    let (negative, name) = match key.strip_prefix('~') {
        Some(n) => (true, n),
        None => (false, key),
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
    Ok((rel, negative, name))
}

/// Validates a key of `facts` and its tuples: each tuple becomes a row `(relation, sign, offset
/// in flat)` of `rows` and its arguments values or names to intern in `flat`; a name that looks
/// like a misspelt constant adds a warning to `notes` (or, under `strict_constants`, is the
/// error).
fn validate_facts(
    cat: &Catalog,
    read: &Read<'_>,
    opts: &Options,
    (key, tuples): &(Cow<'_, str>, Span),
    rows: &mut Vec<(usize, bool, usize)>,
    flat: &mut Vec<Flat>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let (rel, negative, name) = input_relation(cat, opts, key)?;
    let info = &cat.schema.relations[rel];
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
            flat.push(flat_arg(opts, name, p, &cat.constants[rel][i], a, a0 + i, notes)?);
        }
    }
    Ok(())
}

/// Argument `a` of parameter `p` of relation `name` (whose type declares `constants`), at `at`
/// in the read arguments: its value, or the name to intern; a name that looks like a misspelt
/// constant adds a warning to `notes` (or, under `strict_constants`, is the error).
fn flat_arg(
    opts: &Options,
    name: &str,
    p: &ParamInfo,
    constants: &[(&'static str, u32)],
    a: &Arg<'_>,
    at: usize,
    notes: &mut Vec<String>,
) -> Result<Flat, String> {
    if p.integer {
        return match a {
            Arg::Int(v) => Ok(Flat::Value(*v)),
            _ => Err(format!("relation `{name}`: argument `{}` is an Integer, got {}", p.name, a.json())),
        };
    }
    let Arg::Str(s) = a else {
        return Err(format!(
            "relation `{name}`: argument `{}` is a `{}` entity (a string), got {}",
            p.name,
            p.ty,
            a.json()
        ));
    };
    if let Some(&(_, c)) = constants.iter().find(|(c, _)| *c == &**s) {
        return Ok(Flat::Value(c as i64));
    }
    if !constants.is_empty() {
        // An entity of a type that also has named values: an error under `strict_constants`,
        // else a warning when it looks like one of them misspelt (DECISIONS 44).
        let declared = constants.iter().map(|(c, _)| *c);
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
    }
    Ok(Flat::Intern(at))
}

/// Adds the literals `case` asks about (`why_not`, read by [`parse_asked`]) to `batch`, noting
/// those about an entity the case's facts never mention.
fn add_asked(batch: &mut Batch, read: &Read<'_>, case: CaseId, asked: Vec<(usize, bool, Vec<AskedArg>)>) {
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
        batch.why_not.push(crate::reason::Asked { case, rel: rel as u32, negative, args });
    }
}

/// Adds the validated `rows` of `case` to `batch`, interning their names.
fn add_rows<'a>(
    cat: &Catalog,
    batch: &mut Batch,
    read: &Read<'a>,
    case: CaseId,
    rows: &[(usize, bool, usize)],
    flat: &[Flat],
    names: &mut FastMap<&'a str, i64>,
) {
    let mut values = [0i64; 16];
    let mut buf = Vec::new();
    // The few names of one case, most of them repeated from fact to fact: a linear look-up
    // among the first LOCAL_NAMES of them, then the chunk's map of borrowed names (a hash map:
    // a case of 10^5 distinct names costs linear time), then the batch's interner.
    const LOCAL_NAMES: usize = 16;
    let mut local: Vec<(&str, i64)> = Vec::with_capacity(LOCAL_NAMES);
    for &(rel, negative, start) in rows {
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
pub(super) fn read_line<'a>(line: &'a str, read: &mut Read<'a>) -> Result<(), (Cow<'a, str>, String)> {
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

/// Checks a case line as [`super::rule_chunk_into`] would read it, without ruling it, and returns its
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

/// How a reader marks a line it could not read as text (a NUL cannot start a JSON line).
pub(super) const UNREADABLE: &str = "\u{0}clir-unreadable:";

/// A line that could not be read as text (not UTF-8, too long), for [`super::rule_chunk_into`]: it
/// gets the error line `line N: why`.
pub fn unreadable(why: &str) -> String {
    format!("{UNREADABLE}{why}")
}

/// Why a line marked by [`unreadable`] could not be read; `None` for a line of text.
pub fn unreadable_reason(line: &str) -> Option<&str> {
    line.strip_prefix(UNREADABLE)
}

#[cfg(test)]
mod tests {
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
}
