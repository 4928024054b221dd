#!/usr/bin/env bash
# Issue 45, item 5: one case of 4,000 and 8,000 tuples whose rules have body variables no head
# needs (en passant: lone `who`; castling: every rook with every king), ruled with --explain and
# --certify and checked by `clir check`. Prints, per command, the least wall time of RUNS runs and
# the largest peak memory (GNU time's %M), and the 8,000/4,000 ratio of the time.
#
#   bash benches/hostile-case.sh            # RUNS=5
#
# Targets (the issue): <= 0.2 s and <= 100 MB each, 8,000 <= 2.2x 4,000.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
cargo build --release --quiet --bin clir
bin=target/release/clir
pkg=sources/fide.laws.chess-0.1.0.lawir.json
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'EOF'
import json, sys
d = sys.argv[1]
for n in (4000, 8000):
    ep = {"case": "ep", "facts": {
        "en_passant_right_open": [["g"]],
        "player_has_the_move": [["g", f"w{i}"] for i in range(n)],
        "capturing_pawn_on_adjacent_file": [["g", f"p{i}"] for i in range(n)]}}
    castle = {"case": "castle", "facts": {
        "castling_side_of": [["g", "w", "k", f"r{i}"] for i in range(n)],
        "rook_of": [["w", f"r{i}"] for i in range(n)],
        "king_of": [["w", f"K{i}"] for i in range(n)],
        "player_has_the_move": [["g", "w"]],
        "checked_castling_side": [["k"]],
        "checked_piece": [[f"r{i}"] for i in range(n)] + [[f"K{i}"] for i in range(n)]}}
    for name, case in (("ep", ep), ("castle", castle)):
        with open(f"{d}/{name}{n}.jsonl", "w") as f:
            f.write(json.dumps(case, separators=(",", ":")) + "\n")
EOF
# The least time and the largest peak memory of RUNS runs of a command: "SECONDS KB".
measure() {
    local best="" peak=0
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$@" > /dev/null 2>&1 || true
        read -r secs kb < "$dir/time"
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$secs; fi
        if [ "$kb" -gt "$peak" ]; then peak=$kb; fi
    done
    echo "$best $peak"
}
printf '%-8s %-10s %8s %8s %8s %8s %7s\n' case command "4000 s" "4000 MB" "8000 s" "8000 MB" ratio
for case in ep castle; do
    for n in 4000 8000; do
        "$bin" rule --package fide.laws.chess --certify --input "$dir/$case$n.jsonl" --output "$dir/$case$n.cert"
    done
    for cmd in rule explain certify check; do
        row=()
        for n in 4000 8000; do
            input="$dir/$case$n.jsonl"
            case $cmd in
                rule) r=$(measure "$bin" rule --package fide.laws.chess --input "$input") ;;
                explain) r=$(measure "$bin" rule --package fide.laws.chess --explain --input "$input") ;;
                certify) r=$(measure "$bin" rule --package fide.laws.chess --certify --input "$input") ;;
                check) r=$(measure "$bin" check "$pkg" --input "$input" --rulings "$dir/$case$n.cert") ;;
            esac
            row+=($r)
        done
        awk -v c="$case" -v m="$cmd" -v a="${row[0]}" -v b="${row[1]}" -v x="${row[2]}" -v y="${row[3]}" \
            'BEGIN{printf "%-8s %-10s %8.2f %8.1f %8.2f %8.1f %7s\n", c, m, a, b/1024, x, y/1024, (a>0 ? sprintf("%.2fx", x/a) : "-")}'
    done
done
