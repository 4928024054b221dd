//! The typed API of a generated module, written once per shape: one invocation of these macros
//! per relation expands to its methods on the module's `Case` (facts added) or `Ruling`
//! (conclusions read), so that the module holds a line a relation, not a dozen.

/// The two methods of a generated `Case` that add a fact of input relation `$rel`:
/// `case_methods!($rel, $fact, $not, [grant $g,] ($($p: $t),*), $doc[, $label])` writes
/// `$fact($($p: $t),*)` and `$not(..)`, which add `(case, $($p),*)` to the case's batch as a
/// positive and as an explicit negative fact; `grant $g` makes each take the grant `&$g` a
/// judgment relation's facts need. `$doc` is the fact as the package writes it
/// (`name(param: Type, ..)`), `$label` the relation's label when it has one.
///
/// Generated code only: it expands to associated functions of a `Case` with fields `batch`
/// (`&mut clir::Batch`) and `case` (`clir::CaseId`).
#[macro_export]
macro_rules! case_methods {
    (@ $yes:expr, $no:expr; $rel:expr, $fact:ident, $not:ident, $(grant $g:ty,)? ($($p:ident: $t:ty),*)) => {
        #[doc = $yes]
        pub fn $fact(&mut self, $(_grant: &$g,)? $($p: $t),*) -> &mut Self {
            self.batch.add($rel, false, (self.case, $($p,)*));
            self
        }
        #[doc = $no]
        pub fn $not(&mut self, $(_grant: &$g,)? $($p: $t),*) -> &mut Self {
            self.batch.add($rel, true, (self.case, $($p,)*));
            self
        }
    };
    ($rel:expr, $fact:ident, $not:ident, $(grant $g:ty,)? ($($p:ident: $t:ty),*), $doc:literal, $label:literal) => {
        $crate::case_methods!(@
            concat!("Adds the fact `", $doc, "`: ", $label, "."),
            concat!("Adds the explicit negative `~", $doc, "`: not \"", $label, "\".");
            $rel, $fact, $not, $(grant $g,)? ($($p: $t),*));
    };
    ($rel:expr, $fact:ident, $not:ident, $(grant $g:ty,)? ($($p:ident: $t:ty),*), $doc:literal) => {
        $crate::case_methods!(@
            concat!("Adds the fact `", $doc, "`."),
            concat!("Adds the explicit negative `~", $doc, "`: it is not so.");
            $rel, $fact, $not, $(grant $g,)? ($($p: $t),*));
    };
}

/// The methods of a generated `Ruling` that read institutional relation `$rel`:
/// `ruling_methods!($rel, $row, $name, $yes, $no[, $why, $why_no])` writes `$yes()` and `$no()`,
/// what was concluded of the relation and of its negation as rows `$row` (the tuple of its
/// columns' types), and with `$why, $why_no`, `$why(&row)` and `$why_no(&row)`, whether that
/// literal of either sign is concluded and if not why. `$name` is the relation's name as the
/// package writes it.
///
/// Generated code only: it expands to associated functions of a `Ruling` with fields `output`
/// (`clir::Output`) and `case` (`clir::CaseId`) and, for `$why`, a method
/// `why_not(&self, rel: usize, negative: bool, args: Vec<i64>) -> clir::WhyNot`.
#[macro_export]
macro_rules! ruling_methods {
    ($rel:expr, $row:ty, $name:literal, $yes:ident, $no:ident $(, $why:ident, $why_no:ident)?) => {
        #[doc = concat!("What was concluded of `", $name, "`.")]
        pub fn $yes(&self) -> $crate::Conclusions<$row> {
            self.output.conclusions($rel, false, self.case)
        }
        #[doc = concat!("What was concluded of `~", $name, "`.")]
        pub fn $no(&self) -> $crate::Conclusions<$row> {
            self.output.conclusions($rel, true, self.case)
        }
        $(
            #[doc = concat!("Whether `", $name, "` of `args` is concluded, and if not why.")]
            pub fn $why(&self, args: &$row) -> $crate::WhyNot {
                self.why_not($rel, false, $crate::Row::to_row(args))
            }
            #[doc = concat!("Whether `~", $name, "` of `args` is concluded, and if not why.")]
            pub fn $why_no(&self, args: &$row) -> $crate::WhyNot {
                self.why_not($rel, true, $crate::Row::to_row(args))
            }
        )?
    };
}

