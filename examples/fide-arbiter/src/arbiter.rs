//! Rulings for a batch of games through the compiled package, and the output line of each game.

use crate::facts::{self, tag_ending, tag_facts, Facts, TagEnding, TagFacts};
use crate::pgn::{self, RawGame, Record};
use crate::replay::{self, BoardEnd, Replay};
use clir::jsonl::{rule_chunk, Catalog, Options};
use clir::Package;
use serde_json::Value;
use shakmaty::Position;
use std::sync::OnceLock;

/// The compiled package every ruling goes through.
pub fn package() -> &'static dyn Package {
    &crate::fide_laws_chess::Package
}

fn catalog() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| Catalog::new(package().schema()))
}

/// Why a game's ruling does not agree with its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What games share (the summary groups by it).
    pub class: String,
    /// This game's particulars.
    pub detail: String,
}

/// Everything known of one game after ruling.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Index in the input, from 1.
    pub index: usize,
    /// Tags.
    pub white: String,
    /// Tags.
    pub black: String,
    /// Tags.
    pub event: String,
    /// Tags.
    pub round: String,
    /// The Result tag (or the movetext's result, or `*`).
    pub recorded: String,
    /// What the final position decides.
    pub board: Option<BoardEnd>,
    /// The result the rulings decide.
    pub ruled: Option<&'static str>,
    /// `ruled` (null as `*`) equals `recorded`.
    pub agrees: bool,
    /// Termination kind (summary rows).
    pub kind: String,
    /// Why not agreeing.
    pub reason: Option<Reason>,
    /// Why the game could not be read or replayed.
    pub error: Option<String>,
    /// The game's facts (absent for error lines).
    pub facts: Option<Facts>,
    /// The CONTRACT ruling object (absent for error lines).
    pub ruling: Option<Value>,
    /// The output line (JSON, no newline).
    pub line: String,
}

struct Prepared {
    raw_index: usize,
    rec: Record,
    replay: Replay,
    ending: TagEnding,
    tag_facts: TagFacts,
    recorded: String,
    facts: Facts,
}

fn tag_or_empty(rec: &Record, name: &str) -> String {
    rec.tag(name).unwrap_or("").to_string()
}

fn recorded_of(rec: &Record) -> String {
    rec.tag("Result")
        .map(|s| s.trim().to_string())
        .or_else(|| rec.result_token.clone())
        .unwrap_or_else(|| "*".to_string())
}

/// Parses, replays and derives the facts of one game.
fn prepare(raw: &RawGame) -> Result<Prepared, (Record, String)> {
    let rec = pgn::parse(&raw.text)
        .map_err(|(rec, e)| (rec, format!("{}:{}: {}", raw.file, raw.line + e.line - 1, e.message)))?;
    let replay = match replay::replay(&rec) {
        Ok(r) => r,
        Err(e) => return Err((rec, format!("{}:{}: {e}", raw.file, raw.line))),
    };
    let recorded = recorded_of(&rec);
    let ending = tag_ending(rec.tag("TerminationDetails"), rec.tag("Termination"));
    let tf = tag_facts(&ending, &recorded);
    let facts = facts::derive(&case_name(raw.index), &replay, tf);
    Ok(Prepared { raw_index: raw.index, rec, replay, ending, tag_facts: tf, recorded, facts })
}

/// The case (and game entity) name of game `index`.
pub fn case_name(index: usize) -> String {
    format!("g{index}")
}

