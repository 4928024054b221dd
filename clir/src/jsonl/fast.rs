//! The fast path of reading a case line: a scanner for the shape nearly every valid line has
//! (`{"case":"g1","facts":{"rel":[["a",1],..],..}}`, with any JSON white space, strings
//! without escapes, Integers) that validates each fact and interns its names as it reads, straight
//! into the batch.
//!
//! Anything else (an escape, a number that is not a plain Integer, a `case` that is not a
//! plain string, a duplicate or unknown key, a fact the package refuses, a syntax error) makes
//! it give up: it takes back what it added, and the line goes to the full reader
//! ([`super::read::read_line`] and [`super::read::add_case`]), which decides its ruling or its
//! error message. The two paths therefore rule every line alike; this one only has to be right
//! about the lines it accepts.

use super::read::{Catalog, Options, MAX_FACTS_PER_CASE};
use crate::batch::{slot, Batch};
use crate::schema::RelationKind;

/// Scratch space of the fast path, kept from line to line of a chunk.
#[derive(Default)]
pub(super) struct Scratch<'a> {
    /// Per slot: the last line (counted from 1 in this chunk) that gave a key for it, so a
    /// duplicate key is seen without clearing anything from line to line.
    seen: Vec<u32>,
    /// Lines read so far.
    line: u32,
    /// Slots this case added rows to, with their length before it (to take them back).
    touched: Vec<(usize, usize)>,
    /// The first names of the current case, most of them repeated from fact to fact.
    local: Vec<(&'a str, i64)>,
    /// Per slot + 1 (0 for the start of `facts`): the slot whose key came next after it in the
    /// last line that had it (`u32::MAX`: none yet). Lines of one source mostly give their
    /// keys in one order.
    follows: Vec<u32>,
}

/// How many of a case's names [`Scratch::local`] holds.
const LOCAL_NAMES: usize = 16;

/// A case line read by the fast path: its `case` name (a string without escapes) and its id.
pub(super) struct Added<'a> {
    pub case: &'a str,
    pub id: u32,
}

/// Reads `line` into `batch` when it has the common shape and every fact is accepted; `None`
/// (and the batch as it was) otherwise.
pub(super) fn add_line<'a>(
    cat: &Catalog,
    batch: &mut Batch,
    line: &'a str,
    opts: &Options,
    scratch: &mut Scratch<'a>,
) -> Option<Added<'a>> {
    if scratch.seen.len() != batch.facts.len() {
        scratch.seen = vec![0; batch.facts.len()];
    }
    if scratch.follows.len() != batch.facts.len() + 1 {
        scratch.follows = vec![u32::MAX; batch.facts.len() + 1];
    }
    scratch.touched.clear();
    scratch.local.clear();
    scratch.line += 1;
    let case = batch.add_case();
    let mut scan = Scan { s: line.as_bytes(), at: 0, line, cat, opts, batch, scratch, case: case.0, facts: 0 };
    match scan.line() {
        Some(name) => Some(Added { case: name, id: case.0 }),
        None => {
            for &(s, len) in scan.scratch.touched.iter() {
                scan.batch.facts[s].truncate(len);
            }
            scan.batch.cases -= 1;
            None
        }
    }
}

