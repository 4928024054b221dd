//! fide.laws.chess 0.1.0 written by hand: the 47 rules as plain Rust, the way an engineer would
//! write them without a compiler. It is the baseline `benches/rulings.rs` measures the compiled
//! package against, and `tests/handwritten_agrees.rs` checks that it rules every generated case
//! exactly as the compiled package does.
//!
//! One case at a time: its facts in small `Vec`s (a game has two players, a handful of pieces;
//! a linear `contains` beats hashing at that size), every rule as a loop with direct lookups,
//! the defeasible `game_drawn` / `~game_drawn` conflict decided with its priority, the closure
//! policies as predicates, and the GamePlay state machine (`entered_state` / `valid_transition`)
//! as a fixpoint over its transition table, once with definite premises (`+D`) and once with
//! concluded ones (`+d`, with `supported` premises at `+S`).
//!
//! The rule code is generic over the entity representation, with two front ends:
//! - [`evaluate`]: a `clir::Batch` in, a `clir::Output` out, like the compiled `evaluate`
//!   (entities are the batch's interned ids; the output rows are sorted the same way);
//! - [`rule_stream`]: JSON Lines in (serde_json, strings borrowed from the line), docs/FORMAT.md
//!   ruling lines out, in parallel chunks like `clir::runner::rule_stream`.

#![allow(dead_code)]

use crate::fide_laws_chess::{GamePlayState, GamePlayTransition, SCHEMA};
use clir::{slot, Batch, Output};
use rayon::prelude::*;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read, Write};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// The GamePlay procedure.

/// States of a game's GamePlay procedure.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    NotStarted,
    Playing,
    Ended,
}

/// Transitions of the GamePlay procedure.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Transition {
    StartPlay,
    PlayMove,
    ConcludeByAgreement,
    ConcludeByCheckmate,
    ConcludeByDeadPosition,
    ConcludeByDrawnClaim,
    ConcludeByResignation,
    ConcludeBySecondIllegalMove,
    ConcludeByStalemate,
}

/// What a transition needs besides being attempted from its source state.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Premise {
    PlayStarted,
    LegalMove,
    AgreedDrawEnded,
    CheckmateDelivered,
    DeadPositionEnded,
    GameDrawn,
    ResignationEnded,
    SecondIllegalMoveEnded,
    StalemateEnded,
}

/// `GamePlay/<T>/valid`: `valid_transition(g,T) <- attempted_transition(g,T),
/// supported entered_state(g,FROM), PREMISE(g)`; `GamePlay/<T>/enters`:
/// `entered_state(g,TO) <- supported valid_transition(g,T)`.
const GAME_PLAY: [(Transition, State, State, Premise); 9] = [
    (Transition::StartPlay, State::NotStarted, State::Playing, Premise::PlayStarted),
    (Transition::PlayMove, State::Playing, State::Playing, Premise::LegalMove),
    (Transition::ConcludeByAgreement, State::Playing, State::Ended, Premise::AgreedDrawEnded),
    (Transition::ConcludeByCheckmate, State::Playing, State::Ended, Premise::CheckmateDelivered),
    (Transition::ConcludeByDeadPosition, State::Playing, State::Ended, Premise::DeadPositionEnded),
    (Transition::ConcludeByDrawnClaim, State::Playing, State::Ended, Premise::GameDrawn),
    (Transition::ConcludeByResignation, State::Playing, State::Ended, Premise::ResignationEnded),
    (Transition::ConcludeBySecondIllegalMove, State::Playing, State::Ended, Premise::SecondIllegalMoveEnded),
    (Transition::ConcludeByStalemate, State::Playing, State::Ended, Premise::StalemateEnded),
];

const TRANSITION_NAMES: [(Transition, &str, GamePlayTransition); 9] = [
    (Transition::StartPlay, "StartPlay", GamePlayTransition::START_PLAY),
    (Transition::PlayMove, "PlayMove", GamePlayTransition::PLAY_MOVE),
    (Transition::ConcludeByAgreement, "ConcludeByAgreement", GamePlayTransition::CONCLUDE_BY_AGREEMENT),
    (Transition::ConcludeByCheckmate, "ConcludeByCheckmate", GamePlayTransition::CONCLUDE_BY_CHECKMATE),
    (Transition::ConcludeByDeadPosition, "ConcludeByDeadPosition", GamePlayTransition::CONCLUDE_BY_DEAD_POSITION),
    (Transition::ConcludeByDrawnClaim, "ConcludeByDrawnClaim", GamePlayTransition::CONCLUDE_BY_DRAWN_CLAIM),
    (Transition::ConcludeByResignation, "ConcludeByResignation", GamePlayTransition::CONCLUDE_BY_RESIGNATION),
    (
        Transition::ConcludeBySecondIllegalMove,
        "ConcludeBySecondIllegalMove",
        GamePlayTransition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE,
    ),
    (Transition::ConcludeByStalemate, "ConcludeByStalemate", GamePlayTransition::CONCLUDE_BY_STALEMATE),
];

// ---------------------------------------------------------------------------------------------
// Entities.

/// An entity as the rules see it: only compared, ordered and copied around.
pub trait Ent: Clone + Ord + fmt::Debug {
    fn state(s: State) -> Self;
    fn transition(t: Transition) -> Self;
    fn as_transition(&self) -> Option<Transition>;
}

/// In a `clir::Batch`: the interned id (constants are the package's fixed ids).
impl Ent for i64 {
    fn state(s: State) -> i64 {
        let c = match s {
            State::NotStarted => GamePlayState::NOT_STARTED,
            State::Playing => GamePlayState::PLAYING,
            State::Ended => GamePlayState::ENDED,
        };
        c.0 .0 as i64
    }
    fn transition(t: Transition) -> i64 {
        TRANSITION_NAMES[t as usize].2 .0 .0 as i64
    }
    fn as_transition(&self) -> Option<Transition> {
        TRANSITION_NAMES.iter().find(|(_, _, c)| c.0 .0 as i64 == *self).map(|(t, _, _)| *t)
    }
}

/// In a JSON line: the name, borrowed from the line unless it had escapes.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Name<'a>(pub Cow<'a, str>);

impl Ent for Name<'_> {
    fn state(s: State) -> Self {
        Name(Cow::Borrowed(match s {
            State::NotStarted => "NotStarted",
            State::Playing => "Playing",
            State::Ended => "Ended",
        }))
    }
    fn transition(t: Transition) -> Self {
        Name(Cow::Borrowed(TRANSITION_NAMES[t as usize].1))
    }
    fn as_transition(&self) -> Option<Transition> {
        TRANSITION_NAMES.iter().find(|(_, n, _)| *n == self.0).map(|(t, _, _)| *t)
    }
}

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an entity name (a string)")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Name<'de>, E> {
                Ok(Name(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Input tuples: flat rows of a batch, JSON arrays of a line.

/// An input tuple in a batch (entities and Integers are both `i64` there).
pub trait FlatRow: Clone + Ord {
    const ARITY: usize;
    fn load(row: &[i64]) -> Self;
    fn store(&self, out: &mut Vec<i64>);
}

impl FlatRow for i64 {
    const ARITY: usize = 1;
    fn load(row: &[i64]) -> Self {
        row[0]
    }
    fn store(&self, out: &mut Vec<i64>) {
        out.push(*self);
    }
}

impl FlatRow for (i64, i64) {
    const ARITY: usize = 2;
    fn load(row: &[i64]) -> Self {
        (row[0], row[1])
    }
    fn store(&self, out: &mut Vec<i64>) {
        out.extend_from_slice(&[self.0, self.1]);
    }
}

impl FlatRow for (i64, i64, i64, i64) {
    const ARITY: usize = 4;
    fn load(row: &[i64]) -> Self {
        (row[0], row[1], row[2], row[3])
    }
    fn store(&self, out: &mut Vec<i64>) {
        out.extend_from_slice(&[self.0, self.1, self.2, self.3]);
    }
}

/// An input tuple in a JSON line: read from its array, written back as `a,b` in a literal.
pub trait JsonRow<'de>: Sized + PartialEq + Ord + Clone {
    fn read<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
    fn args(&self, out: &mut String);
}

impl<'de> JsonRow<'de> for Name<'de> {
    fn read<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <(Name<'de>,)>::deserialize(d).map(|t| t.0)
    }
    fn args(&self, out: &mut String) {
        out.push_str(&self.0);
    }
}

