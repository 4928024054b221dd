#!/usr/bin/env bash
# Build time of generated code: for each N in $SIZES, the synthetic package of N rules
# (clir-testkit/examples/synthetic.rs), compiled by the release `clir`, is built in release as
# the only module of a scratch crate whose dependencies (the clir runtime) are prebuilt; then the
# FIDE module the same way. Prints a markdown table: rules | generated lines | lines/rule |
# codegen s | codegen peak GB | release build s | peak RSS GB. A benchmark, not a CI check.
#
#   bash benches/rustc-time.sh                                # SIZES="50 200 800"
#   SIZES="50 200" TIMEOUT=1200 bash benches/rustc-time.sh
#   SIZES="200 800 3200 10000" BUILD=0 bash benches/rustc-time.sh   # code generation only
#   # a commit, while the checkout is being edited (compiler, runtime and generator of one commit):
#   git clone -q . /tmp/clir-bench && SIZES="50 200" bash /tmp/clir-bench/benches/rustc-time.sh
#
# Environment:
#   SIZES    rule counts (default "50 200 800")
#   SEED     the generator's seed (default 1)
#   TIMEOUT  seconds per timed build (default 2400); a build over it shows "timeout"
#   WORK     the scratch crate (default target/rustc-time of this repository); kept between
#            runs, so its dependencies are built once
#   FIDE     1 (default) to add the row of fide.laws.chess, 0 not to
#   BUILD    1 (default) to build each module with rustc, 0 to time code generation only
#
# The build time is the wall clock of `cargo build --release` of the scratch crate after only
# its module changed (so one rustc: the package crate); the peak RSS is /usr/bin/time's
# "Maximum resident set size", that of the largest process (rustc). The module is `pub mod
# package` so that rustc generates code for it, as for a crate that uses its package (the
# functions of a private module no caller reaches would only be checked, never code-generated).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sizes="${SIZES:-50 200 800}"
seed="${SEED:-1}"
timeout_s="${TIMEOUT:-2400}"
with_fide="${FIDE:-1}"
with_build="${BUILD:-1}"
mkdir -p "${WORK:-$root/target/rustc-time}"
work="$(cd "${WORK:-$root/target/rustc-time}" && pwd)"
fide_package="$root/sources/fide.laws.chess-0.1.0.lawir.json"

note() { echo "rustc-time: $*" >&2; }

# The release clir (the compiler under test) and the generator; the commit they are built from.
if rev="$(git -C "$root" rev-parse --short HEAD 2>/dev/null)"; then
    git -C "$root" diff --quiet HEAD -- clir clir-codegen clir-macros clir-testkit src Cargo.toml Cargo.lock ||
        rev="$rev with uncommitted changes"
else
    rev="(not a git checkout)"
fi
(cd "$root" && cargo build -q --release -p clir-cli --bin clir && cargo build -q -p clir-testkit --example synthetic)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
clir="$target/release/clir"

# The scratch crate: the runtime only, the module in src/package.rs.
mkdir -p "$work/src"
cat > "$work/Cargo.toml" <<TOML
[package]
name = "rustc-time"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
clir = { path = "$root/clir" }

[workspace]
TOML
[ -f "$work/Cargo.lock" ] || cp "$root/Cargo.lock" "$work/Cargo.lock"
cat > "$work/src/lib.rs" <<'RS'
#[allow(dead_code, non_snake_case, non_camel_case_types, clippy::all)]
pub mod package {
    include!("package.rs");
}
RS
export CARGO_TARGET_DIR="$work/target"
echo "// empty" > "$work/src/package.rs"
if [ "$with_build" = 1 ]; then
    note "prebuilding the dependencies in $work"
    (cd "$work" && cargo build -q --release)
fi

rows=()
# seconds_and_gb FILE: the wall clock and peak RSS of a `/usr/bin/time -v` report.
seconds_and_gb() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }
        /Maximum resident set size/ { rss = $2 } END { printf " %.2f\n", rss / 1048576 }' "$1"
}

# compile PACKAGE MODULE: `clir compile`, timed; sets gen_s and gen_gb.
compile() {
    /usr/bin/time -v -o "$work/gen.txt" "$clir" compile "$1" -o "$2"
    read -r gen_s gen_gb < <(seconds_and_gb "$work/gen.txt")
}

# time_build LABEL RULES MODULE: builds MODULE as the scratch crate's module, adds a table row.
time_build() {
    local label="$1" rules="$2" module="$3"
    local lines per status wall rss
    lines="$(wc -l < "$module")"
    per="$(awk -v l="$lines" -v r="$rules" 'BEGIN { printf "%.0f", l / r }')"
    if [ "$with_build" != 1 ]; then
        rows+=("| $label | $lines | $per | $gen_s | $gen_gb | – | – |")
        return
    fi
    cp "$module" "$work/src/package.rs"
    touch "$work/src/lib.rs"
    note "building $label: $rules rules, $lines lines (timeout ${timeout_s}s)"
    status=0
    (cd "$work" && /usr/bin/time -v -o "$work/time.txt" timeout "$timeout_s" cargo build -q --release) || status=$?
    if [ "$status" -eq 124 ]; then
        wall="timeout"
        rss="–"
    elif [ "$status" -ne 0 ]; then
        wall="failed ($status)"
        rss="–"
    else
        read -r wall rss < <(seconds_and_gb "$work/time.txt")
    fi
    note "$label: $wall s, $rss GB"
    rows+=("| $label | $lines | $per | $gen_s | $gen_gb | $wall | $rss |")
}

for n in $sizes; do
    pkg="$work/synthetic-$n.lawir.json"
    (cd "$root" && cargo run -q -p clir-testkit --example synthetic -- "$n" "$seed") > "$pkg"
    compile "$pkg" "$work/synthetic-$n.rs"
    time_build "$n" "$n" "$work/synthetic-$n.rs"
done
if [ "$with_fide" = 1 ]; then
    # Compiled by the same clir as the synthetic rows: generated/fide_laws_chess.rs when it is fresh.
    compile "$fide_package" "$work/fide.rs"
    cmp -s "$work/fide.rs" "$root/generated/fide_laws_chess.rs" ||
        note "the FIDE module differs from generated/fide_laws_chess.rs (not fresh): timing the compiler's output"
    fide_rules="$(grep -o '"kind":"rule"' "$fide_package" | wc -l)"
    time_build "$fide_rules (fide.laws.chess)" "$fide_rules" "$work/fide.rs"
fi

echo "clir $rev, $(rustc --version), $(nproc) cores, $(date -u +%Y-%m-%d), seed $seed"
echo
echo "| rules | generated lines | lines/rule | codegen s | codegen peak GB | release build s | rustc peak RSS GB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
