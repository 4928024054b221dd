//! What a compiled package declares, as static data the runtime reads and writes cases with.

/// How facts of a relation come to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationKind {
    /// Given as input facts.
    Empirical,
    /// Given as input facts only under its capability.
    Judgment,
    /// Derived by rules only.
    Institutional,
}

/// One parameter of a relation.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// Parameter name.
    pub name: &'static str,
    /// Short type name (`Game`, `Integer`).
    pub ty: &'static str,
    /// Whether the column holds Integers (otherwise entities).
    pub integer: bool,
}

impl ParamInfo {
    /// A parameter of an entity type (or `String`) named `ty`.
    pub const fn entity(name: &'static str, ty: &'static str) -> ParamInfo {
        ParamInfo { name, ty, integer: false }
    }

    /// An Integer parameter.
    pub const fn integer(name: &'static str) -> ParamInfo {
        ParamInfo { name, ty: "Integer", integer: true }
    }
}

/// A declared relation.
#[derive(Clone, Copy, Debug)]
pub struct RelationInfo {
    /// The relation's name as in the package.
    pub name: &'static str,
    /// Empirical, judgment or institutional.
    pub kind: RelationKind,
    /// Parameters in order.
    pub params: &'static [ParamInfo],
    /// The capability a judgment relation's input needs (`judgment:X`).
    pub capability: Option<&'static str>,
}

impl RelationInfo {
    /// An empirical relation.
    pub const fn empirical(name: &'static str, params: &'static [ParamInfo]) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Empirical, params, capability: None }
    }

    /// A judgment relation, given only under `capability`.
    pub const fn judgment(name: &'static str, params: &'static [ParamInfo], capability: &'static str) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Judgment, params, capability: Some(capability) }
    }

    /// An institutional relation.
    pub const fn institutional(name: &'static str, params: &'static [ParamInfo]) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Institutional, params, capability: None }
    }
}

/// A named entity constant.
#[derive(Clone, Copy, Debug)]
pub struct ConstantInfo {
    /// Its name (how cases write it).
    pub name: &'static str,
    /// Short type name.
    pub ty: &'static str,
}

impl ConstantInfo {
    /// The constant `name` of type `ty`.
    pub const fn new(name: &'static str, ty: &'static str) -> ConstantInfo {
        ConstantInfo { name, ty }
    }
}

/// A fragment of the law's text a rule rests on.
#[derive(Clone, Copy, Debug)]
pub struct FragmentInfo {
    /// Fragment id.
    pub id: &'static str,
    /// Fragment locator (`article/9`).
    pub locator: &'static str,
    /// Its text, as the package quotes it.
    pub text: &'static str,
}

impl FragmentInfo {
    /// The fragment `id` at `locator` with `text`.
    pub const fn new(id: &'static str, locator: &'static str, text: &'static str) -> FragmentInfo {
        FragmentInfo { id, locator, text }
    }
}

/// The sentence of an article a rule cites: the label names `Article 9.6.2`; the paragraph of
/// the fragment text that starts with `9.6.2` is the citation (the label itself otherwise).
pub fn citation<'a>(label: &'a str, text: &'a str) -> &'a str {
    let number: Option<&str> = label.split_whitespace().skip_while(|w| *w != "Article").nth(1);
    if let Some(n) = number.map(|n| n.trim_end_matches(['.', ':', ','])) {
        if !n.is_empty() {
            for para in text.split("\n\n") {
                let para = para.trim();
                if para.starts_with(n) && para[n.len()..].starts_with([' ', '\t']) {
                    return para;
                }
            }
        }
    }
    label
}

/// The articles rule `rule` rests on, as explanations and why-not cite them: per anchor, its
/// `locator` and the sentence cited ([`citation`]).
pub fn articles(schema: &Schema, rule: usize) -> serde_json::Value {
    let r = &schema.rules[rule];
    let cited = r.anchors.iter().map(|&f| {
        let f = &schema.fragments[f as usize];
        serde_json::json!({"locator": f.locator, "citation": citation(r.label, f.text)})
    });
    serde_json::Value::Array(cited.collect())
}

