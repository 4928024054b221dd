//! Benchmark of batch rulings (compiled vs hand-written vs ascent): being written.
fn main() {}
