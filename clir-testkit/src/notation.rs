//! The notation: one statement a line, each starting with its keyword (a line that starts with
//! any other word continues the statement before); `//` to the end of a line is a comment.
//!
//! ```text
//! package test.rejected 0.1.0          // name and version (first statement)
//! namespace urn:test:rejected          // optional; default urn: + the name's parts
//! features negation-as-failure         // besides core-executable
//! type Game "a game of chess"          // a label in quotes, on any declaration
//! const Playing: Game
//! empirical player_of(game: Game, who: Player)
//! institutional p0_edge(Integer, Integer) id p0   // unnamed parameters a0.., node id p0
//! judgment touched(who: Player) by judgment:Arbiter authority Arbiter
//! fragment ART_9 article/9 "9.6 The game is drawn ..."
//! publication LAWS_EN sources/laws/en.txt "the laws, English" hash sha256:..  // hash optional
//! rule Draw defeasible "Article 9.6.2" @ART_9 [g: Game, n: Integer]:
//!     game_drawn(g) :- moves(g, n), n >= 75, supported started(g), not ~p(g)
//! priority MateFirst: Mate > Draw "checkmate takes precedence"
//! closure Attacked: attacked over checked asof "2024-01-01T00:00:00Z" snapshot urn:x:1
//! node {"id": "urn:test:rejected#x", "kind": "weird"}  // a raw node, kept as written
//! ```
//!
//! Rules: `rule ID STRENGTH ["label"] [@FRAGMENT..] [[var: Type, ..]] : HEAD [:- BODY]`. The head
//! is a literal `p(t, ..)` or `~p(t, ..)` (`p` alone for no arguments). Body items, separated by
//! commas: a literal (bare), `established L`, `supported L`, `status WORD L` (any status word),
//! `not L`, a comparison `t OP t` (`=`, `!=`, `<`, `<=`, `>`, `>=`), `true`, `false`, and
//! `( items )` for a nested `and`. Terms: a declared constant's name (a `const_ref`), an
//! integer, a string `"..."`, a variable (any other name), and `t + t`, `t - t`, `t * t`. A name
//! that is not a plain identifier is written in backquotes: `` `a-b` ``. Without `[..]`, a
//! variable's type is that of the first parameter it fills (head first), or Integer when it
//! only occurs in comparisons. Types and relations may be used before they are declared; an
//! undeclared name still becomes an id of the package (for packages that must be rejected).
//!
//! A `publication` names a source text kept with the package: its path (relative to the
//! project root) becomes the `metadata.localSources` entry of the publication, and `hash` its
//! `documentHash`; without `hash`, [`Package::hash_sources`] computes it from the file.

use crate::{Item, Lit, Node, Package, Param, RelKind, Rule, Term};
use std::fmt;

