//! A strict PGN reader: splits a stream into games and reads each game's tags and main line.
//!
//! Strict on purpose: a token that is neither a move, a move number, a NAG, a comment, a
//! variation nor a result makes the game unreadable (an arbiter must not skip part of a record
//! silently). Variations and comments are skipped; `%` escape lines are ignored.

use shakmaty::san::{San, SanPlus};
use std::io::{self, BufRead};

/// One game's text, as cut from the input.
#[derive(Debug, Clone)]
pub struct RawGame {
    /// Index in the whole input (all files), from 1.
    pub index: usize,
    /// File the game was read from.
    pub file: String,
    /// Line of the file where the game starts, from 1.
    pub line: usize,
    /// The game's text (tags and movetext).
    pub text: String,
}

/// Cuts a PGN stream into games: a game ends where a tag line (`[`) follows movetext outside a
/// comment, or where a second `[Event` tag starts before any movetext.
pub struct Splitter<R> {
    reader: R,
    file: String,
    line_no: usize,
    next_index: usize,
    cur: Option<Current>,
    buf: Vec<u8>,
    done: bool,
}

struct Current {
    line: usize,
    text: Vec<u8>,
    seen_movetext: bool,
    in_brace: bool,
    has_event: bool,
}

impl<R: BufRead> Splitter<R> {
    /// Splits `reader` (named `file` in messages); game indices start at `first_index`.
    pub fn new(reader: R, file: impl Into<String>, first_index: usize) -> Self {
        Splitter {
            reader,
            file: file.into(),
            line_no: 0,
            next_index: first_index,
            cur: None,
            buf: Vec::new(),
            done: false,
        }
    }

    /// The index the next game will get.
    pub fn next_index(&self) -> usize {
        self.next_index
    }

    fn finish(&mut self, cur: Current) -> RawGame {
        let index = self.next_index;
        self.next_index += 1;
        let text = String::from_utf8(cur.text).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        RawGame { index, file: self.file.clone(), line: cur.line, text }
    }

    /// The next game, if any.
    pub fn next_game(&mut self) -> io::Result<Option<RawGame>> {
        loop {
            if self.done {
                return Ok(None);
            }
            self.buf.clear();
            let n = self.reader.read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                self.done = true;
                return Ok(self.cur.take().map(|c| self.finish(c)));
            }
            self.line_no += 1;
            let line = std::mem::take(&mut self.buf);
            let trimmed = trim_start(&line);
            let blank = trimmed.iter().all(|b| b.is_ascii_whitespace());
            let mut out = None;
            if let Some(cur) = &self.cur {
                let new_game = !cur.in_brace
                    && trimmed.first() == Some(&b'[')
                    && (cur.seen_movetext || (cur.has_event && trimmed.starts_with(b"[Event ")));
                if new_game {
                    let cur = self.cur.take().expect("current game");
                    out = Some(self.finish(cur));
                }
            }
            if self.cur.is_none() {
                if blank {
                    self.buf = line;
                    if out.is_some() {
                        return Ok(out);
                    }
                    continue;
                }
                self.cur = Some(Current {
                    line: self.line_no,
                    text: Vec::new(),
                    seen_movetext: false,
                    in_brace: false,
                    has_event: false,
                });
            }
            let cur = self.cur.as_mut().expect("current game");
            cur.text.extend_from_slice(&line);
            let is_tag = !cur.seen_movetext && !cur.in_brace && trimmed.first() == Some(&b'[');
            if is_tag {
                if trimmed.starts_with(b"[Event ") {
                    cur.has_event = true;
                }
            } else if !blank && trimmed.first() != Some(&b'%') {
                cur.seen_movetext = true;
                let mut in_brace = cur.in_brace;
                for &b in trimmed {
                    match (in_brace, b) {
                        (true, b'}') => in_brace = false,
                        (false, b'{') => in_brace = true,
                        (false, b';') => break,
                        _ => {}
                    }
                }
                cur.in_brace = in_brace;
            }
            self.buf = line;
            if out.is_some() {
                return Ok(out);
            }
        }
    }
}

fn trim_start(s: &[u8]) -> &[u8] {
    let i = s.iter().position(|b| *b != b' ' && *b != b'\t').unwrap_or(s.len());
    &s[i..]
}

