//! The notation (docs/NOTATION.md has it all, with its grammar): one statement a line, each
//! starting with its keyword (a line that starts with any other word, or with a quote,
//! continues the statement before); `//` to the end of a line is a comment.
//!
//! ```text
//! package test.rejected 0.1.0          // name and version (first statement)
//! namespace urn:test:rejected          // optional; default urn: + the name's parts
//! features negation-as-failure         // besides core-executable
//! order by-id                          // nodes sorted by id in the document
//! omit-empty labels anchors            // empty lists of these keys left out of nodes
//! type Game "a game of chess"          // a label in quotes, on any declaration
//! type Square label fr official "case" // labels in other languages and statuses
//! const Playing: Game
//! empirical player_of(game: Game, who: Player)
//! institutional p0_edge(Integer, Integer) id p0   // unnamed parameters a0.., node id p0
//! judgment touched(who: Player) by judgment:Arbiter authority Arbiter judged-by Arbiter
//! external touched/external: touched by judgment:Arbiter authority Arbiter "label"
//! fragment ART_9 article/9 edition LAWS_2023 "9.6 The game is drawn ..."
//!     "... continued"                  // adjacent strings of a text are joined
//! publication LAWS_EN sources/laws/en.txt "the laws, English" hash sha256:..  // hash optional
//! rule Draw defeasible "Article 9.6.2" @ART_9 [g: Game, n: Integer]:
//!     game_drawn(g) :- moves(g, n), n >= 75, supported started(g), not ~p(g)
//! priority MateFirst: Mate > Draw "checkmate takes precedence" reason lex_specialis @ART_9
//! closure Attacked: attacked over checked asof "2024-01-01T00:00:00Z" snapshot urn:x:1
//! work LAWS "the laws" authority Assembly number "E.01" kind regulation
//! edition LAWS_2023 of LAWS language en lifecycle in_force 2023-01-01
//! node source_document DOC "any other kind" set number = "E.01"   // id, kind, package, labels + sets
//! node {"id": "urn:test:rejected#x", "kind": "weird"}  // a raw node, kept as written
//! metadata publisher = "FIDE"          // a key of the document's metadata
//! document set imports = []            // a top-level key, set last (`document unset KEY`)
//! ```
//!
//! Rules: `rule ID STRENGTH ["label"] [@FRAGMENT..] [[var: Type, ..]] [bare] : HEAD [:- BODY]`.
//! The head is a literal `p(t, ..)` or `~p(t, ..)` (`p` alone for no arguments). Body items,
//! separated by commas: a literal (bare), `established L`, `supported L`, `status WORD L` (any
//! status word), `not L`, a comparison `t OP t` (`=`, `!=`, `<`, `<=`, `>`, `>=`), `true`,
//! `false`, and `( items )` for a nested `and`; `bare` writes a one-item body without its `and`.
//! Terms: a declared constant's name (a `const_ref`), `#NAME` (an `entity_ref`), an integer, a
//! string `"..."`, a variable (any other name), and `t + t`, `t - t`, `t * t`. A name that is
//! not a plain identifier is written in backquotes: `` `a-b` ``. Without `[..]`, a variable's
//! type is that of the first parameter it fills (head first), or Integer when it only occurs in
//! comparisons. Types and relations may be used before they are declared; an undeclared name
//! still becomes an id of the package (for packages that must be rejected).
//!
//! Every statement but `package` and the document's takes the generic clauses: `"text"` (its
//! English official label), `label LANG STATUS "text"`, `set KEY = VALUE` (VALUE is JSON, or
//! `ref NAME` for the id `namespace#NAME`, or `const NAME` for a `const_ref` to it) and `unset
//! KEY`, applied to the node after its typed form.
//!
//! A `publication` names a source text kept with the package: its path (relative to the
//! project root; `-` for none) becomes the `metadata.localSources` entry of the publication, and
//! `hash` its `documentHash`; without `hash`, [`Package::hash_sources`] computes it from the file.

use crate::{Attrs, Index, Item, Label, Lit, Node, Package, Param, RelKind, Rule, Term};
use serde_json::{json, Value};
use std::fmt;

/// A notation error: where (1-based line and column, in characters) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line of the error.
    pub line: usize,
    /// The column of the error (1-based, in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// One statement: its text (continuation lines joined by a space) and where each joined part
/// starts in the notation.
struct Stmt {
    text: String,
    /// (offset in `text`, line, column) of each joined part.
    parts: Vec<(usize, usize, usize)>,
}

impl Stmt {
    /// The line and column of byte `pos` of the statement.
    fn locate(&self, pos: usize) -> (usize, usize) {
        let pos = pos.min(self.text.len());
        let &(start, line, col) = self.parts.iter().rev().find(|(start, ..)| *start <= pos).unwrap_or(&self.parts[0]);
        let chars = self.text.get(start..pos).map_or(0, |s| s.chars().count());
        (line, col + chars)
    }

    fn error(&self, pos: usize, message: String) -> ParseError {
        let (line, column) = self.locate(pos);
        ParseError { line, column, message }
    }
}

/// Parses a package written in the notation.
pub fn parse(text: &str) -> Result<Package, ParseError> {
    parse_located(text).map(|(pkg, _)| pkg)
}

/// Where in the notation a node comes from: its statement, and for a rule its head and premises.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Located {
    /// The line the statement starts on.
    pub line: usize,
    /// The column the statement starts at.
    pub column: usize,
    /// Parts of the node by JSON path inside it (`head`, `body.items[2]`, `body` for a bare body),
    /// with their line and column.
    pub parts: Vec<(String, usize, usize)>,
}

