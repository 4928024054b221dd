//! Conformance of the compiled fide.laws.chess 0.1.0, rule by rule, through the typed API.
//!
//! For each of the package's 47 rules there is a case where it fires (its head is concluded,
//! and for a strict rule whose premises are definite, definite too) and a case where it is
//! blocked (a missing premise, an unknown fact: a closure policy that does not apply because its
//! domain fact is missing, an explicit negative, or an overriding rule). Tests are named after
//! the rule (`GamePlay/StartPlay/valid` -> `game_play_start_play_valid_fires`), and
//! `every_rule_has_a_firing_and_a_blocked_case` checks that against the package itself.
//!
//! Each case is written once against the typed builder (`Case`) through `Facts`, which forwards
//! every call to the typed builder and also writes the same fact down as JSON; so
//! `every_rule_case_agrees_with_the_reference_evaluator` can rule all of them again as one chunk
//! of JSON Lines and compare with the reference evaluator (`clir_reference::evaluate`).

clir::include_clir!("fide.laws.chess");

use clir::jsonl::{rule_chunk, Catalog, Options};
use clir::{Column, Conclusions, Package as _};
use clir_codegen::ir::Document;
use fide_laws_chess::{
    Arbiter, Case, Cases, CastlingSide, Game, GamePlayState as State, GamePlayTransition as Transition,
    JudgmentFideArbiterGrant as ArbiterGrant, Piece, Player, Situation,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt::Debug;

const FIDE: &[u8] = include_bytes!("../sources/fide.laws.chess-0.1.0.lawir.json");

// ---------------------------------------------------------------------------------------------
// Facts: the typed builder, with a JSON copy of every fact.

/// A case under construction: every fact goes to the typed builder and is also written down as
/// a docs/FORMAT.md "Case lines" fact, so the same case can be ruled through the JSONL path.
struct Facts<'a> {
    case: Case<'a>,
    /// Entity and constant names by their flat value.
    names: HashMap<i64, String>,
    facts: Map<String, Value>,
}

/// An argument of a fact, as JSON.
trait Arg: Column {
    fn json(self, names: &HashMap<i64, String>) -> Value;
}

macro_rules! entity_args {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn json(self, names: &HashMap<i64, String>) -> Value {
                let name = names.get(&self.to_flat()).unwrap_or_else(|| panic!("{self:?} was not made by `Facts`"));
                Value::String(name.clone())
            }
        }
    )*};
}
entity_args!(Arbiter, CastlingSide, Game, State, Transition, Piece, Player, Situation);

impl Arg for i64 {
    fn json(self, _: &HashMap<i64, String>) -> Value {
        Value::from(self)
    }
}

macro_rules! entities {
    ($($ctor:ident -> $t:ty),*) => {
        impl Facts<'_> {$(
            fn $ctor(&mut self, name: &str) -> $t {
                let e = self.case.$ctor(name);
                self.names.insert(e.to_flat(), name.to_string());
                e
            }
        )*}
    };
}
entities!(arbiter -> Arbiter, castling_side -> CastlingSide, game -> Game, piece -> Piece, player -> Player, situation -> Situation);

