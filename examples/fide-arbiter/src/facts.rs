//! The case facts of one game (docs/FORMAT.md "Case lines"), derived from the replay and, where the
//! board does not decide, from the Termination tags.

use crate::replay::{BoardEnd, Replay};
use serde_json::{json, Map, Value};
use shakmaty::{attacks, Bitboard, CastlingSide, Color, Position};
use std::collections::BTreeMap;

/// How the record says the game ended (Termination / TerminationDetails tags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagEnding {
    /// The tags say checkmate.
    Checkmate,
    /// The tags say stalemate.
    Stalemate,
    /// The tags say insufficient material or a dead position.
    DeadPosition,
    /// A resignation, by the named side if the tag names one.
    Resignation(Option<Color>),
    /// A draw by agreement.
    Agreement,
    /// A draw by repetition (a claim under Article 9.2).
    Repetition,
    /// A draw under the fifty-move rule (a claim under Article 9.3).
    FiftyMoves,
    /// Loss on time.
    TimeForfeit,
    /// Adjudicated under the tournament's rules.
    Adjudication,
    /// Disconnection, stalled connection, abandonment.
    Abandoned,
    /// An illegal move (not written in the movetext).
    IllegalMove,
    /// Not finished.
    Unterminated,
    /// PGN's `normal`: by the rules of chess (resignation or agreement where the board does not decide).
    Normal,
    /// No termination tag.
    Unknown,
    /// A termination text not understood.
    Other,
}

/// Reads one termination text.
pub fn classify(text: &str) -> TagEnding {
    let s = text.trim().to_ascii_lowercase();
    let has = |w: &str| s.contains(w);
    if s.is_empty() {
        TagEnding::Unknown
    } else if has("resign") {
        let side = if s.starts_with("white") {
            Some(Color::White)
        } else if s.starts_with("black") {
            Some(Color::Black)
        } else {
            None
        };
        TagEnding::Resignation(side)
    } else if has("agree") {
        TagEnding::Agreement
    } else if has("repetition") {
        TagEnding::Repetition
    } else if has("fifty") || has("50 move") || has("50-move") {
        TagEnding::FiftyMoves
    } else if has("time") || has("flag") {
        TagEnding::TimeForfeit
    } else if has("stalemate") {
        TagEnding::Stalemate
    } else if has("mate") {
        TagEnding::Checkmate
    } else if has("insufficient") || has("dead position") {
        TagEnding::DeadPosition
    } else if has("adjudicat")
        || has("tcec win")
        || has("tcec draw")
        || has("syzygy")
        || has("tb position")
        || has("tablebase")
    {
        TagEnding::Adjudication
    } else if has("disconnect") || has("stall") || has("abandon") {
        TagEnding::Abandoned
    } else if has("illegal") {
        TagEnding::IllegalMove
    } else if has("unterminated") {
        TagEnding::Unterminated
    } else if s == "normal" {
        TagEnding::Normal
    } else {
        TagEnding::Other
    }
}

/// The tag ending of a record: TerminationDetails if it says something understood, else
/// Termination.
pub fn tag_ending(details: Option<&str>, termination: Option<&str>) -> TagEnding {
    let d = details.map(classify).unwrap_or(TagEnding::Unknown);
    if !matches!(d, TagEnding::Unknown | TagEnding::Other) {
        return d;
    }
    match termination.map(classify) {
        Some(TagEnding::Unknown) | None => d,
        Some(t) => t,
    }
}

