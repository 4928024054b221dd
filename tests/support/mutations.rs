//! Certificates and rulings changed in one way each, and what a checker must say of each: the
//! mutations `clir check` is tested on (tests/cli_check.rs) and that the review page's checker
//! must judge alike (tests/js_checker_agrees.rs). Included with `#[path]`.

use serde_json::{json, Value};

/// A certified ruling changed in one way, and the rejection a checker must give.
pub struct Mutation {
    /// What was changed.
    pub name: &'static str,
    /// The case line (changed only by `a_changed_case_line`).
    pub case: String,
    /// The ruling line.
    pub ruling: String,
    /// The literal at fault (`Some(None)`: none), or `None` when the test does not say.
    pub literal: Option<Option<&'static str>>,
    /// How the step begins (`""`: any).
    pub step: &'static str,
    /// What the reason contains (`""`: anything).
    pub reason: &'static str,
}

/// The index in `list` of the entry for `literal`.
pub fn entry(list: &Value, literal: Value) -> usize {
    list.as_array().unwrap().iter().position(|e| e[1] == literal).unwrap_or_else(|| panic!("{literal} in {list}"))
}

/// Every mutation of `ruling`, the certified ruling of the FIDE sample game `g5` (a checkmate
/// after 75 moves: `~game_drawn` concluded against an attack its priority beats), whose case
/// line is `case`.
pub fn mutations(case: &str, ruling: &Value) -> Vec<Mutation> {
    let mut out = Vec::new();
    let mut add = |name: &'static str,
                   change: &dyn Fn(&mut Value),
                   literal: Option<Option<&'static str>>,
                   step: &'static str,
                   reason: &'static str| {
        let mut changed = ruling.clone();
        change(&mut changed);
        out.push(Mutation { name, case: case.to_string(), ruling: changed.to_string(), literal, step, reason });
    };
    let cert = &ruling["certificate"];
    let d = cert["D"].as_array().unwrap();
    let won = d.iter().position(|e| e[1][0] == "game_won_by").unwrap();
    let node = d[won][2][0].as_u64().unwrap() as usize;
    let other = d.iter().position(|e| e[1][0] == "play_started").unwrap();
    let drawn = entry(&cert["d"], json!(["~game_drawn", "g5"]));
    let last = d.len() - 1;

    add(
        "a dropped +D literal",
        &|r| {
            r["certificate"]["D"].as_array_mut().unwrap().pop();
        },
        Some(Some("entered_state(g5,Ended)")),
        "fixpoint",
        "not listed in +D",
    );
    add(
        "a cleared +d list",
        &|r| r["certificate"]["d"].as_array_mut().unwrap().clear(),
        Some(Some("~game_drawn(g5)")),
        "fixpoint",
        "every attack on it is beaten, but the literal is not listed in +d",
    );
    add(
        "an added input fact",
        &|r| {
            r["certificate"]["D"].as_array_mut().unwrap().push(json!([
                0,
                ["checkmate_delivered", "g5", "black"],
                "fact"
            ]))
        },
        Some(Some("checkmate_delivered(g5,black)")),
        "+D",
        "the case line does not state it",
    );
    add(
        "an added conclusion its rule's premises do not give",
        &|r| {
            let d = r["certificate"]["D"].as_array_mut().unwrap();
            let mut copy = d[won].clone();
            copy[1][2] = json!("black");
            d.push(copy);
        },
        Some(Some("game_won_by(g5,black)")),
        "+D",
        "#CheckmateWins: its premises are not an instance of its body",
    );
    add(
        "a swapped rank",
        &|r| r["certificate"]["D"][won][0] = json!(0),
        Some(Some("game_won_by(g5,white)")),
        "+D",
        "not below this entry's rank 0",
    );
    add(
        "a beaten attack without its priority",
        &|r| r["certificate"]["d"][drawn].as_array_mut().unwrap().truncate(3),
        Some(Some("~game_drawn(g5)")),
        "+d",
        "#SeventyFiveAutomaticDraw applies and is not shown beaten",
    );
    add(
        "the priority of an attack named as a rule",
        &|r| {
            let a = r["certificate"]["d"][drawn][3][0].clone();
            r["certificate"]["d"][drawn][3][0][2] = a[1].clone();
        },
        Some(Some("~game_drawn(g5)")),
        "+d",
        "[attacking rule, beating rule, priority]",
    );
    add(
        "a rule id changed to another rule's",
        &|r| r["certificate"]["nodes"][node] = json!("urn:fide:laws:clir:chess#StalemateDraws"),
        Some(Some("game_won_by(g5,white)")),
        "+D",
        "its head is of another relation or sign",
    );
    add(
        "a rule id changed to no node's",
        &|r| r["certificate"]["nodes"][node] = json!("urn:fide:laws:clir:chess#NoSuchRule"),
        Some(None),
        "nodes",
        "#NoSuchRule is no rule, closure or priority",
    );
    add(
        "another seal",
        &|r| r["certificate"]["seal"] = json!(format!("sha256:{}", "0".repeat(64))),
        Some(None),
        "seal",
        "not sha256:",
    );
    add(
        "a premise swapped for another input fact",
        &|r| r["certificate"]["D"][won][2][1] = json!([format!("D{other}")]),
        Some(Some("game_won_by(g5,white)")),
        "+D",
        "not an instance of its body",
    );
    add(
        "a premise of another layer than its status asks for",
        &|r| {
            let refs = r["certificate"]["D"][won][2][1].as_array_mut().unwrap();
            let premise = refs[0].as_str().unwrap().to_string();
            refs[0] = json!(premise.replace('D', "S"));
        },
        Some(Some("game_won_by(g5,white)")),
        "",
        "",
    );
    add(
        "a concluded literal left out of the ruling",
        &|r| {
            r["concluded"].as_object_mut().unwrap().remove("~game_drawn");
        },
        Some(Some("~game_drawn(g5)")),
        "ruling",
        "the ruling does not list it as concluded",
    );
    add(
        "a definite literal added to the ruling",
        &|r| r["definite"]["game_drawn"] = json!([["g5"]]),
        Some(Some("game_drawn(g5)")),
        "ruling",
        "not +D",
    );
    add(
        "no certificate",
        &|r| {
            r.as_object_mut().unwrap().remove("certificate");
        },
        Some(None),
        "certificate",
        "--certify",
    );
    add(
        // The rank is printed in full by clir-check; a checker reading JSON numbers as doubles
        // prints the double nearest it, with the same first 15 digits.
        "every rank the largest whole number",
        &|r| {
            for e in r["certificate"]["D"].as_array_mut().unwrap() {
                e[0] = json!(u64::MAX);
            }
        },
        None,
        "",
        "not below this entry's rank 184467440737095",
    );
    add(
        "a rank beyond 2^64",
        &|r| r["certificate"]["D"][0][0] = serde_json::from_str("1e300").unwrap(),
        Some(None),
        "+D[0]",
        "a rank is a whole number below 2^64",
    );
    add(
        "a premise index beyond every list",
        &|r| r["certificate"]["D"][last][2][1] = json!([format!("D{}", usize::MAX)]),
        None,
        "",
        "is not listed",
    );
    add(
        "a node index beyond the table",
        &|r| r["certificate"]["D"][last][2][0] = json!(u64::MAX),
        None,
        "",
        "node index",
    );
    out.push(Mutation {
        name: "a changed case line",
        case: format!("{case} "),
        ruling: ruling.to_string(),
        literal: Some(None),
        step: "case",
        reason: "hashed",
    });
    out.push(Mutation {
        name: "a ruling line that is no JSON, nested deep",
        case: case.to_string(),
        ruling: "{\"case\":[".repeat(1 << 14),
        literal: Some(None),
        step: "line",
        reason: "not JSON",
    });
    out
}