impl<'de> JsonRow<'de> for (Name<'de>, Name<'de>) {
    fn read<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Deserialize::deserialize(d)
    }
    fn args(&self, out: &mut String) {
        out.push_str(&self.0 .0);
        out.push(',');
        out.push_str(&self.1 .0);
    }
}

impl<'de> JsonRow<'de> for (Name<'de>, i64) {
    fn read<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Deserialize::deserialize(d)
    }
    fn args(&self, out: &mut String) {
        out.push_str(&self.0 .0);
        out.push(',');
        out.push_str(itoa(self.1).as_str());
    }
}

impl<'de> JsonRow<'de> for (Name<'de>, Name<'de>, Name<'de>, Name<'de>) {
    fn read<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Deserialize::deserialize(d)
    }
    fn args(&self, out: &mut String) {
        for (i, n) in [&self.0, &self.1, &self.2, &self.3].into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&n.0);
        }
    }
}

fn itoa(v: i64) -> String {
    v.to_string()
}

/// Appends the tuples of one JSON value (`[[..],..]`) to a relation's rows.
struct Rows<'v, T>(&'v mut Vec<T>);

impl<'de, T: JsonRow<'de>> DeserializeSeed<'de> for Rows<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: JsonRow<'de>> Visitor<'de> for Rows<'_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of tuples")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(t) = seq.next_element_seed(One::<T>(std::marker::PhantomData))? {
            self.0.push(t);
        }
        Ok(())
    }
}

/// One tuple of a relation.
struct One<T>(std::marker::PhantomData<T>);

impl<'de, T: JsonRow<'de>> DeserializeSeed<'de> for One<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::read(d)
    }
}

// ---------------------------------------------------------------------------------------------
// The fast path of reading a line: a scanner for lines of the usual shape (no escapes, plain
// Integers); on anything else it gives up and the line is read again by serde_json.

/// The bytes of a string that are printable ASCII and neither `"` nor a backslash.
static PLAIN_ASCII: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x20;
    while b < 0x80 {
        t[b] = b != b'"' as usize && b != b'\\' as usize;
        b += 1;
    }
    t
};

/// A cursor in a line.
pub struct Scanner<'a> {
    s: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.s.get(self.at) == Some(&b)).then(|| self.at += 1)
    }

    /// `,` (true) or `end` (false).
    fn more(&mut self, end: u8) -> Option<bool> {
        self.ws();
        let b = *self.s.get(self.at)?;
        self.at += 1;
        match b {
            b',' => Some(true),
            _ if b == end => Some(false),
            _ => None,
        }
    }

    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.at;
        let len = self.s[start..].iter().position(|&b| !PLAIN_ASCII[b as usize])?;
        let mut end = start + len;
        let mut ascii = true;
        while self.s[end] != b'"' {
            match *self.s.get(end)? {
                b'\\' | 0..=0x1f => return None,
                b'"' => break,
                b => {
                    ascii &= b < 0x80;
                    end += 1
                }
            }
        }
        self.at = end + 1;
        let bytes = &self.s[start..end];
        if ascii {
            // SAFETY: every byte is ASCII, so the bytes are UTF-8.
            Some(unsafe { std::str::from_utf8_unchecked(bytes) })
        } else {
            std::str::from_utf8(bytes).ok()
        }
    }

    fn name(&mut self) -> Option<Name<'a>> {
        self.string().map(|s| Name(Cow::Borrowed(s)))
    }

    fn integer(&mut self) -> Option<i64> {
        self.ws();
        let start = self.at;
        if self.s.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        let digits = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let n = self.at - digits;
        if n == 0
            || (self.s[digits] == b'0' && (n > 1 || digits > start))
            || matches!(self.s.get(self.at), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        let mut v: i64 = 0;
        for &d in &self.s[digits..self.at] {
            v = v.checked_mul(10)?.checked_add((d - b'0') as i64)?;
        }
        if digits > start {
            // -9223372036854775808 does not fit before it is negated: serde_json reads it.
            v = -v;
        }
        Some(v)
    }

    /// A list of tuples, appended to `rows`.
    fn rows<T: ScanRow<'a>>(&mut self, rows: &mut Vec<T>) -> Option<()> {
        self.eat(b'[')?;
        self.ws();
        if self.s.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(());
        }
        loop {
            self.eat(b'[')?;
            rows.push(T::scan(self)?);
            self.eat(b']')?;
            if !self.more(b']')? {
                return Some(());
            }
        }
    }

    /// A whole line into `facts`: its case name.
    fn line(&mut self, facts: &mut Facts<Name<'a>>, grant: bool) -> Option<&'a str> {
        self.eat(b'{')?;
        let (mut case, mut seen_facts) = (None, false);
        loop {
            match self.string()? {
                "case" if case.is_none() => {
                    self.eat(b':')?;
                    case = Some(self.string()?);
                }
                "facts" if !seen_facts => {
                    self.eat(b':')?;
                    self.eat(b'{')?;
                    let mut seen = 0u128;
                    self.ws();
                    if self.s.get(self.at) == Some(&b'}') {
                        self.at += 1;
                    } else {
                        loop {
                            let key = self.string()?;
                            self.eat(b':')?;
                            facts.scan_key(key, self, grant, &mut seen)?;
                            if !self.more(b'}')? {
                                break;
                            }
                        }
                    }
                    seen_facts = true;
                }
                _ => return None,
            }
            if !self.more(b'}')? {
                break;
            }
        }
        self.ws();
        (self.at == self.s.len() && seen_facts).then_some(case?)
    }
}

/// An input tuple the scanner reads (the inside of its brackets).
pub trait ScanRow<'a>: Sized {
    fn scan(s: &mut Scanner<'a>) -> Option<Self>;
}

impl<'a> ScanRow<'a> for Name<'a> {
    fn scan(s: &mut Scanner<'a>) -> Option<Self> {
        s.name()
    }
}

impl<'a> ScanRow<'a> for (Name<'a>, Name<'a>) {
    fn scan(s: &mut Scanner<'a>) -> Option<Self> {
        let a = s.name()?;
        s.eat(b',')?;
        Some((a, s.name()?))
    }
}

