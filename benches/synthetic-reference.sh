#!/usr/bin/env bash
# The compiled synthetic packages rule as the reference evaluator says (issue 28, item 4). For
# each N in $SIZES, the synthetic package of N rules (clir-testkit/examples/synthetic.rs) is
# compiled and run by the release `clir run`, with explanations, on the random cases of $SEEDS
# fact-set seeds (`clir_reference::agree::cases`); clir-reference/examples/agree.rs rules every
# case with `clir_reference`, compares it with clir's ruling line and checks every explanation
# (`clir_reference::explanations`). Prints each size's agreed/disagreed line, then a markdown
# table: rules | cases | clir run s (compile + build + rule) | clir run peak RSS GB | reference s
# | agreed | disagreed. Exit status 1 when a case disagreed. The CI size (50 rules) is
# clir-random/tests/synthetic_agrees.rs.
#
#   bash benches/synthetic-reference.sh                    # SIZES="200 800 3200"
#   SIZES="200 800" SEEDS=4 bash benches/synthetic-reference.sh
#   SIZES=3200 nice -n 10 bash benches/synthetic-reference.sh   # ~4 GB for rustc at 3,200 rules
#
# Environment:
#   SIZES    rule counts (default "200 800 3200")
#   SEED     the generator's seed (default 1)
#   SEEDS    fact-set seeds per package: 1-4 cases each (default 8)
#   WORK     where packages, cases and rulings are written (default target/synthetic-reference)
#
# `clir run` compiles each package once into its cache (by seal and clir version): a second run
# of a size only rules, so its "clir run s" is the ruling alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sizes="${SIZES:-200 800 3200}"
seed="${SEED:-1}"
seeds="${SEEDS:-8}"
mkdir -p "${WORK:-$root/target/synthetic-reference}"
work="$(cd "${WORK:-$root/target/synthetic-reference}" && pwd)"

note() { echo "synthetic-reference: $*" >&2; }

# The reference in the dev profile: with a release build of it beside the release `clir`, the
# `clir` binary was rebuilt at the start of each run (minutes); the reference takes seconds
# either way.
(cd "$root" && cargo build -q --release -p clir-cli --bin clir &&
    cargo build -q -p clir-testkit --example synthetic -p clir-reference --example agree)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
clir="$target/release/clir"
agree="$target/debug/examples/agree"

rows=()
status=0
for n in $sizes; do
    pkg="$work/synthetic-$n-$seed.lawir.json"
    cases="$work/cases-$n-$seed.jsonl"
    rulings="$work/rulings-$n-$seed.jsonl"
    "$target/debug/examples/synthetic" "$n" "$seed" > "$pkg"
    "$agree" cases "$pkg" "$seeds" > "$cases"
    note "$n rules: clir run on $(wc -l < "$cases") cases"
    run=0
    /usr/bin/time -v -o "$work/time.txt" "$clir" run "$pkg" --explain --input "$cases" --output "$rulings" || run=$?
    # clir run's exit 1 means a case was rejected: agree compares the error lines too.
    if [ "$run" -gt 1 ]; then
        note "$n rules: clir run failed ($run)"
        rows+=("| $n | $(wc -l < "$cases") | failed ($run) | – | – | – | – |")
        status=1
        continue
    fi
    read -r run_s run_gb < <(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s }
        /Maximum resident set size/ { rss = $2 } END { printf " %.2f\n", rss / 1048576 }' "$work/time.txt")
    compared=0
    "$agree" compare "$pkg" "$cases" "$rulings" > "$work/agree-$n-$seed.txt" || compared=$?
    cat "$work/agree-$n-$seed.txt"
    summary="$(tail -n 1 "$work/agree-$n-$seed.txt")"
    if [ "$compared" -ne 0 ]; then
        status=1
    fi
    agreed="$(sed -n 's/^agreed \([0-9]*\),.*/\1/p' <<< "$summary")"
    disagreed="$(sed -n 's/.*disagreed \([0-9]*\) (.*/\1/p' <<< "$summary")"
    ref_s="$(sed -n 's/.*reference \([0-9.]*\) s).*/\1/p' <<< "$summary")"
    rows+=("| $n | $(wc -l < "$cases") | $run_s | $run_gb | ${ref_s:-–} | ${agreed:-–} | ${disagreed:-–} |")
done

rev="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "(not a git checkout)")"
echo
echo "clir $rev, $(rustc --version), $(nproc) cores, $(date -u +%Y-%m-%d), generator seed $seed, $seeds fact-set seeds"
echo
echo "| rules | cases | clir run s | clir run peak RSS GB | reference s | agreed | disagreed |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
exit "$status"
