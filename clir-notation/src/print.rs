//! A package document printed as notation ([`print()`]): every node as the statement that builds
//! it, what the typed form does not say as `set`/`unset` clauses, and a node no statement can
//! say as `node {JSON}`. The text is checked: [`crate::pack`] of it gives the same bytes, or
//! [`print()`] fails.

use crate::notation::{
    infer_vars_in, Form, Sugar, EDITION_SUGAR, FRAGMENT_SUGAR, KEYWORDS, PUBLICATION_SUGAR, WORK_SUGAR,
};
use crate::{Attrs, Index, Item, Label, Lit, Node, Package, Param, RelKind, Rule, Term, INTEGER, STRING};
use clir_codegen::canonical::canonical_bytes;
use serde_json::{Map, Value};
use std::fmt::{self, Write};

/// Why a document cannot be printed as notation that packs back into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintError(pub String);

impl fmt::Display for PrintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PrintError {}

/// Words a name is backquoted for: the parser would read them as keywords where names go.
const RESERVED: &[&str] = &[
    "established",
    "supported",
    "status",
    "not",
    "true",
    "false",
    "set",
    "unset",
    "label",
    "id",
    "by",
    "authority",
    "judged-by",
    "reason",
    "over",
    "asof",
    "snapshot",
    "hash",
    "ref",
    "const",
    "text",
    "bare",
];

/// The notation of a package file's bytes, which [`crate::pack`] turns back into the same bytes.
pub fn print(bytes: &[u8]) -> Result<String, PrintError> {
    let doc = clir_codegen::seal::strict_parse(bytes).map_err(PrintError)?;
    let Some(top) = doc.as_object() else { return Err(PrintError("the package is not a JSON object".into())) };
    let text_of = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let name = text_of(doc.pointer("/package/name")).filter(|n| token(n)).unwrap_or_else(|| "package".into());
    let version = text_of(doc.pointer("/package/version")).filter(|v| token(v)).unwrap_or_else(|| "0.0.0".into());
    let mut pkg = Package::new(&name, &version);
    if let Some(ns) = text_of(doc.pointer("/package/namespace")).filter(|n| token(n)) {
        pkg.namespace = ns;
    }
    if let Some(features) = top.get("features").and_then(Value::as_array) {
        pkg.features = features
            .iter()
            .filter_map(Value::as_str)
            .filter(|f| *f != crate::CORE && token(f))
            .map(str::to_string)
            .collect();
    }
    let empty = Vec::new();
    let nodes = top.get("nodes").and_then(Value::as_array).unwrap_or(&empty);
    let ns = pkg.namespace.clone();
    let local_sources = doc.pointer("/metadata/localSources").and_then(Value::as_object);

    // The nodes, lifted without their attributes first (type names resolve against them all).
    pkg.nodes = nodes.iter().map(|n| lift(n, &ns, local_sources)).collect();
    for key in ["labels", "anchors"] {
        let objects = || nodes.iter().filter_map(Value::as_object);
        let some_empty = objects().any(|n| n.get(key).and_then(Value::as_array).is_some_and(Vec::is_empty));
        if !some_empty && objects().any(|n| !n.contains_key(key)) {
            pkg.omit_empty.push(key.to_string());
        }
    }
    lift_types(&mut pkg);
    // What each node's typed form does not say.
    let idx = Index::new(&pkg);
    for (i, actual) in nodes.iter().enumerate() {
        let node = std::mem::replace(&mut pkg.nodes[i], Node::Raw(Value::Null));
        pkg.nodes[i] = with_attrs(&pkg, &idx, node, actual);
    }
    // metadata: what the publications' paths do not give.
    let mut metadata = top.get("metadata").cloned().unwrap_or(Value::Object(Map::new()));
    if let Some(sources) = metadata.get_mut("localSources").and_then(Value::as_object_mut) {
        let mut taken = false;
        for node in &pkg.nodes {
            if let Node::Publication { id, path, .. } = node.base() {
                if path != "-" {
                    sources.remove(&pkg.id(id));
                    taken = true;
                }
            }
        }
        if taken && sources.is_empty() {
            metadata.as_object_mut().map(|m| m.remove("localSources"));
        }
    }
    if metadata.is_object() {
        pkg.metadata = metadata;
    }
    pkg.order_by_id = {
        let ids: Vec<Option<&str>> = nodes.iter().map(|n| n.get("id").and_then(Value::as_str)).collect();
        ids.iter().all(Option::is_some) && ids.windows(2).all(|w| w[0] < w[1]) && nodes.len() > 1
    };

    // The text, checked node by node: a node the text does not give back is written raw.
    let expected: Vec<Vec<u8>> = nodes.iter().map(canonical_bytes).collect();
    for _ in 0..4 {
        let (text, order) = render(&pkg);
        let parsed = crate::notation::parse(&text).map_err(|e| PrintError(format!("the notation printed: {e}")))?;
        let mut wrong = Vec::new();
        let parsed_idx = Index::new(&parsed);
        for (k, &i) in order.iter().enumerate() {
            let ok = parsed
                .nodes
                .get(k)
                .is_some_and(|n| canonical_bytes(&parsed.node_value_in(&parsed_idx, n)) == expected[i]);
            if !ok && !matches!(pkg.nodes[i], Node::Raw(_)) {
                wrong.push(i);
            }
        }
        if wrong.is_empty() {
            break;
        }
        for i in wrong {
            pkg.nodes[i] = Node::Raw(nodes[i].clone());
        }
    }
    // The publisher's semanticHash, kept while the nodes mean what they meant.
    let derived = pkg.document()["semanticHash"].clone();
    if let (Some(h), Some(d)) = (top.get("semanticHash").and_then(Value::as_str), derived.as_str()) {
        if h != d && token(h) {
            pkg.semantic_hash = Some((h.to_string(), d.to_string()));
        }
    }
    // The top level: what the model does not give, set last.
    let built = pkg.document();
    let built = built.as_object().expect("a document is an object");
    for (key, value) in top {
        if key != "nodes" && built.get(key) != Some(value) {
            pkg.document.push((key.clone(), Some(value.clone())));
        }
    }
    for key in built.keys() {
        if !top.contains_key(key) {
            pkg.document.push((key.clone(), None));
        }
    }
    let (text, _) = render(&pkg);
    match crate::pack(&text) {
        Ok(packed) if packed == bytes => Ok(text),
        Ok(_) => Err(PrintError("the package cannot be printed as notation that packs back into the same bytes: is it canonical, with every hash as `clir verify` checks it?".into())),
        Err(e) => Err(PrintError(format!("the notation printed does not parse: {e}"))),
    }
}

