//! fide.laws.chess 0.1.0 in the `ascent` Datalog engine: one ascent rule per package rule (the
//! GamePlay procedure's once for `+D` and once for `+d`), every relation keyed by the case, a
//! whole `clir::Batch` per run, like the compiled package.
//!
//! The defeasible part is written with stratified negation, as SEMANTICS §4 reads for this
//! package: every premise of a strict rule for `game_drawn` is an input or comes from strict
//! rules over inputs, so such a rule is applicable exactly when its body is definite, and
//! `game_drawn_definite` stands for "some strict rule for game_drawn applies" too. The
//! 75-move draw is beaten by the checkmate rule (priority CheckmateOverSeventyFiveMoves);
//! nothing beats a strict draw or the checkmate rule. Closure policies are negations over their
//! domain.

#![allow(dead_code, clippy::all)]

use crate::fide_laws_chess::{GamePlayState, GamePlayTransition, SCHEMA};
use ascent::ascent;
use clir::{slot, Batch, Output};

type C = u32;
type V = i64;

const NOT_STARTED: V = GamePlayState::NOT_STARTED.0 .0 as V;
const PLAYING: V = GamePlayState::PLAYING.0 .0 as V;
const ENDED: V = GamePlayState::ENDED.0 .0 as V;
const START_PLAY: V = GamePlayTransition::START_PLAY.0 .0 as V;
const PLAY_MOVE: V = GamePlayTransition::PLAY_MOVE.0 .0 as V;
const BY_AGREEMENT: V = GamePlayTransition::CONCLUDE_BY_AGREEMENT.0 .0 as V;
const BY_CHECKMATE: V = GamePlayTransition::CONCLUDE_BY_CHECKMATE.0 .0 as V;
const BY_DEAD_POSITION: V = GamePlayTransition::CONCLUDE_BY_DEAD_POSITION.0 .0 as V;
const BY_DRAWN_CLAIM: V = GamePlayTransition::CONCLUDE_BY_DRAWN_CLAIM.0 .0 as V;
const BY_RESIGNATION: V = GamePlayTransition::CONCLUDE_BY_RESIGNATION.0 .0 as V;
const BY_SECOND_ILLEGAL_MOVE: V = GamePlayTransition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE.0 .0 as V;
const BY_STALEMATE: V = GamePlayTransition::CONCLUDE_BY_STALEMATE.0 .0 as V;

