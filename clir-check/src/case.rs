//! A case line read as docs/FORMAT.md "Case lines" says, independently of clir's reader: its
//! keys, its facts checked against the package (relation, kind, grant, arity, types), its
//! `why_not` literals and its `as_of` date. A line clir refuses is refused here with the message
//! of clir's error line (without its `line N: `), so a certificate is never accepted for a case
//! clir would not rule.

use crate::json::{compact, without_place, Keys};
use crate::package::{Kind, Package, Value};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value as Json;
use std::fmt;

/// The most literals one case's `why_not` may ask about (docs/SECURITY.md).
pub const MAX_WHY_NOT: usize = 1024;

/// The most facts one case may state (docs/SECURITY.md).
pub const MAX_FACTS: usize = 10_000_000;

/// A literal: relation index, strong negation, arguments.
pub type Lit = (usize, bool, Vec<Value>);

/// A case line as read.
#[derive(Debug, Clone)]
pub struct Case {
    /// The `case` value, as written less the white space between its tokens.
    pub case: String,
    /// The facts it states.
    pub facts: std::collections::HashSet<Lit>,
    /// What reading it noted without refusing it (a name that looks like a misspelt constant),
    /// as clir's ruling writes it in `warnings`.
    pub warnings: Vec<String>,
}

/// A string key or value.
struct Str(String);

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str, E> {
                Ok(Str(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str, E> {
                Ok(Str(v))
            }
        }
        d.deserialize_str(V)
    }
}

/// A JSON value whose objects may not hold a key twice (the message names the `case` value,
/// as clir's does for any object it reads this way).
struct Strict(Json);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Other(Strict))
    }
}

/// Reads any JSON value as `Json` (objects strictly) and wraps it with `F`.
struct Other<F>(F);

