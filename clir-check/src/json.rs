//! A strict JSON reader: every object of a package, case line, ruling line or certificate is read
//! with its keys in the order written, and a key written twice at any depth is an error (where
//! serde_json's `Value` silently keeps the last). Also the canonical bytes of SEMANTICS §1.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Number;
use std::collections::HashSet;
use std::fmt;

/// A JSON value read strictly: objects keep their keys in order, each key once.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it (`-0` is the float -0.0).
    Num(Number),
    /// A string.
    Str(String),
    /// A list.
    Arr(Vec<J>),
    /// An object: its keys in the order written, none twice.
    Obj(Vec<(String, J)>),
    /// The top-level `case` value of a line: its JSON text as written, less the white space
    /// between its tokens ([`compact`]).
    Raw(String),
}

impl J {
    /// The value of key `k` of an object.
    pub fn get(&self, k: &str) -> Option<&J> {
        match self {
            J::Obj(o) => o.iter().find(|(x, _)| x == k).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items of a list.
    pub fn as_array(&self) -> Option<&Vec<J>> {
        match self {
            J::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// The entries of an object.
    pub fn as_object(&self) -> Option<&Vec<(String, J)>> {
        match self {
            J::Obj(o) => Some(o),
            _ => None,
        }
    }

    /// A whole number from 0 to 2^64 - 1.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            J::Num(n) => n.as_u64(),
            _ => None,
        }
    }

    /// A whole number from -2^63 to 2^63 - 1.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            J::Num(n) => n.as_i64(),
            _ => None,
        }
    }
}

