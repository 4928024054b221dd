//! `analyze` on packages in the test kit's notation: the witness cases it proposes (facts,
//! the literal two rules meet on, Integer values that satisfy the comparisons), the rules it
//! proves dead and why, the priorities it proves idle, and where its bounds cut the search.
//! Ruling the witnesses is `clir analyze`'s (tests/cli_analyze.rs, tests/analyze_sound.rs).

use clir_codegen::analyze::{analyze, Analysis, Bounds, Candidate, DeadProof, IdleProof, Target, Value};
use clir_codegen::resolve::{resolve, Program};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use clir_testkit::Package;

fn program(text: &str) -> Program {
    let pkg = Package::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let doc = verify_bytes(&pkg.bytes(), &VerifyOptions::default()).into_document().unwrap();
    resolve(&doc).unwrap()
}

fn rule(p: &Program, local: &str) -> usize {
    p.rules.iter().position(|r| r.id.ends_with(&format!("#{local}"))).unwrap()
}

/// The facts of a candidate as text, `~rel(a,b)`, sorted.
fn facts(p: &Program, c: &Candidate) -> Vec<String> {
    let mut out: Vec<String> = c
        .facts
        .iter()
        .map(|f| {
            let args: Vec<String> = f
                .args
                .iter()
                .map(|a| match a {
                    Value::Int(i) => i.to_string(),
                    Value::Name(s) | Value::Str(s) => s.clone(),
                })
                .collect();
            format!("{}{}({})", if f.negative { "~" } else { "" }, p.relations[f.rel].name, args.join(","))
        })
        .collect();
    out.sort();
    out
}

fn of(a: &Analysis, target: Target) -> Vec<&Candidate> {
    a.candidates.iter().filter(|c| c.target == target).collect()
}

#[test]
fn a_pair_of_rules_is_joined_on_its_heads_and_unfolded_to_input_facts() {
    let p = program(
        "package t.pair 0.1.0
         type Claim
         type Person
         empirical claimant(c: Claim, p: Person)
         empirical amount(c: Claim, n: Integer)
         empirical late(c: Claim)
         institutional filed(c: Claim)
         institutional eligible(c: Claim)
         rule Filed strict: filed(c) :- claimant(c, p)
         rule Eligible defeasible: eligible(c) :- filed(c), amount(c, n), n >= 100, n != 100
         rule Late defeasible: ~eligible(c) :- late(c)",
    );
    let a = analyze(&p, &Bounds::default());
    let (pos, neg) = (rule(&p, "Eligible"), rule(&p, "Late"));
    let pair = of(&a, Target::Conflict { pos, neg });
    assert!(!pair.is_empty(), "{:?}", a.candidates);
    // `filed` unfolded through its rule, the two bodies joined on the claim, n solved.
    assert_eq!(facts(&p, pair[0]), ["amount(e1,101)", "claimant(e1,e2)", "late(e1)"]);
    let (rel, args) = pair[0].literal.clone().unwrap();
    assert_eq!((p.relations[rel].name.as_str(), args), ("eligible", vec![Value::Name("e1".into())]));
    assert_eq!(a.pairs, 1);
    assert!(a.dead.is_empty());
}

