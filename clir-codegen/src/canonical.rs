//! Canonical bytes (JCS-style: keys sorted by UTF-16 code units, no whitespace, raw UTF-8) and
//! the sha256 hashes of SEMANTICS §1.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical bytes of a JSON value.
pub fn canonical_bytes(v: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_value(v, &mut out);
    out
}

fn write_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => write_object(map, None, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::String(s) => write_string(s, out),
        // serde_json writes null, booleans and integers exactly as JCS does.
        other => out.extend_from_slice(other.to_string().as_bytes()),
    }
}

/// Writes an object with its keys sorted, leaving out the key `skip`.
fn write_object(map: &serde_json::Map<String, Value>, skip: Option<&str>, out: &mut Vec<u8>) {
    let mut entries: Vec<(&String, &Value)> = map.iter().filter(|(k, _)| Some(k.as_str()) != skip).collect();
    entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write_value(v, out);
    }
    out.push(b'}');
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    // serde_json escapes exactly the JCS set: `"` `\\` and control characters, raw UTF-8 otherwise.
    out.extend_from_slice(Value::String(s.to_string()).to_string().as_bytes())
}

/// `sha256:` + lowercase hex of the sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The seal of a package file: sha256 of its bytes.
pub fn seal(file_bytes: &[u8]) -> String {
    sha256_hex(file_bytes)
}

/// The contentHash of a node: sha256 of its canonical bytes without its `contentHash` key.
pub fn node_content_hash(node: &Value) -> String {
    match node {
        Value::Object(map) => {
            let mut out = Vec::with_capacity(1024);
            write_object(map, Some("contentHash"), &mut out);
            sha256_hex(&out)
        }
        other => sha256_hex(&canonical_bytes(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+E000 sorts after U+1F600 in UTF-8 byte order but before it in UTF-16 order.
        let v: Value = serde_json::from_str(r#"{"\ue000":1,"😀":2,"a":3}"#).unwrap();
        assert_eq!(String::from_utf8(canonical_bytes(&v)).unwrap(), "{\"a\":3,\"😀\":2,\"\u{e000}\":1}");
    }

    #[test]
    fn controls_are_escaped_and_unicode_is_raw() {
        let v = Value::String("é\u{1}\n\"".into());
        assert_eq!(String::from_utf8(canonical_bytes(&v)).unwrap(), "\"é\\u0001\\n\\\"\"");
    }
}