impl fmt::Display for J {
    /// Compact JSON, as serde_json writes its `Value` (keys in the order read).
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut out = Vec::new();
        write(self, &mut out, false);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

/// Whether to refuse an object that holds a key twice (a case's `facts` reports its own
/// duplicates with its own message; everything else is read with this).
struct Strict;

impl<'de> Visitor<'de> for Strict {
    type Value = J;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<J, E> {
        Ok(J::Num(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<J, E> {
        Ok(J::Num(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<J, E> {
        Number::from_f64(v).map(J::Num).ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<J, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = s.next_element::<J>()? {
            items.push(v);
        }
        Ok(J::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<J, A::Error> {
        let mut keys = Keys::default();
        let mut entries = Vec::new();
        while let Some(k) = m.next_key::<String>()? {
            if !keys.insert(&entries, &k) {
                return Err(de::Error::custom(format!("duplicate key `{k}`")));
            }
            let v: J = m.next_value()?;
            entries.push((k, v));
        }
        Ok(J::Obj(entries))
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        d.deserialize_any(Strict)
    }
}

/// The keys of an object read so far: compared one by one while few, then in a hash set, so an
/// object of many keys is read in linear time.
#[derive(Default)]
pub(crate) struct Keys(HashSet<String>);

impl Keys {
    /// Whether `k` is new among the keys of `entries` (which this set follows).
    pub(crate) fn insert<V>(&mut self, entries: &[(String, V)], k: &str) -> bool {
        const SCAN: usize = 16;
        if entries.len() < SCAN {
            return !entries.iter().any(|(x, _)| x == k);
        }
        if self.0.is_empty() {
            self.0.extend(entries.iter().map(|(x, _)| x.clone()));
        }
        self.0.insert(k.to_owned())
    }
}

/// Reads `text` as one strict JSON value (nothing but white space after it).
pub fn parse(text: &str) -> Result<J, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = J::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Reads `bytes` as one strict JSON value.
pub fn parse_slice(bytes: &[u8]) -> Result<J, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let v = J::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A line's top-level object, read strictly, with its `case` value kept as written
/// ([`J::Raw`]): a case id such as `18446744073709551616`, `1E2`, `-0` or `1e400` is echoed,
/// never rounded; inside an object or list case value, a duplicate key is still an error.
struct Line;

impl<'de> Visitor<'de> for Line {
    type Value = J;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<J, A::Error> {
        let mut keys = Keys::default();
        let mut entries = Vec::new();
        while let Some(k) = m.next_key::<String>()? {
            if !keys.insert(&entries, &k) {
                return Err(de::Error::custom(format!("duplicate key `{k}`")));
            }
            let v = if k == "case" {
                let raw: &'de RawValue = m.next_value()?;
                if raw.get().starts_with(['{', '[']) {
                    parse(raw.get()).map_err(|e| de::Error::custom(without_place(&e)))?;
                }
                J::Raw(compact(raw.get()))
            } else {
                m.next_value::<J>()?
            };
            entries.push((k, v));
        }
        Ok(J::Obj(entries))
    }
}

/// Reads a ruling line: one strict JSON object whose `case` is kept as written.
pub fn parse_line(text: &str) -> Result<J, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = de.deserialize_map(Line)?;
    de.end()?;
    Ok(v)
}

/// serde_json's message without its ` at line L column C`.
pub(crate) fn without_place(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

/// JSON text less the white space between its tokens (inside strings, every character stays).
pub fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        out.push(c);
    }
    out
}

/// Writes `v` as compact JSON; `sorted`: object keys in JCS order (by UTF-16 code units), the
/// canonical form of SEMANTICS §1.
fn write(v: &J, out: &mut Vec<u8>, sorted: bool) {
    match v {
        J::Obj(o) => write_object(o, None, out, sorted),
        J::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out, sorted);
            }
            out.push(b']');
        }
        J::Str(s) => write_string(s, out),
        J::Null => out.extend_from_slice(b"null"),
        J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        J::Num(n) => out.extend_from_slice(n.to_string().as_bytes()),
        J::Raw(r) => out.extend_from_slice(r.as_bytes()),
    }
}

fn write_object(o: &[(String, J)], skip: Option<&str>, out: &mut Vec<u8>, sorted: bool) {
    let mut entries: Vec<&(String, J)> = o.iter().filter(|(k, _)| Some(k.as_str()) != skip).collect();
    if sorted {
        entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    }
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write(v, out, sorted);
    }
    out.push(b'}');
}

/// A JSON string: `"`, the backslash and control characters escaped (as serde_json and JCS
/// write them), everything else as it is.
pub(crate) fn write_string(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(serde_json::Value::String(s.to_owned()).to_string().as_bytes());
}

/// The canonical bytes of `v` (SEMANTICS §1): keys sorted, no white space.
pub fn canonical(v: &J) -> Vec<u8> {
    let mut out = Vec::new();
    write(v, &mut out, true);
    out
}

/// The canonical bytes of an object without its key `skip` (a node without its `contentHash`).
pub fn canonical_without(o: &[(String, J)], skip: &str) -> Vec<u8> {
    let mut out = Vec::new();
    write_object(o, Some(skip), &mut out, true);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_key_at_any_depth_is_an_error() {
        assert!(parse(r#"{"a":1,"a":1}"#).is_err());
        assert!(parse(r#"{"a":[{"b":{"c":1,"c":2}}]}"#).is_err());
        assert!(parse_line(r#"{"case":{"x":1,"x":2}}"#).is_err());
        assert!(parse_line(r#"{"case":1,"case":1}"#).is_err());
        assert!(parse(r#"{"a":{"c":1},"b":{"c":2}}"#).is_ok());
    }

    #[test]
    fn the_case_value_is_kept_as_written() {
        for id in ["18446744073709551616", "1E2", "-0", "1e400", "\"a b\"", "{\"x\":[1,2]}"] {
            let v = parse_line(&format!("{{\"case\": {id} , \"x\":1}}")).unwrap();
            assert_eq!(v.get("case"), Some(&J::Raw(id.replace(' ', "").replace("\"ab\"", "\"a b\""))));
        }
    }

    #[test]
    fn canonical_bytes_sort_keys_by_utf16() {
        let v = parse(r#"{"\ue000":1,"😀":2,"a":3}"#).unwrap();
        assert_eq!(String::from_utf8(canonical(&v)).unwrap(), "{\"a\":3,\"😀\":2,\"\u{e000}\":1}");
    }
}