/// The bytes that end a string without escapes: `"`, and `\\` or a control character (which
/// the fast path gives up on).
static ENDS_PLAIN_STRING: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The first byte at or after `i` that ends a plain string (a quote, a backslash or a control
/// character), eight bytes at a time while eight are left; `None` at the end of `s`.
fn plain_end(s: &[u8], mut i: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let (quote, slash) = (w ^ (ONES * b'"' as u64), w ^ (ONES * b'\\' as u64));
        // Each term flags the bytes of `w` that are zero (that is, equal) or below 0x20; a
        // borrow can only flag a byte above one already flagged, so the lowest flag is exact.
        let found =
            (quote.wrapping_sub(ONES) & !quote | slash.wrapping_sub(ONES) & !slash | w.wrapping_sub(ONES * 0x20) & !w)
                & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while !ENDS_PLAIN_STRING[*s.get(i)? as usize] {
        i += 1;
    }
    Some(i)
}

/// Whether `a` and `b` are the same name. Names are mostly short, and for up to 16 bytes two
/// overlapping words each side cost less than a call of `memcmp`.
#[inline]
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn word<const W: usize>(s: &[u8], at: usize) -> [u8; W] {
        s[at..at + W].try_into().unwrap_or([0; W])
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

struct Scan<'s, 'a> {
    s: &'a [u8],
    at: usize,
    line: &'a str,
    cat: &'s Catalog,
    opts: &'s Options,
    batch: &'s mut Batch,
    scratch: &'s mut Scratch<'a>,
    case: u32,
    facts: usize,
}

impl<'a> Scan<'_, 'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.at) {
            self.at += 1;
        }
    }

    /// Skips white space, then takes byte `b` (never white space itself: the byte is looked at
    /// first, as lines mostly have none).
    fn eat(&mut self, b: u8) -> Option<()> {
        if self.s.get(self.at) != Some(&b) {
            self.ws();
            if self.s.get(self.at) != Some(&b) {
                return None;
            }
        }
        self.at += 1;
        Some(())
    }

    /// After white space: `,` (true) or the closing `end` (false).
    fn next(&mut self, end: u8) -> Option<bool> {
        self.ws();
        match self.s.get(self.at) {
            Some(b',') => {
                self.at += 1;
                Some(true)
            }
            Some(&b) if b == end => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A string without escapes or control characters (the line is UTF-8 already).
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let end = plain_end(self.s, start)?;
        if self.s[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        // Both ends are ASCII quotes, so the slice is on character boundaries.
        self.line.get(start..end)
    }

    /// An Integer: `-`? digits, no leading zero, no fraction or exponent, within i64, not `-0`.
    fn integer(&mut self) -> Option<i64> {
        self.ws();
        let negative = self.s.get(self.at) == Some(&b'-');
        let start = self.at + negative as usize;
        let digits = self.s[start..].iter().take_while(|b| b.is_ascii_digit()).count();
        let end = start + digits;
        if digits == 0 || (digits > 1 && self.s[start] == b'0') || matches!(self.s.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        if negative && digits == 1 && self.s[start] == b'0' {
            return None;
        }
        let v = self.line.get(self.at..end)?.parse::<i64>().ok()?;
        self.at = end;
        Some(v)
    }

    /// The whole line; the case's name.
    fn line(&mut self) -> Option<&'a str> {
        self.eat(b'{')?;
        let (mut case, mut facts) = (None, false);
        loop {
            match self.string()? {
                "case" if case.is_none() => {
                    self.eat(b':')?;
                    case = Some(self.string()?);
                }
                "facts" if !facts => {
                    self.eat(b':')?;
                    self.facts()?;
                    facts = true;
                }
                _ => return None,
            }
            if !self.next(b'}')? {
                break;
            }
        }
        self.ws();
        if self.at != self.s.len() || !facts || self.facts > MAX_FACTS_PER_CASE {
            return None;
        }
        case
    }

    /// The `facts` object.
    fn facts(&mut self) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.s.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Some(());
        }
        let mut previous = 0;
        loop {
            let s = match self.predicted_key(previous) {
                Some(s) => s,
                None => {
                    let (rel, negative) = self.cat.input_key(self.string()?)?;
                    slot(rel, negative)
                }
            };
            self.scratch.follows[previous] = s as u32;
            previous = s + 1;
            let (rel, negative) = (s / 2, s % 2 == 1);
            let info = &self.cat.schema.relations[rel];
            let accepted = match info.kind {
                RelationKind::Empirical => true,
                RelationKind::Judgment => self.opts.grants(info.capability),
                RelationKind::Institutional => false,
            };
            if !accepted || self.scratch.seen[s] == self.scratch.line {
                return None;
            }
            self.scratch.seen[s] = self.scratch.line;
            self.eat(b':')?;
            self.tuples(rel, negative)?;
            if !self.next(b'}')? {
                return Some(());
            }
        }
    }

    /// The key that came after the `previous` one in the last line that had it, read as a
    /// whole when this line gives it next too, in the same bytes (no white space before it, no
    /// escape in it): no scan of the string, no hash of it.
    fn predicted_key(&mut self, previous: usize) -> Option<usize> {
        let s = *self.scratch.follows.get(previous)? as usize;
        let quoted = self.cat.quoted_input_key(s)?;
        if !self.s.get(self.at..)?.starts_with(quoted) {
            return None;
        }
        self.at += quoted.len();
        Some(s)
    }

    /// A relation's list of tuples.
    fn tuples(&mut self, rel: usize, negative: bool) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.s.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(());
        }
        let s = slot(rel, negative);
        self.scratch.touched.push((s, self.batch.facts[s].len()));
        let params = self.cat.schema.relations[rel].params;
        loop {
            self.eat(b'[')?;
            self.batch.facts[s].push(self.case as i64);
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    self.eat(b',')?;
                }
                let v = if p.integer { self.integer()? } else { self.entity(rel, i)? };
                self.batch.facts[s].push(v);
            }
            self.eat(b']')?;
            self.facts += 1;
            if !self.next(b']')? {
                return Some(());
            }
        }
    }

    /// An entity argument: a constant of the parameter's type, or an interned name.
    fn entity(&mut self, rel: usize, param: usize) -> Option<i64> {
        let name = self.string()?;
        if let Some(&(_, c)) = self.cat.constants[rel][param].iter().find(|(c, _)| same(c, name)) {
            return Some(c as i64);
        }
        let declared = &self.cat.constants[rel][param];
        if !declared.is_empty()
            && (self.opts.strict_constants || crate::suggest::closest(name, declared.iter().map(|(c, _)| *c)).is_some())
        {
            // A misspelt constant, or any other name under `strict_constants`: the full reader
            // warns or refuses.
            return None;
        }
        let local = &mut self.scratch.local;
        if let Some(&(_, id)) = local.iter().find(|(n, _)| same(n, name)) {
            return Some(id);
        }
        let id = self.batch.entity(name).0 as i64;
        if local.len() < LOCAL_NAMES {
            local.push((name, id));
        }
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::keys::KeyTable;
    use super::super::read::{add_case, read_line, Codec, Read};
    use super::*;
    use crate::schema::{ConstantInfo, ParamInfo, RelationInfo, Schema};
    use proptest::prelude::*;

    proptest! {
        /// `same` is string equality, for names of every length up to and past 16 bytes.
        #[test]
        fn same_is_equality(a in "[ab]{0,20}", b in "[ab]{0,20}") {
            prop_assert_eq!(same(&a, &b), a == b);
            prop_assert!(same(&a, &a.clone()));
        }
    }

    static SCHEMA: Schema = Schema {
        package: "test.fast",
        version: "1",
        seal: "",
        in_force: None,
        until: None,
        relations: &[
            RelationInfo::empirical(
                "player_of",
                &[ParamInfo::entity("game", "Game"), ParamInfo::entity("who", "Player")],
            ),
            RelationInfo::empirical("count", &[ParamInfo::entity("game", "Game"), ParamInfo::integer("n")]),
            RelationInfo::empirical("in_state", &[ParamInfo::entity("game", "Game"), ParamInfo::entity("s", "State")]),
            RelationInfo::judgment("ruled", &[ParamInfo::entity("game", "Game")], "judgment:Arbiter"),
            RelationInfo::institutional("won", &[ParamInfo::entity("game", "Game")]),
        ],
        constants: &[ConstantInfo::new("Open", "State"), ConstantInfo::new("Closed", "State")],
        fragments: &[],
        rules: &[],
        priorities: &[],
        closures: &[],
        texts: crate::schema::Texts::new(&[], &[]),
    };

    /// The full reader's batch for `line`, or its error.
    fn full(cat: &Catalog, line: &str, opts: &Options) -> Result<(Batch, String), String> {
        let mut batch = Batch::new(&SCHEMA);
        let mut read = Read::default();
        read_line(line, &mut read).map_err(|(_, e)| e)?;
        let (mut rows, mut flat, mut names) = (Vec::new(), Vec::new(), crate::value::FastMap::default());
        add_case(cat, &mut batch, &read, opts, &mut rows, &mut flat, &mut names)?;
        Ok((batch, read.case.to_string()))
    }

    fn entities(b: &Batch, rows: &[i64], rel: usize) -> Vec<Vec<String>> {
        let params = SCHEMA.relations[rel].params;
        rows.chunks_exact(params.len() + 1)
            .map(|r| {
                r[1..]
                    .iter()
                    .zip(params)
                    .map(
                        |(v, p)| {
                            if p.integer {
                                v.to_string()
                            } else {
                                b.interner.name(crate::Sym(*v as u32)).to_string()
                            }
                        },
                    )
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_fast_path_reads_what_the_full_reader_reads_and_gives_up_on_the_rest() {
        let lines = [
            r#"{"case":"g1","facts":{"player_of":[["g1","alice"],["g1","bob"]],"count":[["g1",75]]}}"#,
            r#"  { "case" : "g2" , "facts" : { "~player_of" : [ [ "g2" , "bob" ] ] , "in_state":[["g2","Open"]] } }  "#,
            r#"{"facts":{},"case":"g3"}"#,
            r#"{"case":"g4","facts":{"count":[["g4",-12],["g4",0],["g4",9223372036854775807],["g4",-9223372036854775808]]}}"#,
            r#"{"case":"é ü","facts":{"player_of":[["ĝ","名"]],"player_of":[]}}"#,
            r#"{"case":"g5","facts":{"count":[["g5",-0]]}}"#,
            r#"{"case":"g6","facts":{"count":[["g6",1.0]]}}"#,
            r#"{"case":"g7","facts":{"count":[["g7",1e2]]}}"#,
            r#"{"case":"g8","facts":{"count":[["g8",9223372036854775808]]}}"#,
            r#"{"case":"g9","facts":{"count":[["g9",012]]}}"#,
            r#"{"case":"g10","facts":{"player_of":[["g10","a\"b"]]}}"#,
            r#"{"case":"g11","facts":{"player_of":[["g11","a\u0062"]]}}"#,
            r#"{"case":"g\n","facts":{}}"#,
            r#"{"case":7,"facts":{}}"#,
            r#"{"case":"g12","facts":{"won":[["g12"]]}}"#,
            r#"{"case":"g13","facts":{"ruled":[["g13"]]}}"#,
            r#"{"case":"g14","facts":{"nope":[["g14"]]}}"#,
            r#"{"case":"g15","facts":{"player_of":[["g15"]]}}"#,
            r#"{"case":"g16","facts":{"player_of":[["g16","a","b"]]}}"#,
            r#"{"case":"g17","facts":{"player_of":[["g17",1]]}}"#,
            r#"{"case":"g18","facts":{"count":[["g18","1"]]}}"#,
            r#"{"case":"g19","facts":{"player_of":[["g19","a"]]},"extra":1}"#,
            r#"{"case":"g20","case":"g20","facts":{}}"#,
            r#"{"case":"g21"}"#,
            r#"{"facts":{}}"#,
            r#"{"case":"g22","facts":{"player_of":[["g22","a"]]}} x"#,
            r#"{"case":"g23","facts":{"player_of":[["g23","a"],]}}"#,
            r#"{"case":"g24","facts":{"player_of":[["g24","a"]],}}"#,
            r#"{"case":"g25","facts":{"player_of":[["g25","a"]]}"#,
            r#"{"case":"g26","facts":{"in_state":[["g26","Closed"],["g26","Ajar"]]}}"#,
            r#"{"case":"g27","facts":{"player_of":{"g27":"a"}}}"#,
            r#"{"case":"g28","facts":{"player_of":[["g28","a"]],"~player_of":[["g28","a"]]}}"#,
            r#"{"case":"g29","facts":{"count":[["g29",-]]}}"#,
            "{\"case\":\"g30\",\"facts\":{\"player_of\":[[\"g30\",\"a\u{1}\"]]}}",
            "{\"case\":\"g31\",\t\"facts\":{}}\r",
            r#"{"case":"g32","facts":{"player_of":[["g32","Opn"]],"in_state":[["g32","Opn"]]}}"#,
            r#"{"case":"g33","facts":{"player_of":[["g33","Open"],["g33", "Open"]],"in_state":[["g33","Open"]],"~in_state":[["g33","Closed"]]}}"#,
            r#"[]"#,
            r#""#,
        ];
        for grants in [vec![], vec!["judgment:Arbiter".to_string()]] {
            let opts = Options { grants, explain: false, ..Default::default() };
            let accepted = lines.iter().filter(|line| three_readers_agree(line, &opts)).count();
            assert!(accepted >= 5, "the common shapes take the fast path ({accepted})");
        }
    }

    #[test]
    fn a_key_expected_from_the_line_before_is_read_only_where_the_line_gives_it() {
        let lines = [
            r#"{"case":"a","facts":{"player_of":[["a","x"]],"count":[["a",1]],"~in_state":[["a","Open"]]}}"#,
            r#"{"case":"b","facts":{"player_of":[["b","x"]],"count":[["b",2]],"~in_state":[["b","Open"]]}}"#,
            r#"{"case":"c","facts":{"player_of":[["c","x"]],"player_of":[]}}"#,
            r#"{"case":"d","facts":{"player_of":[["d","x"]], "count":[["d",3]],"in_state":[]}}"#,
            r#"{"case":"e","facts":{"player_of":[["e","x"]],"count_":[["e",3]]}}"#,
            r#"{"case":"f","facts":{"player_of":[["f","x"]],"\u0063ount":[["f",3]]}}"#,
            r#"{"case":"g","facts":{"player_of":[["g","x"]],"count":[["g",4]],"~in_state":[["g","Open"]]}}"#,
            r#"{"case":"h","facts":{"count":[["h",5]],"player_of":[["h","x"]]}}"#,
        ];
        let opts = Options::default();
        let mut generated = Catalog::new(&SCHEMA);
        generated.codec = Some(&TEST_CODEC);
        for cat in [&generated, &Catalog::new(&SCHEMA)] {
            let mut scratch = Scratch::default();
            let mut taken = Vec::new();
            for line in lines {
                let (mut batch, mut fresh) = (Batch::new(&SCHEMA), Batch::new(&SCHEMA));
                let got = add_line(cat, &mut batch, line, &opts, &mut scratch).is_some();
                let want = add_line(cat, &mut fresh, line, &opts, &mut Scratch::default()).is_some();
                assert_eq!(got, want, "{line}");
                assert_eq!(batch.facts, fresh.facts, "{line}");
                taken.push(got);
            }
            assert_eq!(taken, [true, true, false, true, false, false, true, true]);
        }
    }

    /// The keys the generated tables of [`SCHEMA`] would hold: its empirical and judgment
    /// relations' keys, in relation order.
    static TEST_KEYS: KeyTable<16, 4> =
        KeyTable::new(&["player_of", "~player_of", "count", "~count", "in_state", "~in_state", "ruled", "~ruled"]);
    static TEST_CODEC: Codec =
        Codec { keys: &TEST_KEYS, slots: &[0, 1, 2, 3, 4, 5, 6, 7], ruling_keys: &[(8, "\"won\":"), (9, "\"~won\":")] };

    /// Reads `line` with the three readers: the fast path through generated tables, the fast
    /// path through the catalog's own, and the full reader. Each fast path either gives up
    /// (leaving the batch as it was) or reads exactly the batch the full reader reads; both give
    /// up on the same lines. Each fast path reads the line once afresh and once after reading
    /// it before, when it expects every key where the line has it. Returns whether they read it.
    fn three_readers_agree(line: &str, opts: &Options) -> bool {
        let generic = Catalog::new(&SCHEMA);
        let mut generated = Catalog::new(&SCHEMA);
        generated.codec = Some(&TEST_CODEC);
        assert!(generated.codec_agrees(&TEST_CODEC), "the test's tables are the schema's");
        let want = full(&generic, line, opts);
        let mut read = Vec::new();
        for (cat, primed) in [(&generated, false), (&generic, false), (&generated, true), (&generic, true)] {
            let mut batch = Batch::new(&SCHEMA);
            let mut scratch = Scratch::default();
            if primed {
                add_line(cat, &mut Batch::new(&SCHEMA), line, opts, &mut scratch);
            }
            let got = add_line(cat, &mut batch, line, opts, &mut scratch);
            read.push(got.is_some());
            match (got, &want) {
                (Some(added), Ok((b, case))) => {
                    assert_eq!(&serde_json::Value::from(added.case).to_string(), case, "{line}");
                    assert_eq!((added.id, batch.cases), (0, 1), "{line}");
                    assert_eq!(batch.warnings, b.warnings, "the full reader's warnings are lost: {line}");
                    for (s, rows) in batch.facts.iter().enumerate() {
                        let rel = s / 2;
                        assert_eq!(entities(&batch, rows, rel), entities(b, &b.facts[s], rel), "{line}: slot {s}");
                    }
                }
                (Some(_), Err(e)) => panic!("the fast path accepted a line the full reader refuses ({e}): {line}"),
                (None, _) => {
                    assert_eq!(batch.cases, 0, "{line}");
                    assert!(batch.facts.iter().all(Vec::is_empty), "nothing is left behind: {line}");
                }
            }
        }
        assert!(read.iter().all(|&r| r == read[0]), "the fast paths take the same lines: {line} {read:?}");
        read[0]
    }

    /// Pieces of case lines: keys of every kind, values of every JSON kind, white space,
    /// escapes, numbers at the edges of an Integer, names of constants and near misses.
    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\t",
            "\r",
            "\"case\"",
            "\"facts\"",
            "\"why_not\"",
            "\"as_of\"",
            "\"player_of\"",
            "\"~player_of\"",
            "\"count\"",
            "\"~count\"",
            "\"in_state\"",
            "\"ruled\"",
            "\"~ruled\"",
            "\"won\"",
            "\"~won\"",
            "\"nope\"",
            "\"~\"",
            "\"\"",
            "\"g1\"",
            "\"a\\\"b\"",
            "\"a\\u0062\"",
            "\"é\"",
            "\"Open\"",
            "\"Closed\"",
            "\"open\"",
            "\"Ajar\"",
            "\"a\u{1}\"",
            "0",
            "-0",
            "75",
            "-12",
            "012",
            "1.0",
            "1e2",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "true",
            "null",
            "-",
        ])
        .prop_map(str::to_string)
    }

    /// A well-formed line.
    fn good_line() -> impl Strategy<Value = String> {
        let arg =
            prop_oneof!["[a-zA-Z é]{0,6}".prop_map(|s| format!("{s:?}")), (-99i64..99).prop_map(|i| i.to_string())];
        let tuple = prop::collection::vec(arg, 0..4).prop_map(|a| format!("[{}]", a.join(",")));
        let key =
            prop::sample::select(vec!["player_of", "~player_of", "count", "in_state", "~in_state", "ruled", "won"]);
        let fact = (key, prop::collection::vec(tuple, 0..3)).prop_map(|(k, t)| format!("\"{k}\":[{}]", t.join(",")));
        (prop::collection::vec(fact, 0..4), "[a-z0-9]{0,4}")
            .prop_map(|(facts, case)| format!("{{\"case\":\"{case}\",\"facts\":{{{}}}}}", facts.join(",")))
    }

    proptest! {
        /// Random lines, well-formed and not (pieces glued, a good line cut or spliced): the
        /// three readers agree on every one.
        #[test]
        fn three_readers_agree_on_random_lines(
            good in good_line(),
            pieces in prop::collection::vec(piece(), 0..24),
            cut in 0usize..400,
            at in 0usize..400,
            granted in any::<bool>(),
        ) {
            let grants = if granted { vec!["judgment:Arbiter".to_string()] } else { vec![] };
            let opts = Options { grants, ..Default::default() };
            let glued = pieces.concat();
            let boundary = |s: &str, i: usize| (0..=i.min(s.len())).rev().find(|&j| s.is_char_boundary(j)).unwrap_or(0);
            let (c, a) = (boundary(&good, cut), boundary(&good, at));
            let spliced = format!("{}{}{}", &good[..a], glued, &good[a..]);
            for line in [good.as_str(), &glued, &good[..c], &spliced] {
                three_readers_agree(line, &opts);
            }
        }
    }

    /// A hostile line: a key, a name, a misspelt constant or a case name of 4 MB is scanned a
    /// word at a time and hashed once (linear in the line), read or given up alike by the three
    /// readers.
    #[test]
    fn long_keys_and_names_are_read_alike() {
        let long = "k".repeat(4 << 20);
        let lines = [
            format!(r#"{{"case":"a","facts":{{"{long}":[]}}}}"#),
            format!(r#"{{"case":"a","facts":{{"~{long}":[]}}}}"#),
            format!(r#"{{"case":"a","facts":{{"player_of":[["a","{long}"]]}}}}"#),
            format!(r#"{{"case":"a","facts":{{"in_state":[["a","{long}"]]}}}}"#),
            format!(r#"{{"case":"{long}","facts":{{}}}}"#),
        ];
        let read: Vec<bool> = lines.iter().map(|l| three_readers_agree(l, &Options::default())).collect();
        assert_eq!(read, [false, false, true, true, true]);
    }

    #[test]
    fn a_line_the_fast_path_gives_up_on_leaves_the_next_case_its_id_and_keys() {
        let cat = Catalog::new(&SCHEMA);
        let opts = Options::default();
        let mut batch = Batch::new(&SCHEMA);
        let mut scratch = Scratch::default();
        let bad = r#"{"case":"a","facts":{"player_of":[["a","x"]],"nope":[]}}"#;
        let good = r#"{"case":"b","facts":{"player_of":[["b","y"]]}}"#;
        assert!(add_line(&cat, &mut batch, bad, &opts, &mut scratch).is_none());
        let added = add_line(&cat, &mut batch, good, &opts, &mut scratch).expect("read");
        assert_eq!(added.id, 0);
        assert_eq!(
            batch.facts[slot(0, false)],
            vec![0, batch.interner.intern("b").0 as i64, batch.interner.intern("y").0 as i64]
        );
    }
}