/// One forwarding method per input relation and sign, with the typed builder's signature
/// (judgment relations, marked `#[judgment]`, take the arbiter's grant first).
macro_rules! relations {
    ($($(#[$judgment:ident])? $rel:ident / $not:ident ($($a:ident: $t:ty),*);)*) => {
        #[allow(dead_code)] // the whole input surface, whether or not a case uses it
        impl Facts<'_> {$(
            relations!(@one $(#[$judgment])? $rel, stringify!($rel), ($($a: $t),*));
            relations!(@one $(#[$judgment])? $not, concat!("~", stringify!($rel)), ($($a: $t),*));
        )*}
    };
    (@one $method:ident, $key:expr, ($($a:ident: $t:ty),*)) => {
        fn $method(&mut self, $($a: $t),*) -> &mut Self {
            self.case.$method($($a),*);
            let args = vec![$($a.json(&self.names)),*];
            self.record($key.to_string(), args)
        }
    };
    (@one #[judgment] $method:ident, $key:expr, ($($a:ident: $t:ty),*)) => {
        fn $method(&mut self, grant: &ArbiterGrant, $($a: $t),*) -> &mut Self {
            self.case.$method(grant, $($a),*);
            let args = vec![$($a.json(&self.names)),*];
            self.record($key.to_string(), args)
        }
    };
}
relations! {
    arbiter_of / not_arbiter_of(game: Game, arb: Arbiter);
    attempted_transition / not_attempted_transition(instance: Game, transition: Transition);
    both_players_have_moved / not_both_players_have_moved(game: Game);
    capturing_pawn_on_adjacent_file / not_capturing_pawn_on_adjacent_file(game: Game, pawn: Piece);
    #[judgment] case_not_precisely_regulated / not_case_not_precisely_regulated(situation: Situation);
    castling_path_attacked / not_castling_path_attacked(side: CastlingSide);
    castling_path_blocked / not_castling_path_blocked(side: CastlingSide);
    castling_side_of / not_castling_side_of(game: Game, who: Player, side: CastlingSide, rook: Piece);
    checked_castling_side / not_checked_castling_side(side: CastlingSide);
    checked_game / not_checked_game(game: Game);
    checked_piece / not_checked_piece(piece: Piece);
    checked_player / not_checked_player(who: Player);
    checkmate_delivered / not_checkmate_delivered(game: Game, who: Player);
    completed_illegal_move_count / not_completed_illegal_move_count(who: Player, n: i64);
    dead_position_arisen / not_dead_position_arisen(game: Game);
    draw_agreed / not_draw_agreed(game: Game);
    draw_claimed / not_draw_claimed(who: Player);
    en_passant_right_open / not_en_passant_right_open(game: Game);
    king_cannot_be_checkmated / not_king_cannot_be_checkmated(who: Player);
    king_of / not_king_of(who: Player, king: Piece);
    move_meets_articles_3_1_to_3_9 / not_move_meets_articles_3_1_to_3_9(game: Game);
    moves_by_each_without_pawn_or_capture / not_moves_by_each_without_pawn_or_capture(game: Game, n: i64);
    own_piece_of / not_own_piece_of(who: Player, piece: Piece);
    piece_can_be_moved / not_piece_can_be_moved(piece: Piece);
    piece_has_moved / not_piece_has_moved(piece: Piece);
    #[judgment] piece_touched_intentionally / not_piece_touched_intentionally(who: Player, piece: Piece);
    play_started / not_play_started(game: Game);
    player_has_the_move / not_player_has_the_move(game: Game, who: Player);
    player_of / not_player_of(game: Game, who: Player);
    player_resigned / not_player_resigned(who: Player);
    position_occurrence_count / not_position_occurrence_count(game: Game, n: i64);
    procedure_instance / not_procedure_instance(instance: Game);
    rook_of / not_rook_of(who: Player, rook: Piece);
    stalemate_arisen / not_stalemate_arisen(game: Game);
}

impl<'a> Facts<'a> {
    fn new(mut case: Case<'a>) -> Self {
        let mut names = HashMap::new();
        for c in fide_laws_chess::SCHEMA.constants {
            let flat = match c.ty {
                "GamePlayState" => case.game_play_state(c.name).to_flat(),
                "GamePlayTransition" => case.game_play_transition(c.name).to_flat(),
                other => panic!("constant {} of an unexpected type {other}", c.name),
            };
            names.insert(flat, c.name.to_string());
        }
        Facts { case, names, facts: Map::new() }
    }

    fn id(&self) -> clir::CaseId {
        self.case.id()
    }

    fn record(&mut self, key: String, args: Vec<Value>) -> &mut Self {
        let list = self.facts.entry(key).or_insert_with(|| Value::Array(Vec::new()));
        list.as_array_mut().unwrap().push(Value::Array(args));
        self
    }

    /// The case as a docs/FORMAT.md "Case lines" object.
    fn to_json(&self, case: &str) -> Value {
        json!({"case": case, "facts": self.facts})
    }
}

/// A game that has started: its procedure instance exists, play started, and `StartPlay` was
/// attempted (so it entered `NotStarted`, then `Playing`).
fn started(c: &mut Facts, g: Game) {
    c.procedure_instance(g).play_started(g).attempted_transition(g, Transition::START_PLAY);
}

// ---------------------------------------------------------------------------------------------
// Assertions on typed conclusions.

/// `t` is concluded and definite (`+D`).
#[track_caller]
fn definite<T: PartialEq + Debug>(c: Conclusions<T>, t: T) {
    assert!(c.is_concluded(&t), "expected {t:?} concluded, got {c:?}");
    assert!(c.is_definite(&t), "expected {t:?} definite, got {c:?}");
}

/// `t` is concluded (`+d`) but not definite.
#[track_caller]
fn defeasibly<T: PartialEq + Debug>(c: Conclusions<T>, t: T) {
    assert!(c.is_concluded(&t), "expected {t:?} concluded, got {c:?}");
    assert!(!c.is_definite(&t), "expected {t:?} not definite, got {c:?}");
}

/// `t` is not concluded (nor definite).
#[track_caller]
fn not_concluded<T: PartialEq + Debug>(c: Conclusions<T>, t: T) {
    assert!(!c.is_concluded(&t), "expected {t:?} not concluded, got {c:?}");
    assert!(!c.is_definite(&t), "expected {t:?} not definite, got {c:?}");
}

/// Nothing at all is concluded for this relation and sign.
#[track_caller]
fn nothing<T: PartialEq + Debug>(c: Conclusions<T>) {
    assert!(c.concluded.is_empty() && c.definite.is_empty(), "expected nothing, got {c:?}");
}

// ---------------------------------------------------------------------------------------------
// The cases, two (or more) per rule. `fn NAME(c, r) { facts } then { checks }` makes a test that
// builds one case with `c: &mut Facts`, rules it, and checks the ruling `r`; `all_cases()` lists
// every case for the comparison with the reference evaluator.

macro_rules! rule_cases {
    ($($(#[$m:meta])* fn $name:ident($c:ident, $r:ident) { $($build:tt)* } then { $($check:tt)* })*) => {
        $(
            $(#[$m])*
            #[test]
            fn $name() {
                let mut cases = Cases::new();
                let mut facts = Facts::new(cases.case());
                let $c = &mut facts;
                $($build)*
                let id = facts.id();
                let rulings = cases.evaluate();
                assert_eq!(rulings.len(), 1);
                let $r = rulings.case(id);
                $($check)*
            }
        )*

        /// Every case above, by test name.
        #[allow(unused_variables)]
        fn all_cases() -> Vec<(&'static str, fn(&mut Facts<'_>))> {
            vec![$((stringify!($name), (|$c: &mut Facts<'_>| { $($build)* }) as fn(&mut Facts<'_>))),*]
        }
    };
}

rule_cases! {
    // ---- AgreedDraw (strict): game_drawn(g) :- both_players_have_moved(g), draw_agreed(g).
    fn agreed_draw_fires(c, r) {
        let g = c.game("g");
        c.both_players_have_moved(g).draw_agreed(g);
    } then {
        definite(r.game_drawn(), (g,));
        nothing(r.not_game_drawn());
    }
    fn agreed_draw_blocked_before_both_players_moved(c, r) {
        let g = c.game("g");
        c.draw_agreed(g);
    } then {
        not_concluded(r.game_drawn(), (g,));
        nothing(r.agreed_draw_has_ended_the_game());
    }

    // ---- AgreedDrawEndsTheGame (strict): agreed_draw_has_ended_the_game(g) :- both_players_have_moved(g), draw_agreed(g).
    fn agreed_draw_ends_the_game_fires(c, r) {
        let g = c.game("g");
        c.both_players_have_moved(g).draw_agreed(g);
    } then {
        definite(r.agreed_draw_has_ended_the_game(), (g,));
    }
    fn agreed_draw_ends_the_game_blocked_by_explicit_no_agreement(c, r) {
        let g = c.game("g");
        c.both_players_have_moved(g).not_draw_agreed(g);
    } then {
        not_concluded(r.agreed_draw_has_ended_the_game(), (g,));
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- ArbiterSeesLawsObserved (strict): arbiter_shall_see_laws_observed(a, g) :- arbiter_of(g, a), play_started(g).
    fn arbiter_sees_laws_observed_fires(c, r) {
        let (g, a) = (c.game("g"), c.arbiter("a"));
        c.arbiter_of(g, a).play_started(g);
    } then {
        definite(r.arbiter_shall_see_laws_observed(), (a, g));
    }
    fn arbiter_sees_laws_observed_blocked_in_a_game_not_started(c, r) {
        // The arbiter's game has not started; another game has.
        let (g, h, a) = (c.game("g"), c.game("h"), c.arbiter("a"));
        c.arbiter_of(g, a).play_started(h);
    } then {
        not_concluded(r.arbiter_shall_see_laws_observed(), (a, g));
        not_concluded(r.arbiter_shall_see_laws_observed(), (a, h));
        nothing(r.arbiter_shall_see_laws_observed());
    }

    // ---- CastlingLegal (strict), with closures over checked_piece and checked_castling_side.
    fn castling_legal_fires(c, r) {
        let (g, w, k, king, rook) = (c.game("g"), c.player("w"), c.castling_side("k"), c.piece("K"), c.piece("r"));
        c.castling_side_of(g, w, k, rook).king_of(w, king).rook_of(w, rook).player_has_the_move(g, w);
        c.checked_piece(king).checked_piece(rook).checked_castling_side(k);
    } then {
        // The closure negatives (~piece_has_moved, ~castling_path_*) are facts: definite.
        definite(r.castling_legal(), (g, w, k));
    }
    fn castling_legal_blocked_rook_history_unknown(c, r) {
        // The rook is not a checked piece: whether it moved is unknown, no closure applies.
        let (g, w, k, king, rook) = (c.game("g"), c.player("w"), c.castling_side("k"), c.piece("K"), c.piece("r"));
        c.castling_side_of(g, w, k, rook).king_of(w, king).rook_of(w, rook).player_has_the_move(g, w);
        c.checked_piece(king).checked_castling_side(k);
    } then {
        not_concluded(r.castling_legal(), (g, w, k));
    }
    fn castling_legal_blocked_king_has_moved(c, r) {
        let (g, w, k, king, rook) = (c.game("g"), c.player("w"), c.castling_side("k"), c.piece("K"), c.piece("r"));
        c.castling_side_of(g, w, k, rook).king_of(w, king).rook_of(w, rook).player_has_the_move(g, w);
        c.checked_piece(king).checked_piece(rook).checked_castling_side(k).piece_has_moved(king);
    } then {
        not_concluded(r.castling_legal(), (g, w, k));
    }
    fn castling_legal_blocked_path_blocked(c, r) {
        let (g, w, k, king, rook) = (c.game("g"), c.player("w"), c.castling_side("k"), c.piece("K"), c.piece("r"));
        c.castling_side_of(g, w, k, rook).king_of(w, king).rook_of(w, rook).player_has_the_move(g, w);
        c.checked_piece(king).checked_piece(rook).checked_castling_side(k).castling_path_blocked(k);
    } then {
        not_concluded(r.castling_legal(), (g, w, k));
    }
    fn castling_legal_blocked_opponent_has_the_move(c, r) {
        let (g, w, b, k, king, rook) =
            (c.game("g"), c.player("w"), c.player("b"), c.castling_side("k"), c.piece("K"), c.piece("r"));
        c.castling_side_of(g, w, k, rook).king_of(w, king).rook_of(w, rook).player_has_the_move(g, b);
        c.checked_piece(king).checked_piece(rook).checked_castling_side(k);
    } then {
        nothing(r.castling_legal());
    }

    // ---- CheckmateEndsTheGame (strict): checkmate_has_been_delivered(g) :- checkmate_delivered(g, w).
    fn checkmate_ends_the_game_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.checkmate_delivered(g, w);
    } then {
        definite(r.checkmate_has_been_delivered(), (g,));
    }
    fn checkmate_ends_the_game_blocked_by_explicit_no_checkmate(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.not_checkmate_delivered(g, w);
    } then {
        not_concluded(r.checkmate_has_been_delivered(), (g,));
        nothing(r.game_won_by());
    }

    // ---- CheckmateTakesPrecedenceOverSeventyFive (defeasible): ~game_drawn(g) :- checkmate_delivered(g, w),
    //      and it beats SeventyFiveAutomaticDraw (priority CheckmateOverSeventyFiveMoves).
    fn checkmate_takes_precedence_over_seventy_five_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.checkmate_delivered(g, w).moves_by_each_without_pawn_or_capture(g, 80);
    } then {
        defeasibly(r.not_game_drawn(), (g,));
        not_concluded(r.game_drawn(), (g,));
    }
    fn checkmate_takes_precedence_over_seventy_five_fires_alone(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.checkmate_delivered(g, w);
    } then {
        defeasibly(r.not_game_drawn(), (g,));
    }
    fn checkmate_takes_precedence_over_seventy_five_blocked_by_stalemate(c, r) {
        // StalemateDraws is strict: game_drawn(g) is definite, so ~game_drawn(g) cannot be concluded.
        let (g, w) = (c.game("g"), c.player("w"));
        c.checkmate_delivered(g, w).stalemate_arisen(g);
    } then {
        not_concluded(r.not_game_drawn(), (g,));
        definite(r.game_drawn(), (g,));
    }

    // ---- CheckmateWins (strict): game_won_by(g, w) :- checkmate_delivered(g, w).
    fn checkmate_wins_fires(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.player_of(g, w).player_of(g, b).checkmate_delivered(g, w);
    } then {
        definite(r.game_won_by(), (g, w));
        not_concluded(r.game_won_by(), (g, b));
    }
    fn checkmate_wins_blocked_without_checkmate(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.player_of(g, w).stalemate_arisen(g);
    } then {
        not_concluded(r.game_won_by(), (g, w));
        nothing(r.game_won_by());
    }

    // ---- DeadPositionDraws (strict): game_drawn(g) :- dead_position_arisen(g).
    fn dead_position_draws_fires(c, r) {
        let g = c.game("g");
        c.dead_position_arisen(g);
    } then {
        definite(r.game_drawn(), (g,));
    }
    fn dead_position_draws_blocked_by_explicit_no_dead_position(c, r) {
        let g = c.game("g");
        c.not_dead_position_arisen(g);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- DeadPositionEndsTheGame (strict): dead_position_has_ended_the_game(g) :- dead_position_arisen(g).
    fn dead_position_ends_the_game_fires(c, r) {
        let g = c.game("g");
        c.dead_position_arisen(g);
    } then {
        definite(r.dead_position_has_ended_the_game(), (g,));
    }
    fn dead_position_ends_the_game_blocked_by_stalemate_instead(c, r) {
        let g = c.game("g");
        c.stalemate_arisen(g);
    } then {
        not_concluded(r.dead_position_has_ended_the_game(), (g,));
        definite(r.stalemate_has_ended_the_game(), (g,));
    }

    // ---- EnPassantCaptureLegal (strict): en_passant_capture_legal(g, p) :-
    //      en_passant_right_open(g), player_has_the_move(g, w), capturing_pawn_on_adjacent_file(g, p).
    fn en_passant_capture_legal_fires(c, r) {
        let (g, w, p) = (c.game("g"), c.player("w"), c.piece("p"));
        c.en_passant_right_open(g).player_has_the_move(g, w).capturing_pawn_on_adjacent_file(g, p);
    } then {
        definite(r.en_passant_capture_legal(), (g, p));
    }
    fn en_passant_capture_legal_blocked_right_not_recorded(c, r) {
        // checked_game(g) closes en_passant_right_open: not recorded means not open.
        let (g, w, p) = (c.game("g"), c.player("w"), c.piece("p"));
        c.checked_game(g).player_has_the_move(g, w).capturing_pawn_on_adjacent_file(g, p);
    } then {
        not_concluded(r.en_passant_capture_legal(), (g, p));
    }

    // ---- FiftyMoveClaimCorrect (strict): fifty_move_claim_correct(g, w) :-
    //      n >= 50, draw_claimed(w), player_has_the_move(g, w), moves_by_each_without_pawn_or_capture(g, n).
    fn fifty_move_claim_correct_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.draw_claimed(w).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 50);
    } then {
        definite(r.fifty_move_claim_correct(), (g, w));
    }
    fn fifty_move_claim_correct_blocked_below_50(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.draw_claimed(w).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 49);
    } then {
        not_concluded(r.fifty_move_claim_correct(), (g, w));
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- FiftyMoveClaimDraws (strict): game_drawn(g) :- fifty_move_claim_correct(g, w).
    fn fifty_move_claim_draws_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.draw_claimed(w).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 50);
    } then {
        definite(r.game_drawn(), (g,));
    }
    fn fifty_move_claim_draws_blocked_claim_by_player_without_the_move(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.draw_claimed(b).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 60);
    } then {
        nothing(r.fifty_move_claim_correct());
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- FivefoldAutomaticDraw (strict): game_drawn(g) :- position_occurrence_count(g, n), n >= 5.
    fn fivefold_automatic_draw_fires(c, r) {
        let g = c.game("g");
        c.position_occurrence_count(g, 5);
    } then {
        definite(r.game_drawn(), (g,));
    }
    fn fivefold_automatic_draw_fires_at_the_largest_integer(c, r) {
        let (g, h) = (c.game("g"), c.game("h"));
        c.position_occurrence_count(g, i64::MAX).position_occurrence_count(h, 1).position_occurrence_count(h, 5);
    } then {
        definite(r.game_drawn(), (g,));
        definite(r.game_drawn(), (h,));
    }
    fn fivefold_automatic_draw_blocked_at_the_smallest_integer(c, r) {
        let g = c.game("g");
        c.position_occurrence_count(g, i64::MIN).position_occurrence_count(g, -5);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }
    fn fivefold_automatic_draw_blocked_below_5(c, r) {
        let g = c.game("g");
        c.position_occurrence_count(g, 4);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- GamePlay/initial (strict): entered_state(g, NotStarted) :- procedure_instance(g).
    fn game_play_initial_fires(c, r) {
        let g = c.game("g");
        c.procedure_instance(g);
    } then {
        definite(r.entered_state(), (g, State::NOT_STARTED));
        not_concluded(r.entered_state(), (g, State::PLAYING));
    }
    fn game_play_initial_blocked_without_procedure_instance(c, r) {
        let g = c.game("g");
        c.play_started(g).attempted_transition(g, Transition::START_PLAY);
    } then {
        nothing(r.entered_state());
        nothing(r.valid_transition());
    }

    // ---- GamePlay/StartPlay/valid (strict): valid_transition(g, StartPlay) :-
    //      attempted_transition(g, StartPlay), supported entered_state(g, NotStarted), play_started(g).
    fn game_play_start_play_valid_fires(c, r) {
        let g = c.game("g");
        started(c, g);
    } then {
        definite(r.valid_transition(), (g, Transition::START_PLAY));
    }
    fn game_play_start_play_valid_blocked_before_play_started(c, r) {
        let g = c.game("g");
        c.procedure_instance(g).attempted_transition(g, Transition::START_PLAY);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::START_PLAY));
        not_concluded(r.entered_state(), (g, State::PLAYING));
    }

    // ---- GamePlay/StartPlay/enters (strict): entered_state(g, Playing) :- supported valid_transition(g, StartPlay).
    fn game_play_start_play_enters_fires(c, r) {
        let g = c.game("g");
        started(c, g);
    } then {
        definite(r.entered_state(), (g, State::PLAYING));
        definite(r.entered_state(), (g, State::NOT_STARTED));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_start_play_enters_blocked_without_attempt(c, r) {
        let g = c.game("g");
        c.procedure_instance(g).play_started(g);
    } then {
        not_concluded(r.entered_state(), (g, State::PLAYING));
        definite(r.entered_state(), (g, State::NOT_STARTED));
    }

    // ---- GamePlay/PlayMove/valid (strict): valid_transition(g, PlayMove) :-
    //      attempted_transition(g, PlayMove), supported entered_state(g, Playing), legal_move(g).
    fn game_play_play_move_valid_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::PLAY_MOVE).move_meets_articles_3_1_to_3_9(g);
    } then {
        definite(r.valid_transition(), (g, Transition::PLAY_MOVE));
    }
    fn game_play_play_move_valid_blocked_illegal_move(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::PLAY_MOVE).checked_game(g);
    } then {
        definite(r.illegal_move(), (g,));
        not_concluded(r.valid_transition(), (g, Transition::PLAY_MOVE));
    }

    // ---- GamePlay/PlayMove/enters (strict): entered_state(g, Playing) :- supported valid_transition(g, PlayMove).
    //      Its head is also StartPlay's: PlayMove can only be valid once Playing was entered.
    fn game_play_play_move_enters_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::PLAY_MOVE).move_meets_articles_3_1_to_3_9(g);
    } then {
        definite(r.valid_transition(), (g, Transition::PLAY_MOVE));
        definite(r.entered_state(), (g, State::PLAYING));
    }
    fn game_play_play_move_enters_blocked_before_start(c, r) {
        // PlayMove and Playing would support each other; without StartPlay neither holds.
        let g = c.game("g");
        c.procedure_instance(g).play_started(g);
        c.attempted_transition(g, Transition::PLAY_MOVE).move_meets_articles_3_1_to_3_9(g);
    } then {
        definite(r.legal_move(), (g,));
        not_concluded(r.valid_transition(), (g, Transition::PLAY_MOVE));
        not_concluded(r.entered_state(), (g, State::PLAYING));
    }

    // ---- GamePlay/ConcludeByAgreement/valid (strict): valid_transition(g, ConcludeByAgreement) :-
    //      attempted_transition(g, ConcludeByAgreement), supported entered_state(g, Playing), agreed_draw_has_ended_the_game(g).
    fn game_play_conclude_by_agreement_valid_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_AGREEMENT).both_players_have_moved(g).draw_agreed(g);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_AGREEMENT));
    }
    fn game_play_conclude_by_agreement_valid_blocked_without_agreement(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_AGREEMENT).both_players_have_moved(g);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_AGREEMENT));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByAgreement/enters (strict): entered_state(g, Ended) :- supported valid_transition(g, ConcludeByAgreement).
    fn game_play_conclude_by_agreement_enters_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_AGREEMENT).both_players_have_moved(g).draw_agreed(g);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_agreement_enters_blocked_before_playing(c, r) {
        // The draw is agreed, but StartPlay was never attempted: the game is not Playing.
        let g = c.game("g");
        c.procedure_instance(g).play_started(g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_AGREEMENT).both_players_have_moved(g).draw_agreed(g);
    } then {
        definite(r.agreed_draw_has_ended_the_game(), (g,));
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_AGREEMENT));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByCheckmate/valid (strict).
    fn game_play_conclude_by_checkmate_valid_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_CHECKMATE).checkmate_delivered(g, w);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_CHECKMATE));
    }
    fn game_play_conclude_by_checkmate_valid_blocked_by_stalemate_instead(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_CHECKMATE).stalemate_arisen(g);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_CHECKMATE));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByCheckmate/enters (strict).
    fn game_play_conclude_by_checkmate_enters_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_CHECKMATE).checkmate_delivered(g, w);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_checkmate_enters_blocked_when_not_attempted(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.checkmate_delivered(g, w);
    } then {
        definite(r.checkmate_has_been_delivered(), (g,));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByDeadPosition/valid (strict).
    fn game_play_conclude_by_dead_position_valid_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DEAD_POSITION).dead_position_arisen(g);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_DEAD_POSITION));
    }
    fn game_play_conclude_by_dead_position_valid_blocked_by_explicit_no_dead_position(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DEAD_POSITION).not_dead_position_arisen(g);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_DEAD_POSITION));
    }

    // ---- GamePlay/ConcludeByDeadPosition/enters (strict).
    fn game_play_conclude_by_dead_position_enters_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DEAD_POSITION).dead_position_arisen(g);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_dead_position_enters_blocked_without_procedure_instance(c, r) {
        let g = c.game("g");
        c.play_started(g).attempted_transition(g, Transition::START_PLAY);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DEAD_POSITION).dead_position_arisen(g);
    } then {
        definite(r.dead_position_has_ended_the_game(), (g,));
        nothing(r.entered_state());
    }

    // ---- GamePlay/ConcludeByDrawnClaim/valid (strict), premise game_drawn(g) established.
    fn game_play_conclude_by_drawn_claim_valid_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DRAWN_CLAIM);
        c.draw_claimed(w).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 50);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_DRAWN_CLAIM));
    }
    fn game_play_conclude_by_drawn_claim_valid_fires_defeasibly_on_seventy_five_moves(c, r) {
        // game_drawn(g) is only defeasible: so is everything that rests on it.
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DRAWN_CLAIM).moves_by_each_without_pawn_or_capture(g, 75);
    } then {
        defeasibly(r.game_drawn(), (g,));
        defeasibly(r.valid_transition(), (g, Transition::CONCLUDE_BY_DRAWN_CLAIM));
        defeasibly(r.entered_state(), (g, State::ENDED));
        definite(r.entered_state(), (g, State::PLAYING));
    }
    fn game_play_conclude_by_drawn_claim_valid_blocked_when_checkmate_overrides_the_draw(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DRAWN_CLAIM);
        c.checkmate_delivered(g, w).moves_by_each_without_pawn_or_capture(g, 80);
    } then {
        not_concluded(r.game_drawn(), (g,));
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_DRAWN_CLAIM));
    }

    // ---- GamePlay/ConcludeByDrawnClaim/enters (strict).
    fn game_play_conclude_by_drawn_claim_enters_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DRAWN_CLAIM);
        c.draw_claimed(w).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 50);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_drawn_claim_enters_blocked_claim_by_player_without_the_move(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_DRAWN_CLAIM);
        c.draw_claimed(b).player_has_the_move(g, w).moves_by_each_without_pawn_or_capture(g, 50);
    } then {
        not_concluded(r.game_drawn(), (g,));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByResignation/valid (strict).
    fn game_play_conclude_by_resignation_valid_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_RESIGNATION).player_of(g, b).player_resigned(b);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_RESIGNATION));
    }
    fn game_play_conclude_by_resignation_valid_blocked_resigned_player_not_in_game(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_RESIGNATION).player_of(g, w).player_resigned(b);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_RESIGNATION));
    }

    // ---- GamePlay/ConcludeByResignation/enters (strict).
    fn game_play_conclude_by_resignation_enters_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_RESIGNATION).player_of(g, b).player_resigned(b);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_resignation_enters_blocked_before_play_started(c, r) {
        // StartPlay attempted but play never started: the game stays NotStarted.
        let (g, b) = (c.game("g"), c.player("b"));
        c.procedure_instance(g).attempted_transition(g, Transition::START_PLAY);
        c.attempted_transition(g, Transition::CONCLUDE_BY_RESIGNATION).player_of(g, b).player_resigned(b);
    } then {
        definite(r.resignation_has_ended_the_game(), (g,));
        not_concluded(r.entered_state(), (g, State::PLAYING));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeBySecondIllegalMove/valid (strict).
    fn game_play_conclude_by_second_illegal_move_valid_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE);
        c.player_of(g, b).completed_illegal_move_count(b, 2);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE));
    }
    fn game_play_conclude_by_second_illegal_move_valid_blocked_after_one_illegal_move(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE);
        c.player_of(g, b).completed_illegal_move_count(b, 1);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE));
    }

    // ---- GamePlay/ConcludeBySecondIllegalMove/enters (strict).
    fn game_play_conclude_by_second_illegal_move_enters_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE);
        c.player_of(g, b).completed_illegal_move_count(b, 2);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_second_illegal_move_enters_blocked_offender_not_in_game(c, r) {
        let (g, b, x) = (c.game("g"), c.player("b"), c.player("x"));
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_SECOND_ILLEGAL_MOVE);
        c.player_of(g, b).completed_illegal_move_count(x, 2);
    } then {
        not_concluded(r.second_illegal_move_has_ended_the_game(), (g,));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByStalemate/valid (strict).
    fn game_play_conclude_by_stalemate_valid_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_STALEMATE).stalemate_arisen(g);
    } then {
        definite(r.valid_transition(), (g, Transition::CONCLUDE_BY_STALEMATE));
    }
    fn game_play_conclude_by_stalemate_valid_blocked_by_dead_position_instead(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_STALEMATE).dead_position_arisen(g);
    } then {
        not_concluded(r.valid_transition(), (g, Transition::CONCLUDE_BY_STALEMATE));
        not_concluded(r.entered_state(), (g, State::ENDED));
    }

    // ---- GamePlay/ConcludeByStalemate/enters (strict).
    fn game_play_conclude_by_stalemate_enters_fires(c, r) {
        let g = c.game("g");
        started(c, g);
        c.attempted_transition(g, Transition::CONCLUDE_BY_STALEMATE).stalemate_arisen(g);
    } then {
        definite(r.entered_state(), (g, State::ENDED));
    }
    fn game_play_conclude_by_stalemate_enters_blocked_attempt_in_another_game(c, r) {
        let (g, h) = (c.game("g"), c.game("h"));
        started(c, g);
        c.attempted_transition(h, Transition::CONCLUDE_BY_STALEMATE).stalemate_arisen(g).stalemate_arisen(h);
    } then {
        not_concluded(r.entered_state(), (g, State::ENDED));
        not_concluded(r.entered_state(), (h, State::ENDED));
        assert_eq!(r.valid_transition().concluded, vec![(g, Transition::START_PLAY)]);
    }

    // ---- MoveIsIllegal (strict): illegal_move(g) :- checked_game(g), ~move_meets_articles_3_1_to_3_9(g).
    fn move_is_illegal_fires(c, r) {
        let g = c.game("g");
        c.checked_game(g);
    } then {
        definite(r.illegal_move(), (g,));
        not_concluded(r.legal_move(), (g,));
    }
    fn move_is_illegal_blocked_move_recorded_as_legal(c, r) {
        // The closure does not apply to a recorded move: ~move_meets_articles_3_1_to_3_9(g) is not derived.
        let g = c.game("g");
        c.checked_game(g).move_meets_articles_3_1_to_3_9(g);
    } then {
        not_concluded(r.illegal_move(), (g,));
        definite(r.legal_move(), (g,));
    }

    // ---- MoveIsLegal (strict): legal_move(g) :- move_meets_articles_3_1_to_3_9(g).
    fn move_is_legal_fires(c, r) {
        let g = c.game("g");
        c.move_meets_articles_3_1_to_3_9(g);
    } then {
        definite(r.legal_move(), (g,));
    }
    fn move_is_legal_blocked_by_explicit_negative(c, r) {
        // An explicit ~move_meets_articles_3_1_to_3_9(g) without checked_game(g): neither legal nor illegal.
        let g = c.game("g");
        c.not_move_meets_articles_3_1_to_3_9(g);
    } then {
        not_concluded(r.legal_move(), (g,));
        not_concluded(r.illegal_move(), (g,));
    }

    // ---- MustMoveFirstTouchedPiece (strict), with the arbiter's judgment piece_touched_intentionally.
    fn must_move_first_touched_piece_fires(c, r) {
        let (g, w, n) = (c.game("g"), c.player("w"), c.piece("n"));
        c.own_piece_of(w, n).piece_touched_intentionally(&ArbiterGrant::grant(), w, n);
        c.piece_can_be_moved(n).player_has_the_move(g, w);
    } then {
        definite(r.must_move_first_touched_piece(), (w, n));
    }
    fn must_move_first_touched_piece_blocked_arbiter_judged_unintentional(c, r) {
        let (g, w, n) = (c.game("g"), c.player("w"), c.piece("n"));
        c.own_piece_of(w, n).not_piece_touched_intentionally(&ArbiterGrant::grant(), w, n);
        c.piece_can_be_moved(n).player_has_the_move(g, w);
    } then {
        not_concluded(r.must_move_first_touched_piece(), (w, n));
    }
    fn must_move_first_touched_piece_blocked_piece_cannot_be_moved(c, r) {
        let (g, w, n) = (c.game("g"), c.player("w"), c.piece("n"));
        c.own_piece_of(w, n).piece_touched_intentionally(&ArbiterGrant::grant(), w, n);
        c.player_has_the_move(g, w);
    } then {
        not_concluded(r.must_move_first_touched_piece(), (w, n));
    }

    // ---- ResignationDrawnIfMateImpossible (strict): game_drawn(g) :-
    //      king_cannot_be_checkmated(p), player_of(g, p), player_resigned(p).
    fn resignation_drawn_if_mate_impossible_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b).king_cannot_be_checkmated(b);
    } then {
        definite(r.game_drawn(), (g,));
        not_concluded(r.game_lost_by(), (g, b));
    }
    fn resignation_drawn_if_mate_impossible_blocked_when_the_other_player_resigned(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.player_of(g, w).player_of(g, b).player_resigned(w).king_cannot_be_checkmated(b);
    } then {
        not_concluded(r.game_drawn(), (g,));
        nothing(r.game_lost_by());
        definite(r.resignation_has_ended_the_game(), (g,));
    }

    // ---- ResignationEndsTheGame (strict): resignation_has_ended_the_game(g) :- player_of(g, p), player_resigned(p).
    fn resignation_ends_the_game_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b);
    } then {
        definite(r.resignation_has_ended_the_game(), (g,));
    }
    fn resignation_ends_the_game_blocked_resigned_player_not_in_game(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.player_of(g, w).player_resigned(b);
    } then {
        not_concluded(r.resignation_has_ended_the_game(), (g,));
    }

    fn resignation_ends_the_game_fires_on_contradictory_facts(c, r) {
        // player_of(g, b) and ~player_of(g, b) are both facts: a contradiction, and still +D.
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).not_player_of(g, b).player_resigned(b);
    } then {
        definite(r.resignation_has_ended_the_game(), (g,));
    }

    // ---- ResignationLoses (strict): game_lost_by(g, p) :-
    //      ~king_cannot_be_checkmated(p), player_of(g, p), player_resigned(p).
    fn resignation_loses_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b).checked_player(b);
    } then {
        definite(r.game_lost_by(), (g, b));
        not_concluded(r.game_drawn(), (g,));
    }
    fn resignation_loses_fires_on_explicit_negative(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.player_of(g, w).player_of(g, b).player_resigned(b).not_king_cannot_be_checkmated(b);
    } then {
        definite(r.game_lost_by(), (g, b));
        not_concluded(r.game_lost_by(), (g, w));
    }
    fn resignation_loses_fires_on_contradictory_mate_possibility(c, r) {
        // Both signs of king_cannot_be_checkmated(b) are facts: both rules fire.
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b).checked_player(b);
        c.king_cannot_be_checkmated(b).not_king_cannot_be_checkmated(b);
    } then {
        definite(r.game_lost_by(), (g, b));
        definite(r.game_drawn(), (g,));
    }
    fn resignation_loses_blocked_mate_possibility_unknown(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b);
    } then {
        not_concluded(r.game_lost_by(), (g, b));
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- SecondIllegalMoveDrawnIfMateImpossible (strict): game_drawn(g) :-
    //      king_cannot_be_checkmated(p), completed_illegal_move_count(p, n), n >= 2, player_of(g, p).
    fn second_illegal_move_drawn_if_mate_impossible_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).completed_illegal_move_count(b, 2).king_cannot_be_checkmated(b);
    } then {
        definite(r.game_drawn(), (g,));
        not_concluded(r.game_lost_by(), (g, b));
    }
    fn second_illegal_move_drawn_if_mate_impossible_blocked_after_one_illegal_move(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).completed_illegal_move_count(b, 1).king_cannot_be_checkmated(b);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- SecondIllegalMoveEndsTheGame (strict): second_illegal_move_has_ended_the_game(g) :-
    //      completed_illegal_move_count(p, n), n >= 2, player_of(g, p).
    fn second_illegal_move_ends_the_game_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).completed_illegal_move_count(b, 2);
    } then {
        definite(r.second_illegal_move_has_ended_the_game(), (g,));
    }
    fn second_illegal_move_ends_the_game_blocked_one_illegal_move_each(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.player_of(g, w).player_of(g, b).completed_illegal_move_count(w, 1).completed_illegal_move_count(b, 1);
    } then {
        not_concluded(r.second_illegal_move_has_ended_the_game(), (g,));
    }

    // ---- SecondIllegalMoveLoses (strict): game_lost_by(g, p) :-
    //      ~king_cannot_be_checkmated(p), completed_illegal_move_count(p, n), n >= 2, player_of(g, p).
    fn second_illegal_move_loses_fires(c, r) {
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).completed_illegal_move_count(b, 3).checked_player(b);
    } then {
        definite(r.game_lost_by(), (g, b));
    }
    fn second_illegal_move_loses_blocked_mate_impossible(c, r) {
        // king_cannot_be_checkmated(b) is recorded: the closure does not derive its negative.
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).completed_illegal_move_count(b, 3).checked_player(b).king_cannot_be_checkmated(b);
    } then {
        not_concluded(r.game_lost_by(), (g, b));
        definite(r.game_drawn(), (g,));
    }

    // ---- SeventyFiveAutomaticDraw (defeasible): game_drawn(g) :- n >= 75, moves_by_each_without_pawn_or_capture(g, n).
    fn seventy_five_automatic_draw_fires(c, r) {
        let g = c.game("g");
        c.moves_by_each_without_pawn_or_capture(g, 75);
    } then {
        defeasibly(r.game_drawn(), (g,));
    }
    fn seventy_five_automatic_draw_blocked_below_75(c, r) {
        let g = c.game("g");
        c.moves_by_each_without_pawn_or_capture(g, 74);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }
    fn seventy_five_automatic_draw_fires_when_the_checkmate_is_in_another_game(c, r) {
        // The priority beats the attacking rule instance of the same game only.
        let (g, h, w) = (c.game("g"), c.game("h"), c.player("w"));
        c.moves_by_each_without_pawn_or_capture(g, 80).moves_by_each_without_pawn_or_capture(h, 80);
        c.checkmate_delivered(h, w);
    } then {
        defeasibly(r.game_drawn(), (g,));
        not_concluded(r.not_game_drawn(), (g,));
        not_concluded(r.game_drawn(), (h,));
        defeasibly(r.not_game_drawn(), (h,));
    }
    fn seventy_five_automatic_draw_blocked_by_checkmate_priority(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.moves_by_each_without_pawn_or_capture(g, 80).checkmate_delivered(g, w);
    } then {
        not_concluded(r.game_drawn(), (g,));
        defeasibly(r.not_game_drawn(), (g,));
        definite(r.game_won_by(), (g, w));
    }

    // ---- StalemateDraws (strict): game_drawn(g) :- stalemate_arisen(g).
    fn stalemate_draws_fires(c, r) {
        let g = c.game("g");
        c.stalemate_arisen(g);
    } then {
        definite(r.game_drawn(), (g,));
    }
    fn stalemate_draws_fires_over_defeasible_checkmate_precedence(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.stalemate_arisen(g).checkmate_delivered(g, w);
    } then {
        definite(r.game_drawn(), (g,));
        not_concluded(r.not_game_drawn(), (g,));
    }
    fn stalemate_draws_blocked_by_explicit_no_stalemate(c, r) {
        let g = c.game("g");
        c.not_stalemate_arisen(g);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- StalemateEndsTheGame (strict): stalemate_has_ended_the_game(g) :- stalemate_arisen(g).
    fn stalemate_ends_the_game_fires(c, r) {
        let g = c.game("g");
        c.stalemate_arisen(g);
    } then {
        definite(r.stalemate_has_ended_the_game(), (g,));
    }
    fn stalemate_ends_the_game_blocked_by_checkmate_instead(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.checkmate_delivered(g, w);
    } then {
        not_concluded(r.stalemate_has_ended_the_game(), (g,));
        definite(r.checkmate_has_been_delivered(), (g,));
    }

    // ---- ThreefoldClaimCorrect (strict): threefold_claim_correct(g, w) :-
    //      position_occurrence_count(g, n), draw_claimed(w), player_has_the_move(g, w), n >= 3.
    fn threefold_claim_correct_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.position_occurrence_count(g, 3).draw_claimed(w).player_has_the_move(g, w);
    } then {
        definite(r.threefold_claim_correct(), (g, w));
    }
    fn threefold_claim_correct_blocked_claim_by_player_without_the_move(c, r) {
        let (g, w, b) = (c.game("g"), c.player("w"), c.player("b"));
        c.position_occurrence_count(g, 3).draw_claimed(w).player_has_the_move(g, b);
    } then {
        not_concluded(r.threefold_claim_correct(), (g, w));
        nothing(r.threefold_claim_correct());
    }

    // ---- ThreefoldClaimDraws (strict): game_drawn(g) :- threefold_claim_correct(g, w).
    fn threefold_claim_draws_fires(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.position_occurrence_count(g, 3).draw_claimed(w).player_has_the_move(g, w);
    } then {
        definite(r.game_drawn(), (g,));
    }
    fn threefold_claim_draws_blocked_below_3(c, r) {
        let (g, w) = (c.game("g"), c.player("w"));
        c.position_occurrence_count(g, 2).draw_claimed(w).player_has_the_move(g, w);
    } then {
        not_concluded(r.game_drawn(), (g,));
    }

    // ---- UnregulatedCaseDecidedByArbiter (strict): arbiter_competent_to_decide(s) :- case_not_precisely_regulated(s) (judgment).
    fn unregulated_case_decided_by_arbiter_fires(c, r) {
        let s = c.situation("s");
        c.case_not_precisely_regulated(&ArbiterGrant::grant(), s);
    } then {
        definite(r.arbiter_competent_to_decide(), (s,));
    }
    fn unregulated_case_decided_by_arbiter_blocked_arbiter_judged_it_regulated(c, r) {
        let s = c.situation("s");
        c.not_case_not_precisely_regulated(&ArbiterGrant::grant(), s);
    } then {
        not_concluded(r.arbiter_competent_to_decide(), (s,));
    }
}