/// Whether `s` is written as one word of a statement.
fn token(s: &str) -> bool {
    !s.is_empty()
        && !s.contains(char::is_whitespace)
        && !s.contains("//")
        && !s.starts_with(['"', '`', '#', '@', '[', '(', '{'])
        && !s.contains('`')
        && s != "-"
}

/// `s` as a name: plain when it is an identifier and no keyword, else in backquotes.
fn name(s: &str) -> Option<String> {
    let plain = s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !RESERVED.contains(&s)
        && !KEYWORDS.contains(&s);
    if plain {
        Some(s.to_string())
    } else if s.is_empty() || s.contains('`') || s.contains('\n') || s.contains('\r') {
        None
    } else {
        Some(format!("`{s}`"))
    }
}

fn string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn local<'a>(id: &'a str, ns: &str) -> Option<&'a str> {
    id.strip_prefix(ns).and_then(|r| r.strip_prefix('#')).filter(|l| !l.is_empty())
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn ref_of(v: &Value, key: &str, ns: &str) -> Option<String> {
    v.get(key).and_then(|r| r.get("id")).and_then(Value::as_str).and_then(|id| local(id, ns)).map(str::to_string)
}

/// A node's typed form, without attributes (those come from [`with_attrs`]).
fn lift(n: &Value, ns: &str, sources: Option<&Map<String, Value>>) -> Node {
    let (Some(full), Some(kind)) = (str_of(n, "id"), str_of(n, "kind")) else { return Node::Raw(n.clone()) };
    let Some(id) = local(full, ns).map(str::to_string) else { return Node::Raw(n.clone()) };
    let other = || Node::Other { kind: kind.to_string(), id: id.clone() };
    let label = single_label(n);
    let typed = match (kind, str_of(n, "symbolKind")) {
        ("type_decl", _) => Some(Node::Type { id: id.clone(), name: id.clone(), label }),
        ("symbol_decl", Some("constant")) => n
            .pointer("/returnType/name")
            .and_then(Value::as_str)
            .map(|of| Node::Constant { id: id.clone(), name: id.clone(), of: of.to_string(), label }),
        ("symbol_decl", Some("relation")) => {
            let kind = match str_of(n, "relationKind") {
                Some("empirical") => RelKind::Empirical,
                Some("judgment") => RelKind::Judgment,
                _ => RelKind::Institutional,
            };
            let params = n.get("parameters").and_then(Value::as_array).map(|ps| {
                ps.iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let pname = str_of(p, "name").unwrap_or("").to_string();
                        let ty = p.pointer("/type/name").and_then(Value::as_str).unwrap_or("").to_string();
                        let pid = str_of(p, "id")
                            .and_then(|p| local(p, ns))
                            .and_then(|p| p.strip_prefix(&format!("{id}/arg/")));
                        match pid {
                            Some(x) if x == i.to_string() && pname == format!("a{i}") => {
                                Param { id: x.into(), name: pname, ty }
                            }
                            _ => Param { id: pname.clone(), name: pname, ty },
                        }
                    })
                    .collect()
            });
            match (str_of(n, "name"), params) {
                (Some(rname), Some(params)) => {
                    Some(Node::Relation { id: id.clone(), name: rname.to_string(), kind, params, label })
                }
                _ => None,
            }
        }
        ("external_decl", _) => {
            let relation = str_of(n, "symbol").and_then(|s| local(s, ns));
            match (relation, str_of(n, "capability").filter(|c| token(c))) {
                (Some(relation), Some(capability)) => Some(Node::External {
                    id: id.clone(),
                    relation: relation.to_string(),
                    capability: capability.to_string(),
                    authority: ref_of(n, "authority", ns),
                }),
                _ => None,
            }
        }
        ("rule", _) => lift_rule(n, ns, &id, label),
        ("priority_rule", _) => match (ref_of(n, "higher", ns), ref_of(n, "lower", ns)) {
            (Some(higher), Some(lower)) => Some(Node::Priority {
                id: id.clone(),
                higher,
                lower,
                label,
                reason: str_of(n, "reason").and_then(|r| local(r, ns)).map(str::to_string),
            }),
            _ => None,
        },
        ("closure_policy", _) => match (str_of(n, "predicate").and_then(|p| local(p, ns)), ref_of(n, "domain", ns)) {
            (Some(predicate), Some(domain)) => Some(Node::Closure {
                id: id.clone(),
                predicate: predicate.to_string(),
                domain,
                label,
                complete_as_of: str_of(n, "completeAsOf").map(str::to_string),
                snapshot: str_of(n, "snapshot").filter(|s| token(s)).map(str::to_string),
            }),
            _ => None,
        },
        ("fragment", _) => str_of(n, "locator").filter(|l| token(l)).map(|locator| {
            let first = n.pointer("/texts/0");
            let text = first
                .filter(|t| str_of(t, "language") == Some("en") && str_of(t, "status") == Some("official"))
                .and_then(|t| str_of(t, "text"))
                .unwrap_or("");
            Node::Fragment { id: id.clone(), locator: locator.to_string(), text: text.to_string() }
        }),
        ("publication", _) => {
            let path = sources.and_then(|s| s.get(full)).and_then(Value::as_str).filter(|p| token(p)).unwrap_or("-");
            Some(Node::Publication {
                id: id.clone(),
                path: path.to_string(),
                label,
                document_hash: str_of(n, "documentHash").filter(|h| token(h)).map(str::to_string),
            })
        }
        _ => None,
    };
    typed.unwrap_or_else(other)
}