/// The result the concluded literals of `ruling` decide for game `g`, or why none.
pub fn ruled_result(g: &str, ruling: &Value) -> Result<Option<&'static str>, String> {
    let concluded = &ruling["concluded"];
    let tuples = |rel: &str| -> Vec<Vec<String>> {
        concluded[rel]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| {
                        t.as_array().map(|t| t.iter().map(|v| v.as_str().unwrap_or("").to_string()).collect())
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let drawn = tuples("game_drawn").iter().any(|t| t.first().map(String::as_str) == Some(g));
    let mut winners: Vec<&'static str> = Vec::new();
    for t in tuples("game_won_by") {
        if t.first().map(String::as_str) == Some(g) {
            winners.push(if t.get(1).map(String::as_str) == Some("white") { "white" } else { "black" });
        }
    }
    for t in tuples("game_lost_by") {
        if t.first().map(String::as_str) == Some(g) {
            winners.push(if t.get(1).map(String::as_str) == Some("white") { "black" } else { "white" });
        }
    }
    winners.sort();
    winners.dedup();
    match (drawn, winners.as_slice()) {
        (false, []) => Ok(None),
        (true, []) => Ok(Some("1/2-1/2")),
        (false, ["white"]) => Ok(Some("1-0")),
        (false, ["black"]) => Ok(Some("0-1")),
        _ => Err(format!(
            "conflicting rulings: game_drawn {} and a win for {}",
            if drawn { "concluded" } else { "not concluded" },
            winners.join(" and ")
        )),
    }
}

fn kind_of(p: &Prepared) -> String {
    if let Some(b) = p.replay.board() {
        return b.name().to_string();
    }
    if p.replay.illegal.is_some() {
        return "illegal_move".to_string();
    }
    match (&p.ending, p.tag_facts) {
        (_, TagFacts::Resigned(_)) => "resignation",
        (_, TagFacts::DrawAgreed) => "agreement",
        (TagEnding::Repetition, _) => "threefold_claim",
        (TagEnding::FiftyMoves, _) => "fifty_move_claim",
        (TagEnding::Checkmate, _) => "checkmate_per_tags",
        (TagEnding::Stalemate, _) => "stalemate_per_tags",
        (TagEnding::DeadPosition, _) => "dead_position_per_tags",
        (TagEnding::Resignation(_), _) => "resignation",
        (TagEnding::TimeForfeit, _) => "time_forfeit",
        (TagEnding::Adjudication, _) => "adjudication",
        (TagEnding::Abandoned, _) => "abandoned",
        (TagEnding::IllegalMove, _) => "illegal_move",
        (TagEnding::Unterminated | TagEnding::Normal, _) => "unterminated",
        (TagEnding::Unknown, _) => "unknown",
        (TagEnding::Agreement | TagEnding::Other, _) => "other",
    }
    .to_string()
}

fn termination_text(rec: &Record) -> String {
    match (rec.tag("Termination"), rec.tag("TerminationDetails")) {
        (Some(t), Some(d)) => format!("{t}: {d}"),
        (Some(t), None) => t.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => String::new(),
    }
}

fn reason_of(p: &Prepared, kind: &str, ruled: Option<&str>, conflict: Option<&str>) -> Reason {
    let r = &p.replay;
    let rec = &p.rec;
    let term = termination_text(rec);
    let mk = |class: &str, detail: String| Reason { class: class.to_string(), detail };
    if let Some(c) = conflict {
        return mk("conflicting rulings", c.to_string());
    }
    if let Some(ruled) = ruled {
        if let Some(b) = r.board() {
            let after = r.moves_after_end();
            if after > 0 {
                return mk(
                    "the board ended the game before the record ends",
                    format!(
                        "{} after ply {} ends the game ({ruled}); the record goes on for {after} more plies and says {}",
                        b.name(),
                        r.plies,
                        p.recorded
                    ),
                );
            }
            return mk(
                "the board decides otherwise",
                format!("{} decides {ruled}; the record says {}", b.name(), p.recorded),
            );
        }
        if let TagFacts::Resigned(c) = p.tag_facts {
            if r.pos.has_insufficient_material(!c) {
                return mk(
                    "resignation by a player whose king cannot be checkmated",
                    format!(
                        "{} resigned, but the opponent has insufficient material to checkmate: the package draws (ResignationDrawnIfMateImpossible); the record says {}",
                        facts::player(c),
                        p.recorded
                    ),
                );
            }
        }
        return mk("ruled otherwise", format!("{kind} rules {ruled}; the record says {}", p.recorded));
    }
    // No ruling.
    if let Some(m) = &r.illegal {
        return mk(
            "an illegal move in the record",
            format!("{m} is not legal in the position; the game does not end at a first illegal move (Article 7.5.5)"),
        );
    }
    match kind {
        "adjudication" => mk(
            "adjudicated under the tournament's rules: not an ending under the Laws",
            format!("adjudicated ({term})"),
        ),
        "time_forfeit" => mk("loss on time: Article 6.9 is not in fide.laws.chess", term),
        "abandoned" => mk("game abandoned (disconnection or stalled connection): no ending under the Laws", term),
        "illegal_move" => mk(
            "one illegal move ended the game under the tournament's rules: Article 7.5.5 ends a game at the second",
            format!("{term}; completed_illegal_move_count 1"),
        ),
        "threefold_claim" => mk(
            "threefold repetition claimed but the position has not occurred three times (Article 9.2.3 identity)",
            format!("the final position has occurred {} time(s)", r.occurrences),
        ),
        "fifty_move_claim" => mk(
            "fifty-move rule claimed but fewer than 50 moves by each player without pawn move or capture",
            format!("{} moves by each player without pawn move or capture", r.pos.halfmoves() / 2),
        ),
        "checkmate_per_tags" => mk("the tags say checkmate but the final position is not checkmate", term),
        "stalemate_per_tags" => mk("the tags say stalemate but the final position is not stalemate", term),
        "dead_position_per_tags" => mk(
            "the tags say insufficient material but the final position is not dead by material",
            format!("{term}; material: {}", material(&r.pos)),
        ),
        "resignation" => mk("resignation without a named or losing player", term),
        "agreement" => {
            mk("draw agreed before both players made a move (Article 5.2.3)", format!("{} plies played", r.plies))
        }
        "unknown" => mk(
            "no Termination tag and the board decides nothing: the record does not say how the game ended",
            String::new(),
        ),
        "unterminated" => mk("the game is not finished", term),
        _ => mk("termination not understood", term),
    }
}

/// The material of a position, as `KQRvKR`.
fn material(pos: &shakmaty::Chess) -> String {
    use shakmaty::Role;
    let mut s = String::new();
    for c in [shakmaty::Color::White, shakmaty::Color::Black] {
        if c == shakmaty::Color::Black {
            s.push('v');
        }
        for role in [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn] {
            let n = pos.board().by_piece(role.of(c)).count();
            for _ in 0..n {
                s.push(role.upper_char());
            }
        }
    }
    s
}

fn jstr(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn opt(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_string(), jstr)
}

fn error_outcome(raw: &RawGame, rec: &Record, msg: String) -> Outcome {
    let (white, black, event, round) = (
        tag_or_empty(rec, "White"),
        tag_or_empty(rec, "Black"),
        tag_or_empty(rec, "Event"),
        tag_or_empty(rec, "Round"),
    );
    let recorded = recorded_of(rec);
    let error = msg;
    let line = format!(
        "{{\"game\":{},\"white\":{},\"black\":{},\"event\":{},\"round\":{},\"recorded\":{},\"error\":{}}}",
        raw.index,
        jstr(&white),
        jstr(&black),
        jstr(&event),
        jstr(&round),
        jstr(&recorded),
        jstr(&error)
    );
    Outcome {
        index: raw.index,
        white,
        black,
        event,
        round,
        recorded,
        board: None,
        ruled: None,
        agrees: false,
        kind: "unreadable".into(),
        reason: None,
        error: Some(error),
        facts: None,
        ruling: None,
        line,
    }
}

/// Rules a batch of games as one datafrog batch; one outcome per game, in order.
pub fn arbitrate(games: &[RawGame]) -> Vec<Outcome> {
    let mut prepared: Vec<Result<Prepared, Outcome>> = Vec::with_capacity(games.len());
    let mut lines: Vec<(usize, String)> = Vec::with_capacity(games.len());
    for raw in games {
        match prepare(raw) {
            Ok(p) => {
                lines.push((raw.index, p.facts.case_line(&case_name(raw.index))));
                prepared.push(Ok(p));
            }
            Err((rec, msg)) => prepared.push(Err(error_outcome(raw, &rec, msg))),
        }
    }
    let (rulings, _) = rule_chunk(package(), catalog(), &lines, &Options::default());
    let mut rulings = rulings.into_iter();
    let mut out = Vec::with_capacity(games.len());
    for (raw, p) in games.iter().zip(prepared) {
        let p = match p {
            Ok(p) => p,
            Err(o) => {
                out.push(o);
                continue;
            }
        };
        debug_assert_eq!(p.raw_index, raw.index);
        let ruling_line = rulings.next().expect("one ruling per case");
        let ruling: Value = serde_json::from_str(&ruling_line).expect("rulings are JSON");
        if let Some(e) = ruling.get("error") {
            out.push(error_outcome(
                raw,
                &p.rec,
                format!("{}:{}: the package rejected the derived case: {e}", raw.file, raw.line),
            ));
            continue;
        }
        let g = case_name(raw.index);
        let (ruled, conflict) = match ruled_result(&g, &ruling) {
            Ok(r) => (r, None),
            Err(c) => (None, Some(c)),
        };
        let agrees = ruled.unwrap_or("*") == p.recorded;
        let kind = kind_of(&p);
        let reason = (!agrees).then(|| reason_of(&p, &kind, ruled, conflict.as_deref()));
        let board = p.replay.board();
        let (white, black, event, round) = (
            tag_or_empty(&p.rec, "White"),
            tag_or_empty(&p.rec, "Black"),
            tag_or_empty(&p.rec, "Event"),
            tag_or_empty(&p.rec, "Round"),
        );
        let mut line = format!(
            "{{\"game\":{},\"white\":{},\"black\":{},\"event\":{},\"round\":{},\"recorded\":{},\"board\":{},\"ruled\":{},\"agrees\":{},\"ruling\":{},\"kind\":{},\"termination\":{},\"plies\":{}",
            raw.index,
            jstr(&white),
            jstr(&black),
            jstr(&event),
            jstr(&round),
            jstr(&p.recorded),
            opt(board.map(BoardEnd::name)),
            opt(ruled),
            agrees,
            ruling_line,
            jstr(&kind),
            jstr(&termination_text(&p.rec)),
            p.replay.plies
        );
        if let Some(m) = &p.replay.illegal {
            line.push_str(&format!(",\"illegal_move\":{}", jstr(m)));
        }
        if board.is_some() && p.replay.moves_after_end() > 0 {
            line.push_str(&format!(",\"plies_after_end\":{}", p.replay.moves_after_end()));
        }
        if let Some(r) = &reason {
            line.push_str(&format!(
                ",\"reason\":{}",
                jstr(&if r.detail.is_empty() { r.class.clone() } else { format!("{}: {}", r.class, r.detail) })
            ));
        }
        line.push('}');
        out.push(Outcome {
            index: raw.index,
            white,
            black,
            event,
            round,
            recorded: p.recorded.clone(),
            board,
            ruled,
            agrees,
            kind,
            reason,
            error: None,
            facts: Some(p.facts),
            ruling: Some(ruling),
            line,
        });
    }
    out
}
