//! The arbiter on the committed data: the TCEC sample agrees with its recorded results on every
//! game the board decides, every other game is explained, the hand-made special cases rule as
//! the Laws say, unreadable games are error lines, and the final-position castling and en
//! passant rulings match shakmaty's move generator. Reads nothing outside this crate.

use fide_arbiter::arbiter::Outcome;
use fide_arbiter::pgn::{self, Splitter};
use fide_arbiter::replay::{self, BoardEnd};
use fide_arbiter::{run, RunOptions, Summary};
use serde_json::Value;
use shakmaty::{CastlingSide, Position};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

fn rule(name: &str, threads: usize) -> (Vec<Outcome>, Summary, Vec<u8>) {
    let file = File::open(data(name)).unwrap();
    let inputs: Vec<(String, Box<dyn BufRead + Send>)> = vec![(name.to_string(), Box::new(BufReader::new(file)))];
    let mut outcomes = Vec::new();
    let mut out = Vec::new();
    let summary = run(inputs, &mut out, &RunOptions { threads: Some(threads), ..Default::default() }, |o| {
        outcomes.push(o.clone())
    })
    .unwrap();
    (outcomes, summary, out)
}

/// Reason classes a game of the TCEC sample may give for not agreeing: outcomes outside the
/// Laws, or the record not saying how the game ended.
const EXPLAINED: [&str; 5] = [
    "adjudicated under the tournament's rules: not an ending under the Laws",
    "loss on time: Article 6.9 is not in fide.laws.chess",
    "game abandoned (disconnection or stalled connection): no ending under the Laws",
    "one illegal move ended the game under the tournament's rules: Article 7.5.5 ends a game at the second",
    "no Termination tag and the board decides nothing: the record does not say how the game ended",
];

#[test]
fn tcec_sample_agrees_on_every_board_decided_game() {
    let (outcomes, summary, _) = rule("tcec-sample.pgn", 2);
    assert_eq!(outcomes.len(), 317);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let mut by_board = std::collections::BTreeMap::new();
    for o in &outcomes {
        if let Some(b) = o.board {
            *by_board.entry(b).or_insert(0) += 1;
            assert!(o.agrees, "board-decided game {} does not agree: {}", o.index, o.line);
        }
        // Results the Laws decide from the record: resignations and draw claims agree too.
        if ["resignation", "threefold_claim", "fifty_move_claim", "agreement"].contains(&o.kind.as_str()) {
            assert!(o.agrees, "game {} ({}) does not agree: {}", o.index, o.kind, o.line);
        }
        if !o.agrees {
            let r = o.reason.as_ref().unwrap_or_else(|| panic!("game {} has no reason", o.index));
            assert!(o.ruled.is_none(), "game {} ruled a result other than the recorded one: {}", o.index, o.line);
            assert!(EXPLAINED.contains(&r.class.as_str()), "game {}: unexpected reason {:?}", o.index, r);
        }
    }
    assert!(by_board[&BoardEnd::Checkmate] >= 90, "{by_board:?}");
    assert!(by_board[&BoardEnd::Stalemate] >= 3, "{by_board:?}");
    assert!(by_board[&BoardEnd::DeadPosition] >= 7, "{by_board:?}");
    assert_eq!(summary.board_decided.agree, summary.board_decided.games);
    assert!(summary.disagreements.is_empty(), "{:?}", summary.disagreements);
    let resignations = outcomes.iter().filter(|o| o.kind == "resignation").count();
    assert!(resignations >= 17, "{resignations}");
}

struct Expect {
    event: &'static str,
    board: Option<&'static str>,
    ruled: Option<&'static str>,
    agrees: bool,
    /// Literals that must be concluded (`rel(args)`, `~rel(args)` for negatives).
    concluded: &'static [&'static str],
    /// Literals that must not be concluded.
    not_concluded: &'static [&'static str],
}

fn literals(ruling: &Value, layer: &str) -> Vec<String> {
    let mut v = Vec::new();
    for (rel, tuples) in ruling[layer].as_object().unwrap() {
        for t in tuples.as_array().unwrap() {
            let args: Vec<String> = t
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
                .collect();
            v.push(format!("{rel}({})", args.join(",")));
        }
    }
    v
}

