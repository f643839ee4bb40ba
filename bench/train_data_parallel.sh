#!/usr/bin/env bash
# Benchmark: data-parallel training over MPI against its peer, one process with the same global
# batch (--graphs-per-step 2), measured in the same run on a generated layout:nlp:random tree
# (graphs of 1,000-3,000 nodes). The two train the same model (tests/cli/test_mpi_train.sh);
# the figure is the wall time of 3 epochs of 20 steps, median of 3 runs each, and the speedup.
# Usage: bench/train_data_parallel.sh [BUILD_DIR=build/native-release] [PROCESSES=2]
set -euo pipefail
build=${1:-build/native-release} processes=${2:-2}
graphcost=$build/src/graphcost
"$build/bench/bench_machine" || true
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$graphcost" gen --out "$work/tree" --graphs 12 --seed 2 --collections layout:nlp:random --min-nodes 1000 --max-nodes 3000 --quiet
flags=(--data "$work/tree" --collection layout:nlp:random --epochs 3 --steps-per-epoch 20 --graphs-per-step "$processes" --seed 1 --quiet)
median_ms() {  # command... -> median wall time of 3 runs in ms
  local times=() start
  for _ in 1 2 3; do
    start=$(date +%s%N)
    "$@" >/dev/null
    times+=("$(( ($(date +%s%N) - start) / 1000000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 2p
}
one=$(median_ms "$graphcost" train "${flags[@]}" --out "$work/one.npz")
many=$(median_ms mpirun --allow-run-as-root --oversubscribe -np "$processes" "$graphcost" train "${flags[@]}" --out "$work/many.npz")
echo "one process, $processes graphs per step:      median ${one} ms"
echo "mpirun -np $processes, $processes graphs per step:  median ${many} ms (MPI start-up included)"
/usr/bin/python3 -c "print(f'speedup {${one} / ${many}:.2f}x on $processes processes')"
