#!/usr/bin/env bash
# End to end: `clir rule --package fide.laws.chess` against the hand-written command line
# (`benches/handwritten_rule.rs`) on the same file of generated games, writing the same lines.
# The two commands run interleaved (hand-written, clir, hand-written, ...), RUNS times each, and
# the medians of wall, user and system time and of peak RSS are printed (GNU time's own figures),
# with the ratios clir / hand-written. The outputs are compared byte for byte.
#
#   bash benches/throughput.sh                  # 200000 games, 1 thread, 5 runs each
#   CASES=1000000 THREADS=2 RUNS=7 bash benches/throughput.sh
#   GAMES=path/to/file.jsonl bash benches/throughput.sh   # any file of FIDE case lines
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${CASES:-200000}
THREADS=${THREADS:-1}
RUNS=${RUNS:-5}
cargo build --release --quiet --bin clir --example handwritten_rule --example gen_fide_games
dir=target/bench-throughput
mkdir -p "$dir"
games=${GAMES:-$dir/games-$CASES.jsonl}
if [ ! -s "$games" ]; then
    target/release/examples/gen_fide_games "$CASES" 11 > "$games"
fi
hand=(target/release/examples/handwritten_rule --threads "$THREADS" --input "$games" --output "$dir/hand.jsonl")
clir=(target/release/clir rule --package fide.laws.chess --threads "$THREADS" --input "$games" --output "$dir/clir.jsonl")
: > "$dir/times"
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "hand %e %U %S %M" -a -o "$dir/times" "${hand[@]}"
    /usr/bin/time -f "clir %e %U %S %M" -a -o "$dir/times" "${clir[@]}"
done
cmp "$dir/hand.jsonl" "$dir/clir.jsonl"
lines=$(wc -l < "$dir/clir.jsonl")
median() { grep "^$1 " "$dir/times" | awk -v c="$2" '{print $c}' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "$lines cases, $THREADS ruler thread(s), median of $RUNS runs each, outputs identical"
echo "| command | wall s | user s | sys s | peak RSS MB | µs per case (wall) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for who in hand clir; do
    w=$(median $who 2); u=$(median $who 3); s=$(median $who 4); m=$(median $who 5)
    awk -v who=$who -v w="$w" -v u="$u" -v s="$s" -v m="$m" -v n="$lines" \
        'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.1f | %.2f |\n", (who == "hand" ? "hand-written" : "clir rule"), w, u, s, m / 1024, w * 1e6 / n}'
done
awk -v hw="$(median hand 2)" -v cw="$(median clir 2)" -v hu="$(median hand 3)" -v hs="$(median hand 4)" \
    -v cu="$(median clir 3)" -v cs="$(median clir 4)" \
    'BEGIN {printf "clir / hand-written: wall %.2f, CPU (user + sys) %.2f\n", cw / hw, (cu + cs) / (hu + hs)}'
