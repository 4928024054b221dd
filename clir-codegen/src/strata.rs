//! Stratification (SEMANTICS §4): the predicate dependency graph, contested predicates,
//! closure users above their predicate, and the +D/+S/+d layers collapsed where they coincide.

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{RelationKind, Strength};
use crate::resolve::{Program, RItem};
use std::collections::{BTreeSet, VecDeque};

/// How a relation is computed.
#[derive(Debug, Clone)]
pub struct RelLayers {
    /// Index of its stratum.
    pub stratum: usize,
    /// Rules exist for both signs, or a defeater exists for it.
    pub contested: bool,
    /// +D, +S and +d coincide: one relation per sign serves all three.
    pub collapsed: bool,
    /// Per sign (`[positive, negative]`): whether `+D` can hold within the stratum (input facts
    /// or a strict rule); when it cannot for the complement, +S and +d of a sign coincide.
    pub may_be_definite: [bool; 2],
    /// Per sign: whether any rule concludes it.
    pub has_rules: [bool; 2],
    /// Whether input facts may be given for it.
    pub input: bool,
    /// Whether a closure policy closes it.
    pub closed: bool,
}

impl RelLayers {
    /// Whether +S and +d of sign `negative` coincide.
    pub fn supported_is_concluded(&self, negative: bool) -> bool {
        self.collapsed || (!self.contested && !self.may_be_definite[!negative as usize])
    }
}

/// One stratum: a strongly connected set of predicates computed by one pair of fixpoints.
#[derive(Debug, Clone)]
pub struct Stratum {
    /// Relations of the stratum.
    pub rels: Vec<usize>,
    /// Rules whose head is in the stratum.
    pub rules: Vec<usize>,
    /// Closure policies on relations of the stratum, applied after its fixpoints.
    pub closures: Vec<usize>,
    /// Whether a rule of the stratum uses a relation of the stratum.
    pub recursive: bool,
    /// Whether its relations are collapsed.
    pub collapsed: bool,
    /// Whether it is one contested relation.
    pub contested: bool,
}

/// The strata of a program, in evaluation order, and each relation's layers.
#[derive(Debug, Clone)]
pub struct Strata {
    /// Strata in evaluation order.
    pub strata: Vec<Stratum>,
    /// Per relation.
    pub rels: Vec<RelLayers>,
}

struct Edge {
    from: usize,
    to: usize,
    rule: Option<usize>,
    /// The body item of `rule` the edge comes from.
    item: usize,
    /// The edge must go strictly upward (contested head, or a closure negative used).
    strict: Option<&'static str>,
}

