//! Sealing a package file edited as JSON (`clir seal`): every hash the file's own content
//! determines is recomputed as [`crate::verify`] checks it, and the result must then pass every
//! check of [`crate::verify::verify_bytes`], or nothing is sealed.
//!
//! What is recomputed, from the file's own bytes: each fragment text's `contentHash` (sha256 of
//! its UTF-8 text), each node's `contentHash` ([`canonical::node_content_hash`], after its texts),
//! the top-level `semanticHash` ([`semantic_hash`]), and the canonical form of the whole file
//! ([`canonical::canonical_bytes`]). With a version, `package.version` and `semanticVersion`
//! become it.
//!
//! What is not: a publication's `documentHash` is the sha256 of the law's published text, a
//! document outside the package; it is checked against the local source text as `clir verify`
//! checks it, and a mismatch refuses the seal (DECISIONS 87). `package.semanticHash` (a
//! placeholder) is kept.
//!
//! A file that already passes every check, and is given no new version, is left as it is, byte
//! for byte, its publisher's semanticHash included; one whose nodes' hashes all recompute and
//! whose version stays (only its form, or what lies outside the nodes, changed) keeps its
//! semanticHash too. The parse is stricter than `clir verify`'s,
//! where rewriting would hide what verify reports as a non-canonical file: a duplicate key, and a
//! number that is not an integer the canonical form writes exactly, are refused.

use crate::canonical::{self, canonical_bytes, node_content_hash, sha256_hex};
use crate::diag::Diagnostic;
use crate::verify::{verify_bytes, Check, Outcome, Report, VerifyOptions};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::path::PathBuf;

/// The node kinds whose contentHashes the semanticHash covers (SEMANTICS §2: executable nodes).
pub const EXECUTABLE_KINDS: &[&str] =
    &["type_decl", "symbol_decl", "rule", "priority_rule", "closure_policy", "external_decl"];

/// What a seal is made with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealOptions {
    /// The new `package.version` (and `semanticVersion`), checked with
    /// [`crate::project::check_version`].
    pub version: Option<String>,
    /// The folder `metadata.localSources` paths are resolved against, as for `clir verify`.
    pub root: Option<PathBuf>,
    /// Whether a source text that is not available refuses the seal (otherwise a warning).
    pub strict_sources: bool,
}

/// A sealed package file.
#[derive(Debug, Clone)]
pub struct Sealed {
    /// The file's new bytes (the old ones when nothing changed).
    pub bytes: Vec<u8>,
    /// Whether the bytes differ from the file's.
    pub changed: bool,
    /// The ids (or `nodes[i]` for a node without one) of the nodes whose contentHash changed.
    pub nodes_rehashed: Vec<String>,
    /// How many nodes the file has.
    pub nodes: usize,
    /// How many fragment texts' hashes changed, of how many.
    pub texts_rehashed: (usize, usize),
    /// Whether the file was not in canonical form (after the hashes were recomputed).
    pub recanonicalized: bool,
    /// `package.version` before and after.
    pub version: (String, String),
    /// The top-level semanticHash before (if any) and after.
    pub semantic_hash: (Option<String>, String),
    /// The seal (sha256 of the bytes) before and after.
    pub seal: (String, String),
    /// `package.name`.
    pub name: String,
    /// The verification of the new bytes (every check passed or warned).
    pub report: Report,
}

/// The semanticHash clir gives a package it seals (SEMANTICS §1, DECISIONS 87): `sha256:` and the
/// hex sha256 of the canonical JSON array of the contentHashes of the executable nodes
/// ([`EXECUTABLE_KINDS`]), sorted as strings, as the nodes carry them.
pub fn semantic_hash(nodes: &[Value]) -> String {
    let mut hashes: Vec<&str> = nodes
        .iter()
        .filter(|n| n.get("kind").and_then(Value::as_str).is_some_and(|k| EXECUTABLE_KINDS.contains(&k)))
        .filter_map(|n| n.get("contentHash").and_then(Value::as_str))
        .collect();
    hashes.sort_unstable();
    sha256_hex(&canonical_bytes(&Value::Array(hashes.into_iter().map(|h| Value::String(h.into())).collect())))
}

