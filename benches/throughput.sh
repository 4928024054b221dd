#!/usr/bin/env bash
# End to end: `clir rule --package fide.laws.chess` against the hand-written command line
# (`benches/handwritten_rule.rs`) and the floor (`benches/json_floor.rs`: every line parsed by
# sonic-rs into its DOM and dropped, every line written back) on the same file of generated games.
# For each thread count of THREADS the three commands run interleaved (floor, hand-written, clir,
# floor, ...), RUNS times each, and the medians of wall, CPU (user + system) and peak RSS are
# printed (GNU time's own figures), with clir's ratios to the other two and each command's
# speed-up from the first thread count to the others. clir's and the hand-written outputs are
# compared byte for byte.
#
#   bash benches/throughput.sh                  # 200000 games, 1 and 2 threads, 7 runs each
#   CASES=1000000 THREADS="1 2" RUNS=9 bash benches/throughput.sh
#   GAMES=path/to/file.jsonl bash benches/throughput.sh   # any file of FIDE case lines
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${CASES:-200000}
THREADS=${THREADS:-1 2}
RUNS=${RUNS:-7}
cargo build --release --quiet --bin clir --example handwritten_rule --example gen_fide_games --example json_floor
dir=target/bench-throughput
mkdir -p "$dir"
games=${GAMES:-$dir/games-$CASES.jsonl}
if [ ! -s "$games" ]; then
    target/release/examples/gen_fide_games "$CASES" 11 > "$games"
fi
lines=$(grep -c . "$games")
: > "$dir/times"
for t in $THREADS; do
    floor=(target/release/examples/json_floor --parser sonic_rs --threads "$t" --input "$games" --output "$dir/floor.jsonl")
    hand=(target/release/examples/handwritten_rule --threads "$t" --input "$games" --output "$dir/hand.jsonl")
    clir=(target/release/clir rule --package fide.laws.chess --threads "$t" --input "$games" --output "$dir/clir.jsonl")
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "floor $t %e %U %S %M" -a -o "$dir/times" "${floor[@]}"
        /usr/bin/time -f "hand $t %e %U %S %M" -a -o "$dir/times" "${hand[@]}"
        /usr/bin/time -f "clir $t %e %U %S %M" -a -o "$dir/times" "${clir[@]}"
    done
    cmp "$dir/hand.jsonl" "$dir/clir.jsonl"
done
# median WHO THREADS EXPR: the median over the runs of an awk expression of the fields
# ($3 wall, $4 user, $5 system, $6 peak RSS in KB).
median() {
    grep "^$1 $2 " "$dir/times" | awk "{print $3}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
echo "$lines cases, median of $RUNS interleaved runs each; clir's and the hand-written outputs identical"
echo "| ruler threads | command | wall s | CPU s (user + sys) | peak RSS MB | µs a case (wall) | clir / it, wall | clir / it, CPU |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for t in $THREADS; do
    cw=$(median clir "$t" '$3'); cc=$(median clir "$t" '$4 + $5')
    for who in floor hand clir; do
        w=$(median $who "$t" '$3'); c=$(median $who "$t" '$4 + $5'); m=$(median $who "$t" '$6')
        awk -v t="$t" -v who=$who -v w="$w" -v c="$c" -v m="$m" -v n="$lines" -v cw="$cw" -v cc="$cc" 'BEGIN {
            name = (who == "floor" ? "floor (sonic-rs)" : who == "hand" ? "hand-written" : "clir rule")
            printf "| %s | %s | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f |\n", t, name, w, c, m / 1024, w * 1e6 / n, cw / w, cc / c
        }'
    done
done
first=${THREADS%% *}
for t in $THREADS; do
    [ "$t" = "$first" ] && continue
    for who in floor hand clir; do
        awk -v who=$who -v a="$(median $who "$first" '$3')" -v b="$(median $who "$t" '$3')" -v f="$first" -v t="$t" \
            'BEGIN {printf "%s: %s threads are %.2fx as fast as %s (wall)\n", who, t, a / b, f}'
    done
done