/// The single English official label of a node, if that is all its labels are.
fn single_label(n: &Value) -> Option<String> {
    let list = labels_of(n)?;
    match list.as_slice() {
        [l] if l.language == "en" && l.status == "official" => Some(l.text.clone()),
        _ => None,
    }
}

/// A node's labels, when each is exactly a language, a status and a text.
fn labels_of(n: &Value) -> Option<Vec<Label>> {
    let list = n.get("labels")?.as_array()?;
    list.iter()
        .map(|l| {
            let o = l.as_object().filter(|o| o.len() == 3)?;
            let get = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
            Some(Label { language: get("language")?, status: get("status")?, text: get("text")? })
        })
        .collect()
}

fn lift_rule(n: &Value, ns: &str, id: &str, label: Option<String>) -> Option<Node> {
    let strength = str_of(n, "strength")?.to_string();
    let head = lift_lit(n.get("head")?, ns)?;
    let (body, bare_body) = match n.get("body")? {
        b if str_of(b, "kind") == Some("and") => (lift_items(b, ns)?, false),
        b => (vec![lift_item(b, ns)?], true),
    };
    let vars = n
        .get("variables")?
        .as_array()?
        .iter()
        .map(|v| Some((str_of(v, "id")?.to_string(), v.pointer("/type/name")?.as_str()?.to_string())))
        .collect::<Option<Vec<_>>>()?;
    let anchors = match n.get("anchors") {
        None => Vec::new(),
        Some(a) => a
            .as_array()?
            .iter()
            .map(|a| a.as_str().and_then(|a| local(a, ns)).map(str::to_string))
            .collect::<Option<Vec<_>>>()?,
    };
    Some(Node::Rule(Rule { id: id.to_string(), strength, vars, head, body, bare_body, label, anchors }))
}

