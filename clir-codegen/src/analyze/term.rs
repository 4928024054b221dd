//! Terms of the unfolding: rule variables renamed apart, constants, values and Integer
//! arithmetic, with a substitution that binds variables as unification goes.

use crate::ir::{ArithOp, CmpOp};
use crate::resolve::{RRule, RTerm, Ty};

/// A term of a goal or of a witness under construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum T {
    /// A variable of the search (rule variables renamed apart), by index.
    V(u32),
    /// A declared constant, by index into the program's constants.
    C(usize),
    /// An Integer.
    I(i64),
    /// A String literal, by index into the program's strings.
    S(usize),
    /// Integer arithmetic.
    A(Box<(ArithOp, T, T)>),
}

/// Variables, their types and their bindings: the substitution of one branch of the search.
#[derive(Debug, Clone, Default)]
pub(crate) struct Subst {
    /// Per variable, its type.
    pub tys: Vec<Ty>,
    /// Per variable, the term it is bound to.
    pub bind: Vec<Option<T>>,
    /// Integer constraints unification could not express as bindings, and comparisons.
    pub cmps: Vec<(CmpOp, T, T)>,
}

impl Subst {
    /// A new variable of type `ty`.
    pub fn fresh(&mut self, ty: Ty) -> u32 {
        self.tys.push(ty);
        self.bind.push(None);
        (self.tys.len() - 1) as u32
    }

    /// The variables of `rule` renamed apart: the index of its variable 0 here.
    pub fn rename(&mut self, rule: &RRule) -> u32 {
        let base = self.tys.len() as u32;
        for (_, ty) in &rule.vars {
            self.fresh(*ty);
        }
        base
    }

    /// `t` of `rule`, its variables renamed from `base`.
    pub fn term(rule: &RRule, base: u32, t: RTerm) -> T {
        match t {
            RTerm::Var(v) => T::V(base + v as u32),
            RTerm::Const(c) => T::C(c),
            RTerm::Int(i) => T::I(i),
            RTerm::Str(s) => T::S(s),
            RTerm::Arith(i) => match rule.ariths.get(i) {
                Some(&(op, a, b)) => T::A(Box::new((op, Self::term(rule, base, a), Self::term(rule, base, b)))),
                // Resolve never makes a dangling index; a term that cannot match anything.
                None => T::I(0),
            },
        }
    }

    /// `t` with its top-level bindings followed.
    pub fn walk(&self, t: &T) -> T {
        let mut t = t.clone();
        // A chain of bindings is acyclic (bind never binds a variable to itself), and its
        // length is bounded by the number of variables.
        for _ in 0..=self.bind.len() {
            match t {
                T::V(v) => match self.bind.get(v as usize).and_then(Option::as_ref) {
                    Some(b) => t = b.clone(),
                    None => return t,
                },
                _ => return t,
            }
        }
        t
    }

    /// `t` with every binding followed, inside arithmetic too (depth-bounded: arithmetic nests
    /// no deeper than the rules write it, times the unfolding depth).
    pub fn resolve(&self, t: &T) -> T {
        self.resolve_at(t, 0)
    }

    fn resolve_at(&self, t: &T, depth: usize) -> T {
        let t = self.walk(t);
        match t {
            T::A(b) if depth < 256 => {
                let (op, x, y) = *b;
                T::A(Box::new((op, self.resolve_at(&x, depth + 1), self.resolve_at(&y, depth + 1))))
            }
            t => t,
        }
    }

    /// Whether variable `v` occurs in `t` (bindings followed).
    fn occurs(&self, v: u32, t: &T) -> bool {
        match self.resolve(t) {
            T::V(w) => w == v,
            T::A(b) => self.occurs(v, &b.1) || self.occurs(v, &b.2),
            _ => false,
        }
    }

    /// Unifies `a` and `b`: false when they can never be equal; arithmetic becomes an equality
    /// constraint.
    pub fn unify(&mut self, a: &T, b: &T) -> bool {
        let (a, b) = (self.walk(a), self.walk(b));
        match (&a, &b) {
            (T::V(x), T::V(y)) if x == y => true,
            (T::V(x), t) | (t, T::V(x)) => {
                if matches!(t, T::A(_)) && self.occurs(*x, t) {
                    self.cmps.push((CmpOp::Eq, T::V(*x), t.clone()));
                } else {
                    self.bind[*x as usize] = Some(t.clone());
                }
                true
            }
            (T::A(_), _) | (_, T::A(_)) => {
                self.cmps.push((CmpOp::Eq, a.clone(), b.clone()));
                true
            }
            (x, y) => x == y,
        }
    }
}