/// A move of the main line as written.
#[derive(Debug, Clone)]
pub struct MoveToken {
    /// The move as read.
    pub san: SanPlus,
    /// The text as written (annotations stripped).
    pub text: String,
}

/// A game's tags and main line.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// Tags in order of appearance.
    pub tags: Vec<(String, String)>,
    /// Main-line moves.
    pub moves: Vec<MoveToken>,
    /// The game termination marker at the end of the movetext, if written.
    pub result_token: Option<String>,
}

impl Record {
    /// The value of tag `name`, if present (the first one).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Why a game cannot be read: the message and the line of the game text (from 1).
#[derive(Debug, Clone)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Line within the game's text, from 1.
    pub line: usize,
}

/// Reads a game's tags and main line. On error, returns the tags read so far with the error.
pub fn parse(text: &str) -> Result<Record, (Record, ParseError)> {
    let mut rec = Record::default();
    let b = text.as_bytes();
    let mut p = Parser { b, i: 0 };
    // Tag pairs.
    loop {
        p.skip_ws();
        match p.peek() {
            Some(b'[') => match p.tag() {
                Ok(t) => rec.tags.push(t),
                Err(e) => {
                    let msg = p.at(&e);
                    return Err((rec, msg));
                }
            },
            Some(b'%') if p.at_line_start() => p.skip_line(),
            Some(b';') => p.skip_line(),
            _ => break,
        }
    }
    if let Err(e) = movetext(&mut p, &mut rec) {
        let msg = p.at(&e);
        return Err((rec, msg));
    }
    Ok(rec)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn at_line_start(&self) -> bool {
        self.i == 0 || self.b[self.i - 1] == b'\n'
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == b'\n' {
                break;
            }
        }
    }
    /// `msg` located at the current line of the game text.
    fn at(&self, msg: &str) -> ParseError {
        let line = 1 + self.b[..self.i.min(self.b.len())].iter().filter(|c| **c == b'\n').count();
        ParseError { message: msg.to_string(), line }
    }
    fn tag(&mut self) -> Result<(String, String), String> {
        self.i += 1; // '['
        self.skip_ws();
        let start = self.i;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
            self.i += 1;
        }
        if self.i == start {
            return Err("malformed tag: no tag name after `[`".into());
        }
        let name = String::from_utf8_lossy(&self.b[start..self.i]).into_owned();
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(format!("malformed tag `{name}`: expected a quoted value"));
        }
        self.i += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => return Err(format!("malformed tag `{name}`: unterminated value")),
                Some(b'\\') if matches!(self.b.get(self.i + 1), Some(b'"') | Some(b'\\')) => {
                    value.push(self.b[self.i + 1]);
                    self.i += 2;
                }
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(c) => {
                    value.push(c);
                    self.i += 1;
                }
            }
        }
        self.skip_ws();
        if self.peek() != Some(b']') {
            return Err(format!("malformed tag `{name}`: expected `]`"));
        }
        self.i += 1;
        Ok((name, String::from_utf8_lossy(&value).into_owned()))
    }
    fn skip_comment(&mut self) -> Result<(), String> {
        match self.b[self.i..].iter().position(|c| *c == b'}') {
            Some(k) => {
                self.i += k + 1;
                Ok(())
            }
            None => Err("unterminated comment `{`".into()),
        }
    }
    fn skip_variation(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' => {
                    depth += 1;
                    self.i += 1;
                }
                b')' => {
                    depth -= 1;
                    self.i += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                b'{' => self.skip_comment()?,
                b';' => self.skip_line(),
                _ => self.i += 1,
            }
        }
        Err("unterminated variation `(`".into())
    }
    fn token(&mut self) -> &[u8] {
        let start = self.i;
        while matches!(self.peek(), Some(c) if !c.is_ascii_whitespace() && !b"{}();$".contains(&c)) {
            self.i += 1;
        }
        &self.b[start..self.i]
    }
}

const RESULTS: [&str; 5] = ["1-0", "0-1", "1/2-1/2", "*", "½-½"];