impl<'a> ScanRow<'a> for (Name<'a>, i64) {
    fn scan(s: &mut Scanner<'a>) -> Option<Self> {
        let a = s.name()?;
        s.eat(b',')?;
        Some((a, s.integer()?))
    }
}

impl<'a> ScanRow<'a> for (Name<'a>, Name<'a>, Name<'a>, Name<'a>) {
    fn scan(s: &mut Scanner<'a>) -> Option<Self> {
        let a = s.name()?;
        s.eat(b',')?;
        let b = s.name()?;
        s.eat(b',')?;
        let c = s.name()?;
        s.eat(b',')?;
        Some((a, b, c, s.name()?))
    }
}

// ---------------------------------------------------------------------------------------------
// The facts of a case.

macro_rules! input_relations {
    ($($pos:ident / $neg:ident : $t:ty $(, $judgment:ident)?;)*) => {
        /// The facts of one case: per input relation, the tuples given, positive and `~`.
        #[derive(Debug, Clone)]
        pub struct Facts<E> {
            $(pub $pos: Vec<$t>, pub $neg: Vec<$t>,)*
        }

        impl<E> Default for Facts<E> {
            fn default() -> Self {
                Facts { $($pos: Vec::new(), $neg: Vec::new(),)* }
            }
        }

        impl<E> Facts<E> {
            pub fn clear(&mut self) {
                $(self.$pos.clear(); self.$neg.clear();)*
            }
        }

        /// The input relations, in the order of `Facts`' fields.
        const INPUT_RELATIONS: &[&str] = &[$(stringify!($pos)),*];

        impl Facts<i64> {
            /// Takes case `case`'s rows of every input relation; `cursors[k]` is where slot `k`
            /// of the layout is at (rows of a slot are in case order).
            fn load(&mut self, facts: &[Vec<i64>], layout: &Layout, case: i64, cursors: &mut [usize]) {
                let mut k = 0;
                $(
                    take(&facts[slot(layout.input[k], false)], case, &mut cursors[2 * k], &mut self.$pos);
                    take(&facts[slot(layout.input[k], true)], case, &mut cursors[2 * k + 1], &mut self.$neg);
                    k += 1;
                )*
                let _ = k;
            }

            /// Input literals given with both signs, as rows `[case, args..]` per relation.
            fn contradictions(&self, case: i64, layout: &Layout, out: &mut [Vec<i64>]) {
                let mut k = 0;
                $(
                    if !self.$neg.is_empty() {
                        let mut both: Vec<_> = self.$neg.iter().filter(|t| self.$pos.contains(t)).collect();
                        both.sort();
                        both.dedup();
                        for t in both {
                            out[layout.input[k]].push(case);
                            t.store(&mut out[layout.input[k]]);
                        }
                    }
                    k += 1;
                )*
                let _ = k;
            }
        }

        impl<'de> Facts<Name<'de>> {
            /// Scans the list of tuples of key `key` of a case's `facts` (the fast path: `None`
            /// for anything it does not take, a refused relation included).
            fn scan_key(&mut self, key: &str, s: &mut Scanner<'de>, grant: bool, seen: &mut u128) -> Option<()> {
                let (negative, name) = match key.strip_prefix('~') {
                    Some(n) => (true, n),
                    None => (false, key),
                };
                let mut k = 0u32;
                $(
                    if name == stringify!($pos) {
                        let judgment = false $(|| { let _ = stringify!($judgment); true })?;
                        let bit = 1u128 << (2 * k + negative as u32);
                        if (judgment && !grant) || *seen & bit != 0 {
                            return None;
                        }
                        *seen |= bit;
                        return s.rows(if negative { &mut self.$neg } else { &mut self.$pos });
                    }
                    k += 1;
                )*
                let _ = k;
                None
            }

            /// Reads the value of key `key` of a case's `facts`.
            fn read_key<A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
                grant: bool,
                seen: &mut u128,
            ) -> Result<(), A::Error> {
                let (negative, name) = match key.strip_prefix('~') {
                    Some(n) => (true, n),
                    None => (false, key),
                };
                let mut k = 0u32;
                $(
                    if name == stringify!($pos) {
                        let judgment = false $(|| { let _ = stringify!($judgment); true })?;
                        if judgment && !grant {
                            return Err(de::Error::custom(format!(
                                "relation `{name}` is a judgment reserved to capability `judgment:FIDEArbiter`"
                            )));
                        }
                        let bit = 1u128 << (2 * k + negative as u32);
                        if *seen & bit != 0 {
                            return Err(de::Error::custom(format!("duplicate key `{key}` in `facts`")));
                        }
                        *seen |= bit;
                        let rows = if negative { &mut self.$neg } else { &mut self.$pos };
                        return map.next_value_seed(Rows(rows));
                    }
                    k += 1;
                )*
                let _ = k;
                if SCHEMA.relation(name).is_some() {
                    Err(de::Error::custom(format!(
                        "relation `{name}` is institutional: it is derived by rules and cannot be given as input"
                    )))
                } else {
                    Err(de::Error::custom(format!("unknown relation `{name}`")))
                }
            }

            /// Input literals given with both signs, written `name(a,b)`.
            fn contradictions(&self, out: &mut Vec<String>) {
                $(
                    for t in &self.$neg {
                        if self.$pos.contains(t) {
                            let mut s = String::from(stringify!($pos));
                            s.push('(');
                            t.args(&mut s);
                            s.push(')');
                            out.push(s);
                        }
                    }
                )*
            }
        }
    };
}

input_relations! {
    arbiter_of / not_arbiter_of: (E, E);
    attempted_transition / not_attempted_transition: (E, E);
    both_players_have_moved / not_both_players_have_moved: E;
    capturing_pawn_on_adjacent_file / not_capturing_pawn_on_adjacent_file: (E, E);
    case_not_precisely_regulated / not_case_not_precisely_regulated: E, judgment;
    castling_path_attacked / not_castling_path_attacked: E;
    castling_path_blocked / not_castling_path_blocked: E;
    castling_side_of / not_castling_side_of: (E, E, E, E);
    checked_castling_side / not_checked_castling_side: E;
    checked_game / not_checked_game: E;
    checked_piece / not_checked_piece: E;
    checked_player / not_checked_player: E;
    checkmate_delivered / not_checkmate_delivered: (E, E);
    completed_illegal_move_count / not_completed_illegal_move_count: (E, i64);
    dead_position_arisen / not_dead_position_arisen: E;
    draw_agreed / not_draw_agreed: E;
    draw_claimed / not_draw_claimed: E;
    en_passant_right_open / not_en_passant_right_open: E;
    king_cannot_be_checkmated / not_king_cannot_be_checkmated: E;
    king_of / not_king_of: (E, E);
    move_meets_articles_3_1_to_3_9 / not_move_meets_articles_3_1_to_3_9: E;
    moves_by_each_without_pawn_or_capture / not_moves_by_each_without_pawn_or_capture: (E, i64);
    own_piece_of / not_own_piece_of: (E, E);
    piece_can_be_moved / not_piece_can_be_moved: E;
    piece_has_moved / not_piece_has_moved: E;
    piece_touched_intentionally / not_piece_touched_intentionally: (E, E), judgment;
    play_started / not_play_started: E;
    player_has_the_move / not_player_has_the_move: (E, E);
    player_of / not_player_of: (E, E);
    player_resigned / not_player_resigned: E;
    position_occurrence_count / not_position_occurrence_count: (E, i64);
    procedure_instance / not_procedure_instance: E;
    rook_of / not_rook_of: (E, E);
    stalemate_arisen / not_stalemate_arisen: E;
}

