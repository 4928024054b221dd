#!/usr/bin/env bash
# Issue 29: what certificates cost. On one file of generated games, `clir rule` plain, with
# `--explain` and with `--certify`, and `clir check` of the certified rulings: instructions
# (valgrind --tool=callgrind, which the machine's load does not change; ratios against plain
# `clir rule` in the same run), wall-clock medians of RUNS runs each (interleaved), and the
# bytes a ruling line and a certificate take (median and total).
#
#   bash benches/certify.sh                     # 2000 games under callgrind, 20000 timed
#   CALLGRIND_CASES=5000 CASES=50000 RUNS=7 bash benches/certify.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${CASES:-20000}
CALLGRIND_CASES=${CALLGRIND_CASES:-2000}
RUNS=${RUNS:-5}
cargo build --release --quiet --bin clir --example gen_fide_games
dir=target/bench-certify
mkdir -p "$dir"
pkg=sources/fide.laws.chess-0.1.0.lawir.json
clir=target/release/clir
rule() { "$clir" rule --package fide.laws.chess --threads 1 --input "$1" --output "$2" "${@:3}"; }
check() { "$clir" check "$pkg" --input "$1" --rulings "$2" --output "$dir/report.jsonl" 2>/dev/null; }

echo "## Instructions (callgrind), $CALLGRIND_CASES games, 1 ruler thread"
small=$dir/games-$CALLGRIND_CASES.jsonl
target/release/examples/gen_fide_games "$CALLGRIND_CASES" 29 > "$small"
rule "$small" "$dir/certified-small.jsonl" --certify
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | awk '/Collected/ {print $NF}'; }
plain=$(count "$clir" rule --package fide.laws.chess --threads 1 --input "$small" --output "$dir/o.jsonl")
echo "| run | instructions | per case | / plain rule |"
echo "| --- | ---: | ---: | ---: |"
for run in plain explain certify check; do
    case $run in
        plain) n=$plain ;;
        explain) n=$(count "$clir" rule --package fide.laws.chess --threads 1 --input "$small" --output "$dir/o.jsonl" --explain) ;;
        certify) n=$(count "$clir" rule --package fide.laws.chess --threads 1 --input "$small" --output "$dir/o.jsonl" --certify) ;;
        check) n=$(count "$clir" check "$pkg" --input "$small" --rulings "$dir/certified-small.jsonl" --output "$dir/report.jsonl") ;;
    esac
    awk -v r="$run" -v n="$n" -v p="$plain" -v c="$CALLGRIND_CASES" \
        'BEGIN {printf "| %s | %d | %d | %.2f |\n", r, n, n / c, n / p}'
done

echo
echo "## Wall clock, $CASES games, 1 ruler thread, median of $RUNS runs each"
games=$dir/games-$CASES.jsonl
[ -s "$games" ] || target/release/examples/gen_fide_games "$CASES" 11 > "$games"
rule "$games" "$dir/certified.jsonl" --certify
: > "$dir/times"
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "plain %e" -a -o "$dir/times" "$clir" rule --package fide.laws.chess --threads 1 --input "$games" --output "$dir/plain.jsonl"
    /usr/bin/time -f "explain %e" -a -o "$dir/times" "$clir" rule --package fide.laws.chess --threads 1 --input "$games" --output "$dir/o.jsonl" --explain
    /usr/bin/time -f "certify %e" -a -o "$dir/times" "$clir" rule --package fide.laws.chess --threads 1 --input "$games" --output "$dir/o.jsonl" --certify
    /usr/bin/time -f "check %e" -a -o "$dir/times" "$clir" check "$pkg" --input "$games" --rulings "$dir/certified.jsonl" --output "$dir/report.jsonl"
done
median() { grep "^$1 " "$dir/times" | awk '{print $2}' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
p=$(median plain)
echo "| run | wall s | µs per case | / plain rule |"
echo "| --- | ---: | ---: | ---: |"
for run in plain explain certify check; do
    w=$(median $run)
    awk -v r="$run" -v w="$w" -v p="$p" -v n="$CASES" 'BEGIN {printf "| %s | %.2f | %.1f | %.2f |\n", r, w, w * 1e6 / n, w / p}'
done
grep -c '"outcome":"certified"' "$dir/report.jsonl" | awk -v n="$CASES" '{print "certified: " $1 " of " n}'

echo
echo "## Size, $CASES games"
python3 - "$dir/plain.jsonl" "$dir/certified.jsonl" <<'PY'
import json, statistics, sys
plain = [len(l) for l in open(sys.argv[1], 'rb')]
cert_lines = open(sys.argv[2], 'rb').read().splitlines()
certified = [len(l) + 1 for l in cert_lines]
certs = [len(json.dumps(json.loads(l)["certificate"], separators=(",", ":"), ensure_ascii=False).encode()) for l in cert_lines]
entries = [sum(len(json.loads(l)["certificate"][k]) for k in "DSd") for l in cert_lines]
print("| | median bytes a line | total MB |")
print("| --- | ---: | ---: |")
print(f"| plain ruling line | {statistics.median(plain):.0f} | {sum(plain) / 1e6:.1f} |")
print(f"| certified ruling line | {statistics.median(certified):.0f} | {sum(certified) / 1e6:.1f} |")
print(f"| its certificate | {statistics.median(certs):.0f} | {sum(certs) / 1e6:.1f} |")
print(f"entries a certificate: median {statistics.median(entries):.0f}; certified / plain bytes: {sum(certified) / sum(plain):.2f}")
PY