ascent! {
    pub struct Fide;

    // Inputs (the case first).
    relation arbiter_of(C, V, V);
    relation attempted_transition(C, V, V);
    relation both_players_have_moved(C, V);
    relation capturing_pawn_on_adjacent_file(C, V, V);
    relation case_not_precisely_regulated(C, V);
    relation castling_path_attacked(C, V);
    relation castling_path_blocked(C, V);
    relation castling_side_of(C, V, V, V, V);
    relation checked_castling_side(C, V);
    relation checked_game(C, V);
    relation checked_piece(C, V);
    relation checked_player(C, V);
    relation checkmate_delivered(C, V, V);
    relation completed_illegal_move_count(C, V, i64);
    relation dead_position_arisen(C, V);
    relation draw_agreed(C, V);
    relation draw_claimed(C, V);
    relation en_passant_right_open(C, V);
    relation king_cannot_be_checkmated(C, V);
    relation king_of(C, V, V);
    relation move_meets_articles_3_1_to_3_9(C, V);
    relation moves_by_each_without_pawn_or_capture(C, V, i64);
    relation own_piece_of(C, V, V);
    relation piece_can_be_moved(C, V);
    relation piece_has_moved(C, V);
    relation piece_touched_intentionally(C, V, V);
    relation play_started(C, V);
    relation player_has_the_move(C, V, V);
    relation player_of(C, V, V);
    relation player_resigned(C, V);
    relation position_occurrence_count(C, V, i64);
    relation procedure_instance(C, V);
    relation rook_of(C, V, V);
    relation stalemate_arisen(C, V);

    // Explicit negatives the rules use: given, or from a closure policy.
    relation not_castling_path_attacked(C, V);
    relation not_castling_path_blocked(C, V);
    relation not_king_cannot_be_checkmated(C, V);
    relation not_move_meets_articles_3_1_to_3_9(C, V);
    relation not_piece_has_moved(C, V);
    not_castling_path_attacked(c, k) <-- checked_castling_side(c, k), !castling_path_attacked(c, k);
    not_castling_path_blocked(c, k) <-- checked_castling_side(c, k), !castling_path_blocked(c, k);
    not_king_cannot_be_checkmated(c, w) <-- checked_player(c, w), !king_cannot_be_checkmated(c, w);
    not_move_meets_articles_3_1_to_3_9(c, g) <-- checked_game(c, g), !move_meets_articles_3_1_to_3_9(c, g);
    not_piece_has_moved(c, p) <-- checked_piece(c, p), !piece_has_moved(c, p);

    // Strict rules over definite premises: definite, and so concluded.
    relation agreed_draw_has_ended_the_game(C, V);
    relation arbiter_competent_to_decide(C, V);
    relation arbiter_shall_see_laws_observed(C, V, V);
    relation castling_legal(C, V, V, V);
    relation checkmate_has_been_delivered(C, V);
    relation dead_position_has_ended_the_game(C, V);
    relation en_passant_capture_legal(C, V, V);
    relation fifty_move_claim_correct(C, V, V);
    relation game_lost_by(C, V, V);
    relation game_won_by(C, V, V);
    relation illegal_move(C, V);
    relation legal_move(C, V);
    relation must_move_first_touched_piece(C, V, V);
    relation resignation_has_ended_the_game(C, V);
    relation second_illegal_move_has_ended_the_game(C, V);
    relation stalemate_has_ended_the_game(C, V);
    relation threefold_claim_correct(C, V, V);

    agreed_draw_has_ended_the_game(c, g) <-- both_players_have_moved(c, g), draw_agreed(c, g);
    arbiter_competent_to_decide(c, s) <-- case_not_precisely_regulated(c, s);
    arbiter_shall_see_laws_observed(c, a, g) <-- arbiter_of(c, g, a), play_started(c, g);
    castling_legal(c, g, w, side) <--
        castling_side_of(c, g, w, side, rook), rook_of(c, w, rook), player_has_the_move(c, g, w),
        not_piece_has_moved(c, rook), not_castling_path_blocked(c, side), not_castling_path_attacked(c, side),
        king_of(c, w, king), not_piece_has_moved(c, king);
    checkmate_has_been_delivered(c, g) <-- checkmate_delivered(c, g, _);
    dead_position_has_ended_the_game(c, g) <-- dead_position_arisen(c, g);
    en_passant_capture_legal(c, g, pawn) <--
        en_passant_right_open(c, g), player_has_the_move(c, g, _), capturing_pawn_on_adjacent_file(c, g, pawn);
    fifty_move_claim_correct(c, g, w) <--
        draw_claimed(c, w), player_has_the_move(c, g, w), moves_by_each_without_pawn_or_capture(c, g, n), if *n >= 50;
    game_won_by(c, g, w) <-- checkmate_delivered(c, g, w);
    game_lost_by(c, g, w) <-- player_of(c, g, w), player_resigned(c, w), not_king_cannot_be_checkmated(c, w);
    game_lost_by(c, g, w) <--
        completed_illegal_move_count(c, w, n), if *n >= 2, player_of(c, g, w), not_king_cannot_be_checkmated(c, w);
    illegal_move(c, g) <-- checked_game(c, g), not_move_meets_articles_3_1_to_3_9(c, g);
    legal_move(c, g) <-- move_meets_articles_3_1_to_3_9(c, g);
    must_move_first_touched_piece(c, w, p) <--
        own_piece_of(c, w, p), piece_touched_intentionally(c, w, p), piece_can_be_moved(c, p), player_has_the_move(c, _, w);
    resignation_has_ended_the_game(c, g) <-- player_of(c, g, w), player_resigned(c, w);
    second_illegal_move_has_ended_the_game(c, g) <-- completed_illegal_move_count(c, w, n), if *n >= 2, player_of(c, g, w);
    stalemate_has_ended_the_game(c, g) <-- stalemate_arisen(c, g);
    threefold_claim_correct(c, g, w) <--
        position_occurrence_count(c, g, n), if *n >= 3, player_has_the_move(c, g, w), draw_claimed(c, w);

    // game_drawn / ~game_drawn. Definite: the strict draws (nothing for ~game_drawn).
    relation game_drawn_definite(C, V);
    relation not_game_drawn_definite(C, V);
    game_drawn_definite(c, g) <-- both_players_have_moved(c, g), draw_agreed(c, g); // AgreedDraw
    game_drawn_definite(c, g) <-- dead_position_arisen(c, g); // DeadPositionDraws
    game_drawn_definite(c, g) <-- fifty_move_claim_correct(c, g, _); // FiftyMoveClaimDraws
    game_drawn_definite(c, g) <-- position_occurrence_count(c, g, n), if *n >= 5; // FivefoldAutomaticDraw
    game_drawn_definite(c, g) <-- // ResignationDrawnIfMateImpossible
        king_cannot_be_checkmated(c, w), player_of(c, g, w), player_resigned(c, w);
    game_drawn_definite(c, g) <-- // SecondIllegalMoveDrawnIfMateImpossible
        king_cannot_be_checkmated(c, w), completed_illegal_move_count(c, w, n), if *n >= 2, player_of(c, g, w);
    game_drawn_definite(c, g) <-- stalemate_arisen(c, g); // StalemateDraws
    game_drawn_definite(c, g) <-- threefold_claim_correct(c, g, _); // ThreefoldClaimDraws

    // The defeasible rules that apply.
    relation seventy_five_applies(C, V);
    relation checkmate_precedence_applies(C, V);
    seventy_five_applies(c, g) <-- moves_by_each_without_pawn_or_capture(c, g, n), if *n >= 75;
    checkmate_precedence_applies(c, g) <-- checkmate_delivered(c, g, _);

    // Applicable attacks that no applicable rule of the other side with priority beats.
    relation game_drawn_attacked(C, V);
    relation not_game_drawn_attacked(C, V);
    game_drawn_attacked(c, g) <-- checkmate_precedence_applies(c, g);
    not_game_drawn_attacked(c, g) <-- game_drawn_definite(c, g);
    not_game_drawn_attacked(c, g) <-- seventy_five_applies(c, g), !checkmate_precedence_applies(c, g);

    relation game_drawn(C, V);
    relation not_game_drawn(C, V);
    game_drawn(c, g) <-- game_drawn_definite(c, g);
    game_drawn(c, g) <-- seventy_five_applies(c, g), !not_game_drawn_definite(c, g), !game_drawn_attacked(c, g);
    not_game_drawn(c, g) <-- not_game_drawn_definite(c, g);
    not_game_drawn(c, g) <--
        checkmate_precedence_applies(c, g), !game_drawn_definite(c, g), !not_game_drawn_attacked(c, g);
    relation game_drawn_contradicted(C, V);
    game_drawn_contradicted(c, g) <-- game_drawn_definite(c, g), not_game_drawn_definite(c, g);

    // The GamePlay procedure, definite: every premise definite.
    relation entered_state_definite(C, V, V);
    relation valid_transition_definite(C, V, V);
    entered_state_definite(c, g, NOT_STARTED) <-- procedure_instance(c, g);
    valid_transition_definite(c, g, START_PLAY) <--
        attempted_transition(c, g, t), if *t == START_PLAY,
        entered_state_definite(c, g, s), if *s == NOT_STARTED, play_started(c, g);
    valid_transition_definite(c, g, PLAY_MOVE) <--
        attempted_transition(c, g, t), if *t == PLAY_MOVE,
        entered_state_definite(c, g, s), if *s == PLAYING, legal_move(c, g);
    valid_transition_definite(c, g, BY_AGREEMENT) <--
        attempted_transition(c, g, t), if *t == BY_AGREEMENT,
        entered_state_definite(c, g, s), if *s == PLAYING, agreed_draw_has_ended_the_game(c, g);
    valid_transition_definite(c, g, BY_CHECKMATE) <--
        attempted_transition(c, g, t), if *t == BY_CHECKMATE,
        entered_state_definite(c, g, s), if *s == PLAYING, checkmate_has_been_delivered(c, g);
    valid_transition_definite(c, g, BY_DEAD_POSITION) <--
        attempted_transition(c, g, t), if *t == BY_DEAD_POSITION,
        entered_state_definite(c, g, s), if *s == PLAYING, dead_position_has_ended_the_game(c, g);
    valid_transition_definite(c, g, BY_DRAWN_CLAIM) <--
        attempted_transition(c, g, t), if *t == BY_DRAWN_CLAIM,
        entered_state_definite(c, g, s), if *s == PLAYING, game_drawn_definite(c, g);
    valid_transition_definite(c, g, BY_RESIGNATION) <--
        attempted_transition(c, g, t), if *t == BY_RESIGNATION,
        entered_state_definite(c, g, s), if *s == PLAYING, resignation_has_ended_the_game(c, g);
    valid_transition_definite(c, g, BY_SECOND_ILLEGAL_MOVE) <--
        attempted_transition(c, g, t), if *t == BY_SECOND_ILLEGAL_MOVE,
        entered_state_definite(c, g, s), if *s == PLAYING, second_illegal_move_has_ended_the_game(c, g);
    valid_transition_definite(c, g, BY_STALEMATE) <--
        attempted_transition(c, g, t), if *t == BY_STALEMATE,
        entered_state_definite(c, g, s), if *s == PLAYING, stalemate_has_ended_the_game(c, g);
    entered_state_definite(c, g, PLAYING) <-- valid_transition_definite(c, g, t), if *t == START_PLAY || *t == PLAY_MOVE;
    entered_state_definite(c, g, ENDED) <--
        valid_transition_definite(c, g, t), if *t != START_PLAY && *t != PLAY_MOVE;

    // Concluded: `established` premises concluded, `supported` ones supported; nothing attacks
    // entered_state or valid_transition, so supported and concluded coincide.
    relation entered_state(C, V, V);
    relation valid_transition(C, V, V);
    entered_state(c, g, NOT_STARTED) <-- procedure_instance(c, g);
    valid_transition(c, g, START_PLAY) <--
        attempted_transition(c, g, t), if *t == START_PLAY,
        entered_state(c, g, s), if *s == NOT_STARTED, play_started(c, g);
    valid_transition(c, g, PLAY_MOVE) <--
        attempted_transition(c, g, t), if *t == PLAY_MOVE,
        entered_state(c, g, s), if *s == PLAYING, legal_move(c, g);
    valid_transition(c, g, BY_AGREEMENT) <--
        attempted_transition(c, g, t), if *t == BY_AGREEMENT,
        entered_state(c, g, s), if *s == PLAYING, agreed_draw_has_ended_the_game(c, g);
    valid_transition(c, g, BY_CHECKMATE) <--
        attempted_transition(c, g, t), if *t == BY_CHECKMATE,
        entered_state(c, g, s), if *s == PLAYING, checkmate_has_been_delivered(c, g);
    valid_transition(c, g, BY_DEAD_POSITION) <--
        attempted_transition(c, g, t), if *t == BY_DEAD_POSITION,
        entered_state(c, g, s), if *s == PLAYING, dead_position_has_ended_the_game(c, g);
    valid_transition(c, g, BY_DRAWN_CLAIM) <--
        attempted_transition(c, g, t), if *t == BY_DRAWN_CLAIM,
        entered_state(c, g, s), if *s == PLAYING, game_drawn(c, g);
    valid_transition(c, g, BY_RESIGNATION) <--
        attempted_transition(c, g, t), if *t == BY_RESIGNATION,
        entered_state(c, g, s), if *s == PLAYING, resignation_has_ended_the_game(c, g);
    valid_transition(c, g, BY_SECOND_ILLEGAL_MOVE) <--
        attempted_transition(c, g, t), if *t == BY_SECOND_ILLEGAL_MOVE,
        entered_state(c, g, s), if *s == PLAYING, second_illegal_move_has_ended_the_game(c, g);
    valid_transition(c, g, BY_STALEMATE) <--
        attempted_transition(c, g, t), if *t == BY_STALEMATE,
        entered_state(c, g, s), if *s == PLAYING, stalemate_has_ended_the_game(c, g);
    entered_state(c, g, PLAYING) <-- valid_transition(c, g, t), if *t == START_PLAY || *t == PLAY_MOVE;
    entered_state(c, g, ENDED) <-- valid_transition(c, g, t), if *t != START_PLAY && *t != PLAY_MOVE;
}