/// The facts of one case, by relation name.
#[derive(Debug, Default, Clone)]
pub struct Facts(pub BTreeMap<&'static str, Vec<Value>>);

impl Facts {
    fn add(&mut self, rel: &'static str, tuple: Value) {
        let v = self.0.entry(rel).or_default();
        if !v.contains(&tuple) {
            v.push(tuple);
        }
    }

    /// The JSONL case line.
    pub fn case_line(&self, case: &str) -> String {
        let facts: Map<String, Value> = self.0.iter().map(|(k, v)| (k.to_string(), Value::Array(v.clone()))).collect();
        json!({"case": case, "facts": facts}).to_string()
    }

    /// Whether relation `rel` has a tuple.
    pub fn has(&self, rel: &str) -> bool {
        self.0.get(rel).is_some_and(|v| !v.is_empty())
    }
}

/// The player entity of a colour.
pub fn player(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// What the tags contribute where the board does not decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagFacts {
    /// `player_resigned(who)`.
    Resigned(Color),
    /// `draw_agreed(g)`.
    DrawAgreed,
    /// `draw_claimed(player to move)` (repetition or fifty moves).
    DrawClaimed,
    /// `completed_illegal_move_count(player to move, 1)`.
    IllegalMoveAttempt,
    /// Nothing.
    None,
}

/// Resolves the tag ending to the facts it contributes, given the recorded result.
pub fn tag_facts(ending: &TagEnding, recorded: &str) -> TagFacts {
    let loser = match recorded {
        "1-0" => Some(Color::Black),
        "0-1" => Some(Color::White),
        _ => None,
    };
    match ending {
        TagEnding::Resignation(Some(c)) => TagFacts::Resigned(*c),
        TagEnding::Resignation(None) => loser.map_or(TagFacts::None, TagFacts::Resigned),
        TagEnding::Agreement => TagFacts::DrawAgreed,
        TagEnding::Normal => match (loser, recorded) {
            (Some(c), _) => TagFacts::Resigned(c),
            (None, "1/2-1/2") => TagFacts::DrawAgreed,
            _ => TagFacts::None,
        },
        TagEnding::Repetition | TagEnding::FiftyMoves => TagFacts::DrawClaimed,
        TagEnding::IllegalMove => TagFacts::IllegalMoveAttempt,
        _ => TagFacts::None,
    }
}

/// Derives the facts of game `g` from its replay and, where the board does not decide, the
/// tag facts.
pub fn derive(g: &str, r: &Replay, tags: TagFacts) -> Facts {
    let mut f = Facts::default();
    let pos = &r.pos;
    let mover = pos.turn();
    let (w, b) = ("white", "black");
    f.add("player_of", json!([g, w]));
    f.add("player_of", json!([g, b]));

    // The GamePlay procedure.
    f.add("procedure_instance", json!([g]));
    f.add("attempted_transition", json!([g, "StartPlay"]));
    if r.record_plies > 0 {
        f.add("play_started", json!([g]));
        f.add("attempted_transition", json!([g, "PlayMove"]));
    }
    if r.white_moved && r.black_moved {
        f.add("both_players_have_moved", json!([g]));
    }

    // Move legality (Articles 3.1 to 3.9) of the recorded moves.
    f.add("checked_game", json!([g]));
    if r.illegal.is_none() {
        f.add("move_meets_articles_3_1_to_3_9", json!([g]));
    }

    // The final position.
    f.add("player_has_the_move", json!([g, player(mover)]));
    f.add("position_occurrence_count", json!([g, r.occurrences]));
    f.add("moves_by_each_without_pawn_or_capture", json!([g, pos.halfmoves() / 2]));
    for end in &r.ends {
        match end {
            BoardEnd::Checkmate => f.add("checkmate_delivered", json!([g, player(!mover)])),
            BoardEnd::Stalemate => f.add("stalemate_arisen", json!([g])),
            BoardEnd::DeadPosition => f.add("dead_position_arisen", json!([g])),
            // Counts, given above.
            BoardEnd::Fivefold | BoardEnd::SeventyFiveMoves => {}
        }
    }
    match r.board() {
        Some(BoardEnd::Checkmate) => f.add("attempted_transition", json!([g, "ConcludeByCheckmate"])),
        Some(BoardEnd::Stalemate) => f.add("attempted_transition", json!([g, "ConcludeByStalemate"])),
        Some(BoardEnd::DeadPosition) => f.add("attempted_transition", json!([g, "ConcludeByDeadPosition"])),
        // The package's GamePlay procedure has no transition for the automatic draws of 9.6.
        Some(BoardEnd::Fivefold | BoardEnd::SeventyFiveMoves) | None => {}
    }

    // Pieces, and whether each king can still be checkmated (insufficient material only).
    for c in [Color::White, Color::Black] {
        let king = format!("{}_king", player(c));
        f.add("king_of", json!([player(c), king]));
        f.add("own_piece_of", json!([player(c), king]));
        f.add("checked_player", json!([player(c)]));
        if pos.has_insufficient_material(!c) {
            f.add("king_cannot_be_checkmated", json!([player(c)]));
        }
    }

    // Castling (Article 3.8.2) for every right still held.
    let board = pos.board();
    let occupied = board.occupied();
    for c in [Color::White, Color::Black] {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let Some(rook_sq) = pos.castles().rook(c, side) else { continue };
            let Some(king_sq) = board.king_of(c) else { continue };
            let name =
                format!("{}_{}", player(c), if side == CastlingSide::KingSide { "kingside" } else { "queenside" });
            let rook = format!("{}_rook_{}", player(c), rook_sq);
            let king = format!("{}_king", player(c));
            f.add("castling_side_of", json!([g, player(c), name, rook]));
            f.add("rook_of", json!([player(c), rook]));
            f.add("own_piece_of", json!([player(c), rook]));
            f.add("checked_piece", json!([king]));
            f.add("checked_piece", json!([rook]));
            f.add("checked_castling_side", json!([name]));
            if (pos.castles().path(c, side) & occupied).any() {
                f.add("castling_path_blocked", json!([name]));
            }
            let king_to = side.king_to(c);
            let king_path = attacks::between(king_sq, king_to) | Bitboard::from(king_sq) | Bitboard::from(king_to);
            if king_path.into_iter().any(|sq| board.attacks_to(sq, !c, occupied).any()) {
                f.add("castling_path_attacked", json!([name]));
            }
        }
    }
    // En passant (Article 3.7.3): the right is open after a two-square advance; a capturing
    // pawn is listed only where its capture is legal (the package's rule 3.7.3 does not
    // repeat the king-safety condition of 3.9, so a pinned pawn is left out).
    if r.last_double_push {
        f.add("en_passant_right_open", json!([g]));
        for m in pos.en_passant_moves() {
            let pawn = format!("{}_pawn_{}", player(mover), m.from().expect("a pawn move has an origin"));
            f.add("capturing_pawn_on_adjacent_file", json!([g, pawn]));
            f.add("own_piece_of", json!([player(mover), pawn]));
        }
    }

    // What the tags add where the board does not decide.
    if r.board().is_none() {
        match tags {
            TagFacts::Resigned(c) => {
                f.add("player_resigned", json!([player(c)]));
                f.add("attempted_transition", json!([g, "ConcludeByResignation"]));
            }
            TagFacts::DrawAgreed => {
                f.add("draw_agreed", json!([g]));
                f.add("attempted_transition", json!([g, "ConcludeByAgreement"]));
            }
            TagFacts::DrawClaimed => {
                f.add("draw_claimed", json!([player(mover)]));
                f.add("attempted_transition", json!([g, "ConcludeByDrawnClaim"]));
            }
            TagFacts::IllegalMoveAttempt => {
                f.add("completed_illegal_move_count", json!([player(mover), 1]));
            }
            TagFacts::None => {}
        }
    }
    f
}