/// Appends the rows of `case` at `*cursor` of a slot's flat rows to `out`.
fn take<T: FlatRow>(rows: &[i64], case: i64, cursor: &mut usize, out: &mut Vec<T>) {
    let stride = T::ARITY + 1;
    while *cursor < rows.len() && rows[*cursor] == case {
        out.push(T::load(&rows[*cursor + 1..*cursor + stride]));
        *cursor += stride;
    }
}

// ---------------------------------------------------------------------------------------------
// The ruling of a case.

/// What one case concludes. Every institutional relation except `game_drawn`, `~game_drawn`,
/// `entered_state` and `valid_transition` comes from strict rules over definite premises only,
/// so its concluded tuples are all definite and one list serves both.
#[derive(Debug, Clone)]
pub struct Ruling<E> {
    pub agreed_draw_has_ended_the_game: Vec<E>,
    pub arbiter_competent_to_decide: Vec<E>,
    pub arbiter_shall_see_laws_observed: Vec<(E, E)>,
    pub castling_legal: Vec<(E, E, E)>,
    pub checkmate_has_been_delivered: Vec<E>,
    pub dead_position_has_ended_the_game: Vec<E>,
    pub en_passant_capture_legal: Vec<(E, E)>,
    pub entered_state: Vec<(E, E)>,
    pub entered_state_definite: Vec<(E, E)>,
    pub fifty_move_claim_correct: Vec<(E, E)>,
    pub game_drawn: Vec<E>,
    pub game_drawn_definite: Vec<E>,
    pub game_lost_by: Vec<(E, E)>,
    pub game_won_by: Vec<(E, E)>,
    pub illegal_move: Vec<E>,
    pub legal_move: Vec<E>,
    pub must_move_first_touched_piece: Vec<(E, E)>,
    pub resignation_has_ended_the_game: Vec<E>,
    pub second_illegal_move_has_ended_the_game: Vec<E>,
    pub stalemate_has_ended_the_game: Vec<E>,
    pub threefold_claim_correct: Vec<(E, E)>,
    pub valid_transition: Vec<(E, E)>,
    pub valid_transition_definite: Vec<(E, E)>,
    /// `~game_drawn`, concluded (never definite: no strict rule, never an input).
    pub not_game_drawn: Vec<E>,
    // Working sets.
    drawn_75: Vec<E>,
    checkmate_over_75: Vec<E>,
    entered: Vec<(E, State)>,
    valid: Vec<(E, Transition)>,
}

impl<E> Default for Ruling<E> {
    fn default() -> Self {
        Ruling {
            agreed_draw_has_ended_the_game: Vec::new(),
            arbiter_competent_to_decide: Vec::new(),
            arbiter_shall_see_laws_observed: Vec::new(),
            castling_legal: Vec::new(),
            checkmate_has_been_delivered: Vec::new(),
            dead_position_has_ended_the_game: Vec::new(),
            en_passant_capture_legal: Vec::new(),
            entered_state: Vec::new(),
            entered_state_definite: Vec::new(),
            fifty_move_claim_correct: Vec::new(),
            game_drawn: Vec::new(),
            game_drawn_definite: Vec::new(),
            game_lost_by: Vec::new(),
            game_won_by: Vec::new(),
            illegal_move: Vec::new(),
            legal_move: Vec::new(),
            must_move_first_touched_piece: Vec::new(),
            resignation_has_ended_the_game: Vec::new(),
            second_illegal_move_has_ended_the_game: Vec::new(),
            stalemate_has_ended_the_game: Vec::new(),
            threefold_claim_correct: Vec::new(),
            valid_transition: Vec::new(),
            valid_transition_definite: Vec::new(),
            not_game_drawn: Vec::new(),
            drawn_75: Vec::new(),
            checkmate_over_75: Vec::new(),
            entered: Vec::new(),
            valid: Vec::new(),
        }
    }
}

fn sort_dedup<T: Ord>(v: &mut Vec<T>) {
    if v.len() > 1 {
        v.sort_unstable();
        v.dedup();
    }
}

/// A tuple of an output relation: its columns in order.
pub trait Tup<E> {
    fn cols(&self, f: &mut impl FnMut(&E));
}

impl<E: Ent> Tup<E> for E {
    fn cols(&self, f: &mut impl FnMut(&E)) {
        f(self)
    }
}

impl<E: Ent> Tup<E> for (E, E) {
    fn cols(&self, f: &mut impl FnMut(&E)) {
        f(&self.0);
        f(&self.1)
    }
}

impl<E: Ent> Tup<E> for (E, E, E) {
    fn cols(&self, f: &mut impl FnMut(&E)) {
        f(&self.0);
        f(&self.1);
        f(&self.2)
    }
}

/// Receives the output relations of a ruling, in the order of the ruling lines' keys.
pub trait Sink<E> {
    fn rel<T: Tup<E>>(&mut self, name: &'static str, negative: bool, concluded: &[T], definite: &[T]);
}

impl<E: Ent> Ruling<E> {
    fn clear(&mut self) {
        self.agreed_draw_has_ended_the_game.clear();
        self.arbiter_competent_to_decide.clear();
        self.arbiter_shall_see_laws_observed.clear();
        self.castling_legal.clear();
        self.checkmate_has_been_delivered.clear();
        self.dead_position_has_ended_the_game.clear();
        self.en_passant_capture_legal.clear();
        self.entered_state.clear();
        self.entered_state_definite.clear();
        self.fifty_move_claim_correct.clear();
        self.game_drawn.clear();
        self.game_drawn_definite.clear();
        self.game_lost_by.clear();
        self.game_won_by.clear();
        self.illegal_move.clear();
        self.legal_move.clear();
        self.must_move_first_touched_piece.clear();
        self.resignation_has_ended_the_game.clear();
        self.second_illegal_move_has_ended_the_game.clear();
        self.stalemate_has_ended_the_game.clear();
        self.threefold_claim_correct.clear();
        self.valid_transition.clear();
        self.valid_transition_definite.clear();
        self.not_game_drawn.clear();
        self.drawn_75.clear();
        self.checkmate_over_75.clear();
        self.entered.clear();
        self.valid.clear();
    }

    /// Sorts every output relation and drops duplicates.
    fn finish(&mut self) {
        sort_dedup(&mut self.agreed_draw_has_ended_the_game);
        sort_dedup(&mut self.arbiter_competent_to_decide);
        sort_dedup(&mut self.arbiter_shall_see_laws_observed);
        sort_dedup(&mut self.castling_legal);
        sort_dedup(&mut self.checkmate_has_been_delivered);
        sort_dedup(&mut self.dead_position_has_ended_the_game);
        sort_dedup(&mut self.en_passant_capture_legal);
        sort_dedup(&mut self.entered_state);
        sort_dedup(&mut self.entered_state_definite);
        sort_dedup(&mut self.fifty_move_claim_correct);
        sort_dedup(&mut self.game_drawn);
        sort_dedup(&mut self.game_drawn_definite);
        sort_dedup(&mut self.game_lost_by);
        sort_dedup(&mut self.game_won_by);
        sort_dedup(&mut self.illegal_move);
        sort_dedup(&mut self.legal_move);
        sort_dedup(&mut self.must_move_first_touched_piece);
        sort_dedup(&mut self.resignation_has_ended_the_game);
        sort_dedup(&mut self.second_illegal_move_has_ended_the_game);
        sort_dedup(&mut self.stalemate_has_ended_the_game);
        sort_dedup(&mut self.threefold_claim_correct);
        sort_dedup(&mut self.valid_transition);
        sort_dedup(&mut self.valid_transition_definite);
        sort_dedup(&mut self.not_game_drawn);
    }

