//! A package compiled: the values of the passes after verification, built once and handed to
//! every printer (`emit`, the Datalog and the plan of [`crate::show`]).

use crate::diag::Diagnostics;
use crate::names::ModuleNames;
use crate::plan::{plan_program, Plan};
use crate::resolve::{resolve, Program};
use crate::strata::{stratify, Strata};
use crate::verify::Verified;

/// A verified document resolved, stratified, planned and named.
#[derive(Debug, Clone)]
pub struct Compilation {
    /// The resolved program.
    pub program: Program,
    /// Its strata.
    pub strata: Strata,
    /// Its plan.
    pub plan: Plan,
    /// Every identifier of its generated module.
    pub names: ModuleNames,
}

/// Resolves, stratifies, plans and names `doc`.
pub fn compile(doc: &Verified) -> Result<Compilation, Diagnostics> {
    let program = resolve(doc)?;
    let strata = stratify(&program)?;
    let plan = plan_program(&program, &strata);
    let names = ModuleNames::allocate(&program);
    Ok(Compilation { program, strata, plan, names })
}
