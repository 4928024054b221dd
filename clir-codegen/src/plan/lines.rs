//! The plan of a package's case and ruling lines: which keys a case line's `facts` may give
//! (each relation fact of an empirical or judgment relation, `name` and `~name`) and at which
//! slot of the batch its tuples go, and the keys of a ruling line's `concluded` and `definite`
//! objects in the order they are written (sorted by their text, as a JSON object map sorts them).

use crate::ir::RelationKind;
use crate::resolve::Program;

/// The keys of a package's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinesPlan {
    /// Keys a case may give, with their slot (`2 × relation + negative`), in relation order.
    pub inputs: Vec<(String, u32)>,
    /// Keys of a ruling's `concluded` and `definite` objects with their slot, sorted.
    pub rulings: Vec<(String, u32)>,
}

/// The [`LinesPlan`] of `p`.
pub fn lines(p: &Program) -> LinesPlan {
    let (mut inputs, mut rulings) = (Vec::new(), Vec::new());
    for (i, r) in p.relations.iter().enumerate() {
        let keys = [(r.name.clone(), 2 * i as u32), (format!("~{}", r.name), 2 * i as u32 + 1)];
        match r.kind {
            RelationKind::Institutional => rulings.extend(keys),
            RelationKind::Empirical | RelationKind::Judgment => inputs.extend(keys),
        }
    }
    rulings.sort();
    LinesPlan { inputs, rulings }
}