// ---------------------------------------------------------------------------------------------
// Cases in one batch do not leak into each other.

#[test]
fn cases_in_one_batch_do_not_leak_into_each_other() {
    let mut cases = Cases::new();
    fn none<T>() -> Conclusions<T> {
        Conclusions { concluded: vec![], definite: vec![] }
    }
    // Same entity names in every case, different facts. Entities are names: every case's
    // builder gives the same handle for the same name.
    let (g, b, lost) = {
        let mut c = cases.case();
        let (g, b) = (c.game("g"), c.player("b"));
        c.player_of(g, b).player_resigned(b).checked_player(b);
        (g, b, c.id())
    };
    let drawn = {
        let mut c = cases.case();
        let (g2, b2) = (c.game("g"), c.player("b"));
        assert_eq!((g2, b2), (g, b));
        c.player_of(g, b).player_resigned(b).checked_player(b).king_cannot_be_checkmated(b);
        c.id()
    };
    let unknown = {
        let mut c = cases.case();
        c.player_of(g, b).player_resigned(b);
        c.id()
    };
    let other_game = {
        let mut c = cases.case();
        let h = c.game("h");
        c.player_of(h, b).player_resigned(b).checked_player(b).stalemate_arisen(g);
        (c.id(), h)
    };
    let empty = cases.case().id();
    let rulings = cases.evaluate();
    assert_eq!(rulings.len(), 5);

    let r = rulings.case(lost);
    assert_eq!(r.game_lost_by(), Conclusions { concluded: vec![(g, b)], definite: vec![(g, b)] });
    assert_eq!(r.game_drawn(), none());
    assert_eq!(r.resignation_has_ended_the_game(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });

    let r = rulings.case(drawn);
    assert_eq!(r.game_lost_by(), none());
    assert_eq!(r.game_drawn(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });
    assert_eq!(r.resignation_has_ended_the_game(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });

    let r = rulings.case(unknown);
    assert_eq!(r.game_lost_by(), none());
    assert_eq!(r.game_drawn(), none());
    assert_eq!(r.resignation_has_ended_the_game(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });

    let (id, h) = other_game;
    let r = rulings.case(id);
    assert_eq!(r.game_lost_by(), Conclusions { concluded: vec![(h, b)], definite: vec![(h, b)] });
    assert_eq!(r.game_drawn(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });
    assert_eq!(r.resignation_has_ended_the_game(), Conclusions { concluded: vec![(h,)], definite: vec![(h,)] });
    assert_eq!(r.stalemate_has_ended_the_game(), Conclusions { concluded: vec![(g,)], definite: vec![(g,)] });

    let r = rulings.case(empty);
    assert_eq!(r.game_lost_by(), none());
    assert_eq!(r.game_drawn(), none());
    assert_eq!(r.resignation_has_ended_the_game(), none());
    assert_eq!(r.stalemate_has_ended_the_game(), none());
    assert_eq!(r.entered_state(), none());
}