    /// Hands every output relation to `s`: positive ones by name, then `~game_drawn` (the
    /// order of the keys of a ruling line).
    pub fn visit<S: Sink<E>>(&self, s: &mut S) {
        let none: &[E] = &[];
        s.rel(
            "agreed_draw_has_ended_the_game",
            false,
            &self.agreed_draw_has_ended_the_game,
            &self.agreed_draw_has_ended_the_game,
        );
        s.rel(
            "arbiter_competent_to_decide",
            false,
            &self.arbiter_competent_to_decide,
            &self.arbiter_competent_to_decide,
        );
        s.rel(
            "arbiter_shall_see_laws_observed",
            false,
            &self.arbiter_shall_see_laws_observed,
            &self.arbiter_shall_see_laws_observed,
        );
        s.rel("castling_legal", false, &self.castling_legal, &self.castling_legal);
        s.rel(
            "checkmate_has_been_delivered",
            false,
            &self.checkmate_has_been_delivered,
            &self.checkmate_has_been_delivered,
        );
        s.rel(
            "dead_position_has_ended_the_game",
            false,
            &self.dead_position_has_ended_the_game,
            &self.dead_position_has_ended_the_game,
        );
        s.rel("en_passant_capture_legal", false, &self.en_passant_capture_legal, &self.en_passant_capture_legal);
        s.rel("entered_state", false, &self.entered_state, &self.entered_state_definite);
        s.rel("fifty_move_claim_correct", false, &self.fifty_move_claim_correct, &self.fifty_move_claim_correct);
        s.rel("game_drawn", false, &self.game_drawn, &self.game_drawn_definite);
        s.rel("game_lost_by", false, &self.game_lost_by, &self.game_lost_by);
        s.rel("game_won_by", false, &self.game_won_by, &self.game_won_by);
        s.rel("illegal_move", false, &self.illegal_move, &self.illegal_move);
        s.rel("legal_move", false, &self.legal_move, &self.legal_move);
        s.rel(
            "must_move_first_touched_piece",
            false,
            &self.must_move_first_touched_piece,
            &self.must_move_first_touched_piece,
        );
        s.rel(
            "resignation_has_ended_the_game",
            false,
            &self.resignation_has_ended_the_game,
            &self.resignation_has_ended_the_game,
        );
        s.rel(
            "second_illegal_move_has_ended_the_game",
            false,
            &self.second_illegal_move_has_ended_the_game,
            &self.second_illegal_move_has_ended_the_game,
        );
        s.rel(
            "stalemate_has_ended_the_game",
            false,
            &self.stalemate_has_ended_the_game,
            &self.stalemate_has_ended_the_game,
        );
        s.rel("threefold_claim_correct", false, &self.threefold_claim_correct, &self.threefold_claim_correct);
        s.rel("valid_transition", false, &self.valid_transition, &self.valid_transition_definite);
        s.rel("game_drawn", true, &self.not_game_drawn, none);
    }
}

// ---------------------------------------------------------------------------------------------
// The rules.

/// Rules one case: fills `r` (cleared first) with everything it concludes, sorted.
pub fn rule<E: Ent>(f: &Facts<E>, r: &mut Ruling<E>) {
    r.clear();

    // Closure policies: a domain fact whose predicate is not given yields the explicit negative
    // (the predicates are inputs: "supported" is "given"). Explicit negatives count as well.
    let not_attacked = |k: &E| {
        f.not_castling_path_attacked.contains(k)
            || (f.checked_castling_side.contains(k) && !f.castling_path_attacked.contains(k))
    };
    let not_blocked = |k: &E| {
        f.not_castling_path_blocked.contains(k)
            || (f.checked_castling_side.contains(k) && !f.castling_path_blocked.contains(k))
    };
    let not_moved =
        |p: &E| f.not_piece_has_moved.contains(p) || (f.checked_piece.contains(p) && !f.piece_has_moved.contains(p));
    let not_meeting = |g: &E| {
        f.not_move_meets_articles_3_1_to_3_9.contains(g)
            || (f.checked_game.contains(g) && !f.move_meets_articles_3_1_to_3_9.contains(g))
    };
    let mate_possible = |w: &E| {
        f.not_king_cannot_be_checkmated.contains(w)
            || (f.checked_player.contains(w) && !f.king_cannot_be_checkmated.contains(w))
    };
    let has_the_move = |g: &E, w: &E| f.player_has_the_move.iter().any(|(g2, w2)| g2 == g && w2 == w);

    // Preface 0.2.
    for s in &f.case_not_precisely_regulated {
        r.arbiter_competent_to_decide.push(s.clone()); // UnregulatedCaseDecidedByArbiter
    }
    // Article 12.1.
    for (g, arbiter) in &f.arbiter_of {
        if f.play_started.contains(g) {
            r.arbiter_shall_see_laws_observed.push((arbiter.clone(), g.clone()));
            // ArbiterSeesLawsObserved
        }
    }
    // Article 3.10: legal and illegal moves.
    for g in &f.move_meets_articles_3_1_to_3_9 {
        r.legal_move.push(g.clone()); // MoveIsLegal
    }
    for g in &f.checked_game {
        if not_meeting(g) {
            r.illegal_move.push(g.clone()); // MoveIsIllegal
        }
    }
    // Article 3.8.2: castling.
    for (g, w, side, rook) in &f.castling_side_of {
        if f.rook_of.iter().any(|(w2, r2)| w2 == w && r2 == rook)
            && has_the_move(g, w)
            && not_moved(rook)
            && not_blocked(side)
            && not_attacked(side)
            && f.king_of.iter().any(|(w2, king)| w2 == w && not_moved(king))
        {
            r.castling_legal.push((g.clone(), w.clone(), side.clone())); // CastlingLegal
        }
    }
    // Article 3.7.4: en passant.
    for (g, pawn) in &f.capturing_pawn_on_adjacent_file {
        if f.en_passant_right_open.contains(g) && f.player_has_the_move.iter().any(|(g2, _)| g2 == g) {
            r.en_passant_capture_legal.push((g.clone(), pawn.clone())); // EnPassantCaptureLegal
        }
    }
    // Article 4.3: touch move.
    for (w, piece) in &f.own_piece_of {
        if f.piece_touched_intentionally.iter().any(|(w2, p2)| w2 == w && p2 == piece)
            && f.piece_can_be_moved.contains(piece)
            && f.player_has_the_move.iter().any(|(_, w2)| w2 == w)
        {
            r.must_move_first_touched_piece.push((w.clone(), piece.clone())); // MustMoveFirstTouchedPiece
        }
    }
    // Article 5: the end of the game. `game_drawn_definite` collects the strict draws.
    for (g, w) in &f.checkmate_delivered {
        r.checkmate_has_been_delivered.push(g.clone()); // CheckmateEndsTheGame
        r.game_won_by.push((g.clone(), w.clone())); // CheckmateWins
        r.checkmate_over_75.push(g.clone()); // CheckmateTakesPrecedenceOverSeventyFive (~game_drawn)
    }
    for g in &f.stalemate_arisen {
        r.stalemate_has_ended_the_game.push(g.clone()); // StalemateEndsTheGame
        r.game_drawn_definite.push(g.clone()); // StalemateDraws
    }
    for g in &f.dead_position_arisen {
        r.dead_position_has_ended_the_game.push(g.clone()); // DeadPositionEndsTheGame
        r.game_drawn_definite.push(g.clone()); // DeadPositionDraws
    }
    for g in &f.both_players_have_moved {
        if f.draw_agreed.contains(g) {
            r.agreed_draw_has_ended_the_game.push(g.clone()); // AgreedDrawEndsTheGame
            r.game_drawn_definite.push(g.clone()); // AgreedDraw
        }
    }
    for (g, w) in &f.player_of {
        if f.player_resigned.contains(w) {
            r.resignation_has_ended_the_game.push(g.clone()); // ResignationEndsTheGame
            if mate_possible(w) {
                r.game_lost_by.push((g.clone(), w.clone())); // ResignationLoses
            }
            if f.king_cannot_be_checkmated.contains(w) {
                r.game_drawn_definite.push(g.clone()); // ResignationDrawnIfMateImpossible
            }
        }
        if f.completed_illegal_move_count.iter().any(|(w2, n)| w2 == w && *n >= 2) {
            r.second_illegal_move_has_ended_the_game.push(g.clone()); // SecondIllegalMoveEndsTheGame
            if mate_possible(w) {
                r.game_lost_by.push((g.clone(), w.clone())); // SecondIllegalMoveLoses
            }
            if f.king_cannot_be_checkmated.contains(w) {
                r.game_drawn_definite.push(g.clone()); // SecondIllegalMoveDrawnIfMateImpossible
            }
        }
    }
    // Article 9: draws by claim, by repetition, by the 75-move rule.
    for (g, w) in &f.player_has_the_move {
        if f.draw_claimed.contains(w) {
            if f.position_occurrence_count.iter().any(|(g2, n)| g2 == g && *n >= 3) {
                r.threefold_claim_correct.push((g.clone(), w.clone())); // ThreefoldClaimCorrect
                r.game_drawn_definite.push(g.clone()); // ThreefoldClaimDraws
            }
            if f.moves_by_each_without_pawn_or_capture.iter().any(|(g2, n)| g2 == g && *n >= 50) {
                r.fifty_move_claim_correct.push((g.clone(), w.clone())); // FiftyMoveClaimCorrect
                r.game_drawn_definite.push(g.clone()); // FiftyMoveClaimDraws
            }
        }
    }
    for (g, n) in &f.position_occurrence_count {
        if *n >= 5 {
            r.game_drawn_definite.push(g.clone()); // FivefoldAutomaticDraw
        }
    }
    for (g, n) in &f.moves_by_each_without_pawn_or_capture {
        if *n >= 75 {
            r.drawn_75.push(g.clone()); // SeventyFiveAutomaticDraw (defeasible)
        }
    }

    // game_drawn against ~game_drawn. The strict draws are definite; nothing beats them. The
    // 75-move draw (defeasible) is attacked by CheckmateTakesPrecedenceOverSeventyFive, which
    // beats it (CheckmateOverSeventyFiveMoves); nothing beats the checkmate rule. ~game_drawn is
    // never definite. So: game_drawn(g) when a strict draw applies, or the 75-move draw applies
    // and no checkmate attacks it; ~game_drawn(g) when checkmate applies and game_drawn(g) is
    // not definite (the only other attacker, the 75-move draw, is beaten).
    sort_dedup(&mut r.game_drawn_definite);
    sort_dedup(&mut r.drawn_75);
    sort_dedup(&mut r.checkmate_over_75);
    r.game_drawn.extend(r.game_drawn_definite.iter().cloned());
    for g in &r.drawn_75 {
        if !r.checkmate_over_75.contains(g) {
            r.game_drawn.push(g.clone());
        }
    }
    for g in &r.checkmate_over_75 {
        if !r.game_drawn_definite.contains(g) {
            r.not_game_drawn.push(g.clone());
        }
    }

    // The GamePlay procedure, definite and concluded.
    game_play(f, r, true);
    let (entered, valid) = (std::mem::take(&mut r.entered), std::mem::take(&mut r.valid));
    r.entered_state_definite.extend(entered.iter().map(|(g, s)| (g.clone(), E::state(*s))));
    r.valid_transition_definite.extend(valid.iter().map(|(g, t)| (g.clone(), E::transition(*t))));
    (r.entered, r.valid) = (entered, valid);
    game_play(f, r, false);
    r.entered_state.extend(r.entered.iter().map(|(g, s)| (g.clone(), E::state(*s))));
    r.valid_transition.extend(r.valid.iter().map(|(g, t)| (g.clone(), E::transition(*t))));

    r.finish();
}

/// `entered_state` / `valid_transition` of the GamePlay procedure into `r.entered` / `r.valid`:
/// `GamePlay/initial` and then the transition table to its fixpoint. With `definite`, premises
/// must be definite (`+D`); otherwise `established` premises must be concluded and `supported`
/// ones supported. Nothing attacks either relation, so supported and concluded coincide.
fn game_play<E: Ent>(f: &Facts<E>, r: &mut Ruling<E>, definite: bool) {
    r.entered.clear();
    r.valid.clear();
    for g in &f.procedure_instance {
        r.entered.push((g.clone(), State::NotStarted)); // GamePlay/initial
    }
    loop {
        let mut changed = false;
        for (g, t) in &f.attempted_transition {
            let Some(t) = t.as_transition() else { continue };
            let (_, from, to, premise) = GAME_PLAY[t as usize];
            if r.valid.iter().any(|(g2, t2)| g2 == g && *t2 == t) {
                continue;
            }
            let holds = match premise {
                Premise::PlayStarted => f.play_started.contains(g),
                Premise::LegalMove => r.legal_move.contains(g),
                Premise::AgreedDrawEnded => r.agreed_draw_has_ended_the_game.contains(g),
                Premise::CheckmateDelivered => r.checkmate_has_been_delivered.contains(g),
                Premise::DeadPositionEnded => r.dead_position_has_ended_the_game.contains(g),
                Premise::GameDrawn if definite => r.game_drawn_definite.contains(g),
                Premise::GameDrawn => r.game_drawn.contains(g),
                Premise::ResignationEnded => r.resignation_has_ended_the_game.contains(g),
                Premise::SecondIllegalMoveEnded => r.second_illegal_move_has_ended_the_game.contains(g),
                Premise::StalemateEnded => r.stalemate_has_ended_the_game.contains(g),
            };
            if holds && r.entered.iter().any(|(g2, s)| g2 == g && *s == from) {
                r.valid.push((g.clone(), t)); // GamePlay/<t>/valid
                if !r.entered.iter().any(|(g2, s)| g2 == g && *s == to) {
                    r.entered.push((g.clone(), to)); // GamePlay/<t>/enters
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// In memory: a clir::Batch in, a clir::Output out.

/// Relation numbers of the compiled package's schema, looked up once.
struct Layout {
    /// Per input relation (order of `Facts`).
    input: Vec<usize>,
    /// Per output relation (order of `Ruling::visit`).
    output: Vec<usize>,
}

fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let rel = |name: &str| SCHEMA.relation(name).unwrap_or_else(|| panic!("no relation {name}"));
        struct Names(Vec<usize>, fn(&str) -> usize);
        impl Sink<i64> for Names {
            fn rel<T: Tup<i64>>(&mut self, name: &'static str, _: bool, _: &[T], _: &[T]) {
                self.0.push((self.1)(name));
            }
        }
        fn by_name(name: &str) -> usize {
            SCHEMA.relation(name).unwrap_or_else(|| panic!("no relation {name}"))
        }
        let mut names = Names(Vec::new(), by_name);
        Ruling::<i64>::default().visit(&mut names);
        Layout { input: INPUT_RELATIONS.iter().map(|n| rel(n)).collect(), output: names.0 }
    })
}

/// Writes a ruling's relations as flat rows of `case`.
struct FlatSink<'o> {
    out: &'o mut Output,
    rels: &'static [usize],
    next: usize,
    case: i64,
}

impl Sink<i64> for FlatSink<'_> {
    fn rel<T: Tup<i64>>(&mut self, _: &'static str, negative: bool, concluded: &[T], definite: &[T]) {
        let s = slot(self.rels[self.next], negative);
        self.next += 1;
        for (rows, tuples) in [(&mut self.out.concluded[s], concluded), (&mut self.out.definite[s], definite)] {
            for t in tuples {
                rows.push(self.case);
                t.cols(&mut |v| rows.push(*v));
            }
        }
    }
}

/// Rules every case of `batch`, one after the other, into the compiled package's output shape.
pub fn evaluate(batch: &Batch) -> Output {
    let layout = layout();
    let n = SCHEMA.relations.len();
    let mut out = Output {
        concluded: vec![Vec::new(); 2 * n],
        definite: vec![Vec::new(); 2 * n],
        contradictions: vec![Vec::new(); n],
        ..Output::default()
    };
    // Rows of a slot come in case order from the JSONL path and the typed builder; sort a copy
    // of anything else.
    let in_order = layout.input.iter().all(|&rel| {
        [false, true].iter().all(|&neg| {
            let stride = SCHEMA.relations[rel].params.len() + 1;
            let rows = &batch.facts[slot(rel, neg)];
            rows.chunks_exact(stride).zip(rows.chunks_exact(stride).skip(1)).all(|(a, b)| a[0] <= b[0])
        })
    });
    let sorted;
    let facts: &[Vec<i64>] = if in_order {
        &batch.facts
    } else {
        sorted = batch
            .facts
            .iter()
            .enumerate()
            .map(|(s, rows)| {
                let stride = SCHEMA.relations[s / 2].params.len() + 1;
                let mut v: Vec<&[i64]> = rows.chunks_exact(stride).collect();
                v.sort_by_key(|r| r[0]);
                v.concat()
            })
            .collect::<Vec<_>>();
        &sorted
    };
    let mut cursors = vec![0usize; 2 * layout.input.len()];
    let mut f = Facts::<i64>::default();
    let mut r = Ruling::<i64>::default();
    for case in 0..batch.cases as i64 {
        f.clear();
        f.load(facts, layout, case, &mut cursors);
        rule(&f, &mut r);
        r.visit(&mut FlatSink { out: &mut out, rels: &layout.output, next: 0, case });
        f.contradictions(case, layout, &mut out.contradictions);
        // game_drawn is the only relation with rules for both signs, and ~game_drawn is never
        // definite: no contradiction among conclusions.
    }
    out
}

// ---------------------------------------------------------------------------------------------
// JSON Lines: a case line in, a ruling line out.

/// Reads a case line's `facts`.
struct FactsSeed<'f, 'de> {
    facts: &'f mut Facts<Name<'de>>,
    grant: bool,
}

impl<'de> DeserializeSeed<'de> for FactsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FactsSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of relation names to lists of tuples")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let mut seen = 0u128;
        while let Some(key) = m.next_key::<Name<'de>>()? {
            self.facts.read_key(&key.0, &mut m, self.grant, &mut seen)?;
        }
        Ok(())
    }
}