fn lift_items(and: &Value, ns: &str) -> Option<Vec<Item>> {
    and.get("items")?.as_array()?.iter().map(|i| lift_item(i, ns)).collect()
}

fn lift_item(v: &Value, ns: &str) -> Option<Item> {
    Some(match str_of(v, "kind")? {
        "literal" => Item::Lit(lift_lit(v, ns)?),
        "status" => Item::Status(str_of(v, "status")?.to_string(), lift_lit(v.get("formula")?, ns)?),
        "not" => Item::Not(lift_lit(v.get("formula")?, ns)?),
        "comparison" => {
            Item::Cmp(str_of(v, "op")?.to_string(), lift_term(v.get("left")?, ns)?, lift_term(v.get("right")?, ns)?)
        }
        "boolean" => Item::Bool(v.get("value")?.as_bool()?),
        "and" => Item::And(lift_items(v, ns)?),
        _ => return None,
    })
}

fn lift_lit(v: &Value, ns: &str) -> Option<Lit> {
    let rel = local(str_of(v, "predicate")?, ns)?.to_string();
    let negative = match str_of(v, "polarity")? {
        "positive" => false,
        "negative" => true,
        _ => return None,
    };
    let args = v.get("args")?.as_array()?.iter().map(|t| lift_term(t, ns)).collect::<Option<Vec<_>>>()?;
    Some(Lit { rel, negative, args })
}

fn lift_term(v: &Value, ns: &str) -> Option<Term> {
    Some(match str_of(v, "kind")? {
        "var" => Term::Var(str_of(v, "var")?.to_string()),
        "const_ref" => Term::Const(local(str_of(v, "id")?, ns)?.to_string()),
        "entity_ref" => Term::Entity(local(str_of(v, "id")?, ns)?.to_string()),
        "value" => match (v.pointer("/type/name")?.as_str()?, v.get("value")?) {
            (INTEGER, Value::Number(n)) => Term::Int(n.as_i64()?),
            (STRING, Value::String(s)) => Term::Str(s.clone()),
            _ => return None,
        },
        "arith" => Term::Arith(
            str_of(v, "op")?.to_string(),
            Box::new(lift_term(v.get("left")?, ns)?),
            Box::new(lift_term(v.get("right")?, ns)?),
        ),
        _ => return None,
    })
}

/// Type references (full ids, as lifted) written as the names the notation resolves to them.
fn lift_types(pkg: &mut Package) {
    let idx = Index::new(pkg);
    let short = |pkg: &Package, full: &str| -> String {
        match full {
            INTEGER => return "Integer".into(),
            STRING => return "String".into(),
            _ => {}
        }
        if let Some(l) = local(full, &pkg.namespace) {
            if pkg.type_ref_in(&idx, l) == full && !l.contains('#') {
                return l.to_string();
            }
        }
        full.to_string()
    };
    let mut renamed = Vec::new();
    for (i, node) in pkg.nodes.iter().enumerate() {
        match node {
            Node::Constant { of, .. } => renamed.push((i, vec![short(pkg, of)])),
            Node::Relation { params, .. } => renamed.push((i, params.iter().map(|p| short(pkg, &p.ty)).collect())),
            Node::Rule(r) => renamed.push((i, r.vars.iter().map(|(_, t)| short(pkg, t)).collect())),
            _ => {}
        }
    }
    for (i, names) in renamed {
        match &mut pkg.nodes[i] {
            Node::Constant { of, .. } => *of = names[0].clone(),
            Node::Relation { params, .. } => params.iter_mut().zip(names).for_each(|(p, n)| p.ty = n),
            Node::Rule(r) => r.vars.iter_mut().zip(names).for_each(|(v, n)| v.1 = n),
            _ => {}
        }
    }
}

