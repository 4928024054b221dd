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
    /// What the relation means, in the package's words: its label in the default language
    /// (empty when the package gives none).
    pub label: &'static str,
}

impl RelationInfo {
    /// An empirical relation.
    pub const fn empirical(name: &'static str, params: &'static [ParamInfo]) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Empirical, params, capability: None, label: "" }
    }

    /// A judgment relation, given only under `capability`.
    pub const fn judgment(name: &'static str, params: &'static [ParamInfo], capability: &'static str) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Judgment, params, capability: Some(capability), label: "" }
    }

    /// An institutional relation.
    pub const fn institutional(name: &'static str, params: &'static [ParamInfo]) -> RelationInfo {
        RelationInfo { name, kind: RelationKind::Institutional, params, capability: None, label: "" }
    }

    /// The relation with its label.
    pub const fn labelled(self, label: &'static str) -> RelationInfo {
        RelationInfo { label, ..self }
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

/// The section numbers a label names, in order: each word that is a number of dotted parts
/// (`Article 9.3.` names `9.3`, `Preface 0.2.` names `0.2`), with the last section of a range
/// (`3.7.3.1–2` names `3.7.3.1` to `3.7.3.2`), as (first, last).
fn sections(label: &str) -> impl Iterator<Item = (String, String)> + '_ {
    label.split_whitespace().filter_map(|w| {
        let w = w.trim_end_matches(['.', ':', ',', ';', ')']);
        let (first, to) = match w.split_once(['–', '-']) {
            Some((a, b)) => (a, Some(b)),
            None => (w, None),
        };
        if !is_number(first) {
            return None;
        }
        let last = match to {
            Some(b) if is_number(b) && b.contains('.') => b.to_string(),
            Some(b) if is_number(b) => match first.rsplit_once('.') {
                Some((parent, _)) => format!("{parent}.{b}"),
                None => b.to_string(),
            },
            _ => first.to_string(),
        };
        Some((first.to_string(), last))
    })
}

/// Whether `w` is `1`, `9.3` or `3.7.3.1`: parts of ASCII digits joined by dots.
fn is_number(w: &str) -> bool {
    !w.is_empty() && w.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The section number a paragraph starts with (`9.3.1 he/she indicates ...` starts with
/// `9.3.1`), if any.
fn paragraph_number(para: &str) -> Option<&str> {
    let w = para.split_whitespace().next()?.trim_end_matches(['.', ':']);
    is_number(w).then_some(w)
}

/// Whether section `n` is section `of` or one of its sub-items.
fn within(n: &str, of: &str) -> bool {
    n == of || n.strip_prefix(of).is_some_and(|rest| rest.starts_with('.'))
}

/// Compares two section numbers part by part, numerically.
fn cmp_sections(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |s: &str| s.split('.').map(|p| p.parse::<u64>().unwrap_or(u64::MAX)).collect::<Vec<_>>();
    parts(a).cmp(&parts(b))
}

/// What a rule labelled `label` quotes of a fragment's `text`: the paragraph (paragraphs are
/// separated by blank lines) numbered as the label names it (`Article 9.3` quotes `9.3 ...`)
/// together with its sub-items (`9.3.1`, `9.3.2`, and unnumbered paragraphs such as `1) ...`)
/// up to the next section, whole; a range (`3.7.3.1–2`) quotes each of its sections. When the
/// label names no number the text holds, the whole text. Never the label.
pub fn citation<'a>(label: &str, text: &'a str) -> &'a str {
    quote(label, text).unwrap_or(text.trim())
}

/// The passage of `text` the first section `label` names that `text` holds ([`citation`]).
fn quote<'a>(label: &str, text: &'a str) -> Option<&'a str> {
    // Each paragraph with its byte range in `text` and its number; the first paragraph of each
    // number, so that a label of many numbers costs one look-up each.
    let mut paragraphs = Vec::new();
    let mut numbered: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut at = 0;
    for para in text.split("\n\n") {
        let number = paragraph_number(para);
        if let Some(n) = number {
            numbered.entry(n).or_insert(paragraphs.len());
        }
        paragraphs.push((at, at + para.len(), number));
        at += para.len() + 2;
    }
    sections(label).find_map(|(first, last)| {
        let from = *numbered.get(first.as_str())?;
        let mut to = from;
        for (k, p) in paragraphs.iter().enumerate().skip(from + 1) {
            match p.2 {
                None => {}
                Some(n) if within(n, &first) || within(n, &last) => {}
                Some(n) if cmp_sections(n, &first).is_gt() && cmp_sections(n, &last).is_lt() => {}
                Some(_) => break,
            }
            to = k;
        }
        Some(text[paragraphs[from].0..paragraphs[to].1].trim())
    })
}