impl Located {
    /// The line and column of the part of the node at `path` (a JSON path inside the node, such
    /// as `body.items[1].formula.args[0]`): the longest part that contains it, else the statement.
    pub fn find(&self, path: &str) -> (usize, usize) {
        self.parts
            .iter()
            .filter(|(p, ..)| path == p || path.starts_with(&format!("{p}.")) || path.starts_with(&format!("{p}[")))
            .max_by_key(|(p, ..)| p.len())
            .map_or((self.line, self.column), |&(_, l, c)| (l, c))
    }
}

/// Parses a package written in the notation, with where each of its nodes comes from (in the
/// order of [`Package::nodes`]).
pub fn parse_located(text: &str) -> Result<(Package, Vec<Located>), ParseError> {
    let statements = statements(text);
    let mut pkg: Option<Package> = None;
    let mut at = Vec::new();
    // Rules are resolved once every declaration is known.
    let mut rules: Vec<(usize, usize)> = Vec::new();
    for (i, stmt) in statements.iter().enumerate() {
        let mut c = Cursor::new(&stmt.text);
        let result = match &mut pkg {
            None => {
                let keyword = c.word();
                match keyword.as_deref() {
                    Some("package") => header(&mut c).map(|p| pkg = Some(p)),
                    _ => {
                        c.pos = 0;
                        Err("the first statement must be `package NAME VERSION`".to_string())
                    }
                }
            }
            Some(p) => statement(p, &mut c, i, &mut rules),
        };
        if let Err(message) = result {
            c.skip_ws();
            return Err(stmt.error(c.pos, message));
        }
        let nodes = pkg.as_ref().map_or(0, |p| p.nodes.len());
        let (line, column) = stmt.locate(0);
        at.resize(nodes, Located { line, column, parts: Vec::new() });
    }
    let mut pkg =
        pkg.ok_or(ParseError { line: 1, column: 1, message: "no `package NAME VERSION` statement".into() })?;
    let idx = Index::new(&pkg);
    for (stmt_index, node) in rules {
        let stmt = &statements[stmt_index];
        let mut parser = RuleParser { pkg: &pkg, idx: &idx, c: Cursor::new(&stmt.text), marks: Vec::new() };
        match parser.rule() {
            Ok(rule) => {
                at[node].parts = parser
                    .marks
                    .iter()
                    .map(|(path, pos)| {
                        let (l, c) = stmt.locate(*pos);
                        (path.clone(), l, c)
                    })
                    .collect();
                pkg.nodes[node] = rule;
            }
            Err(message) => {
                parser.c.skip_ws();
                return Err(stmt.error(parser.c.pos, message));
            }
        }
    }
    Ok((pkg, at))
}

fn header(c: &mut Cursor) -> Result<Package, String> {
    let name = c.word().ok_or("`package NAME VERSION`")?;
    let version = c.word().ok_or("`package NAME VERSION`: the version")?;
    if !c.at_end() {
        return Err(format!("unexpected `{}` after `package NAME VERSION`", c.rest()));
    }
    Ok(Package::new(&name, &version))
}

/// What the generic clauses of a statement gathered.
#[derive(Default)]
struct Clauses {
    labels: Vec<Label>,
    /// Whether a `label LANG STATUS` clause was written (then `labels` is the node's list).
    listed: bool,
    attrs: Attrs,
}

impl Clauses {
    /// The typed form's label: the last bare one, unless the labels are listed.
    fn label(&self) -> Option<String> {
        if self.listed {
            None
        } else {
            self.labels.last().map(|l| l.text.clone())
        }
    }

    /// For a node whose typed form has no label: a bare label is its list of labels.
    fn untyped_labels(mut self) -> Self {
        if !self.listed && !self.labels.is_empty() {
            self.labels.drain(..self.labels.len() - 1);
            self.listed = true;
        }
        self
    }

    /// `base` with the attributes, if any.
    fn node(mut self, base: Node) -> Node {
        if self.listed {
            self.attrs.labels = Some(std::mem::take(&mut self.labels));
        }
        if self.attrs.is_empty() {
            base
        } else {
            Node::With(Box::new(base), self.attrs)
        }
    }
}