impl<'de, T, F: Fn(Json) -> T> Visitor<'de> for Other<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Ok((self.0)(Json::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Ok((self.0)(Json::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Ok((self.0)(Json::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Ok((self.0)(Json::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(Json::String(v.to_owned())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok((self.0)(Json::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<T, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = s.next_element()? {
            items.push(v);
        }
        Ok((self.0)(Json::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<T, A::Error> {
        let mut map = serde_json::Map::new();
        while let Some(k) = m.next_key::<String>()? {
            let Strict(v) = m.next_value()?;
            if map.contains_key(&k) {
                return Err(de::Error::custom(format!("duplicate key `{k}` in the `case` value")));
            }
            map.insert(k, v);
        }
        Ok((self.0)(Json::Object(map)))
    }
}

/// An argument of a fact: a string, an Integer, or anything else (kept to be quoted).
enum Arg {
    Str(String),
    Int(i64),
    Other(Json),
}

impl Arg {
    fn json(&self) -> Json {
        match self {
            Arg::Str(s) => Json::String(s.clone()),
            Arg::Int(i) => Json::from(*i),
            Arg::Other(v) => v.clone(),
        }
    }
}

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Arg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Arg, E> {
                Ok(Arg::Other(Json::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Arg, E> {
                Ok(Arg::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Arg, E> {
                Ok(i64::try_from(v).map(Arg::Int).unwrap_or_else(|_| Arg::Other(Json::from(v))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Arg, E> {
                // The JSON integer `-0` reads as the float -0.0: it is the Integer 0.
                if v == 0.0 && v.is_sign_negative() {
                    return Ok(Arg::Int(0));
                }
                Ok(Arg::Other(Json::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Arg, E> {
                Ok(Arg::Str(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Arg, E> {
                Ok(Arg::Str(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Arg, E> {
                Ok(Arg::Other(Json::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Arg, A::Error> {
                Json::deserialize(de::value::SeqAccessDeserializer::new(s)).map(Arg::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Arg, A::Error> {
                Json::deserialize(de::value::MapAccessDeserializer::new(m)).map(Arg::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A relation's tuples as read, or the value that stood where their list was expected.
type Tuples = Result<Vec<Result<Vec<Arg>, Json>>, Json>;

/// A case line as read, before it is checked against the package.
#[derive(Default)]
struct Read {
    case: Option<String>,
    facts: Vec<(String, Tuples)>,
    why_not: Vec<String>,
    asked: bool,
    as_of: Option<String>,
}

struct CaseSeed<'r>(&'r mut Read);

impl<'de> Visitor<'de> for CaseSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a case object {\"case\":..., \"facts\":{...}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let (mut facts, mut as_of) = (false, false);
        while let Some(Str(k)) = m.next_key::<Str>()? {
            match k.as_str() {
                "case" if self.0.case.is_none() => {
                    let raw: &'de RawValue = m.next_value()?;
                    if raw.get().starts_with(['{', '[']) {
                        let mut d = serde_json::Deserializer::from_str(raw.get());
                        Strict::deserialize(&mut d).map_err(|e| de::Error::custom(without_place(&e)))?;
                    }
                    self.0.case = Some(compact(raw.get()));
                }
                "facts" if !facts => {
                    m.next_value_seed(FactsSeed(&mut *self.0))?;
                    facts = true;
                }
                "why_not" if !self.0.asked => {
                    let asked: Vec<Str> = m.next_value()?;
                    if asked.len() > MAX_WHY_NOT {
                        return Err(de::Error::custom(format!(
                            "`why_not` asks about {} literals; at most {MAX_WHY_NOT} are answered a case",
                            asked.len()
                        )));
                    }
                    self.0.why_not = asked.into_iter().map(|s| s.0).collect();
                    self.0.asked = true;
                }
                "as_of" if !as_of => {
                    let Str(date) = m.next_value()?;
                    if !is_iso_date(&date) {
                        return Err(de::Error::custom(format!("`as_of` is a date written YYYY-MM-DD, got `{date}`")));
                    }
                    self.0.as_of = Some(date);
                    as_of = true;
                }
                "case" | "facts" | "why_not" | "as_of" => {
                    return Err(de::Error::custom(format!("duplicate key `{k}`")))
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key `{other}` (a case has only `case`, `facts`, `why_not` and `as_of`)"
                    )))
                }
            }
        }
        if self.0.case.is_none() {
            return Err(de::Error::custom("missing key `case`"));
        }
        if !facts {
            return Err(de::Error::custom("missing key `facts`"));
        }
        Ok(())
    }
}

struct FactsSeed<'r>(&'r mut Read);

impl<'de> DeserializeSeed<'de> for FactsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FactsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of relation names to lists of tuples")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut keys = Keys::default();
        while let Some(Str(k)) = m.next_key::<Str>()? {
            if !keys.insert(&self.0.facts, &k) {
                return Err(de::Error::custom(format!("duplicate key `{k}` in `facts`")));
            }
            let tuples = match m.next_value_seed(ListSeed(true))? {
                Ok(List::Tuples(t)) => Ok(t),
                Ok(List::Args(_)) => Ok(Vec::new()),
                Err(v) => Err(v),
            };
            self.0.facts.push((k, tuples));
        }
        Ok(())
    }
}

/// Reads a list of tuples (`true`) or of arguments (`false`); anything else is kept as JSON.
struct ListSeed(bool);

/// A list read by [`ListSeed`].
enum List {
    Tuples(Vec<Result<Vec<Arg>, Json>>),
    Args(Vec<Arg>),
}

impl<'de> DeserializeSeed<'de> for ListSeed {
    type Value = Result<List, Json>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ListSeed {
    type Value = Result<List, Json>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Other(Err).visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Other(Err).visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Other(Err).visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Other(Err).visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Other(Err).visit_str(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Other(Err).visit_unit()
    }
    fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
        Other(Err).visit_map(m)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        if self.0 {
            let mut tuples = Vec::new();
            while let Some(t) = s.next_element_seed(ListSeed(false))? {
                tuples.push(t.map(|l| match l {
                    List::Args(a) => a,
                    List::Tuples(_) => Vec::new(),
                }));
            }
            Ok(Ok(List::Tuples(tuples)))
        } else {
            let mut args = Vec::new();
            while let Some(a) = s.next_element::<Arg>()? {
                args.push(a);
            }
            Ok(Ok(List::Args(args)))
        }
    }
}

/// Whether `s` is a calendar date `YYYY-MM-DD` of the proleptic Gregorian calendar.
pub fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || ![0, 1, 2, 3, 5, 6, 8, 9].iter().all(|&i| b[i].is_ascii_digit())
    {
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

/// serde_json's error placed by its column only (the report says which line).
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) if e.line() > 0 => format!("{message} (column {})", e.column()),
        _ => text,
    }
}

/// The `case` value of a line that is JSON, as written (`null` when it has none, or twice),
/// read as clir reads it for an error line: the first item of a list counts as its `case`.
pub fn case_value(line: &str) -> String {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<String>, A::Error> {
            let mut case = None;
            while let Some(Str(k)) = m.next_key::<Str>()? {
                if k == "case" {
                    if case.is_some() {
                        return Err(de::Error::custom("duplicate field `case`"));
                    }
                    let raw: Option<&'de RawValue> = m.next_value()?;
                    case = Some(raw.map(|r| compact(r.get())));
                } else {
                    m.next_value::<IgnoredAny>()?;
                }
            }
            Ok(case.flatten())
        }
        // As a struct of one field `case` is read from a list too: `[1]` has the case 1.
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<String>, A::Error> {
            let raw: Option<&'de RawValue> =
                s.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &"a case"))?;
            Ok(raw.map(|r| compact(r.get())))
        }
    }
    let mut d = serde_json::Deserializer::from_str(line);
    match d.deserialize_any(V).and_then(|c| d.end().map(|()| c)) {
        Ok(Some(c)) => c,
        _ => "null".into(),
    }
}

/// The closest of `candidates` to `name` (one that differs only in ASCII case, else the first
/// nearest by edit distance, if at most a third of `name`'s length, at least 1).
fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(name)) {
        return Some(c);
    }
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = levenshtein(name, c);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance between two strings, by characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `Err` naming the first of `grants` that is none of the package's capabilities (with the
/// closest one and the list), as `clir rule --grant` refuses it before any case is read.
pub fn check_grants(pkg: &Package, grants: &[String]) -> Result<(), String> {
    let mut caps: Vec<&str> = Vec::new();
    for cap in pkg.relations.iter().filter_map(|r| r.capability.as_deref()) {
        if !caps.contains(&cap) {
            caps.push(cap);
        }
    }
    match grants.iter().find(|g| !caps.contains(&g.as_str())) {
        None => Ok(()),
        Some(g) => Err(format!(
            "unknown capability `{g}`{}: package {} reserves its judgments to {}",
            did_you_mean(g, caps.iter().copied()),
            pkg.name,
            if caps.is_empty() { "no capability".to_string() } else { caps.join(", ") }
        )),
    }
}

fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates).map_or_else(String::new, |c| format!(" (did you mean `{c}`?)"))
}

/// Reads and checks a case line: the case, or its `case` value (`null` when unreadable) and
/// the message clir's error line gives it.
pub fn read(pkg: &Package, line: &str, grants: &[String]) -> Result<Case, (String, String)> {
    let mut r = Read::default();
    let mut d = serde_json::Deserializer::from_str(line);
    if let Err(e) = d.deserialize_map(CaseSeed(&mut r)).and_then(|()| d.end()) {
        return Err((case_value(line), json_error(&e)));
    }
    let case = r.case.clone().unwrap_or_else(|| "null".into());
    check(pkg, r, grants).map_err(|msg| (case, msg))
}

fn check(pkg: &Package, r: Read, grants: &[String]) -> Result<Case, String> {
    let count: usize = r.facts.iter().map(|(_, t)| t.as_ref().map_or(0, Vec::len)).sum();
    if count > MAX_FACTS {
        return Err(format!("the case has {count} facts; at most {MAX_FACTS} are accepted"));
    }
    if let Some(date) = &r.as_of {
        let law = format!("{} {}", pkg.name, pkg.version);
        if let Some(from) = pkg.in_force.as_deref().filter(|from| date.as_str() < *from) {
            return Err(format!("the case is dated {date} (as_of), before {law} is in force ({from})"));
        }
        if let Some(until) = pkg.until.as_deref().filter(|until| date.as_str() >= *until) {
            return Err(format!("the case is dated {date} (as_of), when {law} is no longer in force (since {until})"));
        }
    }
    let mut facts = std::collections::HashSet::with_capacity(count);
    let mut warnings: Vec<String> = Vec::new();
    // The constants of each type, by its name, in the package's order.
    let mut of_type: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    for (c, t) in &pkg.constants {
        of_type.entry(t.as_str()).or_default().push(c.as_str());
    }
    for (key, tuples) in &r.facts {
        let (negative, name) = match key.strip_prefix('~') {
            Some(n) => (true, n),
            None => (false, key.as_str()),
        };
        let Some(&rel) = pkg.by_name.get(name) else {
            let names = pkg.relations.iter().map(|r| r.name.as_str());
            return Err(format!("unknown relation `{name}`{}", did_you_mean(name, names)));
        };
        let info = &pkg.relations[rel];
        match info.kind {
            Kind::Institutional => {
                return Err(format!(
                    "relation `{name}` is institutional: it is derived by rules and cannot be given as input"
                ))
            }
            Kind::Judgment => {
                let cap = info.capability.as_deref().unwrap_or("");
                if !grants.iter().any(|g| g == cap) {
                    return Err(format!(
                        "relation `{name}` is a judgment reserved to capability `{cap}`; it is accepted only with --grant {cap}"
                    ));
                }
            }
            Kind::Empirical => {}
        }
        let signature = || info.params.iter().map(|(n, t)| format!("{n}: {t}")).collect::<Vec<_>>().join(", ");
        let Ok(tuples) = tuples else {
            return Err(format!("relation `{key}`: expected a list of tuples"));
        };
        for t in tuples {
            let args = match t {
                Ok(args) => args,
                Err(t) => return Err(format!("relation `{key}`: each tuple must be a list of arguments, got {t}")),
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
            let mut values = Vec::with_capacity(args.len());
            for ((a, (pname, ty)), &integer) in args.iter().zip(&info.params).zip(&info.integer) {
                if integer {
                    match a {
                        Arg::Int(v) => values.push(Value::Int(*v)),
                        _ => {
                            return Err(format!(
                                "relation `{name}`: argument `{pname}` is an Integer, got {}",
                                a.json()
                            ))
                        }
                    }
                    continue;
                }
                let Arg::Str(s) = a else {
                    return Err(format!(
                        "relation `{name}`: argument `{pname}` is a `{ty}` entity (a string), got {}",
                        a.json()
                    ));
                };
                let declared = of_type.get(ty.as_str()).map_or(&[][..], Vec::as_slice);
                if !declared.is_empty() && !declared.contains(&s.as_str()) {
                    if let Some(close) = closest(s, declared.iter().copied()) {
                        let note = format!(
                            "relation `{name}`: argument `{pname}`: `{s}` is not a declared {ty} (did you mean `{close}`?) (declared: {}); it was read as a new {ty}",
                            declared.join(", ")
                        );
                        if !warnings.contains(&note) {
                            warnings.push(note);
                        }
                    }
                }
                values.push(Value::Name(s.clone()));
            }
            facts.insert((rel, negative, values));
        }
    }
    for text in &r.why_not {
        asked(pkg, text)?;
    }
    Ok(Case { case: r.case.unwrap_or_else(|| "null".into()), facts, warnings })
}

/// Reads a `why_not` literal as clir does (`name(a,b)`, `~name(a,b)`, a name bare or a JSON
/// string): `Err` is clir's message for one it refuses.
fn asked(pkg: &Package, text: &str) -> Result<(), String> {
    let bad = |why: &str| format!("why_not: `{text}` is not a literal ({why})");
    let (_, t) = match text.strip_prefix('~') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let known = |n: &str| pkg.by_name.contains_key(n);
    let opens = t.match_indices('(').map(|(i, _)| i);
    let open = opens.clone().rfind(|&i| known(&t[..i])).or(opens.clone().next());
    let (name, inner) = match open {
        Some(open) if !known(t) => {
            let inner = t[open + 1..].strip_suffix(')').ok_or_else(|| bad("no closing `)`"))?;
            (&t[..open], Some(inner))
        }
        _ => (t, None),
    };
    let Some(&rel) = pkg.by_name.get(name) else {
        let names = pkg.relations.iter().map(|r| r.name.as_str());
        return Err(format!("why_not: unknown relation `{name}` in `{text}`{}", did_you_mean(name, names)));
    };
    let info = &pkg.relations[rel];
    let mut words: Vec<(String, bool)> = Vec::new();
    if let Some(inner) = inner.filter(|s| !s.trim().is_empty()) {
        let mut rest = inner;
        loop {
            let r = rest.trim_start();
            let (word, after, bare) = if r.starts_with('"') {
                let mut de = serde_json::Deserializer::from_str(r).into_iter::<String>();
                let word = match de.next() {
                    Some(Ok(w)) => w,
                    _ => return Err(bad("a quoted name is not a JSON string")),
                };
                (word, &r[de.byte_offset()..], false)
            } else {
                let end = r.find(',').unwrap_or(r.len());
                (r[..end].trim().to_string(), &r[end..], true)
            };
            words.push((word, bare));
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
    for ((w, bare), (&integer, (pname, _))) in words.iter().zip(info.integer.iter().zip(&info.params)) {
        if integer {
            if !*bare || w.parse::<i64>().is_err() {
                return Err(format!("why_not: in `{text}`, argument `{pname}` is an Integer, got `{w}`"));
            }
        } else if w.is_empty() {
            return Err(bad("an empty argument"));
        } else if *bare && w == "_" {
            return Err(format!(
                "why_not: in `{text}`, argument `{pname}` is `_`, which stands for no value; the entity named `_` is written \"_\""
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_and_the_closest_name() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        let names = ["game_drawn", "game_won_by", "judgment:FIDEArbiter"];
        assert_eq!(closest("game_drawnn", names), Some("game_drawn"));
        assert_eq!(closest("judgment:FideArbiter", names), Some("judgment:FIDEArbiter"));
        assert_eq!(closest("gmae_won_by", names), Some("game_won_by"));
        assert_eq!(closest("castling_legal", names), None);
        assert_eq!(closest("x", names), None);
    }

    #[test]
    fn dates() {
        assert!(is_iso_date("2000-02-29"));
        assert!(!is_iso_date("1900-02-29"));
        assert!(!is_iso_date("2023-13-01"));
    }
}
