//! Replays a game record with shakmaty and stops where the Laws end the game on the board.

use crate::pgn::Record;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role, Square};
use std::collections::HashMap;

/// What the position alone decides (the `board` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoardEnd {
    /// Article 5.1.1.
    Checkmate,
    /// Article 5.2.1.
    Stalemate,
    /// Article 5.2.2 (only insufficient material is detected).
    DeadPosition,
    /// Article 9.6.1.
    Fivefold,
    /// Article 9.6.2.
    SeventyFiveMoves,
}

impl BoardEnd {
    /// The name used in the output.
    pub fn name(self) -> &'static str {
        match self {
            BoardEnd::Checkmate => "checkmate",
            BoardEnd::Stalemate => "stalemate",
            BoardEnd::DeadPosition => "dead_position",
            BoardEnd::Fivefold => "fivefold",
            BoardEnd::SeventyFiveMoves => "seventy_five_moves",
        }
    }
}

/// A position's identity under Article 9.2.3: same side to move, same pieces on the same
/// squares, same castling rights, and the same *legal* en passant capture (a pawn that could
/// be captured en passant only pseudo-legally does not make the position different).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PositionKey {
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    legal_ep: Option<Square>,
}

impl PositionKey {
    /// The identity of `pos`.
    pub fn of(pos: &Chess) -> Self {
        PositionKey {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling_rights: pos.castles().castling_rights(),
            legal_ep: pos.ep_square(EnPassantMode::Legal),
        }
    }
}

/// The result of a replay: the position where the game ended (or the record stops).
#[derive(Debug, Clone)]
pub struct Replay {
    /// The final position: where the board ended the game, or the record's last position, or
    /// the position before an illegal move.
    pub pos: Chess,
    /// Plies played up to that position.
    pub plies: usize,
    /// Plies in the record's main line.
    pub record_plies: usize,
    /// What the final position decides, in order of precedence.
    pub ends: Vec<BoardEnd>,
    /// Occurrences of the final position (Article 9.2.3 identity), counting the start.
    pub occurrences: u32,
    /// Whether White and Black each made at least one move.
    pub white_moved: bool,
    /// See `white_moved`.
    pub black_moved: bool,
    /// The last move was a two-square pawn advance (Article 3.7.3.1).
    pub last_double_push: bool,
    /// The first recorded move that is not legal, as `12... exf6`.
    pub illegal: Option<String>,
}

impl Replay {
    /// The first (highest-precedence) board ending.
    pub fn board(&self) -> Option<BoardEnd> {
        self.ends.first().copied()
    }

    /// Moves in the record after the game ended on the board.
    pub fn moves_after_end(&self) -> usize {
        if self.illegal.is_some() {
            0
        } else {
            self.record_plies - self.plies
        }
    }
}

fn ends_of(pos: &Chess, occurrences: u32) -> Vec<BoardEnd> {
    let mut ends = Vec::new();
    // One move generation for both: checkmate is check with no legal move, stalemate no check.
    if pos.legal_moves().is_empty() {
        ends.push(if pos.is_check() { BoardEnd::Checkmate } else { BoardEnd::Stalemate });
    }
    if pos.is_insufficient_material() {
        ends.push(BoardEnd::DeadPosition);
    }
    if occurrences >= 5 {
        ends.push(BoardEnd::Fivefold);
    }
    if pos.halfmoves() >= 150 {
        ends.push(BoardEnd::SeventyFiveMoves);
    }
    ends
}

/// The label of ply `ply` (0-based) from a position whose full move number is `start_fullmove`
/// with `start_turn` to move: `12.` or `12...`.
fn move_label(start_turn: Color, start_fullmove: u32, ply: usize) -> String {
    let offset = ply + usize::from(start_turn == Color::Black);
    let number = start_fullmove as usize + offset / 2;
    if offset.is_multiple_of(2) {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// The starting position: the standard one, or the `FEN` tag's.
pub fn start_position(rec: &Record) -> Result<Chess, String> {
    if let Some(v) = rec.tag("Variant") {
        let v = v.trim().to_ascii_lowercase();
        if !v.is_empty() && v != "standard" && v != "chess" {
            return Err(format!("variant `{v}` is not chess under the FIDE Laws; not supported"));
        }
    }
    match rec.tag("FEN") {
        None => Ok(Chess::default()),
        Some(fen) => {
            let fen = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| format!("FEN tag: {e}"))?;
            fen.into_position(CastlingMode::Standard).map_err(|e| format!("FEN tag: {e}"))
        }
    }
}

/// Replays `rec` until the board ends the game, the record ends, or a move is illegal.
/// Errors: a bad FEN or variant, or an ambiguous move (the record cannot be read).
pub fn replay(rec: &Record) -> Result<Replay, String> {
    let mut pos = start_position(rec)?;
    let start_turn = pos.turn();
    let start_fullmove = pos.fullmoves().get();
    let mut counts: HashMap<PositionKey, u32> = HashMap::with_capacity(rec.moves.len() + 1);
    counts.insert(PositionKey::of(&pos), 1);
    let mut out = Replay {
        ends: ends_of(&pos, 1),
        pos: pos.clone(),
        plies: 0,
        record_plies: rec.moves.len(),
        occurrences: 1,
        white_moved: false,
        black_moved: false,
        // A FEN's en passant field says a pawn has just advanced two squares.
        last_double_push: pos.maybe_ep_square().is_some(),
        illegal: None,
    };
    if !out.ends.is_empty() {
        return Ok(out);
    }
    for (ply, tok) in rec.moves.iter().enumerate() {
        if matches!(tok.san.san, San::Null) {
            return Err(format!(
                "{} {}: a null move is not a move",
                move_label(start_turn, start_fullmove, ply),
                tok.text
            ));
        }
        let m = match tok.san.san.to_move(&pos) {
            Ok(m) => m,
            Err(SanError::IllegalSan) => {
                out.illegal = Some(format!("{} {}", move_label(start_turn, start_fullmove, ply), tok.text));
                break;
            }
            Err(SanError::AmbiguousSan) => {
                return Err(format!(
                    "{} {}: ambiguous move, more than one piece can make it",
                    move_label(start_turn, start_fullmove, ply),
                    tok.text
                ))
            }
        };
        let mover = pos.turn();
        out.last_double_push =
            matches!(m, Move::Normal { role: Role::Pawn, from, to, .. } if from.rank().distance(to.rank()) == 2);
        pos.play_unchecked(m);
        match mover {
            Color::White => out.white_moved = true,
            Color::Black => out.black_moved = true,
        }
        let n = counts.entry(PositionKey::of(&pos)).or_insert(0);
        *n += 1;
        out.occurrences = *n;
        out.plies = ply + 1;
        let ends = ends_of(&pos, out.occurrences);
        if !ends.is_empty() {
            out.ends = ends;
            break;
        }
    }
    out.pos = pos;
    Ok(out)
}
