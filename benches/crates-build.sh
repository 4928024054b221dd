#!/usr/bin/env bash
# Building a large package as `clir run` does (issue 28): for each N in $SIZES, the synthetic
# package of N rules (clir-testkit/examples/synthetic.rs) is ruled once by the release `clir run`
# with a cache of its own whose runtime is prebuilt, so the timed run is code generation plus
# the package's own crates; then the package amended as publishers amend it, one rule's
# threshold raised and a new version 0.1.1, so a new seal and semanticHash (`synthetic
# --bump`), is ruled with the same cache: the rebuild after a one-rule amendment; and so, each
# from the same cache, the package with one rule added (`--add-rule`) and with one priority
# dropped (`--drop-priority`), both published as 0.1.1.
# Prints a markdown table. A benchmark, not a CI check.
#
#   bash benches/crates-build.sh                          # SIZES="800 3200"
#   SIZES="3200 10000" bash benches/crates-build.sh
#   CRATE_RULES=100000 SIZES=3200 bash benches/crates-build.sh   # one crate, as before
#
# Environment:
#   SIZES        rule counts (default "800 3200")
#   SEED         the generator's seed (default 1)
#   CRATE_RULES  rules a crate holds at most (`CLIR_CRATE_RULES`; default: clir's own)
#   WORK         scratch folder (default target/crates-build of this repository)
#
# Columns: generated lines (every crate's source), the crates built, the first build's wall
# clock and peak RSS (/usr/bin/time -v of `clir run`: the largest process, rustc), the
# rebuild's wall clock, peak RSS and the crates cargo compiled again (`clir run` says "rebuilt K
# of its N crates"), and the wall clock and crates of the rebuilds with a rule added and with a
# priority dropped.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sizes="${SIZES:-800 3200}"
seed="${SEED:-1}"
mkdir -p "${WORK:-$root/target/crates-build}"
work="$(cd "${WORK:-$root/target/crates-build}" && pwd)"
[ -n "${CRATE_RULES:-}" ] && export CLIR_CRATE_RULES="$CRATE_RULES"

note() { echo "crates-build: $*" >&2; }

(cd "$root" && cargo build -q --release -p clir-cli --bin clir && cargo build -q -p clir-testkit --example synthetic)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
# Copies of their own: a build of the repository while the benchmark runs (a new clir is a new
# runtime, which every crate is built against) must not change what is measured.
cp "$target/release/clir" "$work/clir"
cp "$target/debug/examples/synthetic" "$work/synthetic"
clir="$work/clir"
synthetic="$work/synthetic"
rev="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)')"

# seconds_and_gb FILE: the wall clock and peak RSS of a `/usr/bin/time -v` report.
seconds_and_gb() {
    awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }
        /Maximum resident set size/ { rss = $2 } END { printf " %.2f\n", rss / 1048576 }' "$1"
}

: > "$work/empty.jsonl"
rows=()
for n in $sizes; do
    pkg="$work/synthetic-$n.lawir.json"
    bumped="$work/synthetic-$n-bumped.lawir.json"
    "$synthetic" "$n" "$seed" > "$pkg"
    "$synthetic" "$n" "$seed" --bump > "$bumped"
    cache="$work/cache-$n"
    rm -rf "$cache"
    mkdir -p "$cache"
    export CLIR_CACHE_DIR="$cache"
    # The runtime, built once in the cache's target folder before the timed runs.
    note "$n rules: prebuilding the runtime in $cache"
    "$synthetic" 3 "$seed" > "$work/tiny.lawir.json"
    "$clir" run "$work/tiny.lawir.json" --input "$work/empty.jsonl" --output "$work/out.jsonl" 2> "$work/tiny.log" ||
        { cat "$work/tiny.log" >&2; exit 1; }
    note "$n rules: first build"
    /usr/bin/time -v -o "$work/time.txt" "$clir" run "$pkg" --input "$work/empty.jsonl" --output "$work/out.jsonl" \
        2> "$work/build-$n.log" || { tail -20 "$work/build-$n.log" >&2; exit 1; }
    read -r wall rss < <(seconds_and_gb "$work/time.txt")
    built="$(sed -n 's/.*: rebuilt \([0-9]*\) of its [0-9]* crates*$/\1/p' "$work/build-$n.log" | head -1)"
    # The package's crate is the folder `clir run` names; its own crates are under crates/.
    crate_dir="$(sed -n 's/^clir run: building .* in \(.*[^)]\)\( (and [0-9]* crates of its own)\)\{0,1\}$/\1/p' "$work/build-$n.log" | head -1)"
    lines="$( (cat "$crate_dir/src/package.rs"; cat "$cache"/crates/*/lib.rs 2>/dev/null || true) | wc -l)"
    note "$n rules: amended (one threshold raised, version 0.1.1), rebuild"
    /usr/bin/time -v -o "$work/time.txt" "$clir" run "$bumped" --input "$work/empty.jsonl" --output "$work/out.jsonl" \
        2> "$work/rebuild-$n.log" || { tail -20 "$work/rebuild-$n.log" >&2; exit 1; }
    read -r rewall rerss < <(seconds_and_gb "$work/time.txt")
    rebuilt="$(sed -n 's/.*: rebuilt \([0-9]* of its [0-9]*\) crates*$/\1/p' "$work/rebuild-$n.log" | head -1)"
    others=""
    for amendment in add-rule drop-priority; do
        changed="$work/synthetic-$n-$amendment.lawir.json"
        if ! "$synthetic" "$n" "$seed" "--$amendment" > "$changed" 2> "$work/$amendment.err"; then
            others="$others | - | -"
            continue
        fi
        note "$n rules: amended ($amendment, version 0.1.1), rebuild"
        /usr/bin/time -v -o "$work/time.txt" "$clir" run "$changed" --input "$work/empty.jsonl" --output "$work/out.jsonl" \
            2> "$work/$amendment-$n.log" || { tail -20 "$work/$amendment-$n.log" >&2; exit 1; }
        read -r awall _ < <(seconds_and_gb "$work/time.txt")
        arebuilt="$(sed -n 's/.*: rebuilt \([0-9]* of its [0-9]*\) crates*$/\1/p' "$work/$amendment-$n.log" | head -1)"
        others="$others | $awall | $arebuilt"
    done
    note "$n: $wall s, $rss GB; rebuild $rewall s, $rerss GB ($rebuilt crates)$others"
    rows+=("| $n | $lines | $built | $wall | $rss | $rewall | $rerss | $rebuilt$others |")
done

echo "clir $rev, $(rustc --version), $(nproc) cores, $(date -u +%Y-%m-%d), seed $seed, CLIR_CRATE_RULES=${CLIR_CRATE_RULES:-default}"
echo
echo "| rules | generated lines | crates built | build s | peak RSS GB | rebuild s | rebuild peak RSS GB | crates rebuilt | rule added: s | crates | priority dropped: s | crates |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