/// The articles rule `rule` rests on, as explanations and why-not cite them: per anchor, its
/// `locator`, the passage quoted ([`citation`], by the rule's label in the shown language, else
/// by its default one) and the `language` of the quoted text.
pub fn articles(schema: &Schema, rule: usize) -> serde_json::Value {
    let r = &schema.rules[rule];
    let label = schema.rule_label(rule);
    let cited = r.anchors.iter().map(|&f| {
        let (text, language) = schema.fragment_text(f as usize);
        let cited = cited(label, r.label, text);
        let f = &schema.fragments[f as usize];
        serde_json::json!({"locator": f.locator, "citation": cited, "language": language})
    });
    serde_json::Value::Array(cited.collect())
}

/// The passage of `text` a rule labelled `label` (else `default`) quotes, computed once per
/// process for each label and text: the strings are a compiled package's static data, so their
/// addresses and lengths name them.
fn cited(label: &'static str, default: &'static str, text: &'static str) -> &'static str {
    type Key = [(usize, usize); 3];
    static CACHE: std::sync::OnceLock<std::sync::RwLock<std::collections::HashMap<Key, &'static str>>> =
        std::sync::OnceLock::new();
    let key = [label, default, text].map(|s| (s.as_ptr() as usize, s.len()));
    let cache = CACHE.get_or_init(Default::default);
    if let Some(c) = cache.read().ok().and_then(|m| m.get(&key).copied()) {
        return c;
    }
    let c = quote(label, text).or_else(|| quote(default, text)).unwrap_or(text.trim());
    if let Ok(mut m) = cache.write() {
        m.insert(key, c);
    }
    c
}

/// What a [`Translation`] translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Translated {
    /// The label of a rule (index into [`Schema::rules`]).
    Rule(u32),
    /// The label of a closure policy.
    Closure(u32),
    /// The label of a priority.
    Priority(u32),
    /// The text of a fragment.
    Fragment(u32),
}

/// A label or fragment text in a language other than the package's default.
#[derive(Clone, Copy, Debug)]
pub struct Translation {
    /// What it translates.
    pub of: Translated,
    /// Its language, an index into [`Texts::languages`].
    pub language: u32,
    /// The text.
    pub text: &'static str,
}

impl Translation {
    /// `text`, the translation of `of` into language `language`.
    pub const fn new(of: Translated, language: u32, text: &'static str) -> Translation {
        Translation { of, language, text }
    }
}

/// The languages of a package's labels and article texts, and the one shown.
#[derive(Clone, Copy, Debug)]
pub struct Texts {
    /// Every language the package's labels and fragment texts are in, the default first: the
    /// language of the schema's `label`s and `text`s (the first official one).
    pub languages: &'static [&'static str],
    /// Labels and fragment texts in the other languages.
    pub translations: &'static [Translation],
    /// The language shown, an index into `languages`: 0 in generated code,
    /// [`Schema::in_language`] chooses another.
    pub shown: u32,
}

impl Texts {
    /// A package in the `languages` (the default first), with `translations`.
    pub const fn new(languages: &'static [&'static str], translations: &'static [Translation]) -> Texts {
        Texts { languages, translations, shown: 0 }
    }
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
    /// Why it wins, as the package gives it (`priority_rule.reason`: an id, such as
    /// `...#lex_specialis`); empty when it gives none.
    pub reason: &'static str,
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
    /// Languages, translations and the language shown.
    pub texts: Texts,
}