/// Stratifies a resolved program, or rejects it with the offending cycle spelled out.
pub fn stratify(p: &Program) -> Result<Strata, Diagnostics> {
    let n = p.relations.len();
    let mut has_rules = vec![[false; 2]; n];
    let mut strict_rules = vec![[false; 2]; n];
    let mut defeater = vec![false; n];
    for r in &p.rules {
        let h = r.head.rel;
        has_rules[h][r.head.negative as usize] = true;
        if r.strength == Strength::Strict {
            strict_rules[h][r.head.negative as usize] = true;
        }
        if r.strength == Strength::Defeater {
            defeater[h] = true;
        }
    }
    let contested: Vec<bool> = (0..n).map(|i| (has_rules[i][0] && has_rules[i][1]) || defeater[i]).collect();
    let closed: Vec<bool> = (0..n).map(|i| p.closures.iter().any(|c| c.rel == i)).collect();

    let mut edges: Vec<Edge> = Vec::new();
    for (ri, r) in p.rules.iter().enumerate() {
        for (ii, item) in r.body.iter().enumerate() {
            if let RItem::Literal(_, l) = item {
                let strict = if contested[r.head.rel] {
                    Some("contested")
                } else if l.negative && closed[l.rel] {
                    Some("closure")
                } else {
                    None
                };
                edges.push(Edge { from: l.rel, to: r.head.rel, rule: Some(ri), item: ii, strict });
            }
            if let RItem::Not(l) = item {
                // Negation as failure reads the final +d of a lower stratum.
                edges.push(Edge { from: l.rel, to: r.head.rel, rule: Some(ri), item: ii, strict: Some("negation") });
            }
        }
    }
    for c in &p.closures {
        edges.push(Edge { from: c.domain, to: c.rel, rule: None, item: 0, strict: None });
    }
    let mut adj = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        adj[e.from].push(i);
    }
    let comp = tarjan(n, &adj, &edges);

    let mut errs = Vec::new();
    for e in &edges {
        let Some(kind) = e.strict else { continue };
        if comp[e.from] != comp[e.to] {
            continue;
        }
        let rule = &p.rules[e.rule.expect("strict edges come from rules")];
        let chain = cycle_chain(p, &edges, &adj, &comp, e);
        let d = match kind {
            "negation" => Diagnostic::new(
                "strata",
                rule.item_paths[e.item].clone(),
                format!("`{}` is negated (negation as failure) in a cycle through itself", p.relations[e.from].name),
            )
            .with_code("cyclic_negation")
            .with_help("a negated predicate must lie in a lower stratum: break the cycle"),
            "contested" => Diagnostic::new(
                "strata",
                rule.item_paths[e.item].clone(),
                format!("contested predicate `{}` depends on itself", p.relations[e.to].name),
            )
            .with_code("contested_cycle")
            .with_note(format!(
                "`{}` is contested: {}",
                p.relations[e.to].name,
                if defeater[e.to] { "a defeater attacks it" } else { "rules exist for both signs" }
            ))
            .with_help("every body predicate of a rule for a contested predicate must lie in a lower stratum"),
            _ => Diagnostic::new(
                "strata",
                rule.item_paths[e.item].clone(),
                format!(
                    "the closure negative `~{}` (closure `{}`) is used in the closure's own stratum",
                    p.relations[e.from].name,
                    p.closures.iter().find(|c| c.rel == e.from).map_or("", |c| c.id.as_str()),
                ),
            )
            .with_code("closure_stratum")
            .with_help("a closure negative may only be used above its predicate"),
        };
        errs.push(d.with_note(format!("the cycle runs {chain}")).in_node(&rule.id));
    }
    if !errs.is_empty() {
        return Err(Diagnostics(errs));
    }

    // Order the components topologically, lowest declaration index first among the ready ones.
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members = vec![Vec::new(); ncomp];
    for (rel, &c) in comp.iter().enumerate() {
        members[c].push(rel);
    }
    let mut indeg = vec![0usize; ncomp];
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); ncomp];
    for e in &edges {
        let (a, b) = (comp[e.from], comp[e.to]);
        if a != b && succ[a].insert(b) {
            indeg[b] += 1;
        }
    }
    let mut ready: BTreeSet<(usize, usize)> =
        (0..ncomp).filter(|&c| indeg[c] == 0).map(|c| (members[c][0], c)).collect();
    let mut order = Vec::new();
    while let Some(&first) = ready.iter().next() {
        ready.remove(&first);
        let c = first.1;
        order.push(c);
        for &d in &succ[c] {
            indeg[d] -= 1;
            if indeg[d] == 0 {
                ready.insert((members[d][0], d));
            }
        }
    }

    let mut rels: Vec<RelLayers> = (0..n)
        .map(|i| RelLayers {
            stratum: 0,
            contested: contested[i],
            collapsed: false,
            may_be_definite: [false; 2],
            has_rules: has_rules[i],
            input: p.relations[i].kind != RelationKind::Institutional,
            closed: closed[i],
        })
        .collect();
    let mut strata = Vec::new();
    for (si, &c) in order.iter().enumerate() {
        let set = &members[c];
        let rules: Vec<usize> = (0..p.rules.len()).filter(|&ri| comp[p.rules[ri].head.rel] == c).collect();
        let recursive = rules
            .iter()
            .any(|&ri| p.rules[ri].body.iter().any(|it| matches!(it, RItem::Literal(_, l) if comp[l.rel] == c)));
        let collapsed = rules.iter().all(|&ri| {
            let r = &p.rules[ri];
            r.strength == Strength::Strict
                && r.body.iter().all(|it| match it {
                    RItem::Literal(_, l) => comp[l.rel] == c || rels[l.rel].collapsed,
                    _ => true,
                })
        });
        for &rel in set {
            rels[rel].stratum = si;
            rels[rel].collapsed = collapsed;
            let input = rels[rel].input;
            for (definite, &strict) in rels[rel].may_be_definite.iter_mut().zip(&strict_rules[rel]) {
                *definite = input || strict;
            }
        }
        let closures = (0..p.closures.len()).filter(|&ci| comp[p.closures[ci].rel] == c).collect();
        strata.push(Stratum {
            rels: set.clone(),
            rules,
            closures,
            recursive,
            collapsed,
            contested: set.len() == 1 && contested[set[0]],
        });
    }
    Ok(Strata { strata, rels })
}

