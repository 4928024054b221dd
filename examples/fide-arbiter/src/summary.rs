//! The stderr summary: agreement with the recorded results by termination kind, and every
//! game that does not agree with its reason.

use crate::arbiter::Outcome;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// Order of the summary's rows (kinds not listed come after, alphabetically).
const ROWS: [&str; 20] = [
    "checkmate",
    "stalemate",
    "dead_position",
    "fivefold",
    "seventy_five_moves",
    "resignation",
    "agreement",
    "threefold_claim",
    "fifty_move_claim",
    "checkmate_per_tags",
    "stalemate_per_tags",
    "dead_position_per_tags",
    "illegal_move",
    "time_forfeit",
    "adjudication",
    "abandoned",
    "unterminated",
    "unknown",
    "other",
    "unreadable",
];

/// One row of the table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Row {
    /// Games of this kind.
    pub games: usize,
    /// Ruled result equals the recorded one (no ruling equals `*`).
    pub agree: usize,
    /// A ruled result other than the recorded one.
    pub differ: usize,
    /// No result ruled, a result recorded.
    pub no_ruling: usize,
}

/// A game whose ruled result differs from its record.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// Game index.
    pub game: usize,
    /// Event and round.
    pub event: String,
    /// Round.
    pub round: String,
    /// Result tag.
    pub recorded: String,
    /// Ruled result.
    pub ruled: String,
    /// Why.
    pub reason: String,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Games read (error lines included).
    pub games: usize,
    /// Rows by termination kind.
    pub rows: BTreeMap<String, Row>,
    /// Games the board decides, and how many of them agree.
    pub board_decided: Row,
    /// Ruled results other than the recorded ones.
    pub disagreements: Vec<Disagreement>,
    /// Games with no ruling, by reason class.
    pub no_ruling: BTreeMap<String, Vec<usize>>,
    /// Unreadable games: index and message.
    pub errors: Vec<(usize, String)>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Worker threads.
    pub threads: usize,
}

impl Summary {
    /// Counts one game.
    pub fn add(&mut self, o: &Outcome) {
        self.games += 1;
        let row = self.rows.entry(o.kind.clone()).or_default();
        let mut rows = vec![row];
        let mut board_row = Row::default();
        if o.board.is_some() {
            rows.push(&mut board_row);
        }
        for r in rows {
            r.games += 1;
            if o.error.is_some() {
                continue;
            }
            if o.agrees {
                r.agree += 1;
            } else if o.ruled.is_some() {
                r.differ += 1;
            } else {
                r.no_ruling += 1;
            }
        }
        if o.board.is_some() {
            self.board_decided.games += board_row.games;
            self.board_decided.agree += board_row.agree;
            self.board_decided.differ += board_row.differ;
            self.board_decided.no_ruling += board_row.no_ruling;
        }
        if let Some(e) = &o.error {
            self.errors.push((o.index, e.clone()));
            return;
        }
        if o.agrees {
            return;
        }
        let reason = o.reason.as_ref();
        match o.ruled {
            Some(ruled) => self.disagreements.push(Disagreement {
                game: o.index,
                event: o.event.clone(),
                round: o.round.clone(),
                recorded: o.recorded.clone(),
                ruled: ruled.to_string(),
                reason: reason.map(|r| format!("{}: {}", r.class, r.detail)).unwrap_or_default(),
            }),
            None => self
                .no_ruling
                .entry(reason.map(|r| r.class.clone()).unwrap_or_else(|| "no reason".into()))
                .or_default()
                .push(o.index),
        }
    }

    /// Totals over all rows.
    pub fn total(&self) -> Row {
        let mut t = Row::default();
        for r in self.rows.values() {
            t.games += r.games;
            t.agree += r.agree;
            t.differ += r.differ;
            t.no_ruling += r.no_ruling;
        }
        t
    }

    /// Games per second.
    pub fn rate(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The table and lists, as printed on stderr.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "fide-arbiter: {} games ({} unreadable) in {:.3} s: {:.0} games/s with {} thread{} (PGN parse + replay + ruling)",
            self.games,
            self.errors.len(),
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        );
        let _ = writeln!(s);
        let _ =
            writeln!(s, "{:<24} {:>7} {:>7} {:>7} {:>10}", "termination kind", "games", "agree", "differ", "no ruling");
        let mut keys: Vec<&String> = self.rows.keys().collect();
        keys.sort_by_key(|k| (ROWS.iter().position(|r| r == k).unwrap_or(ROWS.len()), k.as_str()));
        let line = |s: &mut String, name: &str, r: &Row| {
            let _ = writeln!(s, "{:<24} {:>7} {:>7} {:>7} {:>10}", name, r.games, r.agree, r.differ, r.no_ruling);
        };
        for k in keys {
            line(&mut s, k, &self.rows[k]);
        }
        line(&mut s, "all games", &self.total());
        line(&mut s, "board-decided", &self.board_decided);
        let _ = writeln!(s);
        if self.disagreements.is_empty() {
            let _ = writeln!(s, "ruled results other than the recorded ones: none");
        } else {
            let _ = writeln!(s, "ruled results other than the recorded ones ({}):", self.disagreements.len());
            for d in &self.disagreements {
                let _ = writeln!(
                    s,
                    "  game {} ({}, round {}): recorded {}, ruled {}: {}",
                    d.game, d.event, d.round, d.recorded, d.ruled, d.reason
                );
            }
        }
        if !self.no_ruling.is_empty() {
            let n: usize = self.no_ruling.values().map(Vec::len).sum();
            let _ = writeln!(s, "no result ruled, a result recorded ({n}), by reason:");
            let mut groups: Vec<(&String, &Vec<usize>)> = self.no_ruling.iter().collect();
            groups.sort_by_key(|(k, v)| (std::cmp::Reverse(v.len()), k.as_str()));
            for (class, games) in groups {
                let list: Vec<String> = games.iter().map(usize::to_string).collect();
                let _ = writeln!(s, "  {} game{}: {class}", games.len(), if games.len() == 1 { "" } else { "s" });
                let _ = writeln!(s, "    games {}", wrap(&list.join(", "), 100, "    "));
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(s, "unreadable games ({}):", self.errors.len());
            for (i, e) in &self.errors {
                let _ = writeln!(s, "  game {i}: {e}");
            }
        }
        s
    }
}

fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut col = 0;
    for word in text.split(' ') {
        if col > 0 && col + word.len() + 1 > width {
            out.push('\n');
            out.push_str(indent);
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out
}