#[test]
fn special_cases_rule_as_the_laws_say() {
    let expect = [
        Expect {
            event: "stalemate",
            board: Some("stalemate"),
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &[
                "stalemate_has_ended_the_game(G)",
                "valid_transition(G,ConcludeByStalemate)",
                "entered_state(G,Ended)",
            ],
            not_concluded: &[],
        },
        Expect {
            event: "threefold repetition claimed",
            board: None,
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["threefold_claim_correct(G,white)", "valid_transition(G,ConcludeByDrawnClaim)"],
            not_concluded: &[],
        },
        Expect {
            event: "threefold repetition claimed too early",
            board: None,
            ruled: None,
            agrees: false,
            concluded: &[],
            not_concluded: &["game_drawn(G)", "entered_state(G,Ended)"],
        },
        Expect {
            event: "threefold repetition claimed, castling rights differ",
            board: None,
            ruled: None,
            agrees: false,
            concluded: &[],
            not_concluded: &["game_drawn(G)"],
        },
        Expect {
            event: "fivefold repetition",
            board: Some("fivefold"),
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["game_drawn(G)"],
            not_concluded: &[],
        },
        Expect {
            event: "fivefold repetition, record goes on",
            board: Some("fivefold"),
            ruled: Some("1/2-1/2"),
            agrees: false,
            concluded: &["game_drawn(G)"],
            not_concluded: &["game_won_by(G,white)"],
        },
        Expect {
            event: "fifty-move rule claimed",
            board: None,
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["fifty_move_claim_correct(G,white)", "valid_transition(G,ConcludeByDrawnClaim)"],
            not_concluded: &[],
        },
        Expect {
            event: "fifty-move rule claimed one move early",
            board: None,
            ruled: None,
            agrees: false,
            concluded: &[],
            not_concluded: &["game_drawn(G)"],
        },
        Expect {
            event: "seventy-five-move rule",
            board: Some("seventy_five_moves"),
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["game_drawn(G)"],
            not_concluded: &[],
        },
        Expect {
            event: "checkmate on the move that completes 75 moves",
            board: Some("checkmate"),
            ruled: Some("0-1"),
            agrees: true,
            concluded: &["game_won_by(G,black)", "~game_drawn(G)", "valid_transition(G,ConcludeByCheckmate)"],
            not_concluded: &["game_drawn(G)"],
        },
        Expect {
            event: "dead position",
            board: Some("dead_position"),
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["dead_position_has_ended_the_game(G)", "valid_transition(G,ConcludeByDeadPosition)"],
            not_concluded: &[],
        },
        Expect {
            event: "dead position, then a loss on time recorded",
            board: Some("dead_position"),
            ruled: Some("1/2-1/2"),
            agrees: false,
            concluded: &["game_drawn(G)"],
            not_concluded: &["game_won_by(G,black)"],
        },
        Expect {
            event: "en passant capture pseudo-legal but illegal",
            board: None,
            ruled: None,
            agrees: true,
            concluded: &["illegal_move(G)"],
            not_concluded: &["legal_move(G)", "valid_transition(G,PlayMove)"],
        },
        Expect {
            event: "fivefold repetition counting a position with an illegal en passant capture",
            board: Some("fivefold"),
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["game_drawn(G)"],
            not_concluded: &[],
        },
        Expect {
            event: "final position with castling and en passant",
            board: None,
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &[
                "castling_legal(G,white,white_kingside)",
                "en_passant_capture_legal(G,white_pawn_e5)",
                "agreed_draw_has_ended_the_game(G)",
            ],
            not_concluded: &["castling_legal(G,white,white_queenside)"],
        },
        Expect {
            event: "resignation",
            board: None,
            ruled: Some("1-0"),
            agrees: true,
            concluded: &[
                "game_lost_by(G,black)",
                "resignation_has_ended_the_game(G)",
                "valid_transition(G,ConcludeByResignation)",
            ],
            not_concluded: &[],
        },
        Expect {
            event: "resignation by a player whose king cannot be checkmated",
            board: None,
            ruled: Some("1/2-1/2"),
            agrees: false,
            concluded: &["game_drawn(G)", "resignation_has_ended_the_game(G)"],
            not_concluded: &["game_lost_by(G,white)"],
        },
        Expect {
            event: "draw agreed",
            board: None,
            ruled: Some("1/2-1/2"),
            agrees: true,
            concluded: &["agreed_draw_has_ended_the_game(G)", "valid_transition(G,ConcludeByAgreement)"],
            not_concluded: &[],
        },
        Expect {
            event: "draw agreed before Black moved",
            board: None,
            ruled: None,
            agrees: false,
            concluded: &[],
            not_concluded: &["game_drawn(G)"],
        },
    ];
    let (outcomes, summary, _) = rule("special-cases.pgn", 1);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert_eq!(outcomes.len(), expect.len());
    for (o, e) in outcomes.iter().zip(&expect) {
        assert_eq!(o.event, e.event);
        let ctx = format!("{}: {}", e.event, o.line);
        assert_eq!(o.board.map(BoardEnd::name), e.board, "{ctx}");
        assert_eq!(o.ruled, e.ruled, "{ctx}");
        assert_eq!(o.agrees, e.agrees, "{ctx}");
        assert_eq!(o.reason.is_some(), !e.agrees, "{ctx}");
        let g = format!("g{}", o.index);
        let concluded = literals(o.ruling.as_ref().unwrap(), "concluded");
        for lit in e.concluded {
            let lit = lit.replace('G', &g);
            assert!(concluded.contains(&lit), "{ctx}: {lit} not concluded");
        }
        for lit in e.not_concluded {
            let lit = lit.replace('G', &g);
            assert!(!concluded.contains(&lit), "{ctx}: {lit} concluded");
        }
    }
    // The en passant cases: the illegal capture is reported, and the first position after
    // 1... c5 counts as the same position as the later ones without the capture.
    let ep = &outcomes[12];
    assert!(ep.line.contains("\"illegal_move\":\"2. bxc6\""), "{}", ep.line);
    let five = &outcomes[13];
    let facts = five.facts.as_ref().unwrap();
    assert_eq!(facts.0["position_occurrence_count"], vec![serde_json::json!([format!("g{}", five.index), 5])]);
    // Checkmate on the move that completes 75 moves: both facts hold.
    let mate = outcomes[9].facts.as_ref().unwrap();
    assert_eq!(mate.0["moves_by_each_without_pawn_or_capture"][0][1], 75);
    assert!(mate.has("checkmate_delivered"));
}

