//! Integer comparisons: a conjunction of `eq`, `ne`, `lt`, `le`, `gt`, `ge` over Integer
//! terms, solved by difference constraints (`x - y <= d`, `x <= c`, `x >= c`, with `x + c`
//! and `x - c` on either side), which Bellman-Ford decides exactly, then a bounded search over
//! values near that solution and the constants for what it does not cover (`ne`, products,
//! sums of two variables).

use super::term::{Subst, T};
use crate::ir::{ArithOp, CmpOp};
use std::collections::BTreeMap;

/// What the comparisons of a conjunction allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Solved {
    /// A value for each variable that makes every comparison true.
    Sat(BTreeMap<u32, i64>),
    /// No values can: its difference constraints alone exclude each other (exact).
    Unsat,
    /// No values were found within the search's bound, and none was proven impossible.
    Unknown,
}

/// The value of `t` under `vals` (an unvalued variable is `None`), `None` on overflow.
pub(crate) fn eval(t: &T, vals: &BTreeMap<u32, i64>) -> Option<i64> {
    match t {
        T::I(i) => Some(*i),
        T::V(v) => vals.get(v).copied(),
        T::A(b) => {
            let (x, y) = (eval(&b.1, vals)?, eval(&b.2, vals)?);
            match b.0 {
                ArithOp::Add => x.checked_add(y),
                ArithOp::Sub => x.checked_sub(y),
                ArithOp::Mul => x.checked_mul(y),
            }
        }
        T::C(_) | T::S(_) => None,
    }
}

