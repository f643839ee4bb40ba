#!/usr/bin/env bash
# Benchmark: wall time of `graphcost gen` for a 100-graph mixed dataset (all five collections,
# defaults: layout programs up to 5,000 nodes, 1,000 configs per layout file), median of 3 runs,
# with 1 and 2 threads. Goal: under a minute on 2 cores.
# Usage: bench/gen_dataset_time.sh [BUILD_DIR=build/native-release]
set -euo pipefail
build=${1:-build/native-release}
"$build/bench/bench_machine" || true
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for threads in 1 2; do
  times=()
  for run in 1 2 3; do
    start=$(date +%s%N)
    "$build/src/graphcost" gen -q --out "$work/run" --graphs 100 --seed "$run" --threads "$threads" >/dev/null
    end=$(date +%s%N)
    times+=("$(( (end - start) / 1000000 ))")
    rm -rf "$work/run"
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
  echo "threads=$threads  runs (ms): ${times[*]}  median: ${median} ms  (goal < 60000 ms)"
done