/// Reads a whole case line: `{"case":..,"facts":{..}}`.
struct LineSeed<'f, 'de> {
    facts: &'f mut Facts<Name<'de>>,
    grant: bool,
}

impl<'de> DeserializeSeed<'de> for LineSeed<'_, 'de> {
    type Value = CaseValue<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<CaseValue<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_, 'de> {
    type Value = CaseValue<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a case object {\"case\":..., \"facts\":{...}}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<CaseValue<'de>, A::Error> {
        let (mut case, mut facts) = (None, false);
        while let Some(key) = m.next_key::<Name<'de>>()? {
            match &*key.0 {
                "case" if case.is_none() => case = Some(m.next_value::<CaseValue<'de>>()?),
                "facts" if !facts => {
                    m.next_value_seed(FactsSeed { facts: &mut *self.facts, grant: self.grant })?;
                    facts = true;
                }
                "case" | "facts" => return Err(de::Error::custom(format!("duplicate key `{}`", key.0))),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key `{other}` (a case has only `case` and `facts`)"
                    )))
                }
            }
        }
        if !facts {
            return Err(de::Error::custom("missing key `facts`"));
        }
        case.ok_or_else(|| de::Error::custom("missing key `case`"))
    }
}

/// Writes `s` as a JSON string.
fn json_str(out: &mut String, s: &str) {
    if s.bytes().all(|b| PLAIN_ASCII[b as usize] || b >= 0x80) {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&serde_json::Value::from(s).to_string());
    }
}