/// All rule cases built into one typed batch rule as each does alone (compared by the
/// JSONL rendering, which names entities).
#[test]
fn all_rule_cases_in_one_typed_batch_rule_as_alone() {
    // The tests above each rule one case alone; here every case shares one batch (and the
    // entity names g, w, b, ...), and its conclusions must be those of the case ruled alone.
    let all = all_cases();
    let mut batch = Cases::new();
    let mut ids = Vec::new();
    let mut together_names = HashMap::new();
    for (_, build) in &all {
        let mut f = Facts::new(batch.case());
        build(&mut f);
        ids.push(f.id());
        together_names.extend(f.names.clone());
    }
    let together = batch.evaluate();
    assert_eq!(together.len(), all.len());
    for ((name, build), id) in all.iter().zip(ids) {
        let mut alone = Cases::new();
        let mut f = Facts::new(alone.case());
        build(&mut f);
        let alone_id = f.id();
        let alone_names = f.names.clone();
        let alone = alone.evaluate();
        // Entity handles are interned per batch: compare by names.
        assert_eq!(
            typed_ruling(&together.case(id), &together_names),
            typed_ruling(&alone.case(alone_id), &alone_names),
            "case {name}"
        );
    }
}

/// A tuple of a typed conclusion, as flat values.
trait Tuple {
    fn flats(&self) -> Vec<i64>;
}
impl<A: Column> Tuple for (A,) {
    fn flats(&self) -> Vec<i64> {
        vec![self.0.to_flat()]
    }
}
impl<A: Column, B: Column> Tuple for (A, B) {
    fn flats(&self) -> Vec<i64> {
        vec![self.0.to_flat(), self.1.to_flat()]
    }
}
impl<A: Column, B: Column, C: Column> Tuple for (A, B, C) {
    fn flats(&self) -> Vec<i64> {
        vec![self.0.to_flat(), self.1.to_flat(), self.2.to_flat()]
    }
}