/// Reads one generic clause (`"label"`, `label`, `set`, `unset`) if one is next.
fn clause(c: &mut Cursor, ns: &str, cl: &mut Clauses) -> Result<bool, String> {
    if let Some(text) = c.string_opt()? {
        cl.labels.push(Label { language: "en".into(), status: "official".into(), text });
    } else if c.eat_word("label") {
        let language = c.word_token().ok_or("`label LANG STATUS \"text\"`: the language")?;
        let status = c.word_token().ok_or("`label LANG STATUS \"text\"`: the status")?;
        let text = c.string_opt()?.ok_or("`label LANG STATUS \"text\"`: the text, in quotes")?;
        cl.labels.push(Label { language, status, text });
        cl.listed = true;
    } else if c.eat_word("set") {
        let key = c.key()?;
        c.expect("=")?;
        let value = value(c, ns)?;
        cl.attrs.set.push((key, value));
    } else if c.eat_word("unset") {
        let key = c.key()?;
        cl.attrs.unset.push(key);
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// A value of `set`: `ref NAME`, `const NAME` or JSON.
fn value(c: &mut Cursor, ns: &str) -> Result<Value, String> {
    if c.eat_word("ref") {
        return Ok(json!(format!("{ns}#{}", c.name()?)));
    }
    if c.eat_word("const") {
        return Ok(json!({ "kind": "const_ref", "id": format!("{ns}#{}", c.name()?) }));
    }
    c.json()
}

/// Reads generic clauses and those `special` takes (it returns whether it took one) until the
/// end of the statement.
fn clauses(
    c: &mut Cursor,
    ns: &str,
    what: &str,
    mut special: impl FnMut(&mut Cursor) -> Result<bool, String>,
) -> Result<Clauses, String> {
    let mut cl = Clauses::default();
    loop {
        if clause(c, ns, &mut cl)? || special(c)? {
            continue;
        }
        if c.at_end() {
            return Ok(cl);
        }
        return Err(format!("unexpected `{}` in {what}", c.rest()));
    }
}

/// How the value of a clause that sets one key is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `NAME`: the string `NAMESPACE#NAME`.
    Ref,
    /// `NAME`: `{"kind":"const_ref","id":"NAMESPACE#NAME"}`.
    Const,
    /// `"TEXT"`: a string.
    Str,
    /// `WORD`: a string without white space.
    Word,
}

/// A clause that sets one key: its word, the key and the form of its value.
pub(crate) type Sugar = (&'static str, &'static str, Form);

/// `fragment`'s clause: the edition it is part of.
pub(crate) const FRAGMENT_SUGAR: &[Sugar] = &[("edition", "edition", Form::Ref)];
/// `publication`'s clauses.
pub(crate) const PUBLICATION_SUGAR: &[Sugar] = &[
    ("edition", "edition", Form::Ref),
    ("uri", "uri", Form::Str),
    ("retrieved", "retrievedAt", Form::Str),
    ("media", "mediaType", Form::Str),
];
/// `work`'s clauses (a `source_work`).
pub(crate) const WORK_SUGAR: &[Sugar] = &[
    ("kind", "sourceKind", Form::Ref),
    ("authority", "authority", Form::Const),
    ("jurisdiction", "jurisdiction", Form::Const),
    ("number", "number", Form::Str),
];
/// `edition`'s clauses (a `source_edition`); `lifecycle STATUS EXTENT` apart.
pub(crate) const EDITION_SUGAR: &[Sugar] = &[
    ("of", "work", Form::Ref),
    ("language", "language", Form::Word),
    ("officiality", "officiality", Form::Word),
    ("status", "materializationStatus", Form::Word),
];

/// Reads one clause of `table` if one is next, its key and value pushed on `out`.
fn sugar(c: &mut Cursor, ns: &str, table: &[Sugar], out: &mut Vec<(String, Value)>) -> Result<bool, String> {
    for &(word, key, form) in table {
        if !c.eat_word(word) {
            continue;
        }
        let value = match form {
            Form::Ref => json!(format!("{ns}#{}", c.name()?)),
            Form::Const => json!({ "kind": "const_ref", "id": format!("{ns}#{}", c.name()?) }),
            Form::Str => json!(c.string_opt()?.ok_or_else(|| format!("`{word} \"TEXT\"`"))?),
            Form::Word => json!(c.word_token().ok_or_else(|| format!("`{word} WORD`"))?),
        };
        out.push((key.to_string(), value));
        return Ok(true);
    }
    Ok(false)
}

/// `node` with `sets` before the sets it has.
fn with_sets(node: Node, sets: Vec<(String, Value)>) -> Node {
    if sets.is_empty() {
        return node;
    }
    let (base, mut attrs) = match node {
        Node::With(base, attrs) => (base, attrs),
        other => (Box::new(other), Attrs::default()),
    };
    attrs.set.splice(0..0, sets);
    Node::With(base, attrs)
}

fn statement(pkg: &mut Package, c: &mut Cursor, index: usize, rules: &mut Vec<(usize, usize)>) -> Result<(), String> {
    let keyword = c.word().ok_or("empty statement")?;
    let ns = pkg.namespace.clone();
    match keyword.as_str() {
        "package" => return Err("a second `package` statement".into()),
        "namespace" => pkg.namespace = c.word().ok_or("`namespace URN`")?,
        "features" => {
            while let Some(f) = c.word() {
                pkg.features.push(f);
            }
        }
        "order" => {
            if !c.eat_word("by-id") {
                return Err("`order by-id`".into());
            }
            pkg.order_by_id = true;
        }
        "omit-empty" => {
            while let Some(k) = c.word() {
                pkg.omit_empty.push(k);
            }
        }
        "document" => {
            if c.eat_word("set") {
                let key = c.key()?;
                c.expect("=")?;
                let v = value(c, &ns)?;
                pkg.document.push((key, Some(v)));
            } else if c.eat_word("unset") {
                let key = c.key()?;
                pkg.document.push((key, None));
            } else {
                return Err("`document set KEY = VALUE` or `document unset KEY`".into());
            }
        }
        "semantic-hash" => {
            let publisher = c.word_token().ok_or("`semantic-hash HASH for DERIVED`")?;
            if !c.eat_word("for") {
                return Err("`semantic-hash HASH for DERIVED`: `for` and the semanticHash clir derives".into());
            }
            let derived = c.word_token().ok_or("`semantic-hash HASH for DERIVED`: the derived hash")?;
            pkg.semantic_hash = Some((publisher, derived));
        }
        "metadata" => {
            let key = c.key()?;
            c.expect("=")?;
            let v = value(c, &ns)?;
            if !pkg.metadata.is_object() {
                pkg.metadata = json!({});
            }
            pkg.metadata[key.as_str()] = v;
        }
        "type" => {
            let name = c.name()?;
            let cl = clauses(c, &ns, "a type", |_| Ok(false))?;
            let base = Node::Type { id: name.clone(), name, label: cl.label() };
            pkg.nodes.push(cl.node(base));
        }
        "const" => {
            let name = c.name()?;
            c.expect(":")?;
            let of = c.name()?;
            let cl = clauses(c, &ns, "a constant", |_| Ok(false))?;
            let base = Node::Constant { id: name.clone(), name, of, label: cl.label() };
            pkg.nodes.push(cl.node(base));
        }
        "empirical" | "judgment" | "institutional" => {
            let kind = match keyword.as_str() {
                "empirical" => RelKind::Empirical,
                "judgment" => RelKind::Judgment,
                _ => RelKind::Institutional,
            };
            let name = c.name()?;
            let mut params = Vec::new();
            if c.eat("(") && !c.eat(")") {
                loop {
                    let first = c.name()?;
                    let param = if c.eat(":") {
                        Param { id: first.clone(), name: first, ty: c.name()? }
                    } else {
                        let i = params.len();
                        Param { id: i.to_string(), name: format!("a{i}"), ty: first }
                    };
                    params.push(param);
                    if c.eat(")") {
                        break;
                    }
                    c.expect(",")?;
                }
            }
            let mut id = name.clone();
            let mut external = None;
            let mut authority = None;
            let mut judged_by = None;
            let cl = clauses(c, &ns, "a relation declaration", |c| {
                if c.eat_word("id") {
                    id = c.name()?;
                } else if c.eat_word("by") {
                    external = Some(c.word_token().ok_or("`by CAPABILITY`")?);
                } else if c.eat_word("authority") {
                    authority = Some(c.name()?);
                } else if c.eat_word("judged-by") {
                    judged_by = Some(c.name()?);
                } else {
                    return Ok(false);
                }
                Ok(true)
            })?;
            let base = Node::Relation { id: id.clone(), name, kind, params, label: cl.label() };
            let mut node = cl.node(base);
            if let Some(a) = judged_by {
                node = judged(node, &ns, &a);
            }
            pkg.nodes.push(node);
            if let Some(capability) = external {
                pkg.nodes.push(Node::External { id: format!("{id}/external"), relation: id, capability, authority });
            }
        }
        "external" => {
            let id = c.name()?;
            c.expect(":")?;
            let relation = c.name()?;
            if !c.eat_word("by") {
                return Err("`external ID: RELATION by CAPABILITY`".into());
            }
            let capability = c.word_token().ok_or("`by CAPABILITY`")?;
            let mut authority = None;
            let cl = clauses(c, &ns, "an external declaration", |c| {
                if c.eat_word("authority") {
                    authority = Some(c.name()?);
                    return Ok(true);
                }
                Ok(false)
            })?;
            pkg.nodes.push(cl.untyped_labels().node(Node::External { id, relation, capability, authority }));
        }
        "fragment" => {
            let id = c.name()?;
            let locator = c.word_token().ok_or("`fragment ID LOCATOR \"text\"`")?;
            let mut sets = Vec::new();
            while sugar(c, &ns, FRAGMENT_SUGAR, &mut sets)? {}
            let text = c.text_opt()?.ok_or("the fragment's text, in quotes")?;
            let mut texts = vec![(None, text.clone())];
            let mut cl = clauses(c, &ns, "a fragment", |c| {
                if sugar(c, &ns, FRAGMENT_SUGAR, &mut sets)? {
                    return Ok(true);
                }
                if c.eat_word("text") {
                    let language = c.word_token().ok_or("`text LANG STATUS \"text\"`: the language")?;
                    let status = c.word_token().ok_or("`text LANG STATUS \"text\"`: the status")?;
                    let t = c.text_opt()?.ok_or("`text LANG STATUS \"text\"`: the text, in quotes")?;
                    texts.push((Some((language, status)), t));
                    return Ok(true);
                }
                Ok(false)
            })?;
            if texts.len() > 1 {
                let list = texts
                    .iter()
                    .map(|(ls, t)| {
                        let (l, s) = ls.clone().unwrap_or(("en".into(), "official".into()));
                        json!({ "language": l, "status": s, "text": t })
                    })
                    .collect();
                cl.attrs.set.insert(0, ("texts".into(), Value::Array(list)));
            }
            pkg.nodes.push(with_sets(cl.node(Node::Fragment { id, locator, text }), sets));
        }
        "publication" => {
            let id = c.name()?;
            let path = c.word_token().ok_or("`publication ID PATH`")?;
            let mut document_hash = None;
            let mut sets = Vec::new();
            let cl = clauses(c, &ns, "a publication", |c| {
                if c.eat_word("hash") {
                    document_hash = Some(c.word_token().ok_or("`hash sha256:HEX`")?);
                    return Ok(true);
                }
                sugar(c, &ns, PUBLICATION_SUGAR, &mut sets)
            })?;
            let base = Node::Publication { id, path, label: cl.label(), document_hash };
            pkg.nodes.push(with_sets(cl.node(base), sets));
        }
        "work" | "edition" => {
            let id = c.name()?;
            let mut sets = Vec::new();
            let mut lifecycle = Vec::new();
            let work = keyword == "work";
            let cl = clauses(c, &ns, if work { "a work" } else { "an edition" }, |c| {
                if !work && c.eat_word("lifecycle") {
                    let status = c.word_token().ok_or("`lifecycle STATUS EXTENT`")?;
                    let extent = c.word_token().ok_or("`lifecycle STATUS EXTENT`: the extent")?;
                    lifecycle.push(json!({ "extent": extent, "status": status }));
                    return Ok(true);
                }
                sugar(c, &ns, if work { WORK_SUGAR } else { EDITION_SUGAR }, &mut sets)
            })?;
            if !lifecycle.is_empty() {
                sets.push(("lifecycle".into(), Value::Array(lifecycle)));
            }
            let kind = if work { "source_work" } else { "source_edition" };
            pkg.nodes.push(with_sets(cl.untyped_labels().node(Node::Other { kind: kind.into(), id }), sets));
        }
        "rule" => {
            // A placeholder, filled in once every constant and relation is declared.
            rules.push((index, pkg.nodes.len()));
            pkg.nodes.push(Node::Raw(Value::Null));
            c.pos = c.s.len();
        }
        "priority" => {
            let id = c.name()?;
            c.expect(":")?;
            let higher = c.name()?;
            c.expect(">")?;
            let lower = c.name()?;
            let mut reason = None;
            let mut anchors = Vec::new();
            let mut cl = clauses(c, &ns, "a priority", |c| {
                if c.eat_word("reason") {
                    reason = Some(c.name()?);
                } else if c.eat("@") {
                    anchors.push(json!(format!("{ns}#{}", c.name()?)));
                } else {
                    return Ok(false);
                }
                Ok(true)
            })?;
            if !anchors.is_empty() {
                cl.attrs.set.insert(0, ("anchors".into(), Value::Array(anchors)));
            }
            let base = Node::Priority { id, higher, lower, label: cl.label(), reason };
            pkg.nodes.push(cl.node(base));
        }
        "closure" => {
            let id = c.name()?;
            c.expect(":")?;
            let predicate = c.name()?;
            if !c.eat_word("over") {
                return Err("`closure ID: PREDICATE over DOMAIN`".into());
            }
            let domain = c.name()?;
            let (mut complete_as_of, mut snapshot) = (None, None);
            let cl = clauses(c, &ns, "a closure", |c| {
                if c.eat_word("asof") {
                    complete_as_of = Some(c.string_opt()?.ok_or("`asof \"TIME\"`")?);
                } else if c.eat_word("snapshot") {
                    snapshot = Some(c.word_token().ok_or("`snapshot URI`")?);
                } else {
                    return Ok(false);
                }
                Ok(true)
            })?;
            let base = Node::Closure { id, predicate, domain, label: cl.label(), complete_as_of, snapshot };
            pkg.nodes.push(cl.node(base));
        }
        "node" => {
            if c.peek() == Some('{') {
                let value = c.json().map_err(|e| format!("a raw node must be JSON: {e}"))?;
                if !c.at_end() {
                    return Err(format!("unexpected `{}` after the raw node", c.rest()));
                }
                pkg.nodes.push(Node::Raw(value));
            } else {
                let kind = c.name()?;
                let id = c.name()?;
                let cl = clauses(c, &ns, "a node", |_| Ok(false))?;
                pkg.nodes.push(cl.untyped_labels().node(Node::Other { kind, id }));
            }
        }
        other => {
            c.pos = 0;
            return Err(format!("unknown statement `{other}`"));
        }
    }
    if !c.at_end() {
        return Err(format!("unexpected `{}`", c.rest()));
    }
    Ok(())
}

/// `node` with `effect: judgment` and `judgment.authority`, as `judged-by AUTHORITY` says.
fn judged(node: Node, ns: &str, authority: &str) -> Node {
    let (base, mut attrs) = match node {
        Node::With(base, attrs) => (base, attrs),
        other => (Box::new(other), Attrs::default()),
    };
    attrs.set.insert(0, ("effect".into(), json!("judgment")));
    attrs.set.insert(1, ("judgment".into(), json!({ "authority": format!("{ns}#{authority}") })));
    Node::With(base, attrs)
}

/// The statements of `text`: comments removed, continuation lines (starting with a word that
/// is no keyword, or with a quote) joined to the statement before.
fn statements(text: &str) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = strip_comment(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let col = line.chars().take_while(|c| c.is_whitespace()).count() + 1;
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let continues = !KEYWORDS.contains(&first) && !out.is_empty();
        match out.last_mut() {
            Some(stmt) if continues => {
                stmt.text.push(' ');
                stmt.parts.push((stmt.text.len(), i + 1, col));
                stmt.text.push_str(trimmed);
            }
            _ => out.push(Stmt { text: trimmed.to_string(), parts: vec![(0, i + 1, col)] }),
        }
    }
    out
}

