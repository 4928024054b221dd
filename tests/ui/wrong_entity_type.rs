// Entities are typed: a Player where a Game goes (and the reverse) does not compile.
clir::include_clir!("fide.laws.chess");

fn main() {
    let mut cases = fide_laws_chess::Cases::new();
    let mut c = cases.case();
    let g = c.game("g");
    let w = c.player("w");
    c.player_of(w, g);
}
