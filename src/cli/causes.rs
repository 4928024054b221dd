//! The `causes` of a diff line (`clir diff`, docs/DECISIONS.md 54): the rules, priorities and
//! closures that differ between the two versions of a law (a contentHash that changed, a node
//! only one version has) and on which the literals whose rulings differ depend.
//!
//! Dependency is read from the rules, statically, in each version: a literal of relation `R`
//! depends on every rule whose head is `R` or `~R` (a rule for the complement attacks it), on
//! every closure of `R`, on every priority between two of those rules, and, transitively, on
//! everything the relations in those rules' bodies (established, supported or negated) and
//! those closures' domains depend on. A node is a cause of a case's change when it differs
//! between the versions and one version's dependencies of a differing relation hold it.

use clir_codegen::ir::{Document, NodeKind};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};

/// A node that differs between the versions: its id, kind, how it differs, label and articles.
struct Differing {
    id: String,
    cause: Value,
}

/// One version's dependency graph, by relation name.
struct Graph {
    /// Per relation name: the nodes (rules, closures) that derive it or its complement, and the
    /// relation names their bodies (or domains) read.
    derive: HashMap<String, (Vec<String>, Vec<String>)>,
    /// Priorities: (id, higher rule id, lower rule id).
    priorities: Vec<(String, String, String)>,
}

impl Graph {
    fn of(doc: &Document) -> Graph {
        let names: HashMap<&str, &str> = doc
            .nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Relation(r) => Some((n.id.as_str(), r.name.as_str())),
                _ => None,
            })
            .collect();
        let name = |id: &str| names.get(id).map_or(id, |n| n).to_string();
        let mut derive: HashMap<String, (Vec<String>, Vec<String>)> = HashMap::new();
        let mut priorities = Vec::new();
        for n in &doc.nodes {
            match &n.kind {
                NodeKind::Rule(r) => {
                    let entry = derive.entry(name(&r.head.predicate)).or_default();
                    entry.0.push(n.id.clone());
                    for item in &r.body {
                        match item {
                            clir_codegen::ir::BodyItem::Literal(_, l) | clir_codegen::ir::BodyItem::Not(l) => {
                                entry.1.push(name(&l.predicate))
                            }
                            clir_codegen::ir::BodyItem::Comparison(_) => {}
                        }
                    }
                }
                NodeKind::Closure(c) => {
                    let entry = derive.entry(name(&c.predicate)).or_default();
                    entry.0.push(n.id.clone());
                    entry.1.push(name(&c.domain));
                }
                NodeKind::Priority(p) => priorities.push((n.id.clone(), p.higher.clone(), p.lower.clone())),
                _ => {}
            }
        }
        Graph { derive, priorities }
    }

    /// Every node the literals of `relations` depend on.
    fn depends(&self, relations: &BTreeSet<String>) -> BTreeSet<String> {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut todo: Vec<&str> = relations.iter().map(String::as_str).collect();
        let mut nodes: BTreeSet<String> = BTreeSet::new();
        while let Some(r) = todo.pop() {
            if !seen.insert(r) {
                continue;
            }
            if let Some((derivers, reads)) = self.derive.get(r) {
                nodes.extend(derivers.iter().cloned());
                todo.extend(reads.iter().map(String::as_str));
            }
        }
        for (id, higher, lower) in &self.priorities {
            if nodes.contains(higher) && nodes.contains(lower) {
                nodes.insert(id.clone());
            }
        }
        nodes
    }
}

/// What decides the `causes` of the diff lines between two versions.
pub struct Causes {
    old: Graph,
    new: Graph,
    differing: Vec<Differing>,
    /// `causes` already written, by the relations that differ (at most [`MEMO`]).
    memo: HashMap<BTreeSet<String>, String>,
}

/// The sets of differing relations whose `causes` are kept; past it the memo starts again.
const MEMO: usize = 4096;

/// The label of a node in its first official language (else its first label), if any.
fn label(node: &clir_codegen::ir::Node) -> Option<&str> {
    node.labels.iter().find(|l| l.official).or(node.labels.first()).map(|l| l.text.as_str())
}

/// The rules, priorities and closures of `doc`, in order.
fn decisive(doc: &Document) -> Vec<&clir_codegen::ir::Node> {
    doc.nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Rule(_) | NodeKind::Priority(_) | NodeKind::Closure(_)))
        .collect()
}

/// The locator of every fragment of `doc`, by id.
fn locators(doc: &Document) -> HashMap<&str, &str> {
    doc.nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Fragment(f) => Some((n.id.as_str(), f.locator.as_str())),
            _ => None,
        })
        .collect()
}

/// The cause entry of `node`, whose document's fragments `locators` gives:
/// `{"node","kind","change","label","articles"}`.
fn entry(locators: &HashMap<&str, &str>, node: &clir_codegen::ir::Node, change: &str) -> Value {
    let (kind, anchors): (&str, &[String]) = match &node.kind {
        NodeKind::Rule(r) => ("rule", &r.anchors),
        NodeKind::Priority(p) => ("priority", &p.anchors),
        _ => ("closure", &[]),
    };
    let articles: Vec<&str> = anchors.iter().filter_map(|a| locators.get(a.as_str()).copied()).collect();
    json!({"node": node.id, "kind": kind, "change": change, "label": label(node), "articles": articles})
}

impl Causes {
    /// The nodes that differ between `old` and `new` and the dependencies of each.
    pub fn new(old: &Document, new: &Document) -> Causes {
        let (o, n) = (decisive(old), decisive(new));
        let by_id = |nodes: &[&'_ clir_codegen::ir::Node]| -> HashMap<String, String> {
            nodes.iter().map(|x| (x.id.clone(), x.content_hash.clone())).collect()
        };
        let (old_hashes, new_hashes) = (by_id(&o), by_id(&n));
        let (old_articles, new_articles) = (locators(old), locators(new));
        let mut differing = Vec::new();
        for node in &n {
            match old_hashes.get(&node.id) {
                Some(before) if *before == node.content_hash => {}
                Some(_) => {
                    differing.push(Differing { id: node.id.clone(), cause: entry(&new_articles, node, "changed") })
                }
                None => differing.push(Differing { id: node.id.clone(), cause: entry(&new_articles, node, "added") }),
            }
        }
        for node in &o {
            if !new_hashes.contains_key(&node.id) {
                differing.push(Differing { id: node.id.clone(), cause: entry(&old_articles, node, "removed") });
            }
        }
        Causes { old: Graph::of(old), new: Graph::of(new), differing, memo: HashMap::new() }
    }

    /// The `causes` (a JSON list) of a change in the literals of `relations` (names, without
    /// `~`): the differing nodes either version's literals of them depend on, NEW's nodes in its
    /// order, then those only OLD has.
    pub fn of(&mut self, relations: &BTreeSet<String>) -> &str {
        if !self.memo.contains_key(relations) {
            if self.memo.len() >= MEMO {
                self.memo.clear();
            }
            let (o, n) = (self.old.depends(relations), self.new.depends(relations));
            let causes: Vec<&Value> =
                self.differing.iter().filter(|d| o.contains(&d.id) || n.contains(&d.id)).map(|d| &d.cause).collect();
            self.memo.insert(relations.clone(), serde_json::to_string(&causes).unwrap_or_else(|_| "[]".into()));
        }
        self.memo.get(relations).map_or("[]", String::as_str)
    }
}