fn rel(name: &str) -> usize {
    SCHEMA.relation(name).unwrap_or_else(|| panic!("no relation {name}"))
}

/// Rows of an input relation as tuples `(case, cols..)`.
macro_rules! load {
    ($batch:expr, $name:literal, $neg:expr, 1) => {
        $batch.facts[slot(rel($name), $neg)].chunks_exact(2).map(|r| (r[0] as C, r[1])).collect()
    };
    ($batch:expr, $name:literal, $neg:expr, 2) => {
        $batch.facts[slot(rel($name), $neg)].chunks_exact(3).map(|r| (r[0] as C, r[1], r[2])).collect()
    };
    ($batch:expr, $name:literal, $neg:expr, 4) => {
        $batch.facts[slot(rel($name), $neg)].chunks_exact(5).map(|r| (r[0] as C, r[1], r[2], r[3], r[4])).collect()
    };
}

/// Sorted flat rows of an output relation.
macro_rules! rows {
    ($v:expr, 1) => {{
        let mut v: Vec<_> = $v.iter().map(|t| [t.0 as i64, t.1]).collect();
        v.sort_unstable();
        v.concat()
    }};
    ($v:expr, 2) => {{
        let mut v: Vec<_> = $v.iter().map(|t| [t.0 as i64, t.1, t.2]).collect();
        v.sort_unstable();
        v.concat()
    }};
    ($v:expr, 3) => {{
        let mut v: Vec<_> = $v.iter().map(|t| [t.0 as i64, t.1, t.2, t.3]).collect();
        v.sort_unstable();
        v.concat()
    }};
}