fn movetext(p: &mut Parser, rec: &mut Record) -> Result<(), String> {
    loop {
        p.skip_ws();
        let Some(c) = p.peek() else { return Ok(()) };
        match c {
            b'{' => p.skip_comment()?,
            b';' => p.skip_line(),
            b'%' if p.at_line_start() => p.skip_line(),
            b'(' => p.skip_variation()?,
            b')' => return Err("unmatched `)`".into()),
            b'}' => return Err("unmatched `}`".into()),
            b'$' => {
                p.i += 1;
                let t = p.token();
                if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
                    return Err(format!("malformed NAG `${}`", String::from_utf8_lossy(t)));
                }
            }
            b'[' => return Err("tag pair after the movetext".into()),
            _ => {
                let tok: &str = &String::from_utf8_lossy(p.token());
                if tok.is_empty() {
                    // A lone delimiter such as `}` is handled above; anything else is unreadable.
                    return Err(format!("unexpected character `{}`", c as char));
                }
                if RESULTS.contains(&tok) {
                    if rec.result_token.is_some() {
                        return Err(format!("a second game result `{tok}`"));
                    }
                    rec.result_token = Some(if tok == "½-½" { "1/2-1/2".into() } else { tok.to_string() });
                    continue;
                }
                if rec.result_token.is_some() {
                    return Err(format!("`{tok}` after the game result"));
                }
                // Move numbers: `12.`, `12...`, or glued to the move (`12.e4`, `12...e5`).
                let digits = tok.bytes().take_while(u8::is_ascii_digit).count();
                let rest = if digits > 0 {
                    let after = &tok[digits..];
                    let dots = after.bytes().take_while(|c| *c == b'.').count();
                    if dots == 0 && !after.is_empty() && !after.starts_with('-') {
                        return Err(format!("unreadable token `{tok}`"));
                    }
                    if after.starts_with('-') {
                        // `0-0` / `0-0-0` castling with zeros.
                        tok
                    } else {
                        &after[dots..]
                    }
                } else {
                    tok
                };
                if rest.is_empty() {
                    continue;
                }
                // Annotation glyphs glued to the move (`e4!?`).
                let text = rest.trim_end_matches(['!', '?']);
                let normalized: std::borrow::Cow<str> = match text {
                    "0-0" | "0-0+" | "0-0#" | "0-0-0" | "0-0-0+" | "0-0-0#" => text.replace('0', "O").into(),
                    _ => text.into(),
                };
                match SanPlus::from_ascii(normalized.as_bytes()) {
                    Ok(san) => {
                        if matches!(san.san, San::Null) {
                            return Err(format!("null move `{text}`: not a move under the Laws"));
                        }
                        rec.moves.push(MoveToken { san, text: text.to_string() })
                    }
                    Err(_) => return Err(format!("unreadable move `{tok}`")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(s: &str) -> Vec<RawGame> {
        let mut sp = Splitter::new(io::Cursor::new(s.as_bytes().to_vec()), "t", 1);
        let mut v = Vec::new();
        while let Some(g) = sp.next_game().unwrap() {
            v.push(g);
        }
        v
    }

    #[test]
    fn splits_games_and_keeps_comments_together() {
        let s = "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 {a comment\n[not a tag]} e5 *\n\n[Event \"b\"]\n\n1. d4 *\n[Event \"c\"]\n[Event \"d\"]\n1. c4 *\n";
        let g = games(s);
        assert_eq!(g.len(), 4, "{g:#?}");
        assert_eq!(g[0].line, 1);
        assert_eq!(g[1].line, 7);
        assert_eq!(g[3].index, 4);
        let r = parse(&g[0].text).unwrap();
        assert_eq!(r.moves.len(), 2);
        assert_eq!(r.result_token.as_deref(), Some("*"));
    }

    #[test]
    fn reads_movetext_forms() {
        let r = parse("[A \"x \\\"q\\\"\"]\n1.e4 e5 2. Nf3 $1 (2. f4 exf4 {c}) 2... Nc6!? 3. Bb5 a6 4. 0-0 ; rest\n5... Nf6 1/2-1/2").unwrap();
        assert_eq!(r.tag("A"), Some("x \"q\""));
        let t: Vec<_> = r.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(t, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "0-0", "Nf6"]);
        assert_eq!(r.result_token.as_deref(), Some("1/2-1/2"));
    }

    #[test]
    fn rejects_unreadable_text() {
        for bad in ["1. e4 Zz9 *", "1. e4 {open", "1. e4 e5 1-0 Nf3", "1. e4 (e5", "1. --", "[Event \"x]\n1. e4"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