/// A notation error: the line (1-based) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line the statement starts on.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a package written in the notation.
pub fn parse(text: &str) -> Result<Package, ParseError> {
    let statements = statements(text);
    let mut pkg: Option<Package> = None;
    // Rules are resolved once every declaration is known.
    let mut rules: Vec<(usize, usize, String)> = Vec::new();
    for (line, stmt) in statements {
        let err = |message: String| ParseError { line, message };
        let mut c = Cursor::new(&stmt);
        let keyword = c.word().ok_or_else(|| err("empty statement".into()))?;
        if keyword == "package" {
            let name = c.word().ok_or_else(|| err("`package NAME VERSION`".into()))?;
            let version = c.word().ok_or_else(|| err("`package NAME VERSION`".into()))?;
            if pkg.is_some() {
                return Err(err("a second `package` statement".into()));
            }
            pkg = Some(Package::new(&name, &version));
            continue;
        }
        let pkg = pkg.as_mut().ok_or_else(|| err("the first statement must be `package NAME VERSION`".into()))?;
        match keyword.as_str() {
            "namespace" => pkg.namespace = c.word().ok_or_else(|| err("`namespace URN`".into()))?,
            "features" => {
                while let Some(f) = c.word() {
                    pkg.features.push(f);
                }
            }
            "type" => {
                let name = c.name().map_err(err)?;
                let label = c.string_opt().map_err(err)?;
                pkg.nodes.push(Node::Type { id: name.clone(), name, label });
            }
            "const" => {
                let name = c.name().map_err(err)?;
                c.expect(":").map_err(err)?;
                let of = c.name().map_err(err)?;
                let label = c.string_opt().map_err(err)?;
                pkg.nodes.push(Node::Constant { id: name.clone(), name, of, label });
            }
            "empirical" | "judgment" | "institutional" => {
                let kind = match keyword.as_str() {
                    "empirical" => RelKind::Empirical,
                    "judgment" => RelKind::Judgment,
                    _ => RelKind::Institutional,
                };
                let name = c.name().map_err(err)?;
                let mut params = Vec::new();
                if c.eat("(") && !c.eat(")") {
                    loop {
                        let first = c.name().map_err(err)?;
                        let param = if c.eat(":") {
                            Param { id: first.clone(), name: first, ty: c.name().map_err(err)? }
                        } else {
                            let i = params.len();
                            Param { id: i.to_string(), name: format!("a{i}"), ty: first }
                        };
                        params.push(param);
                        if c.eat(")") {
                            break;
                        }
                        c.expect(",").map_err(err)?;
                    }
                }
                let mut id = name.clone();
                let mut label = None;
                let mut external = None;
                let mut authority = None;
                loop {
                    if let Some(l) = c.string_opt().map_err(err)? {
                        label = Some(l);
                    } else if c.eat_word("id") {
                        id = c.name().map_err(err)?;
                    } else if c.eat_word("by") {
                        external = Some(c.word().ok_or_else(|| err("`by CAPABILITY`".into()))?);
                    } else if c.eat_word("authority") {
                        authority = Some(c.name().map_err(err)?);
                    } else if c.at_end() {
                        break;
                    } else {
                        return Err(err(format!("unexpected `{}` in a relation declaration", c.rest())));
                    }
                }
                pkg.nodes.push(Node::Relation { id: id.clone(), name, kind, params, label });
                if let Some(capability) = external {
                    pkg.nodes.push(Node::External {
                        id: format!("{id}/external"),
                        relation: id,
                        capability,
                        authority,
                    });
                }
            }
            "fragment" => {
                let id = c.name().map_err(err)?;
                let locator = c.word().ok_or_else(|| err("`fragment ID LOCATOR \"text\"`".into()))?;
                let text = c.string_opt().map_err(err)?.ok_or_else(|| err("the fragment's text, in quotes".into()))?;
                pkg.nodes.push(Node::Fragment { id, locator, text });
            }
            "publication" => {
                let id = c.name().map_err(err)?;
                let path = c.word().ok_or_else(|| err("`publication ID PATH`".into()))?;
                let (mut label, mut document_hash) = (None, None);
                loop {
                    if let Some(l) = c.string_opt().map_err(err)? {
                        label = Some(l);
                    } else if c.eat_word("hash") {
                        document_hash = Some(c.word().ok_or_else(|| err("`hash sha256:HEX`".into()))?);
                    } else if c.at_end() {
                        break;
                    } else {
                        return Err(err(format!("unexpected `{}` in a publication", c.rest())));
                    }
                }
                pkg.nodes.push(Node::Publication { id, path, label, document_hash });
            }
            "rule" => {
                // A placeholder, filled in below once every constant and relation is declared.
                rules.push((line, pkg.nodes.len(), stmt.clone()));
                pkg.nodes.push(Node::Raw(serde_json::Value::Null));
            }
            "priority" => {
                let id = c.name().map_err(err)?;
                c.expect(":").map_err(err)?;
                let higher = c.name().map_err(err)?;
                c.expect(">").map_err(err)?;
                let lower = c.name().map_err(err)?;
                let mut label = None;
                let mut reason = None;
                loop {
                    if let Some(l) = c.string_opt().map_err(err)? {
                        label = Some(l);
                    } else if c.eat_word("reason") {
                        reason = Some(c.name().map_err(err)?);
                    } else if c.at_end() {
                        break;
                    } else {
                        return Err(err(format!("unexpected `{}` in a priority", c.rest())));
                    }
                }
                pkg.nodes.push(Node::Priority { id, higher, lower, label, reason });
            }
            "closure" => {
                let id = c.name().map_err(err)?;
                c.expect(":").map_err(err)?;
                let predicate = c.name().map_err(err)?;
                if !c.eat_word("over") {
                    return Err(err("`closure ID: PREDICATE over DOMAIN`".into()));
                }
                let domain = c.name().map_err(err)?;
                let (mut label, mut complete_as_of, mut snapshot) = (None, None, None);
                loop {
                    if let Some(l) = c.string_opt().map_err(err)? {
                        label = Some(l);
                    } else if c.eat_word("asof") {
                        complete_as_of = c.string_opt().map_err(err)?;
                    } else if c.eat_word("snapshot") {
                        snapshot = c.word();
                    } else if c.at_end() {
                        break;
                    } else {
                        return Err(err(format!("unexpected `{}` in a closure", c.rest())));
                    }
                }
                pkg.nodes.push(Node::Closure { id, predicate, domain, label, complete_as_of, snapshot });
            }
            "node" => {
                let value: serde_json::Value =
                    serde_json::from_str(c.rest()).map_err(|e| err(format!("a raw node must be JSON: {e}")))?;
                pkg.nodes.push(Node::Raw(value));
            }
            other => return Err(err(format!("unknown statement `{other}`"))),
        }
    }
    let mut pkg = pkg.ok_or(ParseError { line: 1, message: "no `package NAME VERSION` statement".into() })?;
    for (line, at, stmt) in rules {
        let rule =
            RuleParser { pkg: &pkg, c: Cursor::new(&stmt) }.rule().map_err(|message| ParseError { line, message })?;
        pkg.nodes[at] = Node::Rule(rule);
    }
    Ok(pkg)
}