#[test]
fn heads_with_constants_and_arithmetic_meet_only_where_they_can() {
    let p = program(
        "package t.heads 0.1.0
         features integer-arithmetic
         type Game
         const Open: Game
         empirical count(g: Game, n: Integer)
         empirical closed(g: Game)
         institutional next(g: Game, n: Integer)
         rule Next defeasible: next(g, n + 1) :- count(g, n)
         rule NotFive defeasible: ~next(g, 5) :- closed(g)
         rule OpenOnly defeasible: ~next(Open, n) :- count(Open, n), n > 10",
    );
    let a = analyze(&p, &Bounds::default());
    let next = rule(&p, "Next");
    // next(g, n + 1) against ~next(g, 5): n is 4.
    let five = of(&a, Target::Conflict { pos: next, neg: rule(&p, "NotFive") });
    assert_eq!(facts(&p, five[0]), ["closed(e1)", "count(e1,4)"]);
    // Against ~next(Open, n) with n > 10: the game is the constant, the count above 10.
    let open = of(&a, Target::Conflict { pos: next, neg: rule(&p, "OpenOnly") });
    let f = facts(&p, open[0]);
    assert!(f.iter().all(|x| x.starts_with("count(Open,")), "{f:?}");
    let (_, args) = open[0].literal.clone().unwrap();
    assert!(matches!(args[1], Value::Int(n) if n > 10), "{args:?}");
    assert_eq!(f, ["count(Open,10)", "count(Open,11)"]);
}

#[test]
fn dead_rules_are_proven_with_the_reason() {
    let p = program(
        "package t.dead 0.1.0
         type Claim
         empirical amount(c: Claim, n: Integer)
         institutional flagged(c: Claim)
         institutional paid(c: Claim)
         institutional owed(c: Claim)
         institutional low(c: Claim)
         rule False defeasible: paid(c) :- amount(c, n), false
         rule Cmp defeasible: paid(c) :- amount(c, n), n > 10, n < 5
         rule Cycle defeasible: paid(c) :- amount(c, n), amount(c, m), n < m, m < n
         rule Flagged defeasible: paid(c) :- flagged(c)
         rule Owed defeasible: owed(c) :- paid(c), flagged(c)
         rule Low defeasible: low(c) :- amount(c, n), n < 3
         rule Never defeasible: paid(c) :- low(c), amount(c, m), m > 7, amount(c, k), k = m",
    );
    let a = analyze(&p, &Bounds::default());
    let proof = |local: &str| a.dead.iter().find(|&&(r, _)| r == rule(&p, local)).map(|&(_, d)| d);
    assert_eq!(proof("False"), Some(DeadProof::False));
    assert_eq!(proof("Cmp"), Some(DeadProof::Comparisons));
    assert_eq!(proof("Cycle"), Some(DeadProof::Comparisons));
    assert_eq!(proof("Flagged"), Some(DeadProof::Underivable(0)));
    assert_eq!(proof("Owed"), Some(DeadProof::Underivable(1)));
    assert_eq!(proof("Low"), None);
    // `Never` needs two amounts, one below 3 and one above 7: two facts can say so.
    assert_eq!(proof("Never"), None);
    assert!(!of(&a, Target::Applicable(rule(&p, "Never"))).is_empty());
}

#[test]
fn a_body_every_unfolding_of_which_fails_is_dead() {
    let p = program(
        "package t.unfold 0.1.0
         type Claim
         empirical amount(c: Claim, n: Integer)
         institutional big(c: Claim, n: Integer)
         institutional both(c: Claim)
         rule Big defeasible: big(c, n) :- amount(c, n), n > 100
         rule Both defeasible: both(c) :- big(c, n), n < 50",
    );
    let a = analyze(&p, &Bounds::default());
    assert_eq!(a.dead, [(rule(&p, "Both"), DeadProof::EveryUnfoldingFails)]);
}