/// Adds one relation and sign of a typed ruling to the JSON `concluded` and `definite` objects,
/// written as docs/FORMAT.md "Ruling lines" writes them (names, tuples sorted, empty left out).
fn put<T: Tuple>(out: &mut [Map<String, Value>; 2], key: &str, c: Conclusions<T>, names: &HashMap<i64, String>) {
    for (i, tuples) in [c.concluded, c.definite].into_iter().enumerate() {
        let mut rows: Vec<Vec<String>> = tuples
            .iter()
            .map(|t| {
                t.flats().iter().map(|v| names.get(v).unwrap_or_else(|| panic!("unnamed entity {v}")).clone()).collect()
            })
            .collect();
        rows.sort_by(|a, b| a.iter().map(|s| s.as_bytes()).cmp(b.iter().map(|s| s.as_bytes())));
        let len = rows.len();
        rows.dedup();
        assert_eq!(len, rows.len(), "{key}: a tuple is listed twice");
        if !rows.is_empty() {
            out[i].insert(key.to_string(), json!(rows));
        }
    }
}

/// Every institutional relation of a typed ruling, both signs, as `{"concluded", "definite"}`.
fn typed_ruling(r: &fide_laws_chess::Ruling, names: &HashMap<i64, String>) -> Value {
    let mut out = [Map::new(), Map::new()];
    macro_rules! all {
        ($($rel:ident / $not:ident),* $(,)?) => {$(
            put(&mut out, stringify!($rel), r.$rel(), names);
            put(&mut out, concat!("~", stringify!($rel)), r.$not(), names);
        )*};
    }
    all!(
        agreed_draw_has_ended_the_game / not_agreed_draw_has_ended_the_game,
        arbiter_competent_to_decide / not_arbiter_competent_to_decide,
        arbiter_shall_see_laws_observed / not_arbiter_shall_see_laws_observed,
        castling_legal / not_castling_legal,
        checkmate_has_been_delivered / not_checkmate_has_been_delivered,
        dead_position_has_ended_the_game / not_dead_position_has_ended_the_game,
        en_passant_capture_legal / not_en_passant_capture_legal,
        entered_state / not_entered_state,
        fifty_move_claim_correct / not_fifty_move_claim_correct,
        game_drawn / not_game_drawn,
        game_lost_by / not_game_lost_by,
        game_won_by / not_game_won_by,
        illegal_move / not_illegal_move,
        legal_move / not_legal_move,
        must_move_first_touched_piece / not_must_move_first_touched_piece,
        resignation_has_ended_the_game / not_resignation_has_ended_the_game,
        second_illegal_move_has_ended_the_game / not_second_illegal_move_has_ended_the_game,
        stalemate_has_ended_the_game / not_stalemate_has_ended_the_game,
        threefold_claim_correct / not_threefold_claim_correct,
        valid_transition / not_valid_transition,
    );
    let [concluded, definite] = out;
    json!({"concluded": concluded, "definite": definite})
}