/// Rules a batch with the ascent program, into the compiled package's output shape.
pub fn evaluate(batch: &Batch) -> Output {
    let mut p = Fide::default();
    p.arbiter_of = load!(batch, "arbiter_of", false, 2);
    p.attempted_transition = load!(batch, "attempted_transition", false, 2);
    p.both_players_have_moved = load!(batch, "both_players_have_moved", false, 1);
    p.capturing_pawn_on_adjacent_file = load!(batch, "capturing_pawn_on_adjacent_file", false, 2);
    p.case_not_precisely_regulated = load!(batch, "case_not_precisely_regulated", false, 1);
    p.castling_path_attacked = load!(batch, "castling_path_attacked", false, 1);
    p.castling_path_blocked = load!(batch, "castling_path_blocked", false, 1);
    p.castling_side_of = load!(batch, "castling_side_of", false, 4);
    p.checked_castling_side = load!(batch, "checked_castling_side", false, 1);
    p.checked_game = load!(batch, "checked_game", false, 1);
    p.checked_piece = load!(batch, "checked_piece", false, 1);
    p.checked_player = load!(batch, "checked_player", false, 1);
    p.checkmate_delivered = load!(batch, "checkmate_delivered", false, 2);
    p.completed_illegal_move_count = load!(batch, "completed_illegal_move_count", false, 2);
    p.dead_position_arisen = load!(batch, "dead_position_arisen", false, 1);
    p.draw_agreed = load!(batch, "draw_agreed", false, 1);
    p.draw_claimed = load!(batch, "draw_claimed", false, 1);
    p.en_passant_right_open = load!(batch, "en_passant_right_open", false, 1);
    p.king_cannot_be_checkmated = load!(batch, "king_cannot_be_checkmated", false, 1);
    p.king_of = load!(batch, "king_of", false, 2);
    p.move_meets_articles_3_1_to_3_9 = load!(batch, "move_meets_articles_3_1_to_3_9", false, 1);
    p.moves_by_each_without_pawn_or_capture = load!(batch, "moves_by_each_without_pawn_or_capture", false, 2);
    p.own_piece_of = load!(batch, "own_piece_of", false, 2);
    p.piece_can_be_moved = load!(batch, "piece_can_be_moved", false, 1);
    p.piece_has_moved = load!(batch, "piece_has_moved", false, 1);
    p.piece_touched_intentionally = load!(batch, "piece_touched_intentionally", false, 2);
    p.play_started = load!(batch, "play_started", false, 1);
    p.player_has_the_move = load!(batch, "player_has_the_move", false, 2);
    p.player_of = load!(batch, "player_of", false, 2);
    p.player_resigned = load!(batch, "player_resigned", false, 1);
    p.position_occurrence_count = load!(batch, "position_occurrence_count", false, 2);
    p.procedure_instance = load!(batch, "procedure_instance", false, 1);
    p.rook_of = load!(batch, "rook_of", false, 2);
    p.stalemate_arisen = load!(batch, "stalemate_arisen", false, 1);
    p.not_castling_path_attacked = load!(batch, "castling_path_attacked", true, 1);
    p.not_castling_path_blocked = load!(batch, "castling_path_blocked", true, 1);
    p.not_king_cannot_be_checkmated = load!(batch, "king_cannot_be_checkmated", true, 1);
    p.not_move_meets_articles_3_1_to_3_9 = load!(batch, "move_meets_articles_3_1_to_3_9", true, 1);
    p.not_piece_has_moved = load!(batch, "piece_has_moved", true, 1);
    p.run();

    let n = SCHEMA.relations.len();
    let mut out = Output {
        concluded: vec![Vec::new(); 2 * n],
        definite: vec![Vec::new(); 2 * n],
        contradictions: vec![Vec::new(); n],
        ..Output::default()
    };
    macro_rules! both {
        ($name:literal, $rows:expr) => {{
            let s = slot(rel($name), false);
            out.concluded[s] = $rows;
            out.definite[s] = out.concluded[s].clone();
        }};
    }
    both!("agreed_draw_has_ended_the_game", rows!(p.agreed_draw_has_ended_the_game, 1));
    both!("arbiter_competent_to_decide", rows!(p.arbiter_competent_to_decide, 1));
    both!("arbiter_shall_see_laws_observed", rows!(p.arbiter_shall_see_laws_observed, 2));
    both!("castling_legal", rows!(p.castling_legal, 3));
    both!("checkmate_has_been_delivered", rows!(p.checkmate_has_been_delivered, 1));
    both!("dead_position_has_ended_the_game", rows!(p.dead_position_has_ended_the_game, 1));
    both!("en_passant_capture_legal", rows!(p.en_passant_capture_legal, 2));
    both!("fifty_move_claim_correct", rows!(p.fifty_move_claim_correct, 2));
    both!("game_lost_by", rows!(p.game_lost_by, 2));
    both!("game_won_by", rows!(p.game_won_by, 2));
    both!("illegal_move", rows!(p.illegal_move, 1));
    both!("legal_move", rows!(p.legal_move, 1));
    both!("must_move_first_touched_piece", rows!(p.must_move_first_touched_piece, 2));
    both!("resignation_has_ended_the_game", rows!(p.resignation_has_ended_the_game, 1));
    both!("second_illegal_move_has_ended_the_game", rows!(p.second_illegal_move_has_ended_the_game, 1));
    both!("stalemate_has_ended_the_game", rows!(p.stalemate_has_ended_the_game, 1));
    both!("threefold_claim_correct", rows!(p.threefold_claim_correct, 2));
    let gd = rel("game_drawn");
    out.concluded[slot(gd, false)] = rows!(p.game_drawn, 1);
    out.definite[slot(gd, false)] = rows!(p.game_drawn_definite, 1);
    out.concluded[slot(gd, true)] = rows!(p.not_game_drawn, 1);
    out.definite[slot(gd, true)] = rows!(p.not_game_drawn_definite, 1);
    out.contradictions[gd] = rows!(p.game_drawn_contradicted, 1);
    let es = rel("entered_state");
    out.concluded[slot(es, false)] = rows!(p.entered_state, 2);
    out.definite[slot(es, false)] = rows!(p.entered_state_definite, 2);
    let vt = rel("valid_transition");
    out.concluded[slot(vt, false)] = rows!(p.valid_transition, 2);
    out.definite[slot(vt, false)] = rows!(p.valid_transition_definite, 2);
    input_contradictions(batch, &mut out);
    out
}

/// Input literals given with both signs (closure negatives never meet a given positive).
pub fn input_contradictions(batch: &Batch, out: &mut Output) {
    for (r, info) in SCHEMA.relations.iter().enumerate() {
        if info.kind == clir::RelationKind::Institutional || batch.facts[slot(r, true)].is_empty() {
            continue;
        }
        let stride = info.params.len() + 1;
        let mut pos: Vec<&[i64]> = batch.facts[slot(r, false)].chunks_exact(stride).collect();
        pos.sort_unstable();
        let mut both: Vec<&[i64]> =
            batch.facts[slot(r, true)].chunks_exact(stride).filter(|t| pos.binary_search(t).is_ok()).collect();
        both.sort_unstable();
        both.dedup();
        out.contradictions[r] = both.concat();
    }
}