/// `node` with the attributes that make it build `actual` (a rule whose rule parts differ is
/// written as a generic node).
fn with_attrs(pkg: &Package, idx: &Index, node: Node, actual: &Value) -> Node {
    if matches!(node, Node::Raw(_)) {
        return node;
    }
    let mut node = node;
    let untyped = matches!(node, Node::External { .. } | Node::Other { .. });
    if let Some(list) = labels_of(actual) {
        if (untyped || single_label(actual).is_none()) && !list.is_empty() {
            node = Node::With(Box::new(node), Attrs { labels: Some(list), ..Attrs::default() });
        }
    }
    let mut built = pkg.node_value_in(idx, &node);
    if matches!(node.base(), Node::Rule(_))
        && ["head", "body", "variables"].iter().any(|k| built.get(*k) != actual.get(*k))
    {
        let Node::Rule(r) = node.base() else { unreachable!() };
        node = Node::Other { kind: "rule".into(), id: r.id.clone() };
        built = pkg.node_value_in(idx, &node);
    }
    let (Some(built), Some(actual)) = (built.as_object(), actual.as_object()) else { return node };
    let mut attrs = match node {
        Node::With(_, ref a) => a.clone(),
        _ => Attrs::default(),
    };
    for (k, v) in actual {
        if k != "contentHash" && built.get(k) != Some(v) {
            let mut v = v.clone();
            if k == "texts" {
                // Text hashes are computed: written only where there is no text to hash.
                for t in v.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut) {
                    if t.get("text").is_some_and(Value::is_string) {
                        t.remove("contentHash");
                    }
                }
            }
            attrs.set.push((k.clone(), v));
        }
    }
    for k in built.keys() {
        if !actual.contains_key(k) {
            attrs.unset.push(k.clone());
        }
    }
    let base = match node {
        Node::With(b, _) => *b,
        other => other,
    };
    if attrs.is_empty() {
        base
    } else {
        Node::With(Box::new(base), attrs)
    }
}