/// Recomputes the hashes of a package file's bytes as the module says. `Err` is the report of
/// what refused it (the strict parse, or the checks of the resealed bytes): nothing is sealed.
pub fn reseal(bytes: &[u8], opts: &SealOptions) -> Result<Sealed, Box<Report>> {
    let verify_opts =
        VerifyOptions { root: opts.root.clone(), strict_sources: opts.strict_sources, ..VerifyOptions::default() };
    let old_seal = canonical::seal(bytes);
    if let Some(v) = &opts.version {
        if let Err(e) = crate::project::check_version(v) {
            return Err(refusal("version", Diagnostic::new("version", "package.version", e), &old_seal));
        }
    }
    let mut json = match strict_parse(bytes) {
        Ok(v) => v,
        Err(message) => return Err(refusal("parse", Diagnostic::new("parse", "", message), &old_seal)),
    };
    let old_version = json.pointer("/package/version").and_then(Value::as_str).unwrap_or("").to_string();
    let old_semantic = json.get("semanticHash").and_then(Value::as_str).map(str::to_string);
    let new_version = opts.version.clone().filter(|v| *v != old_version);
    // Whether the file, as parsed, was in canonical form.
    let recanonicalized = canonical_bytes(&json) != bytes;

    // A file that already verifies, and keeps its version, is sealed as it is.
    let report = verify_bytes(bytes, &verify_opts);
    if report.ok() && new_version.is_none() {
        let name = json.pointer("/package/name").and_then(Value::as_str).unwrap_or("").to_string();
        let semantic = old_semantic.clone().unwrap_or_default();
        let nodes = json.get("nodes").and_then(Value::as_array).map_or(0, Vec::len);
        let texts = count_texts(&json);
        return Ok(Sealed {
            bytes: bytes.to_vec(),
            changed: false,
            nodes_rehashed: Vec::new(),
            nodes,
            texts_rehashed: (0, texts),
            recanonicalized: false,
            version: (old_version.clone(), old_version),
            semantic_hash: (old_semantic, semantic),
            seal: (old_seal.clone(), old_seal),
            name,
            report,
        });
    }

    if let Some(v) = &new_version {
        if let Some(package) = json.get_mut("package").and_then(Value::as_object_mut) {
            package.insert("version".into(), Value::String(v.clone()));
        }
        if let Some(top) = json.as_object_mut() {
            top.insert("semanticVersion".into(), Value::String(v.clone()));
        }
    }
    let mut nodes_rehashed = Vec::new();
    let mut texts_rehashed = (0, 0);
    let mut node_count = 0;
    if let Some(nodes) = json.get_mut("nodes").and_then(Value::as_array_mut) {
        node_count = nodes.len();
        for (i, node) in nodes.iter_mut().enumerate() {
            let (changed, texts) = rehash_node(node);
            texts_rehashed.0 += texts.0;
            texts_rehashed.1 += texts.1;
            if changed {
                let id = node.get("id").and_then(Value::as_str).map_or_else(|| format!("nodes[{i}]"), str::to_string);
                nodes_rehashed.push(id);
            }
        }
    }
    // When no hash of a node changed and the version stays, the meaning is the file's as it was
    // (only its form changed): its semanticHash, the publisher's perhaps, still stands for it.
    let same_meaning = nodes_rehashed.is_empty() && texts_rehashed.0 == 0 && new_version.is_none();
    let semantic = match &old_semantic {
        Some(old) if same_meaning => old.clone(),
        _ => semantic_hash(json.get("nodes").and_then(Value::as_array).map_or(&[], Vec::as_slice)),
    };
    if let Some(top) = json.as_object_mut() {
        top.insert("semanticHash".into(), Value::String(semantic.clone()));
    }

    let new_bytes = canonical_bytes(&json);
    let report = verify_bytes(&new_bytes, &verify_opts);
    if !report.ok() {
        return Err(Box::new(report));
    }
    let name = json.pointer("/package/name").and_then(Value::as_str).unwrap_or("").to_string();
    let version = json.pointer("/package/version").and_then(Value::as_str).unwrap_or("").to_string();
    Ok(Sealed {
        changed: new_bytes != bytes,
        seal: (old_seal, canonical::seal(&new_bytes)),
        bytes: new_bytes,
        nodes_rehashed,
        nodes: node_count,
        texts_rehashed,
        recanonicalized,
        version: (old_version, version),
        semantic_hash: (old_semantic, semantic),
        name,
        report,
    })
}