// ---------------------------------------------------------------------------------------------
// Coverage and the reference evaluator.

fn doc() -> Document {
    Document::parse(FIDE).expect("the published package parses")
}

/// `GamePlay/ConcludeByAgreement/valid` -> `game_play_conclude_by_agreement_valid`.
fn snake(rule: &str) -> String {
    let mut out = String::new();
    for ch in rule.chars() {
        if ch.is_ascii_uppercase() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// The rules of the package, by the local part of their id.
fn rule_names() -> Vec<String> {
    let doc: Value = serde_json::from_slice(FIDE).unwrap();
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "rule")
        .map(|n| n["id"].as_str().unwrap().rsplit('#').next().unwrap().to_string())
        .collect()
}

#[test]
fn every_rule_has_a_firing_and_a_blocked_case() {
    let rules = rule_names();
    assert_eq!(rules.len(), 47, "{rules:?}");
    let cases: Vec<&str> = all_cases().iter().map(|(n, _)| *n).collect();
    for rule in &rules {
        let stem = snake(rule);
        let fires = format!("{stem}_fires");
        let blocked = format!("{stem}_blocked");
        assert!(cases.iter().any(|c| *c == fires), "no case `{fires}` for rule {rule}");
        assert!(cases.iter().any(|c| c.starts_with(&blocked)), "no case `{blocked}_...` for rule {rule}");
    }
    // And every case is named after a rule.
    let stems: Vec<String> = rules.iter().map(|r| snake(r)).collect();
    for case in &cases {
        assert!(
            stems.iter().any(|s| case
                .strip_prefix(s.as_str())
                .is_some_and(|rest| rest.starts_with("_fires") || rest.starts_with("_blocked"))),
            "case `{case}` is not named after a rule"
        );
    }
}

/// Rules the listed cases of `all_cases()` through the JSONL path, as one chunk.
fn rule_jsonl(names: &[&str]) -> Vec<Value> {
    let all = all_cases();
    let lines: Vec<(usize, String)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (_, build) = all.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no case {name}"));
            let mut cases = Cases::new();
            let mut facts = Facts::new(cases.case());
            build(&mut facts);
            (i + 1, facts.to_json(name).to_string())
        })
        .collect();
    let catalog = Catalog::new(fide_laws_chess::Package.schema());
    let opts = Options { grants: vec![ArbiterGrant::CAPABILITY.to_string()], explain: false, ..Default::default() };
    let (out, _) = rule_chunk(&fide_laws_chess::Package, &catalog, &lines, &opts);
    out.iter().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn contradictory_facts_are_listed_in_the_ruling() {
    let out = rule_jsonl(&[
        "resignation_ends_the_game_fires_on_contradictory_facts",
        "resignation_loses_fires_on_contradictory_mate_possibility",
        "resignation_loses_fires",
    ]);
    assert_eq!(out[0]["contradictions"], json!(["player_of(g,b)"]), "{}", out[0]);
    assert_eq!(out[1]["contradictions"], json!(["king_cannot_be_checkmated(b)"]), "{}", out[1]);
    assert_eq!(out[2]["contradictions"], json!([]), "{}", out[2]);
}

