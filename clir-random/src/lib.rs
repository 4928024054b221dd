//! Random packages compiled at build time by the real compiler (see `build.rs`).
#![allow(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/random_packages.rs"));