/// Tarjan's strongly connected components; returns the component of each node.
fn tarjan(n: usize, adj: &[Vec<usize>], edges: &[Edge]) -> Vec<usize> {
    struct St<'a> {
        adj: &'a [Vec<usize>],
        edges: &'a [Edge],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        comp: Vec<usize>,
        ncomp: usize,
    }
    // Iterative DFS: packages may be deep chains.
    let mut s = St {
        adj,
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        comp: vec![usize::MAX; n],
        ncomp: 0,
    };
    for root in 0..n {
        if s.index[root].is_some() {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        s.index[root] = Some(s.next);
        s.low[root] = s.next;
        s.next += 1;
        s.stack.push(root);
        s.on[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < s.adj[v].len() {
                let w = s.edges[s.adj[v][*i]].to;
                *i += 1;
                match s.index[w] {
                    None => {
                        s.index[w] = Some(s.next);
                        s.low[w] = s.next;
                        s.next += 1;
                        s.stack.push(w);
                        s.on[w] = true;
                        work.push((w, 0));
                    }
                    Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                    _ => {}
                }
            } else {
                work.pop();
                if let Some(&(u, _)) = work.last() {
                    s.low[u] = s.low[u].min(s.low[v]);
                }
                if Some(s.low[v]) == s.index[v] {
                    while let Some(w) = s.stack.pop() {
                        s.on[w] = false;
                        s.comp[w] = s.ncomp;
                        if w == v {
                            break;
                        }
                    }
                    s.ncomp += 1;
                }
            }
        }
    }
    s.comp
}

/// The cycle closed by edge `e`, as a chain of rule ids with the predicates between them.
fn cycle_chain(p: &Program, edges: &[Edge], adj: &[Vec<usize>], comp: &[usize], e: &Edge) -> String {
    // Shortest path from e.to back to e.from inside the component.
    let n = adj.len();
    let mut prev: Vec<Option<usize>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::from([e.to]);
    seen[e.to] = true;
    while let Some(u) = q.pop_front() {
        if u == e.from {
            break;
        }
        for &ei in &adj[u] {
            let w = edges[ei].to;
            if !seen[w] && comp[w] == comp[e.to] {
                seen[w] = true;
                prev[w] = Some(ei);
                q.push_back(w);
            }
        }
    }
    let mut path = Vec::new();
    let mut cur = e.from;
    while cur != e.to {
        let Some(ei) = prev[cur] else { break };
        path.push(ei);
        cur = edges[ei].from;
    }
    path.reverse();
    let step = |ei: &Edge| match ei.rule {
        Some(r) => format!("{} -[{}]-> {}", p.relations[ei.from].name, p.rules[r].id, p.relations[ei.to].name),
        None => format!("{} -[closure domain]-> {}", p.relations[ei.from].name, p.relations[ei.to].name),
    };
    let mut parts: Vec<String> = vec![step(e)];
    parts.extend(path.iter().map(|&ei| step(&edges[ei])));
    parts.join(", ")
}
