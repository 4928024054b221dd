//! The Demo Library's loan rules (the law package `demo.library.loans`, which build.rs compiles
//! into this crate from law.toml and law.lock) applied to loans.
//!
//! ```text
//! downstream                                                  four sample cases, typed API
//! downstream --jsonl [--grant judgment:Librarian] [--explain] < cases.jsonl > rulings.jsonl
//! ```
//!
//! With `--jsonl` every line of stdin is a case (`{"case":..,"facts":{..}}`) and gets exactly one
//! ruling line on stdout, in input order. Exit status: 0 every case ruled, 1 some case rejected
//! (its error line is written, the others are ruled), 2 the command could not run.

clir::include_clir!("demo.library.loans"); // a module `demo_library_loans`

use demo_library_loans::{Cases, Item, JudgmentLibrarianGrant, Loan, Member, Ruling, SCHEMA};
use std::io;
use std::process::ExitCode;

const USAGE: &str = "usage: downstream [--jsonl [--grant judgment:Librarian] [--explain]]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        None => {
            samples();
            ExitCode::SUCCESS
        }
        Some((first, rest)) if first == "--jsonl" => jsonl(rest),
        Some((first, _)) if first == "--help" || first == "-h" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(_) => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// One loan of a sample case, with the names its entities were given.