/// The words that start a statement; a line that starts with any other word continues the one
/// before.
pub const KEYWORDS: [&str; 22] = [
    "package",
    "namespace",
    "features",
    "order",
    "omit-empty",
    "document",
    "metadata",
    "semantic-hash",
    "type",
    "const",
    "empirical",
    "judgment",
    "institutional",
    "external",
    "fragment",
    "publication",
    "work",
    "edition",
    "rule",
    "priority",
    "closure",
    "node",
];

/// `line` without a `//` comment (outside quotes and backquotes).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let (mut in_str, mut in_tick, mut i) = (false, false, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_str => i += 1,
            b'"' if !in_tick => in_str = !in_str,
            b'`' if !in_str => in_tick = !in_tick,
            b'/' if !in_str && !in_tick && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// A cursor over one statement.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(ch) = self.s[self.pos..].chars().next() {
            if !ch.is_whitespace() {
                break;
            }
            self.pos += ch.len_utf8();
        }
    }

    fn rest(&mut self) -> &'a str {
        self.skip_ws();
        &self.s[self.pos..]
    }

    fn at_end(&mut self) -> bool {
        let rest = self.rest();
        rest.is_empty() || rest == "."
    }

    fn peek(&mut self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The next run of non-white-space characters.
    fn word(&mut self) -> Option<String> {
        let rest = self.rest();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        self.pos += end;
        Some(rest[..end].to_string())
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let rest = self.rest();
        let after = rest.strip_prefix(word);
        if after.is_some_and(|a| !a.starts_with(|c: char| c.is_alphanumeric() || c == '_')) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(format!("expected `{token}` at `{}`", self.rest()))
        }
    }

    /// An identifier (letters, digits, `_`, `-` inside) or a backquoted name.
    fn name_opt(&mut self) -> Option<String> {
        let rest = self.rest();
        if let Some(quoted) = rest.strip_prefix('`') {
            let end = quoted.find('`').filter(|&e| e > 0)?;
            self.pos += end + 2;
            return Some(quoted[..end].to_string());
        }
        let first = rest.chars().next()?;
        if !(first.is_alphabetic() || first == '_') {
            return None;
        }
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        self.pos += end;
        Some(rest[..end].to_string())
    }

    /// The next run of non-white-space characters, as a token of a statement.
    fn word_token(&mut self) -> Option<String> {
        self.word()
    }

    /// A key of `set`: a name.
    fn key(&mut self) -> Result<String, String> {
        self.name_opt().ok_or_else(|| format!("expected a key at `{}`", self.rest()))
    }

    /// A JSON value.
    fn json(&mut self) -> Result<Value, String> {
        let rest = self.rest();
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match de.next() {
            Some(Ok(v)) => {
                self.pos += de.byte_offset();
                Ok(v)
            }
            Some(Err(e)) => Err(format!("expected a JSON value: {e}")),
            None => Err("expected a JSON value".into()),
        }
    }

    /// A string and the strings written right after it, joined (a long text over lines).
    fn text_opt(&mut self) -> Result<Option<String>, String> {
        let Some(mut text) = self.string_opt()? else { return Ok(None) };
        while let Some(more) = self.string_opt()? {
            text.push_str(&more);
        }
        Ok(Some(text))
    }

    fn name(&mut self) -> Result<String, String> {
        self.name_opt().ok_or_else(|| format!("expected a name at `{}`", self.rest()))
    }

    fn string_opt(&mut self) -> Result<Option<String>, String> {
        let rest = self.rest();
        if !rest.starts_with('"') {
            return Ok(None);
        }
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        match de.next() {
            Some(Ok(s)) => {
                self.pos += de.byte_offset();
                Ok(Some(s))
            }
            _ => Err(format!("a string must be a JSON string: `{rest}`")),
        }
    }

    fn int_opt(&mut self) -> Result<Option<i64>, String> {
        let rest = self.rest();
        let digits_from = usize::from(rest.starts_with('-'));
        let end = rest[digits_from..].find(|c: char| !c.is_ascii_digit()).map_or(rest.len(), |e| e + digits_from);
        if end == digits_from {
            return Ok(None);
        }
        if rest[end..].starts_with(|c: char| c.is_alphabetic() || c == '_') {
            return Ok(None);
        }
        let n = rest[..end].parse().map_err(|_| format!("integer out of range: `{}`", &rest[..end]))?;
        self.pos += end;
        Ok(Some(n))
    }
}