/// A superiority between two rules.
#[derive(Clone, Copy, Debug)]
pub struct PriorityInfo {
    /// Priority rule id.
    pub id: &'static str,
    /// Its label.
    pub label: &'static str,
    /// The rule that wins (index into `rules`).
    pub higher: u32,
    /// The rule that loses.
    pub lower: u32,
}

/// A closure policy, for explanations.
#[derive(Clone, Copy, Debug)]
pub struct ClosureInfo {
    /// Closure policy id.
    pub id: &'static str,
    /// Its label.
    pub label: &'static str,
    /// The relation whose negatives it derives.
    pub rel: u32,
    /// The relation whose concluded facts it closes over (of the same parameters).
    pub domain: u32,
    /// Snapshot id (empty when none).
    pub snapshot: &'static str,
    /// `completeAsOf` (empty when none).
    pub complete_as_of: &'static str,
}

/// A rule, for explanations.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    /// Rule id.
    pub id: &'static str,
    /// Its label.
    pub label: &'static str,
    /// `strict`, `defeasible` or `defeater`.
    pub strength: &'static str,
    /// The fragments it rests on (indices into [`Schema::fragments`]).
    pub anchors: &'static [u32],
    /// Its head's relation.
    pub head: u32,
    /// Its head's sign.
    pub negative: bool,
}

impl RuleInfo {
    /// The rule `id` of `strength`, labelled `label`, resting on `anchors`, for its head's
    /// relation `head` with sign `negative`.
    pub const fn new(
        id: &'static str,
        strength: &'static str,
        label: &'static str,
        anchors: &'static [u32],
        head: u32,
        negative: bool,
    ) -> RuleInfo {
        RuleInfo { id, label, strength, anchors, head, negative }
    }
}

/// Everything the runtime needs to know of a compiled package.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    /// Package name (`law.toml` key).
    pub package: &'static str,
    /// Package version.
    pub version: &'static str,
    /// Seal of the compiled blob.
    pub seal: &'static str,
    /// The date (`YYYY-MM-DD`) the law is in force from, when the package says: a case dated
    /// before it (`as_of`) is refused.
    pub in_force: Option<&'static str>,
    /// The date the law is no longer in force from, when the package says: a case dated on or
    /// after it is refused.
    pub until: Option<&'static str>,
    /// Relations, in declaration order; their index is the relation number of flat rows.
    pub relations: &'static [RelationInfo],
    /// Constants, in declaration order; constant `i` is interned as `Sym(i)`.
    pub constants: &'static [ConstantInfo],
    /// The fragments rules rest on.
    pub fragments: &'static [FragmentInfo],
    /// Rules, in declaration order.
    pub rules: &'static [RuleInfo],
    /// Superiorities.
    pub priorities: &'static [PriorityInfo],
    /// Closure policies, in declaration order.
    pub closures: &'static [ClosureInfo],
}

impl Schema {
    /// The capabilities the package's judgment relations are reserved to (`judgment:X`), each
    /// once, in declaration order.
    pub fn capabilities(&self) -> Vec<&'static str> {
        let mut caps: Vec<&'static str> = Vec::new();
        for cap in self.relations.iter().filter_map(|r| r.capability) {
            if !caps.contains(&cap) {
                caps.push(cap);
            }
        }
        caps
    }

    /// `Err` naming the first of `grants` that is none of the package's capabilities, with the
    /// closest one and the list: a misspelt `--grant` is refused before any case is ruled,
    /// rather than making every judgment line an error line.
    pub fn check_grants(&self, grants: &[String]) -> Result<(), String> {
        let caps = self.capabilities();
        match grants.iter().find(|g| !caps.contains(&g.as_str())) {
            None => Ok(()),
            Some(g) => Err(format!(
                "unknown capability `{g}`{}: package {} reserves its judgments to {}",
                crate::suggest::did_you_mean(g, caps.iter().copied()),
                self.package,
                if caps.is_empty() { "no capability".to_string() } else { caps.join(", ") }
            )),
        }
    }

    /// Index of the relation called `name`.
    pub fn relation(&self, name: &str) -> Option<usize> {
        self.relations.iter().position(|r| r.name == name)
    }

    /// The constant names, in interning order.
    pub fn constant_names(&self) -> Vec<&'static str> {
        self.constants.iter().map(|c| c.name).collect()
    }
}