/// Whether `a op b` holds.
pub(crate) fn holds(op: CmpOp, a: i64, b: i64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// Whether `a op b` holds under `vals`: Integers compared, names and strings equal or not.
pub(crate) fn holds_terms(op: CmpOp, a: &T, b: &T, vals: &BTreeMap<u32, i64>) -> bool {
    match (a, b) {
        (T::C(_) | T::S(_), T::C(_) | T::S(_)) => match op {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            _ => false,
        },
        _ => matches!((eval(a, vals), eval(b, vals)), (Some(x), Some(y)) if holds(op, x, y)),
    }
}

/// `t` as `x + c` (`x` absent for a constant), when it is of that form.
fn linear(t: &T) -> Option<(Option<u32>, i128)> {
    match t {
        T::I(i) => Some((None, *i as i128)),
        T::V(v) => Some((Some(*v), 0)),
        T::A(b) => {
            let (l, r) = (linear(&b.1)?, linear(&b.2)?);
            match (b.0, l, r) {
                (ArithOp::Add, (x, c), (None, d)) | (ArithOp::Add, (None, d), (x, c)) => Some((x, c + d)),
                (ArithOp::Sub, (x, c), (None, d)) => Some((x, c - d)),
                (ArithOp::Mul, (None, c), (None, d)) => Some((None, c.checked_mul(d)?)),
                _ => None,
            }
        }
        T::C(_) | T::S(_) => None,
    }
}

/// The variables of `t`, appended to `out` without repeats.
fn vars(t: &T, out: &mut Vec<u32>) {
    match t {
        T::V(v) if !out.contains(v) => out.push(*v),
        T::A(b) => {
            vars(&b.1, out);
            vars(&b.2, out);
        }
        _ => {}
    }
}

/// The node of the constant zero in the constraint graph.
const ZERO: usize = usize::MAX;

/// Solves the comparisons `cmps` (terms already resolved through the substitution) over the
/// Integer variables `ints`; `tries` bounds the search beyond difference constraints. With a
/// `margin` above 0, every inequality is tightened by it, for a solution inside the bounds
/// rather than on them (and `Unsat` then proves nothing).
pub(crate) fn solve(cmps: &[(CmpOp, T, T)], ints: &[u32], tries: usize, margin: i128) -> Solved {
    let mut all: Vec<u32> = ints.to_vec();
    for (_, a, b) in cmps {
        vars(a, &mut all);
        vars(b, &mut all);
    }
    let index = |v: u32| all.iter().position(|&w| w == v).unwrap_or(0);
    // Edges `from -> to` of weight d: `to - from <= d`; ZERO stands for the constant 0.
    let mut edges: Vec<(usize, usize, i128)> = Vec::new();
    let mut rest: Vec<&(CmpOp, T, T)> = Vec::new();
    // x + c <= y + d  is  x - y <= d - c.
    let le = |x: Option<u32>, c: i128, y: Option<u32>, d: i128, edges: &mut Vec<(usize, usize, i128)>| -> bool {
        let (x, y) = (x.map(index).unwrap_or(ZERO), y.map(index).unwrap_or(ZERO));
        if x == y {
            return c <= d;
        }
        edges.push((y, x, d - c));
        true
    };
    for cmp in cmps {
        let (op, a, b) = cmp;
        let (Some((x, c)), Some((y, d))) = (linear(a), linear(b)) else {
            rest.push(cmp);
            continue;
        };
        let ok = match op {
            CmpOp::Le => le(x, c + margin, y, d, &mut edges),
            CmpOp::Lt => le(x, c + 1 + margin, y, d, &mut edges),
            CmpOp::Ge => le(y, d + margin, x, c, &mut edges),
            CmpOp::Gt => le(y, d + 1 + margin, x, c, &mut edges),
            CmpOp::Eq => le(x, c, y, d, &mut edges) && le(y, d, x, c, &mut edges),
            CmpOp::Ne => {
                if x.is_none() && y.is_none() && c == d {
                    return Solved::Unsat;
                }
                rest.push(cmp);
                true
            }
        };
        if !ok {
            return Solved::Unsat;
        }
    }
    // Bellman-Ford from a source at distance 0 to every node; node n is ZERO.
    let n = all.len();
    let node = |i: usize| if i == ZERO { n } else { i };
    let mut dist = vec![0i128; n + 1];
    let mut settled = false;
    for _ in 0..=n + 1 {
        let mut changed = false;
        for &(from, to, w) in &edges {
            let (f, t) = (node(from), node(to));
            if dist[f] + w < dist[t] {
                dist[t] = dist[f] + w;
                changed = true;
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        // A negative cycle: the difference constraints exclude each other.
        return Solved::Unsat;
    }
    let base: Vec<i128> = (0..n).map(|i| dist[i] - dist[n]).collect();
    let mut vals: BTreeMap<u32, i64> = BTreeMap::new();
    for (i, &v) in all.iter().enumerate() {
        match i64::try_from(base[i]) {
            Ok(x) => {
                vals.insert(v, x);
            }
            Err(_) => return Solved::Unknown,
        }
    }
    let ok = |vals: &BTreeMap<u32, i64>| cmps.iter().all(|(op, a, b)| holds_terms(*op, a, b, vals));
    if ok(&vals) {
        return Solved::Sat(vals);
    }
    // A bounded search: each variable of the remaining comparisons near its value, near the
    // constants, or at small values.
    let mut open: Vec<u32> = Vec::new();
    for (_, a, b) in &rest {
        vars(a, &mut open);
        vars(b, &mut open);
    }
    let mut constants: Vec<i64> = vec![0, 1, -1, 2];
    for (_, a, b) in cmps {
        for t in [a, b] {
            if let Some((_, c)) = linear(t) {
                if let Ok(c) = i64::try_from(c) {
                    constants.extend([c, c.saturating_add(1), c.saturating_sub(1)]);
                }
            }
        }
    }
    let mut budget = tries;
    if search(&open, 0, &mut vals, &constants, &ok, &mut budget) {
        return Solved::Sat(vals);
    }
    Solved::Unknown
}

/// Backtracking over `open[at..]`: each variable at its current value plus or minus a little,
/// or at one of `constants`, until `ok` or the budget runs out.
fn search(
    open: &[u32],
    at: usize,
    vals: &mut BTreeMap<u32, i64>,
    constants: &[i64],
    ok: &dyn Fn(&BTreeMap<u32, i64>) -> bool,
    budget: &mut usize,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Some(&v) = open.get(at) else { return ok(vals) };
    let start = vals.get(&v).copied().unwrap_or(0);
    let mut tried: Vec<i64> = Vec::new();
    let near = [start, start.saturating_add(1), start.saturating_sub(1), start.saturating_add(2)];
    for x in near.into_iter().chain(constants.iter().copied()) {
        if tried.contains(&x) {
            continue;
        }
        tried.push(x);
        vals.insert(v, x);
        if search(open, at + 1, vals, constants, ok, budget) {
            return true;
        }
        if *budget == 0 {
            break;
        }
    }
    vals.insert(v, start);
    false
}

/// The comparisons of `s` resolved, and its free Integer variables.
pub(crate) fn constraints(s: &Subst) -> Vec<(CmpOp, T, T)> {
    s.cmps.iter().map(|(op, a, b)| (*op, s.resolve(a), s.resolve(b))).collect()
}
