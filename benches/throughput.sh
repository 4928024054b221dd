#!/usr/bin/env bash
# End to end: `clir rule --package fide.laws.chess` against the hand-written command line
# (`benches/handwritten_rule.rs`) and the floor (`benches/json_floor.rs`: every line parsed by
# sonic-rs into its DOM and dropped, every line written back) on the same file of generated games.
# For each thread count of THREADS the three commands run interleaved, in an order that turns
# each round, RUNS times each, and the medians of wall, CPU (user + system) and peak RSS are
# printed (GNU time's own figures), with clir's ratios to the other two and each command's
# speed-up from the first thread count to the others. clir's and the hand-written outputs are
# compared byte for byte.
#
# The timed runs write their output to SINK (default /dev/null): every byte is still formatted
# and written, but no run pays for the page cache and disk writeback another left behind (on a
# shared disk that cost lands, as system time, on whichever run happens to be writing: 0.1 s or
# 0.4 s for the same command). Each command then writes a file once more, untimed, for the
# comparison. SINK=file times the runs writing files.
#
#   bash benches/throughput.sh                  # 200000 games, 1 and 2 threads, 7 runs each
#   CASES=1000000 THREADS="1 2" RUNS=9 bash benches/throughput.sh
#   GAMES=path/to/file.jsonl bash benches/throughput.sh   # any file of FIDE case lines
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${CASES:-200000}
THREADS=${THREADS:-1 2}
RUNS=${RUNS:-7}
SINK=${SINK:-/dev/null}
cargo build --release --quiet --bin clir --example handwritten_rule --example gen_fide_games --example json_floor
dir=target/bench-throughput
mkdir -p "$dir"
games=${GAMES:-$dir/games-$CASES.jsonl}
if [ ! -s "$games" ]; then
    target/release/examples/gen_fide_games "$CASES" 11 > "$games"
fi
lines=$(grep -c . "$games")
: > "$dir/times"
# out WHO: where WHO's timed runs write.
out() {
    if [ "$SINK" = file ]; then echo "$dir/$1.jsonl"; else echo "$SINK"; fi
}
for t in $THREADS; do
    floor=(target/release/examples/json_floor --parser sonic_rs --threads "$t" --input "$games" --output)
    hand=(target/release/examples/handwritten_rule --threads "$t" --input "$games" --output)
    clir=(target/release/clir rule --package fide.laws.chess --threads "$t" --input "$games" --output)
    # The order turns each run (floor, hand, clir; hand, clir, floor; clir, floor, hand): into
    # files, a run pays for the writeback of those before it, so no command is always last.
    for r in $(seq "$RUNS"); do
        for k in 0 1 2; do
            case $(((r + k) % 3)) in
                1) /usr/bin/time -f "floor $t %e %U %S %M" -a -o "$dir/times" "${floor[@]}" "$(out floor)" ;;
                2) /usr/bin/time -f "hand $t %e %U %S %M" -a -o "$dir/times" "${hand[@]}" "$(out hand)" ;;
                0) /usr/bin/time -f "clir $t %e %U %S %M" -a -o "$dir/times" "${clir[@]}" "$(out clir)" ;;
            esac
        done
    done
    "${hand[@]}" "$dir/hand.jsonl"
    "${clir[@]}" "$dir/clir.jsonl"
    cmp "$dir/hand.jsonl" "$dir/clir.jsonl"
done
# median WHO THREADS EXPR: the median over the runs of an awk expression of the fields
# ($3 wall, $4 user, $5 system, $6 peak RSS in KB).
median() {
    grep "^$1 $2 " "$dir/times" | awk "{print $3}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
echo "$lines cases, median of $RUNS interleaved runs each, written to $SINK; clir's and the hand-written outputs identical"
echo "| ruler threads | command | wall s | CPU s (user + sys) | user s | peak RSS MB | µs a case (wall) | clir / it, wall | clir / it, CPU | clir / it, user |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for t in $THREADS; do
    cw=$(median clir "$t" '$3'); cc=$(median clir "$t" '$4 + $5'); cu=$(median clir "$t" '$4')
    for who in floor hand clir; do
        w=$(median $who "$t" '$3'); c=$(median $who "$t" '$4 + $5'); u=$(median $who "$t" '$4'); m=$(median $who "$t" '$6')
        awk -v t="$t" -v who=$who -v w="$w" -v c="$c" -v u="$u" -v m="$m" -v n="$lines" -v cw="$cw" -v cc="$cc" -v cu="$cu" 'BEGIN {
            name = (who == "floor" ? "floor (sonic-rs)" : who == "hand" ? "hand-written" : "clir rule")
            printf "| %s | %s | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f |\n", t, name, w, c, u, m / 1024, w * 1e6 / n, cw / w, cc / c, cu / u
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