struct RuleParser<'p, 'a> {
    pkg: &'p Package,
    idx: &'p Index,
    /// The head's and each premise's path in the rule node and position in the statement.
    marks: Vec<(String, usize)>,
    c: Cursor<'a>,
}

impl RuleParser<'_, '_> {
    fn rule(&mut self) -> Result<Node, String> {
        self.c.word(); // `rule`
        let id = self.c.name()?;
        let strength = self.c.name()?;
        let (mut anchors, mut vars, mut bare_body) = (Vec::new(), None, false);
        let mut cl = Clauses::default();
        let ns = self.pkg.namespace.clone();
        loop {
            if clause(&mut self.c, &ns, &mut cl)? {
                continue;
            } else if self.c.eat_word("bare") {
                bare_body = true;
            } else if self.c.eat("@") {
                anchors.push(self.c.name()?);
            } else if self.c.eat("[") {
                let mut vs = Vec::new();
                while !self.c.eat("]") {
                    let v = self.c.name()?;
                    self.c.expect(":")?;
                    vs.push((v, self.c.name()?));
                    self.c.eat(",");
                }
                vars = Some(vs);
            } else {
                break;
            }
        }
        self.c.expect(":")?;
        let declared: Vec<String> = vars.iter().flatten().map(|(v, _)| v.clone()).collect();
        self.c.skip_ws();
        self.marks.push(("head".into(), self.c.pos));
        let head = self.lit(&declared)?;
        let mut body = Vec::new();
        if self.c.eat(":-") {
            loop {
                self.c.skip_ws();
                self.marks.push((format!("body.items[{}]", body.len()), self.c.pos));
                body.push(self.item(&declared)?);
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        if bare_body && body.len() == 1 {
            self.marks.last_mut().expect("one premise").0 = "body".into();
        }
        if !self.c.at_end() {
            return Err(format!("unexpected `{}` after the rule", self.c.rest()));
        }
        let vars = match vars {
            Some(vs) => vs,
            None => infer_vars_in(self.idx, &head, &body),
        };
        let label = cl.label();
        Ok(cl.node(Node::Rule(Rule { id, strength, vars, head, body, bare_body, label, anchors })))
    }

    fn items(&mut self, declared: &[String]) -> Result<Vec<Item>, String> {
        let mut items = vec![self.item(declared)?];
        while self.c.eat(",") {
            items.push(self.item(declared)?);
        }
        Ok(items)
    }

    fn item(&mut self, declared: &[String]) -> Result<Item, String> {
        if self.c.eat("(") {
            let items = self.items(declared)?;
            self.c.expect(")")?;
            return Ok(Item::And(items));
        }
        for (word, status) in [("established", "established"), ("supported", "supported")] {
            if self.c.eat_word(word) {
                return Ok(Item::Status(status.into(), self.lit(declared)?));
            }
        }
        if self.c.eat_word("status") {
            let status = self.c.name()?;
            return Ok(Item::Status(status, self.lit(declared)?));
        }
        if self.c.eat_word("not") {
            return Ok(Item::Not(self.lit(declared)?));
        }
        if self.c.eat_word("true") {
            return Ok(Item::Bool(true));
        }
        if self.c.eat_word("false") {
            return Ok(Item::Bool(false));
        }
        // A literal starts with `~`, or with a name followed by `(`, `,`, `)` or the end.
        let save = self.c.pos;
        if self.c.peek() == Some('~') {
            return Ok(Item::Lit(self.lit(declared)?));
        }
        if self.c.name_opt().is_some() {
            let next = self.c.peek();
            self.c.pos = save;
            if matches!(next, None | Some('(' | ',' | ')' | '.')) {
                return Ok(Item::Lit(self.lit(declared)?));
            }
        }
        let left = self.term(declared)?;
        let op = [("<=", "le"), (">=", "ge"), ("!=", "ne"), ("<", "lt"), (">", "gt"), ("=", "eq")]
            .into_iter()
            .find(|(tok, _)| self.c.eat(tok))
            .map(|(_, op)| op)
            .ok_or_else(|| format!("expected a comparison operator at `{}`", self.c.rest()))?;
        let right = self.term(declared)?;
        Ok(Item::Cmp(op.into(), left, right))
    }

    fn lit(&mut self, declared: &[String]) -> Result<Lit, String> {
        let negative = self.c.eat("~");
        let name = self.c.name()?;
        let mut args = Vec::new();
        if self.c.eat("(") && !self.c.eat(")") {
            loop {
                args.push(self.term(declared)?);
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        Ok(Lit { rel: self.relation_id(&name), negative, args })
    }

    fn term(&mut self, declared: &[String]) -> Result<Term, String> {
        let mut left = self.product(declared)?;
        loop {
            let op = if self.c.eat("+") {
                "add"
            } else if self.c.rest().starts_with("- ") || self.c.rest().starts_with("-(") {
                self.c.eat("-");
                "sub"
            } else {
                return Ok(left);
            };
            let right = self.product(declared)?;
            left = Term::Arith(op.into(), Box::new(left), Box::new(right));
        }
    }

    fn product(&mut self, declared: &[String]) -> Result<Term, String> {
        let mut left = self.primary(declared)?;
        while self.c.eat("*") {
            let right = self.primary(declared)?;
            left = Term::Arith("mul".into(), Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn primary(&mut self, declared: &[String]) -> Result<Term, String> {
        if self.c.eat("(") {
            let t = self.term(declared)?;
            self.c.expect(")")?;
            return Ok(t);
        }
        if let Some(i) = self.c.int_opt()? {
            return Ok(Term::Int(i));
        }
        if let Some(s) = self.c.string_opt()? {
            return Ok(Term::Str(s));
        }
        if self.c.eat("#") {
            return Ok(Term::Entity(self.c.name()?));
        }
        let name = self.c.name()?;
        if declared.contains(&name) {
            return Ok(Term::Var(name));
        }
        Ok(match self.constant_id(&name) {
            Some(id) => Term::Const(id),
            None => Term::Var(name),
        })
    }

    fn relation_id(&self, name: &str) -> String {
        self.idx.relations.get(name).cloned().unwrap_or_else(|| name.to_string())
    }

    fn constant_id(&self, name: &str) -> Option<String> {
        self.idx.constants.get(name).cloned()
    }
}

/// A rule's variables in order of first occurrence, typed by the first parameter each fills
/// (Integer when only in comparisons): what a rule without `[..]` declares.
pub fn infer_vars(pkg: &Package, head: &Lit, body: &[Item]) -> Vec<(String, String)> {
    infer_vars_in(&Index::new(pkg), head, body)
}

/// [`infer_vars`] with the relations looked up in `idx`.
pub(crate) fn infer_vars_in(idx: &Index, head: &Lit, body: &[Item]) -> Vec<(String, String)> {
    let mut order: Vec<String> = Vec::new();
    let mut typed: Vec<(String, String)> = Vec::new();
    let mut see_lit = |l: &Lit, order: &mut Vec<String>| {
        let params = idx.params.get(&l.rel);
        for (i, t) in l.args.iter().enumerate() {
            collect_vars(t, order);
            if let (Term::Var(v), Some(p)) = (t, params.and_then(|ps| ps.get(i))) {
                if !typed.iter().any(|(w, _)| w == v) {
                    typed.push((v.clone(), p.ty.clone()));
                }
            }
        }
    };
    see_lit(head, &mut order);
    fn walk(items: &[Item], order: &mut Vec<String>, see: &mut dyn FnMut(&Lit, &mut Vec<String>)) {
        for item in items {
            match item {
                Item::Lit(l) | Item::Status(_, l) | Item::Not(l) => see(l, order),
                Item::Cmp(_, a, b) => {
                    collect_vars(a, order);
                    collect_vars(b, order);
                }
                Item::And(inner) => walk(inner, order, see),
                Item::Bool(_) => {}
            }
        }
    }
    walk(body, &mut order, &mut see_lit);
    order
        .into_iter()
        .map(|v| {
            let ty = typed.iter().find(|(w, _)| *w == v).map_or_else(|| "Integer".to_string(), |(_, t)| t.clone());
            (v, ty)
        })
        .collect()
}

fn collect_vars(t: &Term, order: &mut Vec<String>) {
    match t {
        Term::Var(v) if !order.contains(v) => order.push(v.clone()),
        Term::Arith(_, a, b) => {
            collect_vars(a, order);
            collect_vars(b, order);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_with_every_statement() {
        let pkg = parse(
            r#"
package test.kit 0.2.0
features negation-as-failure
type Game "a game"
type Player
const Playing: Game
empirical moves(game: Game, n: Integer)
empirical player_of(Game, Player) id po
judgment touched(who: Player) by judgment:Arbiter
institutional p(game: Game)
fragment ART_1 article/1 "1.1 Text"
rule R defeasible "label" @ART_1: p(g) :- moves(g, n), n >= 75, supported player_of(g, w), not ~p(Playing)
rule S defeater: ~p(g) :- moves(g, n),
    n + 1 * 2 < 3   // continues
priority RS: R > S
closure C: p over p
"#,
        )
        .unwrap();
        assert_eq!(pkg.namespace, "urn:test:kit");
        assert_eq!(pkg.feature_list(), ["core-executable", "negation-as-failure"]);
        let Node::Rule(r) = &pkg.nodes[pkg.position("R").unwrap()] else { panic!() };
        assert_eq!(
            r.vars,
            [("g".into(), "Game".into()), ("n".into(), "Integer".into()), ("w".into(), "Player".into())]
        );
        assert!(matches!(&r.body[3], Item::Not(l) if l.negative && l.args == [Term::Const("Playing".into())]));
        assert!(matches!(&r.body[2], Item::Status(s, l) if s == "supported" && l.rel == "po"));
        let doc = pkg.document();
        assert_eq!(doc["nodes"][6]["kind"], "external_decl");
        assert_eq!(doc["nodes"][4]["parameters"][1]["id"], "urn:test:kit#po/arg/1");
        assert_eq!(doc["nodes"][4]["parameters"][1]["name"], "a1");
    }

    #[test]
    fn a_publication_names_its_source_text_and_its_hash() {
        let dir = std::env::temp_dir().join(format!("clir-testkit-publication-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("texts")).unwrap();
        std::fs::write(dir.join("texts/en.txt"), "Article 1. Text.\n").unwrap();
        let notation = r#"package test.sources 0.1.0
            type Item
            empirical held(item: Item)
            institutional kept(item: Item)
            fragment ART_1 article/1 "Article 1. Text."
            publication RULES_EN texts/en.txt "the rules, English"
            rule Keep strict @ART_1: kept(i) :- held(i)"#;
        let mut pkg = parse(notation).unwrap();
        let doc = pkg.document();
        assert_eq!(doc["metadata"]["localSources"]["urn:test:sources#RULES_EN"], "texts/en.txt");
        assert_eq!(doc["nodes"][4]["kind"], "publication");
        assert!(doc["nodes"][4].get("documentHash").is_none());
        let opts = clir_codegen::verify::VerifyOptions { root: Some(dir.clone()), ..Default::default() };
        let unhashed = clir_codegen::verify::verify_bytes(&pkg.bytes(), &opts);
        assert_eq!(unhashed.check("documentHash").unwrap().outcome, clir_codegen::verify::Outcome::Warn);

        pkg.hash_sources(&dir).unwrap();
        let hash = clir_codegen::canonical::sha256_hex(b"Article 1. Text.\n");
        assert_eq!(pkg.document()["nodes"][4]["documentHash"], hash.as_str());
        let report = clir_codegen::verify::verify_bytes(&pkg.bytes(), &opts);
        use clir_codegen::verify::Outcome;
        assert!(report.checks.iter().all(|c| matches!(c.outcome, Outcome::Pass | Outcome::Skipped)), "{report:?}");
        // The hash written in the notation is the same document; a wrong one fails verification.
        let written = parse(&notation.replace(r#"English""#, &format!(r#"English" hash {hash}"#))).unwrap();
        assert_eq!(written.bytes(), pkg.bytes());
        let wrong = parse(&notation.replace(r#"English""#, r#"English" hash sha256:00"#)).unwrap();
        let report = clir_codegen::verify::verify_bytes(&wrong.bytes(), &opts);
        assert_eq!(report.failed_checks(), ["documentHash"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("package a 1\ntype Game\nrule R strict: p(x) :- q(x) junk").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("junk"), "{e}");
        assert_eq!(parse("type Game").unwrap_err().message, "the first statement must be `package NAME VERSION`");
    }
}