#[test]
fn unreadable_games_are_error_lines_and_the_rest_go_on() {
    let out = Command::new(env!("CARGO_BIN_EXE_fide-arbiter")).arg(data("unreadable.pgn")).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["game"], i + 1);
        let readable = l["event"].as_str().unwrap().starts_with("readable");
        assert_eq!(l.get("error").is_none(), readable, "{l}");
        if readable {
            assert_eq!(l["agrees"], true, "{l}");
            assert_eq!(l["board"], "checkmate", "{l}");
        }
    }
    assert!(lines[0]["error"].as_str().unwrap().contains("unreadable move `Zz9`"));
    assert!(lines[0]["error"].as_str().unwrap().contains("unreadable.pgn:7:"), "{}", lines[0]["error"]);
    assert!(lines[2]["error"].as_str().unwrap().contains("ambiguous"));
    assert!(lines[3]["error"].as_str().unwrap().contains("FEN"));
    assert!(lines[4]["error"].as_str().unwrap().contains("null move"));
    assert!(lines[6]["error"].as_str().unwrap().contains("unterminated comment"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("unreadable games (5):"), "{stderr}");
}

#[test]
fn command_line_output_fields_summary_and_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let path = dir.path().join(format!("out{threads}.jsonl"));
        let out = Command::new(env!("CARGO_BIN_EXE_fide-arbiter"))
            .arg(data("tcec-sample.pgn"))
            .arg(data("special-cases.pgn"))
            .args(["--threads", threads, "--output"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        for needle in ["termination kind", "board-decided", "games/s", "adjudicated under the tournament's rules"] {
            assert!(stderr.contains(needle), "{needle}: {stderr}");
        }
        outputs.push(std::fs::read_to_string(path).unwrap());
    }
    // The same lines in the same order whatever the thread count.
    assert_eq!(outputs[0], outputs[1]);
    let lines: Vec<Value> = outputs[0].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 317 + 19);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["game"], i + 1, "games are numbered across files");
        for key in ["white", "black", "event", "round", "recorded"] {
            assert!(l[key].is_string(), "{key}: {l}");
        }
        assert!(l["board"].is_null() || l["board"].is_string());
        assert!(l["ruled"].is_null() || ["1-0", "0-1", "1/2-1/2"].contains(&l["ruled"].as_str().unwrap()));
        assert!(l["agrees"].is_boolean());
        let r = &l["ruling"];
        assert_eq!(r["case"], format!("g{}", i + 1));
        assert!(r["concluded"].is_object() && r["definite"].is_object() && r["contradictions"].is_array(), "{l}");
        // The ruling object's keys come in the order of docs/FORMAT.md "Ruling lines".
        let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 4);
    }
}