/// Recomputes a node's text hashes, then its contentHash: whether the contentHash changed, and
/// (texts whose hash changed, texts).
fn rehash_node(node: &mut Value) -> (bool, (usize, usize)) {
    let Some(map) = node.as_object_mut() else { return (false, (0, 0)) };
    let mut texts = (0, 0);
    if map.get("kind").and_then(Value::as_str) == Some("fragment") {
        if let Some(list) = map.get_mut("texts").and_then(Value::as_array_mut) {
            for t in list.iter_mut().filter_map(Value::as_object_mut) {
                let Some(text) = t.get("text").and_then(Value::as_str) else { continue };
                texts.1 += 1;
                let hash = sha256_hex(text.as_bytes());
                if t.get("contentHash").and_then(Value::as_str) != Some(hash.as_str()) {
                    texts.0 += 1;
                    t.insert("contentHash".into(), Value::String(hash));
                }
            }
        }
    }
    let hash = node_content_hash(node);
    let Some(map) = node.as_object_mut() else { return (false, texts) };
    let changed = map.get("contentHash").and_then(Value::as_str) != Some(hash.as_str());
    map.insert("contentHash".into(), Value::String(hash));
    (changed, texts)
}

fn count_texts(json: &Value) -> usize {
    let nodes = json.get("nodes").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    nodes
        .iter()
        .filter(|n| n.get("kind").and_then(Value::as_str) == Some("fragment"))
        .filter_map(|n| n.get("texts").and_then(Value::as_array))
        .map(|ts| ts.iter().filter(|t| t.get("text").and_then(Value::as_str).is_some()).count())
        .sum()
}

/// A report of one failed check (and the seal found), for a file refused before it is resealed.
fn refusal(name: &'static str, d: Diagnostic, seal: &str) -> Box<Report> {
    let check = Check { name, outcome: Outcome::Fail, detail: d.message.clone(), diagnostics: vec![d] };
    let seal = Check {
        name: "seal",
        outcome: Outcome::Skipped,
        detail: format!("{seal} (no pin given: not compared)"),
        diagnostics: Vec::new(),
    };
    Box::new(Report { checks: vec![check, seal], document: None, symbols: None })
}

/// Parses JSON as `clir verify` does, but refuses what re-serializing would hide: a duplicate
/// key in an object, and a number that is not an integer (a fraction, an exponent, or an integer
/// beyond 64 bits, which would be rounded). The message says where.
pub fn strict_parse(bytes: &[u8]) -> Result<Value, String> {
    if bytes.is_empty() {
        return Err("empty file: expected a JSON object".into());
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Strict.deserialize(&mut de).map_err(|e| format!("not valid JSON: {e}"))?;
    de.end().map_err(|e| format!("not valid JSON: {e}"))?;
    Ok(value)
}

/// A [`Value`] deserializer that refuses duplicate keys and non-integer numbers.
#[derive(Clone, Copy)]
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Err(E::custom(format!(
            "the number {v} is not an integer of at most 64 bits: the canonical form writes only those exactly"
        )))
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

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key {key:?} in one object")));
            }
            let v = map.next_value_seed(Strict)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_parse_refuses_duplicates_and_fractions() {
        assert!(strict_parse(br#"{"a":1,"a":2}"#).unwrap_err().contains("duplicate key \"a\""));
        assert!(strict_parse(br#"{"a":1.5}"#).unwrap_err().contains("not an integer"));
        assert!(strict_parse(br#"{"a":1e2}"#).is_err());
        assert!(strict_parse(br#"{"a":18446744073709551616}"#).is_err());
        assert!(strict_parse(b"").is_err());
        assert!(strict_parse(br#"{"a":1} x"#).is_err());
        let v = strict_parse(br#" {"b":[-1,18446744073709551615,null,true,"\u0041"],"a":{}} "#).unwrap();
        assert_eq!(canonical_bytes(&v), br#"{"a":{},"b":[-1,18446744073709551615,null,true,"A"]}"#);
    }

    #[test]
    fn semantic_hash_is_over_sorted_executable_content_hashes() {
        let nodes: Vec<Value> = serde_json::from_str(
            r#"[{"kind":"rule","contentHash":"sha256:b"},{"kind":"fragment","contentHash":"sha256:z"},
                {"kind":"type_decl","contentHash":"sha256:a"}]"#,
        )
        .unwrap();
        assert_eq!(semantic_hash(&nodes), sha256_hex(br#"["sha256:a","sha256:b"]"#));
    }

    #[test]
    fn a_bad_version_is_refused() {
        let opts = SealOptions { version: Some("x1".into()), ..SealOptions::default() };
        let report = reseal(b"{}", &opts).unwrap_err();
        assert_eq!(report.failed_checks(), vec!["version"]);
    }
}
