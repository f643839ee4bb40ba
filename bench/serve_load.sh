#!/usr/bin/env bash
# Benchmark: `graphcost-eval serve` under 50 clients for 60 s (bench_serve_load: each uploads a full
# submission of the generated test split, polls until it is scored, reads the board, again), beside
# its peer measured in the same run: `graphcost-eval score` on the same file, the offline scoring of
# one submission (median of 5). The ratio says what the queue, the transactions (fsync'd: a 202
# means the file is on disk) and HTTP add to scoring itself.
# Usage: bench/serve_load.sh [BUILD_DIR=build/native-release] [CLIENTS=50] [SECONDS=60]
set -euo pipefail
build=${1:-build/native-release} clients=${2:-50} seconds=${3:-60}
eval_tool=$build/evaluation/graphcost-eval
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
"$build/src/graphcost" gen --out "$work/tree" --graphs 60 --seed 1 --quiet
"$eval_tool" baseline --data "$work/tree" --split test --strategy random --out "$work/submission.csv" >/dev/null
db=$work/load.sqlite
"$eval_tool" competition init --db "$db" --solution "$work/tree/solution_test.csv" --deadline 2099-12-31T23:59:59Z \
  --daily-cap 100000 >/dev/null
for c in $(seq 1 "$clients"); do "$eval_tool" competition team add --db "$db" "team $c" | awk '{print $NF}'; done >"$work/tokens"

times=()
for run in 1 2 3 4 5; do
  start=$(date +%s%N)
  "$eval_tool" score --solution "$work/tree/solution_test.csv" --submission "$work/submission.csv" >/dev/null
  times+=("$(( ($(date +%s%N) - start) / 1000 ))")
done
offline_us=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)

"$eval_tool" serve --db "$db" --port 0 --rate-limit 1000000 --threads 64 >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" || true); [ -n "$url" ] && break; sleep 0.1; done
"$build/bench/bench_serve_load" --url "$url" --tokens "$work/tokens" --submission "$work/submission.csv" \
  --clients "$clients" --seconds "$seconds" --json "$work/load.json" || echo "(some requests failed: see the errors above)"
/usr/bin/python3 - "$work/load.json" "$offline_us" <<'PY'
import json, sys
load, offline_ms = json.load(open(sys.argv[1])), int(sys.argv[2]) / 1000
print(f"peer: graphcost-eval score on the same file (whole process, offline): median {offline_ms:.1f} ms")
print(f"upload -> scored median / offline score: {load['scored_median_ms'] / offline_ms:.2f}x "
      f"(with {load['clients']} clients queueing on one scoring worker)")
print(f"goal: every upload scored in a second at this load: p95 {load['scored_p95_ms']:.0f} ms")
PY