#[test]
fn castling_and_en_passant_rulings_match_the_move_generator() {
    let mut checked = (0, 0);
    for name in ["tcec-sample.pgn", "special-cases.pgn"] {
        let (outcomes, _, _) = rule(name, 2);
        let mut split = Splitter::new(BufReader::new(File::open(data(name)).unwrap()), name, 1);
        for o in &outcomes {
            let raw = split.next_game().unwrap().unwrap();
            assert_eq!(raw.index, o.index);
            let rec = pgn::parse(&raw.text).unwrap();
            let r = replay::replay(&rec).unwrap();
            let pos = &r.pos;
            let g = format!("g{}", o.index);
            let concluded = literals(o.ruling.as_ref().unwrap(), "concluded");
            let mover = if pos.turn() == shakmaty::Color::White { "white" } else { "black" };
            for (side, name) in [(CastlingSide::KingSide, "kingside"), (CastlingSide::QueenSide, "queenside")] {
                let legal = !pos.castling_moves(side).is_empty();
                let lit = format!("castling_legal({g},{mover},{mover}_{name})");
                assert_eq!(concluded.contains(&lit), legal, "game {} {name}: {}", o.index, o.line);
                checked.0 += usize::from(legal);
            }
            let ep: Vec<String> = pos
                .en_passant_moves()
                .into_iter()
                .map(|m| format!("en_passant_capture_legal({g},{mover}_pawn_{})", m.from().unwrap()))
                .collect();
            let ruled: Vec<&String> = concluded.iter().filter(|l| l.starts_with("en_passant_capture_legal(")).collect();
            assert_eq!(ruled.len(), ep.len(), "game {}: {}", o.index, o.line);
            for lit in &ep {
                assert!(concluded.contains(lit), "game {}: {lit}", o.index);
            }
            checked.1 += ep.len();
        }
    }
    assert!(checked.0 > 0 && checked.1 > 0, "{checked:?}");
}

