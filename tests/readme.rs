//! The README's Rust example, as written there.

clir::include_clir!("fide.laws.chess"); // a module `fide_laws_chess`

#[test]
fn readme_example() {
    use fide_laws_chess::*;
    let mut cases = Cases::new();
    let mut case = cases.case();
    let (g, w) = (case.game("g1"), case.player("w"));
    case.checkmate_delivered(g, w).moves_by_each_without_pawn_or_capture(g, 75);
    let id = case.id();
    let ruling = cases.evaluate().case(id);
    assert!(ruling.game_won_by().is_definite(&(g, w)));
    assert!(ruling.not_game_drawn().is_concluded(&(g,)));
    assert!(ruling.contradictions().is_empty());
}