#[cfg(test)]
mod tests {
    use crate::{slot, Batch, CaseId, Output, ParamInfo, RelationInfo, Schema, Texts, WhyNot};

    crate::entity_type!(
        /// A game.
        Game
    );

    const REL_PLAYED: usize = 0;
    const REL_WON: usize = 1;

    static SCHEMA: Schema = Schema {
        package: "test",
        version: "0.1.0",
        seal: "",
        in_force: None,
        until: None,
        relations: &[
            RelationInfo::empirical("played", &[ParamInfo::entity("game", "Game"), ParamInfo::integer("moves")]),
            RelationInfo::institutional("won", &[ParamInfo::entity("game", "Game")]),
        ],
        constants: &[],
        fragments: &[],
        rules: &[],
        priorities: &[],
        closures: &[],
        texts: Texts::new(&["en"], &[]),
    };

    struct Grant;

    struct Case<'a> {
        batch: &'a mut Batch,
        case: CaseId,
    }

    impl Case<'_> {
        crate::case_methods!(REL_PLAYED, played, not_played, (game: Game, moves: i64), "played(game: Game)", "played");
        crate::case_methods!(REL_PLAYED, judged, not_judged, grant Grant, (game: Game, moves: i64), "played(game: Game)");
    }

    struct Ruling {
        output: Output,
        case: CaseId,
    }

    impl Ruling {
        fn why_not(&self, rel: usize, negative: bool, args: Vec<i64>) -> WhyNot {
            let literal = format!("{rel} {negative} {args:?}");
            WhyNot { literal, concluded: false, definite: false, reasons: Vec::new() }
        }
        crate::ruling_methods!(REL_WON, (Game,), "won", won, not_won, why_not_won, why_not_not_won);
        // As a module compiled without explanations writes it.
        crate::ruling_methods!(REL_WON, (Game,), "won", won_only, not_won_only);
    }

    #[test]
    fn case_methods_add_facts_of_each_sign() {
        let mut batch = Batch::new(&SCHEMA);
        let case = batch.add_case();
        let game = Game(batch.entity("g"));
        Case { batch: &mut batch, case }
            .played(game, 40)
            .not_played(game, 41)
            .judged(&Grant, game, 42)
            .not_judged(&Grant, game, 43);
        let g = game.0 .0 as i64;
        assert_eq!(batch.facts[slot(REL_PLAYED, false)], [0, g, 40, 0, g, 42]);
        assert_eq!(batch.facts[slot(REL_PLAYED, true)], [0, g, 41, 0, g, 43]);
    }

    #[test]
    fn ruling_methods_read_conclusions_and_ask_why_not() {
        let mut output = Output::new(SCHEMA.relations.len());
        output.concluded[slot(REL_WON, false)] = vec![0, 5];
        output.definite[slot(REL_WON, true)] = vec![0, 6];
        let ruling = Ruling { output, case: CaseId(0) };
        assert_eq!(ruling.won().concluded, [(Game(crate::Sym(5)),)]);
        assert!(ruling.won().definite.is_empty());
        assert_eq!(ruling.not_won().definite, [(Game(crate::Sym(6)),)]);
        assert_eq!(ruling.won_only(), ruling.won());
        assert_eq!(ruling.not_won_only(), ruling.not_won());
        assert_eq!(ruling.why_not_won(&(Game(crate::Sym(7)),)).literal, "1 false [7]");
        assert_eq!(ruling.why_not_not_won(&(Game(crate::Sym(8)),)).literal, "1 true [8]");
    }
}
