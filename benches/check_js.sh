#!/usr/bin/env bash
# Issue 29, item 3: the review page's certificate checker (src/cli/serve/check.js) under node
# against `clir check` (clir-check, release build) over the same certified rulings of generated
# games: wall-clock medians of RUNS runs each, interleaved, one thread each, the package read
# and the lines paired by both; node's time also without its start-up (`node -e 0`).
#
#   bash benches/check_js.sh                  # 5000 games, 5 runs
#   CASES=20000 RUNS=7 bash benches/check_js.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${CASES:-5000}
RUNS=${RUNS:-5}
cargo build --release --quiet --bin clir --example gen_fide_games
dir=target/bench-check-js
mkdir -p "$dir"
pkg=sources/fide.laws.chess-0.1.0.lawir.json
clir=target/release/clir
games=$dir/games.jsonl
target/release/examples/gen_fide_games "$CASES" 29 > "$games"
"$clir" rule --package fide.laws.chess --certify --input "$games" --output "$dir/certified.jsonl"
driver='
const ClirCheck = require(process.argv[1]);
const fs = require("fs");
(async () => {
  const pkg = await ClirCheck.readPackage(fs.readFileSync(process.argv[2]));
  const cases = fs.readFileSync(process.argv[3], "utf8").split("\n").filter((l) => l.trim());
  const rulings = fs.readFileSync(process.argv[4], "utf8").split("\n").filter((l) => l.trim());
  let certified = 0;
  for (let i = 0; i < cases.length; i++) {
    if ((await ClirCheck.checkLine(pkg, cases[i], rulings[i])).outcome === "certified") certified++;
  }
  if (certified !== cases.length) { console.error(certified + " of " + cases.length + " certified"); process.exit(1); }
})();'
js() { node -e "$driver" "$PWD/src/cli/serve/check.js" "$pkg" "$games" "$dir/certified.jsonl"; }
rust() { "$clir" check "$pkg" --input "$games" --rulings "$dir/certified.jsonl" --output "$dir/report.jsonl" 2>/dev/null; }
start() { node -e 0; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
declare -A times
for _ in $(seq "$RUNS"); do
  for run in rust js start; do times[$run]+="$(secs $run) "; done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$CASES certified rulings, medians of $RUNS runs (node $(node --version))"
echo "| checker | seconds | µs per certificate |"
echo "| --- | ---: | ---: |"
r=$(echo "${times[rust]}" | median)
j=$(echo "${times[js]}" | median)
s=$(echo "${times[start]}" | median)
for row in "clir check (Rust, release):$r" "check.js under node:$j" "check.js, node's start-up taken off:$(echo "$j - $s" | bc)"; do
  awk -v name="${row%%:*}" -v t="${row##*:}" -v n="$CASES" 'BEGIN {printf "| %s | %.2f | %.0f |\n", name, t, t * 1e6 / n}'
done