/// The notation of `pkg`, and the index of the node each node statement builds, in the order
/// written.
fn render(pkg: &Package) -> (String, Vec<usize>) {
    let idx = Index::new(pkg);
    let mut out = String::new();
    let _ = writeln!(out, "package {} {}", pkg.name, pkg.version);
    if pkg.namespace != crate::default_namespace(&pkg.name) {
        let _ = writeln!(out, "namespace {}", pkg.namespace);
    }
    if !pkg.features.is_empty() {
        let _ = writeln!(out, "features {}", pkg.features.join(" "));
    }
    if pkg.order_by_id {
        out.push_str("order by-id\n");
    }
    if !pkg.omit_empty.is_empty() {
        let _ = writeln!(out, "omit-empty {}", pkg.omit_empty.join(" "));
    }
    if let Some((publisher, derived)) = &pkg.semantic_hash {
        let _ = writeln!(out, "semantic-hash {publisher} for {derived}");
    }
    if let Some(m) = pkg.metadata.as_object() {
        for (k, v) in m {
            match name(k) {
                Some(k) => {
                    let _ = writeln!(out, "metadata {k} = {}", value(pkg, v));
                }
                None => {
                    let _ = writeln!(out, "document set metadata = {}", value(pkg, &pkg.metadata));
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..pkg.nodes.len()).collect();
    if pkg.order_by_id {
        let rank = |n: &Node| match n.base() {
            Node::Type { .. } => 0,
            Node::Constant { .. } => 1,
            Node::Relation { .. } => 2,
            Node::External { .. } => 3,
            Node::Other { kind, .. } if kind == "source_work" => 4,
            Node::Other { kind, .. } if kind == "source_edition" => 5,
            Node::Other { .. } => 6,
            Node::Fragment { .. } => 7,
            Node::Publication { .. } => 8,
            Node::Rule(_) => 9,
            Node::Priority { .. } => 10,
            Node::Closure { .. } => 11,
            Node::Raw(_) | Node::With(..) => 12,
        };
        order.sort_by_key(|&i| rank(&pkg.nodes[i]));
    }
    let mut last = None;
    for &i in &order {
        let node = &pkg.nodes[i];
        let kind = std::mem::discriminant(node.base());
        if last.is_some_and(|k| k != kind) {
            out.push('\n');
        }
        last = Some(kind);
        match statement(pkg, &idx, node) {
            Some(s) => out.push_str(&s),
            None => out.push_str(&raw(pkg, &idx, node)),
        }
        out.push('\n');
    }
    for (k, v) in &pkg.document {
        let _ = match v {
            Some(v) => writeln!(out, "document set {} = {}", name(k).unwrap_or_default(), value(pkg, v)),
            None => writeln!(out, "document unset {}", name(k).unwrap_or_default()),
        };
    }
    (out, order)
}

/// A node as `node {JSON}`.
fn raw(pkg: &Package, idx: &Index, node: &Node) -> String {
    let mut v = pkg.node_value_in(idx, node);
    v.as_object_mut().map(|m| m.remove("contentHash"));
    format!("node {}", String::from_utf8_lossy(&canonical_bytes(&v)))
}

/// A `set` value: `ref NAME`, `const NAME` or JSON.
fn value(pkg: &Package, v: &Value) -> String {
    let ns = &pkg.namespace;
    if let Some(l) = v.as_str().and_then(|s| local(s, ns)).and_then(name) {
        return format!("ref {l}");
    }
    if let Some(o) = v.as_object() {
        if o.len() == 2 && o.get("kind").and_then(Value::as_str) == Some("const_ref") {
            if let Some(l) = o.get("id").and_then(Value::as_str).and_then(|s| local(s, ns)).and_then(name) {
                return format!("const {l}");
            }
        }
    }
    String::from_utf8_lossy(&canonical_bytes(v)).into_owned()
}

/// The labels and attributes of a statement, as its clauses.
fn clauses(pkg: &Package, label: &Option<String>, attrs: Option<&Attrs>, out: &mut String) -> Option<()> {
    match attrs.and_then(|a| a.labels.as_ref()) {
        Some(list) if list.len() == 1 && list[0].language == "en" && list[0].status == "official" => {
            let _ = write!(out, " {}", string(&list[0].text));
        }
        Some(list) => {
            for l in list {
                if !token(&l.language) || !token(&l.status) {
                    return None;
                }
                let _ = write!(out, " label {} {} {}", l.language, l.status, string(&l.text));
            }
        }
        None => {
            if let Some(l) = label {
                let _ = write!(out, " {}", string(l));
            }
        }
    }
    if let Some(a) = attrs {
        for (k, v) in &a.set {
            let _ = write!(out, " set {} = {}", name(k)?, value(pkg, v));
        }
        for k in &a.unset {
            let _ = write!(out, " unset {}", name(k)?);
        }
    }
    Some(())
}

/// The statement of a node, if the notation says it.
fn statement(pkg: &Package, idx: &Index, node: &Node) -> Option<String> {
    let (base, attrs) = match node {
        Node::With(b, a) => (b.as_ref(), Some(a)),
        other => (other, None),
    };
    let mut attrs = attrs.cloned();
    let mut out = String::new();
    match base {
        Node::Type { id, name: n, label } => {
            if id != n {
                return None;
            }
            let _ = write!(out, "type {}", name(n)?);
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::Constant { id, name: n, of, label } => {
            if id != n {
                return None;
            }
            let _ = write!(out, "const {}: {}", name(n)?, name(of)?);
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::Relation { id, name: n, kind, params, label } => {
            let _ = write!(out, "{} {}(", kind.as_str(), name(n)?);
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if p.id == p.name {
                    let _ = write!(out, "{}: {}", name(&p.name)?, name(&p.ty)?);
                } else if p.id == i.to_string() && p.name == format!("a{i}") {
                    out.push_str(&name(&p.ty)?);
                } else {
                    return None;
                }
            }
            out.push(')');
            if id != n {
                let _ = write!(out, " id {}", name(id)?);
            }
            if let Some(a) = attrs.as_mut() {
                let effect = a.set.iter().position(|(k, v)| k == "effect" && v == "judgment");
                let judgment = a.set.iter().position(|(k, v)| {
                    k == "judgment"
                        && v.as_object().is_some_and(|o| o.len() == 1)
                        && v.get("authority")
                            .and_then(Value::as_str)
                            .and_then(|s| local(s, &pkg.namespace))
                            .and_then(name)
                            .is_some()
                });
                if let (Some(_), Some(j)) = (effect, judgment) {
                    let authority =
                        a.set[j].1["authority"].as_str().and_then(|s| local(s, &pkg.namespace)).and_then(name)?;
                    let _ = write!(out, " judged-by {authority}");
                    a.set.retain(|(k, _)| k != "effect" && k != "judgment");
                }
            }
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::External { id, relation, capability, authority } => {
            let _ = write!(out, "external {}: {} by {capability}", name(id)?, name(relation)?);
            if let Some(a) = authority {
                let _ = write!(out, " authority {}", name(a)?);
            }
            clauses(pkg, &None, attrs.as_ref(), &mut out)?;
        }
        Node::Fragment { id, locator, text } => {
            let _ = write!(out, "fragment {} {locator}", name(id)?);
            resugar(pkg, attrs.as_mut(), FRAGMENT_SUGAR, &mut out);
            write_text(text, &mut out);
            if let Some(a) = attrs.as_mut() {
                if let Some(pos) = a.set.iter().position(|(k, _)| k == "texts") {
                    let list = a.set[pos].1.as_array()?;
                    let plain = list.iter().enumerate().all(|(i, t)| {
                        let o = t.as_object();
                        let field = |k: &str| o.and_then(|o| o.get(k)).and_then(Value::as_str);
                        o.is_some_and(|o| o.len() == 3)
                            && field("language").is_some_and(token)
                            && field("status").is_some_and(token)
                            && field("text").is_some()
                            && (i > 0
                                || (field("language") == Some("en")
                                    && field("status") == Some("official")
                                    && field("text") == Some(text)))
                    });
                    if plain && !list.is_empty() {
                        for t in &list[1..] {
                            let _ = write!(out, "\n    text {} {}", t["language"].as_str()?, t["status"].as_str()?);
                            write_text(t["text"].as_str()?, &mut out);
                        }
                        a.set.remove(pos);
                    }
                }
            }
            clauses(pkg, &None, attrs.as_ref(), &mut out)?;
        }
        Node::Publication { id, path, label, document_hash } => {
            let _ = write!(out, "publication {} {path}", name(id)?);
            if let Some(h) = document_hash {
                let _ = write!(out, " hash {h}");
            }
            resugar(pkg, attrs.as_mut(), PUBLICATION_SUGAR, &mut out);
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::Rule(r) => {
            let _ = write!(out, "rule {} {}", name(&r.id)?, name(&r.strength)?);
            clauses(pkg, &r.label, attrs.as_ref(), &mut out)?;
            for a in &r.anchors {
                let _ = write!(out, " @{}", name(a)?);
            }
            let inferred = infer_vars_in(idx, &r.head, &r.body);
            if inferred != r.vars || r.vars.iter().any(|(v, _)| idx.constants.contains_key(v)) {
                out.push_str(" [");
                for (i, (v, t)) in r.vars.iter().enumerate() {
                    let _ = write!(out, "{}{}: {}", if i > 0 { ", " } else { "" }, name(v)?, name(t)?);
                }
                out.push(']');
            }
            if r.bare_body {
                if r.body.len() != 1 {
                    return None;
                }
                out.push_str(" bare");
            }
            // The rule on the lines after its header: the head, then its premises, one a line
            // when there are more than two (no line of a rule starts with a statement keyword).
            out.push_str(":\n    ");
            out.push_str(&lit(idx, &r.head)?);
            if !r.body.is_empty() {
                out.push_str(" :- ");
                let parts: Option<Vec<String>> = r.body.iter().map(|i| item(idx, i)).collect();
                let sep = if r.body.len() > 2 { ",\n        " } else { ", " };
                out.push_str(&parts?.join(sep));
            }
        }
        Node::Priority { id, higher, lower, label, reason } => {
            let _ = write!(out, "priority {}: {} > {}", name(id)?, name(higher)?, name(lower)?);
            if let Some(r) = reason {
                let _ = write!(out, " reason {}", name(r)?);
            }
            if let Some(a) = attrs.as_mut() {
                if let Some(pos) = a.set.iter().position(|(k, _)| k == "anchors") {
                    let list = a.set[pos].1.as_array()?;
                    let names: Option<Vec<String>> =
                        list.iter().map(|x| x.as_str().and_then(|s| local(s, &pkg.namespace)).and_then(name)).collect();
                    if let Some(names) = names.filter(|n| !n.is_empty()) {
                        for n in names {
                            let _ = write!(out, " @{n}");
                        }
                        a.set.remove(pos);
                    }
                }
            }
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::Closure { id, predicate, domain, label, complete_as_of, snapshot } => {
            let _ = write!(out, "closure {}: {} over {}", name(id)?, name(predicate)?, name(domain)?);
            if let Some(t) = complete_as_of {
                let _ = write!(out, " asof {}", string(t));
            }
            if let Some(s) = snapshot {
                let _ = write!(out, " snapshot {s}");
            }
            clauses(pkg, label, attrs.as_ref(), &mut out)?;
        }
        Node::Other { kind, id } if kind == "source_work" => {
            let _ = write!(out, "work {}", name(id)?);
            resugar(pkg, attrs.as_mut(), WORK_SUGAR, &mut out);
            clauses(pkg, &None, attrs.as_ref(), &mut out)?;
        }
        Node::Other { kind, id } if kind == "source_edition" => {
            let _ = write!(out, "edition {}", name(id)?);
            resugar(pkg, attrs.as_mut(), EDITION_SUGAR, &mut out);
            if let Some(a) = attrs.as_mut() {
                if let Some(pos) = a.set.iter().position(|(k, _)| k == "lifecycle") {
                    let steps: Option<Vec<(&str, &str)>> = a.set[pos].1.as_array().and_then(|list| {
                        list.iter()
                            .map(|x| {
                                let o = x.as_object().filter(|o| o.len() == 2)?;
                                let get = |k: &str| o.get(k).and_then(Value::as_str).filter(|v| token(v));
                                Some((get("status")?, get("extent")?))
                            })
                            .collect()
                    });
                    if let Some(steps) = steps.filter(|s| !s.is_empty()) {
                        for (status, extent) in steps {
                            let _ = write!(out, " lifecycle {status} {extent}");
                        }
                        a.set.remove(pos);
                    }
                }
            }
            clauses(pkg, &None, attrs.as_ref(), &mut out)?;
        }
        Node::Other { kind, id } => {
            let _ = write!(out, "node {} {}", name(kind)?, name(id)?);
            clauses(pkg, &None, attrs.as_ref(), &mut out)?;
        }
        Node::Raw(_) | Node::With(..) => return None,
    }
    Some(out)
}

/// The sets of `attrs` that a clause of `table` says, written as those clauses (and taken out).
fn resugar(pkg: &Package, attrs: Option<&mut Attrs>, table: &[Sugar], out: &mut String) {
    let Some(a) = attrs else { return };
    let ns = &pkg.namespace;
    for &(word, key, form) in table {
        let Some(pos) = a.set.iter().position(|(k, _)| k == key) else { continue };
        let v = &a.set[pos].1;
        let written = match form {
            Form::Ref => v.as_str().and_then(|s| local(s, ns)).and_then(name),
            Form::Const => v
                .as_object()
                .filter(|o| o.len() == 2 && o.get("kind").and_then(Value::as_str) == Some("const_ref"))
                .and_then(|o| o.get("id"))
                .and_then(Value::as_str)
                .and_then(|s| local(s, ns))
                .and_then(name),
            Form::Str => v.as_str().map(string),
            Form::Word => v.as_str().filter(|s| token(s)).map(str::to_string),
        };
        if let Some(w) = written {
            let _ = write!(out, " {word} {w}");
            a.set.remove(pos);
        }
    }
}

/// A text as strings, one a line of it (the parser joins adjacent strings).
fn write_text(text: &str, out: &mut String) {
    let mut lines = text.split_inclusive('\n');
    let _ = write!(out, " {}", string(lines.next().unwrap_or("")));
    for l in lines {
        let _ = write!(out, "\n    {}", string(l));
    }
}

fn items(idx: &Index, items_: &[Item]) -> Option<String> {
    let parts: Option<Vec<String>> = items_.iter().map(|i| item(idx, i)).collect();
    Some(parts?.join(", "))
}

fn item(idx: &Index, i: &Item) -> Option<String> {
    Some(match i {
        Item::Lit(l) => lit(idx, l)?,
        Item::Status(s, l) if s == "established" || s == "supported" => format!("{s} {}", lit(idx, l)?),
        Item::Status(s, l) => format!("status {} {}", name(s)?, lit(idx, l)?),
        Item::Not(l) => format!("not {}", lit(idx, l)?),
        Item::Cmp(op, a, b) => {
            let op = match op.as_str() {
                "eq" => "=",
                "ne" => "!=",
                "lt" => "<",
                "le" => "<=",
                "gt" => ">",
                "ge" => ">=",
                _ => return None,
            };
            format!("{} {op} {}", term(idx, a, 0)?, term(idx, b, 0)?)
        }
        Item::Bool(b) => b.to_string(),
        Item::And(inner) => format!("({})", items(idx, inner)?),
    })
}

fn lit(idx: &Index, l: &Lit) -> Option<String> {
    // The name the parser resolves to this relation id.
    let by_name = |n: &str| idx.relations.get(n).map(String::as_str);
    let declared = idx.relation_names.get(&l.rel).map(String::as_str);
    let written = match declared {
        Some(n) if by_name(n) == Some(l.rel.as_str()) => n,
        _ if by_name(&l.rel).is_none() => l.rel.as_str(),
        _ => return None,
    };
    let args: Option<Vec<String>> = l.args.iter().map(|t| term(idx, t, 0)).collect();
    Some(format!("{}{}({})", if l.negative { "~" } else { "" }, name(written)?, args?.join(", ")))
}

/// A term at precedence `level` (0: a sum, 1: a product's operand, 2: a product's right operand).
fn term(idx: &Index, t: &Term, level: u8) -> Option<String> {
    Some(match t {
        Term::Var(v) => name(v)?,
        Term::Const(c) => {
            let n = idx.constant_names.get(c)?;
            if idx.constants.get(n) != Some(c) {
                return None;
            }
            name(n)?
        }
        Term::Entity(e) => format!("#{}", name(e)?),
        Term::Int(i) => i.to_string(),
        Term::Str(s) => string(s),
        Term::Arith(op, a, b) => {
            let (text, paren) = match op.as_str() {
                "add" | "sub" => {
                    let sym = if op == "add" { "+" } else { "-" };
                    (format!("{} {sym} {}", term(idx, a, 0)?, term(idx, b, 1)?), level >= 1)
                }
                "mul" => (format!("{} * {}", term(idx, a, 1)?, term(idx, b, 2)?), level >= 2),
                _ => return None,
            };
            if paren {
                format!("({text})")
            } else {
                text
            }
        }
    })
}
