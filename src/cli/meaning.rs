//! What changed in meaning between two versions of a package: its executable nodes (types,
//! constants, rules, priorities, closures, externals) whose contentHash differs, added or
//! removed, each with its id and the articles it is anchored to. `clir add --update` and
//! `clir lock --update` print them, so that a law.lock diff is reviewed with the rules it
//! stands for, not only with a new hash.

use serde_json::Value;
use std::collections::BTreeMap;

/// What is said of a changed pin whose old blob the project no longer holds.
pub const OLD_BLOB_GONE: &str = "the old blob is not in the project: what changed in meaning cannot be listed";

/// The node kinds that carry meaning (SEMANTICS: the semanticHash covers them).
const EXECUTABLE: [&str; 6] = ["type_decl", "symbol_decl", "rule", "priority_rule", "closure_policy", "external_decl"];

/// An executable node: its kind, contentHash and anchors.
struct Node {
    kind: String,
    hash: String,
    anchors: Vec<String>,
}

/// The executable nodes of a package file, by id; `None` when the bytes are not a package.
fn executable(bytes: &[u8]) -> Option<BTreeMap<String, Node>> {
    let doc: Value = serde_json::from_slice(bytes).ok()?;
    let mut out = BTreeMap::new();
    for n in doc.get("nodes")?.as_array()? {
        let kind = n.get("kind").and_then(Value::as_str).unwrap_or_default();
        if !EXECUTABLE.contains(&kind) {
            continue;
        }
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        let anchors = n
            .get("anchors")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        out.insert(text(n.get("id")), Node { kind: kind.to_string(), hash: text(n.get("contentHash")), anchors });
    }
    Some(out)
}

/// One line per executable node that `new` changes, adds or removes against `old`
/// (`changed rule ID (anchored to A, B)`), in id order; `None` when either is not a package.
pub fn changed_nodes(old: &[u8], new: &[u8]) -> Option<Vec<String>> {
    let (old, new) = (executable(old)?, executable(new)?);
    let show = |what: &str, id: &str, n: &Node| {
        let anchors = if n.anchors.is_empty() {
            "no article".to_string()
        } else {
            format!("anchored to {}", n.anchors.join(", "))
        };
        format!("{what} {} {id} ({anchors})", n.kind)
    };
    let mut lines = Vec::new();
    for (id, n) in &new {
        match old.get(id) {
            None => lines.push(show("added", id, n)),
            Some(o) if o.hash != n.hash => lines.push(show("changed", id, n)),
            Some(_) => {}
        }
    }
    for (id, o) in old.iter().filter(|(id, _)| !new.contains_key(*id)) {
        lines.push(show("removed", id, o));
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::changed_nodes;

    #[test]
    fn changed_added_and_removed_nodes_are_named_with_their_articles() {
        let doc = |nodes: &str| format!("{{\"nodes\":[{nodes}]}}").into_bytes();
        let rule = |id: &str, hash: &str| {
            format!("{{\"id\":\"{id}\",\"kind\":\"rule\",\"contentHash\":\"{hash}\",\"anchors\":[\"urn:x#ART_{id}\"]}}")
        };
        let fragment = "{\"id\":\"F\",\"kind\":\"fragment\",\"contentHash\":\"h\"}";
        let old = doc(&[rule("A", "1"), rule("B", "1"), rule("C", "1"), fragment.to_string()].join(","));
        let new = doc(&[rule("A", "1"), rule("B", "2"), rule("D", "1")].join(","));
        assert_eq!(
            changed_nodes(&old, &new).unwrap(),
            [
                "changed rule B (anchored to urn:x#ART_B)",
                "added rule D (anchored to urn:x#ART_D)",
                "removed rule C (anchored to urn:x#ART_C)"
            ]
        );
        assert_eq!(changed_nodes(&old, &old).unwrap(), Vec::<String>::new());
        assert!(changed_nodes(b"not json", &old).is_none());
    }
}