/// The same facts through the typed API of the compiled package (`Cases`, one method per
/// relation) rule the same result as the JSONL path the arbiter uses.
#[test]
fn typed_api_rules_the_same_results() {
    use fide_arbiter::fide_laws_chess::{Cases, GamePlayTransition as T};
    for name in ["special-cases.pgn", "tcec-sample.pgn"] {
        let (outcomes, _, _) = rule(name, 2);
        let mut cases = Cases::new();
        let mut ids = Vec::new();
        for o in &outcomes {
            let facts = o.facts.as_ref().unwrap();
            let mut c = cases.case();
            let s = |v: &Value| v.as_str().unwrap().to_string();
            let n = |v: &Value| v.as_i64().unwrap();
            let (white, black) = (c.player("white"), c.player("black"));
            let game = c.game(&format!("g{}", o.index));
            for (rel, tuples) in &facts.0 {
                for t in tuples {
                    let a = t.as_array().unwrap();
                    match *rel {
                        "player_of" => {
                            let p = c.player(&s(&a[1]));
                            c.player_of(game, p);
                        }
                        "procedure_instance" => {
                            c.procedure_instance(game);
                        }
                        "play_started" => {
                            c.play_started(game);
                        }
                        "both_players_have_moved" => {
                            c.both_players_have_moved(game);
                        }
                        "checked_game" => {
                            c.checked_game(game);
                        }
                        "move_meets_articles_3_1_to_3_9" => {
                            c.move_meets_articles_3_1_to_3_9(game);
                        }
                        "player_has_the_move" => {
                            let p = c.player(&s(&a[1]));
                            c.player_has_the_move(game, p);
                        }
                        "position_occurrence_count" => {
                            c.position_occurrence_count(game, n(&a[1]));
                        }
                        "moves_by_each_without_pawn_or_capture" => {
                            c.moves_by_each_without_pawn_or_capture(game, n(&a[1]));
                        }
                        "checkmate_delivered" => {
                            let p = c.player(&s(&a[1]));
                            c.checkmate_delivered(game, p);
                        }
                        "stalemate_arisen" => {
                            c.stalemate_arisen(game);
                        }
                        "dead_position_arisen" => {
                            c.dead_position_arisen(game);
                        }
                        "king_of" => {
                            let (p, k) = (c.player(&s(&a[0])), c.piece(&s(&a[1])));
                            c.king_of(p, k);
                        }
                        "own_piece_of" => {
                            let (p, k) = (c.player(&s(&a[0])), c.piece(&s(&a[1])));
                            c.own_piece_of(p, k);
                        }
                        "rook_of" => {
                            let (p, k) = (c.player(&s(&a[0])), c.piece(&s(&a[1])));
                            c.rook_of(p, k);
                        }
                        "checked_player" => {
                            let p = c.player(&s(&a[0]));
                            c.checked_player(p);
                        }
                        "king_cannot_be_checkmated" => {
                            let p = c.player(&s(&a[0]));
                            c.king_cannot_be_checkmated(p);
                        }
                        "player_resigned" => {
                            let p = c.player(&s(&a[0]));
                            c.player_resigned(p);
                        }
                        "draw_claimed" => {
                            let p = c.player(&s(&a[0]));
                            c.draw_claimed(p);
                        }
                        "completed_illegal_move_count" => {
                            let p = c.player(&s(&a[0]));
                            c.completed_illegal_move_count(p, n(&a[1]));
                        }
                        "draw_agreed" => {
                            c.draw_agreed(game);
                        }
                        "checked_piece" => {
                            let k = c.piece(&s(&a[0]));
                            c.checked_piece(k);
                        }
                        "checked_castling_side" => {
                            let k = c.castling_side(&s(&a[0]));
                            c.checked_castling_side(k);
                        }
                        "castling_path_blocked" => {
                            let k = c.castling_side(&s(&a[0]));
                            c.castling_path_blocked(k);
                        }
                        "castling_path_attacked" => {
                            let k = c.castling_side(&s(&a[0]));
                            c.castling_path_attacked(k);
                        }
                        "castling_side_of" => {
                            let (p, side, rook) = (c.player(&s(&a[1])), c.castling_side(&s(&a[2])), c.piece(&s(&a[3])));
                            c.castling_side_of(game, p, side, rook);
                        }
                        "en_passant_right_open" => {
                            c.en_passant_right_open(game);
                        }
                        "capturing_pawn_on_adjacent_file" => {
                            let k = c.piece(&s(&a[1]));
                            c.capturing_pawn_on_adjacent_file(game, k);
                        }
                        "attempted_transition" => {
                            let t = match a[1].as_str().unwrap() {
                                "StartPlay" => T::START_PLAY,
                                "PlayMove" => T::PLAY_MOVE,
                                "ConcludeByCheckmate" => T::CONCLUDE_BY_CHECKMATE,
                                "ConcludeByStalemate" => T::CONCLUDE_BY_STALEMATE,
                                "ConcludeByDeadPosition" => T::CONCLUDE_BY_DEAD_POSITION,
                                "ConcludeByResignation" => T::CONCLUDE_BY_RESIGNATION,
                                "ConcludeByAgreement" => T::CONCLUDE_BY_AGREEMENT,
                                "ConcludeByDrawnClaim" => T::CONCLUDE_BY_DRAWN_CLAIM,
                                other => panic!("transition {other}"),
                            };
                            c.attempted_transition(game, t);
                        }
                        other => panic!("relation {other} not mapped in this test"),
                    }
                }
            }
            ids.push((c.id(), game, white, black));
        }
        let rulings = cases.evaluate();
        for (o, (id, game, white, black)) in outcomes.iter().zip(ids) {
            let r = rulings.case(id);
            let drawn = r.game_drawn().is_concluded(&(game,));
            let white_wins =
                r.game_won_by().is_concluded(&(game, white)) || r.game_lost_by().is_concluded(&(game, black));
            let black_wins =
                r.game_won_by().is_concluded(&(game, black)) || r.game_lost_by().is_concluded(&(game, white));
            let typed = match (drawn, white_wins, black_wins) {
                (true, false, false) => Some("1/2-1/2"),
                (false, true, false) => Some("1-0"),
                (false, false, true) => Some("0-1"),
                (false, false, false) => None,
                other => panic!("game {}: conflicting typed rulings {other:?}", o.index),
            };
            assert_eq!(typed, o.ruled, "{name} game {}: {}", o.index, o.line);
        }
    }
}