#[test]
fn every_rule_case_agrees_with_the_reference_evaluator() {
    let doc = doc();
    let grants = vec![ArbiterGrant::CAPABILITY.to_string()];
    // Each case as JSON, and its typed ruling (ruled alone) in the same JSON shape.
    let (cases, typed): (Vec<Value>, Vec<Value>) = all_cases()
        .into_iter()
        .map(|(name, build)| {
            let mut cases = Cases::new();
            let mut facts = Facts::new(cases.case());
            build(&mut facts);
            let (id, names, json) = (facts.id(), facts.names.clone(), facts.to_json(name));
            (json, typed_ruling(&cases.evaluate().case(id), &names))
        })
        .unzip();
    assert!(cases.len() >= 94, "{}", cases.len());
    // All of them in one chunk: same entity names everywhere, no leaks.
    let lines: Vec<(usize, String)> = cases.iter().enumerate().map(|(i, c)| (i + 1, c.to_string())).collect();
    let catalog = Catalog::new(fide_laws_chess::Package.schema());
    let opts = Options { grants: grants.clone(), explain: false, ..Default::default() };
    let (out, errors) = rule_chunk(&fide_laws_chess::Package, &catalog, &lines, &opts);
    assert_eq!(errors, 0, "{out:#?}");
    if std::env::var_os("FIDE_RULES_DUMP").is_some() {
        for (case, got) in cases.iter().zip(&out) {
            eprintln!("{case}\n  -> {got}");
        }
    }
    assert_eq!(out.len(), cases.len());
    let mut disagreements = Vec::new();
    for ((case, got), typed) in cases.iter().zip(&out).zip(&typed) {
        let got: Value = serde_json::from_str(got).unwrap();
        let want = clir_reference::evaluate(&doc, case, &grants);
        if got != want {
            disagreements.push(format!("case {case}\n compiled:  {got}\n reference: {want}"));
        }
        // The typed API says the same as the JSONL path.
        assert_eq!(typed["concluded"], got["concluded"], "typed vs. JSONL, case {case}");
        assert_eq!(typed["definite"], got["definite"], "typed vs. JSONL, case {case}");
    }
    assert!(disagreements.is_empty(), "{} disagreement(s):\n{}", disagreements.len(), disagreements.join("\n"));
}

/// Every case of a batch read back through the typed API, with the names its entities were
/// written with (`Ruling::name_of`).
#[test]
fn every_ruling_of_a_batch_reads_back_with_its_names() {
    let mut cases = Cases::new();
    let mut ids = Vec::new();
    for i in 0..300 {
        let mut case = cases.case();
        let (g, w) = (case.game(&format!("game {i}")), case.player(&format!("white {i}")));
        case.checkmate_delivered(g, w);
        ids.push((case.id(), i));
    }
    let rulings = cases.evaluate();
    assert_eq!(rulings.len(), 300);
    for (id, i) in ids {
        let ruling = rulings.case(id);
        let won = ruling.game_won_by().concluded;
        assert_eq!(won.len(), 1, "case {i}: one winner");
        let (g, w) = won[0];
        assert_eq!(
            (ruling.name_of(g), ruling.name_of(w)),
            (format!("game {i}").as_str(), format!("white {i}").as_str())
        );
    }
}
