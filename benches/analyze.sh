#!/usr/bin/env bash
# The cost of `clir analyze` (issue 50): for each N in $SIZES, the synthetic package of N rules
# (clir-testkit/examples/synthetic.rs) is analyzed by the release `clir` with a cache of its own:
# a first run builds the package's binary (as `clir run` does; not timed here, see
# crates-build.sh), the timed run finds its binary in the cache, so its wall clock and peak RSS
# are the analysis itself: verify, resolve, the unfolding search, ruling every witness case with
# the binary, confirming. Then fide.laws.chess, compiled in (ruled in process). Prints a
# markdown table. A benchmark, not a CI check.
#
#   bash benches/analyze.sh                  # SIZES="800 3200"
#   SIZES="800" bash benches/analyze.sh
#
# Environment: SIZES (default "800 3200"), SEED (default 1), WORK (scratch folder, default
# target/analyze-bench of this repository).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sizes="${SIZES:-800 3200}"
seed="${SEED:-1}"
mkdir -p "${WORK:-$root/target/analyze-bench}"
work="$(cd "${WORK:-$root/target/analyze-bench}" && pwd)"

note() { echo "analyze-bench: $*" >&2; }

(cd "$root" && cargo build -q --release -p clir-cli --bin clir && cargo build -q -p clir-testkit --example synthetic)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
clir="$target/release/clir"
synthetic="$target/debug/examples/synthetic"
rev="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)')"

# seconds_and_mb FILE: the wall clock and peak RSS (MB) of a `/usr/bin/time -v` report.
seconds_and_mb() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }
        /Maximum resident set size/ { rss = $2 } END { printf " %.0f\n", rss / 1024 }' "$1"
}

# kinds FILE: the findings of an analysis, counted by kind.
kinds() {
    for k in conflict dead not_found_applicable idle_priority; do
        printf '%s %s, ' "$(grep -c "\"kind\":\"$k\"" "$1" || true)" "$k"
    done | sed 's/, $//'
}

rows=()
export CLIR_CACHE_DIR="$work/cache"
for n in $sizes; do
    pkg="$work/synthetic-$n.lawir.json"
    "$synthetic" "$n" "$seed" > "$pkg"
    note "$n rules: building the package's binary"
    "$clir" analyze "$pkg" > /dev/null 2> "$work/build-$n.log" || { tail -20 "$work/build-$n.log" >&2; exit 1; }
    note "$n rules: analyzing"
    /usr/bin/time -v -o "$work/time.txt" "$clir" analyze "$pkg" > "$work/findings-$n.jsonl" 2> "$work/analyze-$n.log" ||
        { cat "$work/analyze-$n.log" >&2; exit 1; }
    read -r wall mb < <(seconds_and_mb "$work/time.txt")
    summary="$(sed -n 's/^clir analyze: .*: \(.* witness cases\) ruled.*/\1/p' "$work/analyze-$n.log")"
    rows+=("| synthetic, $n rules | $summary | $(kinds "$work/findings-$n.jsonl") | $wall | $mb |")
done
/usr/bin/time -v -o "$work/time.txt" "$clir" analyze fide.laws.chess > "$work/findings-fide.jsonl" 2> "$work/analyze-fide.log"
read -r wall mb < <(seconds_and_mb "$work/time.txt")
summary="$(sed -n 's/^clir analyze: .*: \(.* witness cases\) ruled.*/\1/p' "$work/analyze-fide.log")"
rows+=("| fide.laws.chess (compiled in) | $summary | $(kinds "$work/findings-fide.jsonl") | $wall | $mb |")

echo "clir $rev, $(rustc --version), $(nproc) cores, $(date -u +%Y-%m-%d), seed $seed, default bounds"
echo
echo "| package | searched | findings | analyze s | peak RSS MB |"
echo "| --- | --- | --- | ---: | ---: |"
printf '%s\n' "${rows[@]}"