#[test]
fn idle_priorities_are_proven_where_they_can_be() {
    let p = program(
        "package t.idle 0.1.0
         type Claim
         empirical amount(c: Claim, n: Integer)
         empirical minor(c: Claim)
         institutional covered(c: Claim, n: Integer)
         institutional paid(c: Claim)
         rule Minor defeasible: covered(c, n) :- minor(c), amount(c, n), n < 50
         rule Large defeasible: ~covered(c, n) :- amount(c, n), n > 500
         rule Paid defeasible: paid(c) :- minor(c)
         rule Other defeasible: covered(c, n) :- amount(c, n)
         rule Blocker defeater: ~covered(c, n) :- amount(c, n)
         priority Never: Minor > Large
         priority Unrelated: Paid > Large
         priority ByDefeater: Blocker > Other
         priority Decides: Other > Large",
    );
    let a = analyze(&p, &Bounds::default());
    let idle = |local: &str| {
        let i = p.superiority.iter().position(|s| s.id.ends_with(&format!("#{local}"))).unwrap();
        a.idle.iter().find(|&&(x, _)| x == i).map(|&(_, proof)| proof)
    };
    assert_eq!(idle("Never"), Some(IdleProof::NeverTogether));
    assert_eq!(idle("Unrelated"), Some(IdleProof::NotComplementary));
    assert_eq!(idle("ByDefeater"), Some(IdleProof::HigherDefeater));
    assert_eq!(idle("Decides"), None);
    assert!(a.candidates.iter().any(|c| matches!(c.target, Target::Together(_))));
}

#[test]
fn recursion_is_cut_at_the_depth_bound_and_closures_unfold_to_their_domain() {
    let p = program(
        "package t.depth 0.1.0
         type Node
         empirical edge(a: Node, b: Node)
         empirical node(a: Node)
         institutional reach(a: Node, b: Node)
         institutional listed(a: Node)
         institutional orphan(a: Node)
         rule Step strict: reach(x, y) :- edge(x, y)
         rule Trans strict: reach(x, z) :- edge(x, y), reach(y, z)
         rule Listed strict: listed(x) :- node(x)
         rule Orphan defeasible: orphan(x) :- ~reach(x, x)
         closure Closed: reach over pair
         institutional pair(a: Node, b: Node)
         rule Pair strict: pair(x, y) :- node(x), node(y)",
    );
    let a = analyze(&p, &Bounds { depth: 2, ..Bounds::default() });
    assert!(a.cut.0 > 0, "the recursion reaches the depth bound: {:?}", a.cut);
    let orphan = of(&a, Target::Applicable(rule(&p, "Orphan")));
    assert_eq!(facts(&p, orphan[0]), ["node(e1)"]);
}

#[test]
fn the_search_stays_within_its_step_bound() {
    // Every premise has two rules: the unfoldings double at each level.
    let mut text = String::from("package t.wide 0.1.0\ntype A\nempirical base(a: A)\nempirical alt(a: A)\n");
    for i in 0..12 {
        text.push_str(&format!("institutional l{i}(a: A)\n"));
        let below = if i == 0 { "base(x)".to_string() } else { format!("l{}(x)", i - 1) };
        text.push_str(&format!("rule R{i} strict: l{i}(x) :- {below}, alt(x)\n"));
        text.push_str(&format!("rule S{i} strict: l{i}(x) :- {below}\n"));
    }
    let p = program(&text);
    let bounds = Bounds { steps: 50, depth: 64, candidates: 100, ..Bounds::default() };
    let a = analyze(&p, &bounds);
    assert!(a.cut.1 > 0, "{:?}", a.cut);
    assert!(a.candidates.len() <= 100 * p.rules.len());
}

#[test]
fn pairs_past_their_bound_are_counted_not_searched() {
    let mut text = String::from("package t.pairs 0.1.0\ntype A\nempirical base(a: A)\ninstitutional q(a: A)\n");
    for i in 0..3 {
        text.push_str(&format!("rule P{i} defeasible: q(x) :- base(x)\nrule N{i} defeasible: ~q(x) :- base(x)\n"));
    }
    let p = program(&text);
    let all = analyze(&p, &Bounds::default());
    assert_eq!((all.pairs, all.pairs_skipped), (9, 0));
    let some = analyze(&p, &Bounds { pairs: 4, ..Bounds::default() });
    assert_eq!((some.pairs, some.pairs_skipped), (4, 5));
    let searched = some.candidates.iter().filter(|c| matches!(c.target, Target::Conflict { .. })).count();
    assert!(searched > 0 && searched <= 4 * 2 * Bounds::default().candidates, "{searched}");
}
