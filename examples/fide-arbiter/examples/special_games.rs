//! Writes `data/special-cases.pgn`: hand-made game records for each special case of the
//! arbiter (stalemate, threefold and fivefold repetition, the fifty- and seventy-five-move
//! rules, a dead position, checkmate on the move that completes 75 moves, en passant captures
//! that are pseudo-legal but illegal, final-position castling and en passant, resignation and
//! agreement). The long quiet stretches are random walks (fixed seeds) over moves that neither
//! move a pawn, capture, give check nor repeat a position.
//!
//! `cargo run -p fide-arbiter --example special_games > examples/fide-arbiter/data/special-cases.pgn`

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Rank, Role};
use std::collections::HashSet;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn key(p: &Chess) -> String {
    Fen::from_position(p, EnPassantMode::Legal).to_string().rsplitn(3, ' ').nth(2).unwrap().to_string()
}

fn from_fen(fen: &str) -> Chess {
    Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap()
}

fn play_sans(pos: &mut Chess, sans: &str) -> Vec<Move> {
    sans.split_whitespace()
        .map(|s| {
            let m = San::from_ascii(s.as_bytes()).unwrap().to_move(pos).unwrap_or_else(|e| panic!("{s}: {e}"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// The last move of a walk, if one can be found.
type Finish<'a> = &'a dyn Fn(&Chess) -> Option<Move>;

/// A walk of `plies` quiet moves from `start` (after `prefix`), no position repeated, each
/// move accepted by `allow`; then `finish` may add a last move. Tries seeds until one works.
fn walk(
    start: &Chess,
    prefix: &[Move],
    plies: usize,
    allow: impl Fn(&Chess, Move) -> bool,
    finish: Option<Finish>,
) -> Vec<Move> {
    for seed in 1u64.. {
        let mut rng = Rng(seed);
        let mut pos = start.clone();
        let mut seen = HashSet::new();
        seen.insert(key(&pos));
        for m in prefix {
            pos.play_unchecked(*m);
            seen.insert(key(&pos));
        }
        let mut moves: Vec<Move> = prefix.to_vec();
        let mut ok = true;
        for _ in 0..plies {
            let cands: Vec<Move> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| !m.is_capture() && m.role() != Role::Pawn && !m.is_castle())
                .filter(|m| allow(&pos, *m))
                .filter(|m| {
                    let mut p = pos.clone();
                    p.play_unchecked(*m);
                    !p.is_check()
                        && !seen.contains(&key(&p))
                        && !p.legal_moves().is_empty()
                        && !p.is_insufficient_material()
                })
                .collect();
            if cands.is_empty() {
                ok = false;
                break;
            }
            let m = cands[(rng.next() % cands.len() as u64) as usize];
            pos.play_unchecked(m);
            seen.insert(key(&pos));
            moves.push(m);
        }
        if !ok {
            continue;
        }
        let Some(finish) = finish else { return moves };
        if let Some(m) = finish(&pos) {
            moves.push(m);
            return moves;
        }
    }
    unreachable!()
}

fn movetext(start: &Chess, moves: &[Move], tail: Option<&str>, result: &str) -> String {
    let mut pos = start.clone();
    let mut words = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let number = pos.fullmoves().get();
        if pos.turn() == Color::White {
            words.push(format!("{number}."));
        } else if i == 0 {
            words.push(format!("{number}..."));
        }
        words.push(SanPlus::from_move_and_play_unchecked(&mut pos, *m).to_string());
    }
    if let Some(t) = tail {
        if pos.turn() == Color::White {
            words.push(format!("{}.", pos.fullmoves().get()));
        }
        words.push(t.to_string());
    }
    words.push(result.to_string());
    let mut out = String::new();
    let mut col = 0;
    for w in words {
        if col > 0 && col + 1 + w.len() > 79 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(&w);
        col += w.len();
    }
    out
}

struct Game {
    event: &'static str,
    fen: Option<&'static str>,
    result: &'static str,
    termination: Option<&'static str>,
    moves: Vec<Move>,
    start: Chess,
    /// Written after the moves as is (an illegal move cannot be played here).
    tail: Option<&'static str>,
}

fn print(round: usize, g: &Game) {
    println!("[Event \"{}\"]", g.event);
    println!("[Site \"hand-made (fide-arbiter special cases)\"]");
    println!("[Date \"2026.11.29\"]");
    println!("[Round \"{round}\"]");
    println!("[White \"White\"]");
    println!("[Black \"Black\"]");
    println!("[Result \"{}\"]", g.result);
    if let Some(f) = g.fen {
        println!("[SetUp \"1\"]");
        println!("[FEN \"{f}\"]");
    }
    if let Some(t) = g.termination {
        println!("[Termination \"{t}\"]");
    }
    println!();
    println!("{}", movetext(&g.start, &g.moves, g.tail, g.result));
    println!();
}

fn sans(
    event: &'static str,
    fen: Option<&'static str>,
    line: &str,
    result: &'static str,
    termination: Option<&'static str>,
) -> Game {
    let start = fen.map_or_else(Chess::default, from_fen);
    let mut pos = start.clone();
    let moves = play_sans(&mut pos, line);
    Game { event, fen, result, termination, moves, start, tail: None }
}

#[allow(clippy::vec_init_then_push)]
fn main() {
    let mut games = Vec::new();
    games.push(sans(
        "stalemate",
        None,
        "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6",
        "1/2-1/2",
        Some("normal"),
    ));
    games.push(sans(
        "threefold repetition claimed",
        None,
        "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8",
        "1/2-1/2",
        Some("threefold repetition"),
    ));
    games.push(sans(
        "threefold repetition claimed too early",
        None,
        "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6",
        "1/2-1/2",
        Some("threefold repetition"),
    ));
    games.push(sans(
        "threefold repetition claimed, castling rights differ",
        None,
        "Nf3 Nf6 Rg1 Rg8 Rh1 Rh8 Rg1 Rg8 Rh1 Rh8",
        "1/2-1/2",
        Some("threefold repetition"),
    ));
    games.push(sans(
        "fivefold repetition",
        None,
        "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8",
        "1/2-1/2",
        Some("normal"),
    ));
    games.push(sans(
        "fivefold repetition, record goes on",
        None,
        "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#",
        "1-0",
        Some("normal"),
    ));

    // Fifty and seventy-five moves without pawn move or capture, from 1. e4 e5.
    let start = Chess::default();
    let mut p = start.clone();
    let prefix = play_sans(&mut p, "e4 e5");
    let fifty = walk(&start, &prefix, 100, |_, _| true, None);
    games.push(Game {
        event: "fifty-move rule claimed",
        fen: None,
        result: "1/2-1/2",
        termination: Some("fifty-move rule"),
        moves: fifty,
        start: start.clone(),
        tail: None,
    });
    let fifty_early = walk(&start, &prefix, 99, |_, _| true, None);
    games.push(Game {
        event: "fifty-move rule claimed one move early",
        fen: None,
        result: "1/2-1/2",
        termination: Some("fifty-move rule"),
        moves: fifty_early,
        start: start.clone(),
        tail: None,
    });
    let seventy_five = walk(&start, &prefix, 150, |_, _| true, None);
    games.push(Game {
        event: "seventy-five-move rule",
        fen: None,
        result: "1/2-1/2",
        termination: Some("normal"),
        moves: seventy_five,
        start: start.clone(),
        tail: None,
    });

    // Checkmate on the move that completes 75 moves by each player: a back-rank mate by
    // Black on ply 150; White's king keeps to the first rank.
    const MATE_FEN: &str = "rn2k3/8/8/8/8/8/5PPP/6K1 w - - 0 1";
    let mstart = from_fen(MATE_FEN);
    let mate75 = walk(
        &mstart,
        &[],
        149,
        |pos, m| pos.turn() == Color::Black || m.to().rank() == Rank::First,
        Some(&|pos: &Chess| {
            pos.legal_moves().into_iter().find(|m| {
                let mut p = pos.clone();
                p.play_unchecked(*m);
                !m.is_capture() && m.role() != Role::Pawn && p.is_checkmate()
            })
        }),
    );
    games.push(Game {
        event: "checkmate on the move that completes 75 moves",
        fen: Some(MATE_FEN),
        result: "0-1",
        termination: Some("normal"),
        moves: mate75,
        start: mstart,
        tail: None,
    });

    games.push(sans("dead position", Some("8/8/4k3/8/8/8/3B1r2/4K3 w - - 0 1"), "Kxf2", "1/2-1/2", Some("normal")));
    games.push(sans(
        "dead position, then a loss on time recorded",
        Some("8/8/4k3/8/8/8/3B1r2/4K3 w - - 0 1"),
        "Kxf2 Kd5 Ke3 Kc4",
        "0-1",
        Some("time forfeit"),
    ));

    // En passant: after 1... c5 the capture bxc6 is pseudo-legal but illegal (the b5 pawn
    // shields the a5 king from the h5 rook, and the capture empties the rank).
    const EP_FEN: &str = "4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1";
    let mut ep = sans("en passant capture pseudo-legal but illegal", Some(EP_FEN), "c5", "*", None);
    ep.tail = Some("bxc6");
    games.push(ep);
    games.push(sans(
        "fivefold repetition counting a position with an illegal en passant capture",
        Some(EP_FEN),
        "c5 Ka4 Kd8 Ka5 Ke8 Ka4 Kd8 Ka5 Ke8 Ka4 Kd8 Ka5 Ke8 Ka4 Kd8 Ka5 Ke8",
        "1/2-1/2",
        Some("normal"),
    ));
    games.push(sans(
        "final position with castling and en passant",
        None,
        "e4 e6 Nf3 Nc6 Bc4 Nf6 e5 d5",
        "1/2-1/2",
        Some("normal"),
    ));
    games.push(sans("resignation", None, "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7", "1-0", Some("Black resigns")));
    games.push(sans(
        "resignation by a player whose king cannot be checkmated",
        Some("8/8/4k3/8/5b2/8/8/Q3K3 w - - 0 1"),
        "Qa2+ Kf5",
        "0-1",
        Some("White resigns"),
    ));
    games.push(sans("draw agreed", None, "d4 d5 c4 e6", "1/2-1/2", Some("normal")));
    games.push(sans("draw agreed before Black moved", None, "e4", "1/2-1/2", Some("normal")));

    for (i, g) in games.iter().enumerate() {
        print(i + 1, g);
    }
}