impl Schema {
    /// The package's relations (with their labels), constants and rules as JSON: what `clir
    /// schema --json` prints, the service's `/v1/packages/{name}/schema` answers and the review
    /// page reads. `name` is the package's name; the service gives the semanticHash its law.lock
    /// pins (`None`: no such key's value).
    pub fn to_json(&self, name: &str, semantic_hash: Option<&str>) -> serde_json::Value {
        use serde_json::json;
        let relations: Vec<serde_json::Value> = self
            .relations
            .iter()
            .map(|r| {
                let kind = match r.kind {
                    RelationKind::Empirical => "empirical",
                    RelationKind::Judgment => "judgment",
                    RelationKind::Institutional => "institutional",
                };
                let params: Vec<serde_json::Value> =
                    r.params.iter().map(|q| json!({"name": q.name, "type": q.ty, "integer": q.integer})).collect();
                json!({"name": r.name, "label": r.label, "kind": kind, "params": params, "capability": r.capability})
            })
            .collect();
        let constants: Vec<serde_json::Value> =
            self.constants.iter().map(|c| json!({"name": c.name, "type": c.ty})).collect();
        let rules: Vec<serde_json::Value> = self
            .rules
            .iter()
            .map(|r| {
                let articles: Vec<serde_json::Value> = r
                    .anchors
                    .iter()
                    .map(|&f| {
                        let f = &self.fragments[f as usize];
                        json!({"locator": f.locator, "citation": citation(r.label, f.text)})
                    })
                    .collect();
                let head = self.relations.get(r.head as usize).map_or("", |h| h.name);
                let head = if r.negative { format!("~{head}") } else { head.to_string() };
                json!({"id": r.id, "label": r.label, "strength": r.strength, "articles": articles, "head": head})
            })
            .collect();
        json!({
            "name": name,
            "version": self.version,
            "seal": self.seal,
            "inForce": self.in_force,
            "until": self.until,
            "semanticHash": semantic_hash,
            "relations": relations,
            "constants": constants,
            "rules": rules,
        })
    }

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

    /// The language labels and texts are shown in.
    pub fn language(&self) -> &'static str {
        self.texts.languages.get(self.texts.shown as usize).copied().unwrap_or("")
    }

    /// The schema showing labels and texts in `language` where the package carries them (in
    /// its default language elsewhere); `Err` naming the closest and every language it carries
    /// when it carries none in `language`.
    pub fn in_language(&self, language: &str) -> Result<Schema, String> {
        let langs = self.texts.languages;
        match langs.iter().position(|l| *l == language) {
            Some(shown) => Ok(Schema { texts: Texts { shown: shown as u32, ..self.texts }, ..*self }),
            None => Err(format!(
                "unknown language `{}`{}: package {} has its labels and texts in {}",
                language.escape_debug(),
                crate::suggest::did_you_mean(language, langs.iter().copied()),
                self.package,
                if langs.is_empty() { "no language".to_string() } else { langs.join(", ") }
            )
            .chars()
            .map(|c| if c.is_control() { '\u{fffd}' } else { c })
            .collect()),
        }
    }

    /// The translation of `of` into the shown language: the text and whether it is one.
    fn translated(&self, of: Translated, default: &'static str) -> (&'static str, bool) {
        let shown = self.texts.shown;
        if shown == 0 {
            return (default, true);
        }
        let t = self.texts.translations.iter().find(|t| t.of == of && t.language == shown);
        t.map_or((default, false), |t| (t.text, true))
    }

    /// Rule `rule`'s label in the shown language (in the default one when it has none there).
    pub fn rule_label(&self, rule: usize) -> &'static str {
        self.translated(Translated::Rule(rule as u32), self.rules[rule].label).0
    }

    /// Closure `closure`'s label in the shown language (else the default one).
    pub fn closure_label(&self, closure: usize) -> &'static str {
        self.translated(Translated::Closure(closure as u32), self.closures[closure].label).0
    }

    /// Priority `priority`'s label in the shown language (else the default one).
    pub fn priority_label(&self, priority: usize) -> &'static str {
        self.translated(Translated::Priority(priority as u32), self.priorities[priority].label).0
    }

    /// Fragment `fragment`'s text in the shown language (else the default one), and that
    /// language.
    pub fn fragment_text(&self, fragment: usize) -> (&'static str, &'static str) {
        match self.translated(Translated::Fragment(fragment as u32), self.fragments[fragment].text) {
            (text, true) => (text, self.language()),
            (text, false) => (text, self.texts.languages.first().copied().unwrap_or("")),
        }
    }

    /// How many labels (of rules, closures, priorities) and fragment texts the package does not
    /// carry in the shown language: they are shown in the default one.
    pub fn untranslated(&self) -> usize {
        let of = (0..self.rules.len() as u32).map(Translated::Rule);
        let of = of.chain((0..self.closures.len() as u32).map(Translated::Closure));
        let of = of.chain((0..self.priorities.len() as u32).map(Translated::Priority));
        let of = of.chain((0..self.fragments.len() as u32).map(Translated::Fragment));
        of.filter(|&o| !self.translated(o, "").1).count()
    }

    /// The constant names, in interning order.
    pub fn constant_names(&self) -> Vec<&'static str> {
        self.constants.iter().map(|c| c.name).collect()
    }
}