struct Sample {
    story: &'static str,
    case: clir::CaseId,
    loan: (Loan, &'static str),
    member: (Member, &'static str),
    item: (Item, &'static str),
}

/// Four cases built through the typed API, ruled in one batch, one line per conclusion.
fn samples() {
    let mut cases = Cases::new();
    let mut samples = Vec::new();
    // Only the librarian finds an item damaged (Article 10): a `found_damaged` fact needs this grant.
    let librarian = JudgmentLibrarianGrant::grant();

    let mut c = cases.case();
    let (alice, b1, l1) = (c.member("alice"), c.item("B1"), c.loan("L1"));
    c.registered(alice).loan_of(l1, alice, b1).renewals(l1, 0);
    let story = "alice has B1 on loan (L1), never renewed, nobody waiting for it";
    samples.push(Sample { story, case: c.id(), loan: (l1, "L1"), member: (alice, "alice"), item: (b1, "B1") });

    let mut c = cases.case();
    let (bob, carol, b2, l2) = (c.member("bob"), c.member("carol"), c.item("B2"), c.loan("L2"));
    c.registered(bob).registered(carol).loan_of(l2, bob, b2).renewals(l2, 1).reservation(b2, carol);
    let story = "bob has B2 on loan (L2), renewed once; carol has reserved B2";
    samples.push(Sample { story, case: c.id(), loan: (l2, "L2"), member: (bob, "bob"), item: (b2, "B2") });

    let mut c = cases.case();
    let (dana, erin, b3, l3) = (c.member("dana"), c.member("erin"), c.item("B3"), c.loan("L3"));
    c.registered(dana).staff_member(dana).loan_of(l3, dana, b3).renewals(l3, 0).reservation(b3, erin);
    let story = "dana, on the staff, has B3 on loan (L3); erin has reserved B3";
    samples.push(Sample { story, case: c.id(), loan: (l3, "L3"), member: (dana, "dana"), item: (b3, "B3") });

    let mut c = cases.case();
    let (frank, b4, l4) = (c.member("frank"), c.item("B4"), c.loan("L4"));
    c.registered(frank).loan_of(l4, frank, b4).renewals(l4, 0).days_overdue(l4, 45);
    c.found_damaged(&librarian, b4);
    let story = "frank's loan L4 of B4 is 45 days overdue; the librarian found B4 damaged";
    samples.push(Sample { story, case: c.id(), loan: (l4, "L4"), member: (frank, "frank"), item: (b4, "B4") });

    let rulings = cases.evaluate();
    for (n, s) in samples.iter().enumerate() {
        println!("case {}: {}", n + 1, s.story);
        for line in conclusions(s, &rulings.case(s.case)) {
            println!("  {line}");
        }
    }
}

/// What the ruling concluded of the sample's loan, member and item, each with the article it
/// rests on. Which rule decided is read off the ruling itself: a refusal that is definite comes
/// from the strict rules (overdue, damaged), one that is only concluded from the defeasible
/// Article 5. `--jsonl --explain` gives every conclusion's full derivation.
fn conclusions(s: &Sample, r: &Ruling) -> Vec<String> {
    let ((loan, l), (member, m), (item, i)) = (s.loan, s.member, s.item);
    let mut out = Vec::new();
    if r.reserved().is_concluded(&(item,)) {
        out.push(format!("item {i}: reserved ({})", article("Reserved")));
    }
    if r.not_reserved().is_concluded(&(item,)) {
        out.push(format!("item {i}: not reserved, the register records no reservation ({})", closure_article()));
    }
    if r.overdue().is_concluded(&(loan,)) {
        out.push(format!("loan {l}: overdue ({})", article("Overdue")));
    }
    let renew = r.may_renew();
    let refuse = r.not_may_renew();
    if renew.is_concluded(&(loan,)) {
        if r.reserved().is_concluded(&(item,)) {
            let (staff, reserved) = (article("StaffRenewal"), article("ReservedNoRenewal"));
            out.push(format!("loan {l}: renewal allowed although {i} is reserved ({staff}, over {reserved})"));
        } else {
            out.push(format!("loan {l}: renewal allowed ({})", article("Renewal")));
        }
    } else if refuse.is_definite(&(loan,)) {
        let mut why = Vec::new();
        if r.overdue().is_concluded(&(loan,)) {
            why.push(format!("overdue, {}", article("OverdueNoRenewal")));
        }
        if r.liable_for_damage().is_concluded(&(member, item)) {
            why.push(format!("found damaged, {}", article("DamagedNoRenewal")));
        }
        out.push(format!("loan {l}: renewal refused ({})", why.join("; ")));
    } else if refuse.is_concluded(&(loan,)) {
        out.push(format!("loan {l}: renewal refused, {i} is reserved ({})", article("ReservedNoRenewal")));
    } else {
        out.push(format!("loan {l}: renewal neither allowed nor refused"));
    }
    if r.may_borrow().is_concluded(&(member,)) {
        out.push(format!("member {m}: may borrow ({})", article("Borrowing")));
    }
    if r.not_may_borrow().is_concluded(&(member,)) {
        out.push(format!(
            "member {m}: may not borrow, a loan is more than 30 days overdue ({})",
            article("Suspension")
        ));
    }
    if r.liable_for_damage().is_concluded(&(member, item)) {
        out.push(format!("member {m}: liable for the damage to {i} ({})", article("DamageLiability")));
    }
    for c in r.contradictions() {
        out.push(format!("contradiction: {c}"));
    }
    out
}

/// `Article 4.1`: the article a rule of the package cites, from its label (`Article 4.1. ...`).
fn article(rule: &str) -> &'static str {
    let info = SCHEMA.rules.iter().find(|r| r.id.rsplit('#').next() == Some(rule));
    let label = info.unwrap_or_else(|| panic!("demo.library.loans has no rule {rule}")).label;
    label.split(". ").next().unwrap_or(label)
}

/// The article of the package's one closure policy (the reservation register is complete).
fn closure_article() -> &'static str {
    let label = SCHEMA.closures.first().map_or("", |c| c.label);
    label.split(". ").next().unwrap_or(label)
}

/// `--jsonl`: rules the cases of stdin, one ruling line each on stdout.
fn jsonl(args: &[String]) -> ExitCode {
    let mut opts = clir::runner::RunOptions::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.as_slice().first()) {
            ("--grant", Some(capability)) => {
                opts.options.grants.push(capability.clone());
                args.next();
            }
            ("--explain", _) => opts.options.explain = true,
            _ => {
                eprintln!("downstream: unexpected argument `{arg}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let package = demo_library_loans::Package;
    match clir::runner::rule_stream(&package, io::stdin().lock(), io::stdout().lock(), &opts) {
        Ok(summary) if summary.errors > 0 => {
            eprintln!("downstream: {} cases, {} rejected (see their error lines)", summary.lines, summary.errors);
            ExitCode::from(1)
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("downstream: {e}");
            ExitCode::from(2)
        }
    }
}