/// Writes the `concluded` and `definite` objects of a ruling line.
struct JsonSink {
    concluded: String,
    definite: String,
}

impl<'a> Sink<Name<'a>> for JsonSink {
    fn rel<T: Tup<Name<'a>>>(&mut self, name: &'static str, negative: bool, concluded: &[T], definite: &[T]) {
        for (out, tuples) in [(&mut self.concluded, concluded), (&mut self.definite, definite)] {
            if tuples.is_empty() {
                continue;
            }
            if out.len() > 1 {
                out.push(',');
            }
            out.push('"');
            if negative {
                out.push('~');
            }
            out.push_str(name);
            out.push_str("\":[");
            for (i, t) in tuples.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                let mut first = true;
                t.cols(&mut |n| {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    json_str(out, &n.0);
                });
                out.push(']');
            }
            out.push(']');
        }
    }
}

/// A case's `case` value: a string borrowed from the line, or any other JSON value.
enum CaseValue<'a> {
    Name(Name<'a>),
    Other(serde_json::Value),
}

impl<'de> Deserialize<'de> for CaseValue<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CaseValue<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Name(Name(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Name(Name(Cow::Owned(v.to_owned()))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Other(v.into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Other(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Other(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Other(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<CaseValue<'de>, E> {
                Ok(CaseValue::Other(serde_json::Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<CaseValue<'de>, A::Error> {
                Deserialize::deserialize(de::value::SeqAccessDeserializer::new(s)).map(CaseValue::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<CaseValue<'de>, A::Error> {
                Deserialize::deserialize(de::value::MapAccessDeserializer::new(m)).map(CaseValue::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// What ruling a line needs, kept from line to line (the lines of one block of input), so
/// that a case allocates nothing once the buffers have grown.
pub struct LineRuler<'a> {
    facts: Facts<Name<'a>>,
    ruling: Ruling<Name<'a>>,
    sink: JsonSink,
    contradictions: Vec<String>,
    grant: bool,
}

impl<'a> LineRuler<'a> {
    /// A ruler; `grant` stands for `--grant judgment:FIDEArbiter`.
    pub fn new(grant: bool) -> Self {
        LineRuler {
            facts: Facts::default(),
            ruling: Ruling::default(),
            sink: JsonSink { concluded: String::new(), definite: String::new() },
            contradictions: Vec::new(),
            grant,
        }
    }

    /// Rules one case line (line number `no`), appending its ruling line (with `\n`) to
    /// `out`. Returns whether it was an error line.
    pub fn rule_line(&mut self, line: &'a [u8], no: usize, out: &mut String) -> bool {
        self.facts.clear();
        let scanned = Scanner { s: line, at: 0 }.line(&mut self.facts, self.grant);
        let read = match scanned {
            Some(case) => Ok(CaseValue::Name(Name(Cow::Borrowed(case)))),
            None => {
                self.facts.clear();
                // serde_json checks UTF-8 as it reads strings; outside them any other byte is an error.
                let mut de = serde_json::Deserializer::from_slice(line);
                LineSeed { facts: &mut self.facts, grant: self.grant }
                    .deserialize(&mut de)
                    .and_then(|case| de.end().map(|_| case))
            }
        };
        let case = match read {
            Ok(case) => case,
            Err(_) if std::str::from_utf8(line).is_err() => {
                out.push_str("{\"case\":null,\"error\":");
                json_str(out, &format!("line {no}: the line is not UTF-8"));
                out.push_str("}\n");
                return true;
            }
            Err(e) => {
                let case = serde_json::from_slice::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v.get("case").cloned())
                    .unwrap_or(serde_json::Value::Null);
                out.push_str("{\"case\":");
                out.push_str(&case.to_string());
                out.push_str(",\"error\":");
                json_str(out, &format!("line {no}: {e}"));
                out.push_str("}\n");
                return true;
            }
        };
        rule(&self.facts, &mut self.ruling);
        self.sink.concluded.clear();
        self.sink.concluded.push('{');
        self.sink.definite.clear();
        self.sink.definite.push('{');
        self.ruling.visit(&mut self.sink);
        out.push_str("{\"case\":");
        match &case {
            CaseValue::Name(s) => json_str(out, &s.0),
            CaseValue::Other(other) => out.push_str(&other.to_string()),
        }
        out.push_str(",\"concluded\":");
        out.push_str(&self.sink.concluded);
        out.push_str("},\"definite\":");
        out.push_str(&self.sink.definite);
        out.push_str("},\"contradictions\":[");
        self.contradictions.clear();
        self.facts.contradictions(&mut self.contradictions);
        if !self.contradictions.is_empty() {
            self.contradictions.sort();
            self.contradictions.dedup();
            for (i, c) in self.contradictions.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str(out, c);
            }
        }
        out.push_str("]}\n");
        false
    }
}

/// Rules one case line (line number `no`), appending its ruling line (with `\n`) to `out`.
/// Returns whether it was an error line.
pub fn rule_line(line: &str, no: usize, grant: bool, out: &mut String) -> bool {
    LineRuler::new(grant).rule_line(line.as_bytes(), no, out)
}

/// Input is read in blocks of about this many bytes (whole lines; a longer line grows it).
const BLOCK: usize = 4 << 20;
/// Lines per parallel task.
const PART: usize = 512;

/// Rules every non-blank line of `input` on `threads` threads, one ruling line per case to
/// `output` in input order. A reader thread reads blocks of whole lines, each line is ruled
/// where it lies in its block (no copy per line), a block's lines in parallel parts of 512, and
/// a writer thread writes the rulings: reading, ruling and writing overlap.
/// `grant` stands for `--grant judgment:FIDEArbiter`. Returns (lines written, error lines).
pub fn rule_stream(
    input: impl Read + Send,
    output: impl Write + Send,
    threads: usize,
    grant: bool,
) -> io::Result<(u64, u64)> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().map_err(io::Error::other)?;
    let (blocks_tx, blocks) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
    let (ruled, ruled_rx) = std::sync::mpsc::sync_channel::<Vec<(String, u64)>>(2);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_blocks(input, blocks_tx));
        let writer = scope.spawn(move || -> io::Result<()> {
            let mut output = output;
            for parts in ruled_rx {
                for (s, _) in &parts {
                    output.write_all(s.as_bytes())?;
                }
            }
            output.flush()
        });
        let (mut lines, mut errors, mut no) = (0u64, 0u64, 0usize);
        for block in blocks {
            let mut list: Vec<(usize, &[u8])> = Vec::with_capacity(block.len() / 256);
            let mut start = 0;
            while start < block.len() {
                let stop = memchr::memchr(b'\n', &block[start..]).map_or(block.len(), |i| start + i);
                let raw = &block[start..stop];
                start = stop + 1;
                no += 1;
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                if raw.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                list.push((no, raw));
            }
            let parts: Vec<(String, u64)> = pool.install(|| {
                list.par_chunks(PART)
                    .map(|part| {
                        let mut s = String::with_capacity(part.iter().map(|(_, l)| l.len()).sum());
                        let mut ruler = LineRuler::new(grant);
                        let errs = part.iter().map(|&(no, line)| ruler.rule_line(line, no, &mut s) as u64).sum();
                        (s, errs)
                    })
                    .collect()
            });
            lines += list.len() as u64;
            errors += parts.iter().map(|(_, e)| e).sum::<u64>();
            if ruled.send(parts).is_err() {
                break;
            }
        }
        drop(ruled);
        let joined =
            |r: std::thread::Result<io::Result<()>>| r.unwrap_or_else(|_| Err(io::Error::other("a thread panicked")));
        joined(writer.join())?;
        joined(reader.join())?;
        Ok((lines, errors))
    })
}

/// Reads `input` in blocks of whole lines (the last one may lack its line break).
fn read_blocks(mut input: impl Read, blocks: std::sync::mpsc::SyncSender<Vec<u8>>) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let (mut filled, mut eof) = (0usize, false);
    while !eof || filled > 0 {
        while filled < buf.len() && !eof {
            match input.read(&mut buf[filled..]) {
                Ok(0) => eof = true,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let end = match memchr::memrchr(b'\n', &buf[..filled]) {
            Some(i) => i + 1,
            None if eof => filled,
            None => {
                buf.resize(buf.len() * 2, 0);
                continue;
            }
        };
        let mut next = vec![0u8; buf.len().max(BLOCK)];
        next[..filled - end].copy_from_slice(&buf[end..filled]);
        buf.truncate(end);
        if blocks.send(std::mem::replace(&mut buf, next)).is_err() {
            return Ok(());
        }
        filled -= end;
    }
    Ok(())
}
