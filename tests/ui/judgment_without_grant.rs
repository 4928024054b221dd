// A judgment fact can only be given with the authority's grant in hand.
clir::include_clir!("fide.laws.chess");

fn main() {
    let mut cases = fide_laws_chess::Cases::new();
    let mut c = cases.case();
    let w = c.player("w");
    let n = c.piece("n");
    c.piece_touched_intentionally(w, n);
}