/// The method that names an entity of type `camel` in the Python case builder:
/// `GamePlayTransition` as `game_play_transition`.
pub fn type_method(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Index of the flat rows of relation `rel` with sign `negative`, in a batch's and an output's
/// per-literal tables.
pub fn slot(rel: usize, negative: bool) -> usize {
    rel * 2 + negative as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    static SCHEMA: Schema = Schema {
        package: "demo.lang",
        version: "0.1.0",
        seal: "",
        in_force: None,
        until: None,
        relations: &[RelationInfo::institutional("drawn", &[ParamInfo::entity("game", "Game")])],
        constants: &[],
        fragments: &[FragmentInfo::new(
            "ART_9",
            "article/9",
            "Article 9\n\n9.6 Drawn if:\n\n9.6.2 75 moves.\n\n9.7 Other.",
        )],
        rules: &[
            RuleInfo::new("Draw", "strict", "Article 9.6. 75 moves draw", &[0], 0, false),
            RuleInfo::new("Long", "strict", "a long game", &[0], 0, false),
        ],
        priorities: &[],
        closures: &[],
        texts: Texts::new(
            &["en", "fr"],
            &[
                Translation::new(Translated::Rule(0), 1, "75 coups : nulle"),
                Translation::new(
                    Translated::Fragment(0),
                    1,
                    "Article 9\n\n9.6 Nulle si :\n\n9.6.2 75 coups.\n\n9.7 Autre.",
                ),
            ],
        ),
    };

    proptest::proptest! {
        /// A package's labels and texts are its author's: any label quotes a passage of any
        /// text (or the whole of it), and never panics on ranges, dots, huge numbers or
        /// multi-byte characters.
        #[test]
        fn any_label_quotes_a_passage_of_any_text(
            label in "(Article |§|[0-9]{1,22}|[.–\\-:]|é| |\\n){0,24}",
            text in "([0-9]{1,22}|[.–\\-:)]|é| |\\n|\\r|x){0,80}",
        ) {
            let cited = citation(&label, &text);
            proptest::prop_assert!(text.contains(cited));
        }
    }

    #[test]
    fn a_label_of_many_numbers_against_a_text_of_many_paragraphs_is_read_once_each() {
        // Quadratic look-ups would take 10^10 steps here.
        let label: String = (0..100_000).map(|i| format!("{i}.{i} ")).collect();
        let text: String = (0..100_000).map(|i| format!("{i}.{i}.{i} x\n\n")).collect();
        assert_eq!(citation(&label, &text), text.trim());
        let label = format!("{label} 99999.1");
        assert_eq!(citation(&label, &format!("{text}99999.1 y")), "99999.1 y");
    }

    #[test]
    fn a_language_the_package_carries_is_shown_and_the_default_fills_what_it_lacks() {
        let fr = SCHEMA.in_language("fr").unwrap();
        assert_eq!((fr.language(), fr.rule_label(0), fr.rule_label(1)), ("fr", "75 coups : nulle", "a long game"));
        // The French label names no section: the section is the default label's.
        let cited = articles(&fr, 0);
        assert_eq!(cited[0]["citation"], "9.6 Nulle si :\n\n9.6.2 75 coups.");
        assert_eq!(cited[0]["language"], "fr");
        assert_eq!(articles(&SCHEMA, 0)[0]["citation"], "9.6 Drawn if:\n\n9.6.2 75 moves.");
        assert_eq!(articles(&SCHEMA, 1)[0]["citation"], SCHEMA.fragments[0].text);
        assert_eq!((fr.untranslated(), SCHEMA.untranslated()), (1, 0));
        let err = SCHEMA.in_language("FR").unwrap_err();
        assert!(err.contains("`FR` (did you mean `fr`?)") && err.ends_with("in en, fr"), "{err}");
    }
}
