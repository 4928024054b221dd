#!/usr/bin/env bash
# rustc time of the generated fide.laws.chess module on its own (the clir runtime prebuilt):
# clean debug, one-rule incremental debug, clean release. Usage: bash benches/rustc-time.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat > "$work/Cargo.toml" <<TOML
[package]
name = "rustc-time"
version = "0.1.0"
edition = "2021"
[dependencies]
clir = { path = "$root" }
[workspace]
TOML
cp "$root/generated/fide_laws_chess.rs" "$work/src/fide.rs"
printf '#[allow(dead_code)]\npub mod fide;\n' > "$work/src/lib.rs"
export CARGO_TARGET_DIR="$work/target"
cd "$work"
cargo build -q && cargo build -q --release            # dependencies, not timed
cargo clean -q -p rustc-time && cargo clean -q --release -p rustc-time
t() { local s=$(date +%s.%N); "$@"; echo "$(date +%s.%N) - $s" | bc; }
echo "lines: $(wc -l < src/fide.rs)"
echo "debug clean:       $(t cargo build -q) s"
sed -i '0,/v2 >= 50i64/s//v2 >= 51i64/' src/fide.rs
echo "debug incremental: $(t cargo build -q) s (one rule's comparison changed)"
echo "release clean:     $(t cargo build -q --release) s"
