#!/usr/bin/env bash
# Benchmark: data-parallel training over MPI against its peer, one process with the same global
# batch (--graphs-per-step N), measured in the same run on a generated layout:nlp:random tree
# (graphs of 1,000-3,000 nodes by default). The two train the same model
# (tests/cli/test_mpi_train.sh); the figure is the wall time of 3 epochs of 20 steps, median of 3
# runs each, and the speedup; the training steps' own time (progress lines, last run) beside it,
# since validation, on rank 0 alone, does not get faster. A third figure is -np N with --independent-graphs (every process
# draws its graph on its own, as before size-balanced draws), with each run's step imbalance: the
# largest view among a step's graphs over their mean, which a synchronous step waits for.
# Usage: bench/train_data_parallel.sh [BUILD_DIR=build/native-release] [PROCESSES=2]
#        env: MIN_NODES=1000 MAX_NODES=3000 FILES=12
set -euo pipefail
build=${1:-build/native-release} processes=${2:-2}
min_nodes=${MIN_NODES:-1000} max_nodes=${MAX_NODES:-3000} files=${FILES:-12}
graphcost=$build/src/graphcost
"$build/bench/bench_machine" || true
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$graphcost" gen --out "$work/tree" --graphs "$files" --seed 2 --collections layout:nlp:random --min-nodes "$min_nodes" \
  --max-nodes "$max_nodes" --quiet
flags=(--data "$work/tree" --collection layout:nlp:random --epochs 3 --steps-per-epoch 20 --graphs-per-step "$processes" --seed 1)
median_ms() {  # log command... -> median wall time of 3 runs in ms; the last run's progress in log
  local log=$1 times=() start
  shift
  for _ in 1 2 3; do
    start=$(date +%s%N)
    "$@" >/dev/null 2>"$log"
    times+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 2p
}
imbalance() { grep -o 'step imbalance [0-9.]*' "$1" | awk '{ sum += $3; n++ } END { if (n) printf "%.2f", sum / n; else printf "-" }'; }
steps() { grep -o '(steps [0-9.]*s)' "$1" | tr -d '(s)' | awk '{ sum += $2 } END { printf "%.2f", sum }'; }  # the steps' seconds, all epochs
mpi=(mpirun --allow-run-as-root --oversubscribe -np "$processes")
one=$(median_ms "$work/one.log" "$graphcost" train "${flags[@]}" --out "$work/one.npz")
many=$(median_ms "$work/many.log" "${mpi[@]}" "$graphcost" train "${flags[@]}" --out "$work/many.npz")
independent=$(median_ms "$work/independent.log" "${mpi[@]}" "$graphcost" train "${flags[@]}" --independent-graphs --out "$work/independent.npz")
echo "one process, $processes graphs per step:      median ${one} ms, steps $(steps "$work/one.log") s (step imbalance $(imbalance "$work/one.log"))"
echo "mpirun -np $processes, $processes graphs per step:  median ${many} ms, steps $(steps "$work/many.log") s (MPI start-up included; step imbalance $(imbalance "$work/many.log"))"
echo "mpirun -np $processes, --independent-graphs:      median ${independent} ms, steps $(steps "$work/independent.log") s (step imbalance $(imbalance "$work/independent.log"))"
/usr/bin/python3 -c "print(f'speedup {${one} / ${many}:.2f}x on $processes processes (steps alone {$(steps "$work/one.log") / $(steps "$work/many.log"):.2f}x); size-balanced draws {${independent} / ${many}:.2f}x the independent ones (steps alone {$(steps "$work/independent.log") / $(steps "$work/many.log"):.2f}x)')"