/// The statements of `text` with the line each starts on: comments removed, continuation lines
/// (starting with white space) joined to the statement before.
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or("");
        let continues = !KEYWORDS.contains(&first) && !out.is_empty();
        match out.last_mut() {
            Some((_, stmt)) if continues => {
                stmt.push(' ');
                stmt.push_str(line.trim());
            }
            _ => out.push((i + 1, line.trim().to_string())),
        }
    }
    out
}

/// The words that start a statement; a line that starts with any other word continues the one
/// before.
const KEYWORDS: [&str; 14] = [
    "package",
    "namespace",
    "features",
    "type",
    "const",
    "empirical",
    "judgment",
    "institutional",
    "fragment",
    "publication",
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

    fn skip_ws(&mut self) {
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
            let end = quoted.find('`')?;
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
        let n = rest[..end].parse().map_err(|_| format!("integer out of range: `{}`", &rest[..end]))?;
        self.pos += end;
        Ok(Some(n))
    }
}

struct RuleParser<'p, 'a> {
    pkg: &'p Package,
    c: Cursor<'a>,
}

impl RuleParser<'_, '_> {
    fn rule(mut self) -> Result<Rule, String> {
        self.c.word(); // `rule`
        let id = self.c.name()?;
        let strength = self.c.name()?;
        let (mut label, mut anchors, mut vars) = (None, Vec::new(), None);
        loop {
            if let Some(l) = self.c.string_opt()? {
                label = Some(l);
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
        let head = self.lit(&declared)?;
        let body = if self.c.eat(":-") { self.items(&declared)? } else { Vec::new() };
        if !self.c.at_end() {
            return Err(format!("unexpected `{}` after the rule", self.c.rest()));
        }
        let vars = match vars {
            Some(vs) => vs,
            None => self.infer_vars(&head, &body),
        };
        Ok(Rule { id, strength, vars, head, body, bare_body: false, label, anchors })
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
        self.pkg
            .nodes
            .iter()
            .find_map(|n| match n {
                Node::Relation { id, name: n, .. } if n == name => Some(id.clone()),
                _ => None,
            })
            .unwrap_or_else(|| name.to_string())
    }

    fn constant_id(&self, name: &str) -> Option<String> {
        self.pkg.nodes.iter().find_map(|n| match n {
            Node::Constant { id, name: n, .. } if n == name => Some(id.clone()),
            _ => None,
        })
    }

    fn params(&self, rel: &str) -> Option<&[Param]> {
        self.pkg.nodes.iter().find_map(|n| match n {
            Node::Relation { id, params, .. } if id == rel => Some(params.as_slice()),
            _ => None,
        })
    }

    /// Variables in order of first occurrence, typed by the first parameter each fills.
    fn infer_vars(&self, head: &Lit, body: &[Item]) -> Vec<(String, String)> {
        let mut order: Vec<String> = Vec::new();
        let mut typed: Vec<(String, String)> = Vec::new();
        let mut see_lit = |l: &Lit, order: &mut Vec<String>| {
            let params = self.params(&l.rel);
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
