#!/usr/bin/env bash
# Data-parallel training over MPI (train/data_parallel.h) on a generated tree: `mpirun -np 2
# graphcost train` gives the model of one process with the same global batch (--graphs-per-step 2),
# within float tolerance; a run resumed with another process count continues it exactly when the
# graphs per step stay (and reseeds its samplers, saying so, when they or the draws change); bad
# splits are refused by every rank, with no hang.
# Usage: test_mpi_train.sh GRAPHCOST
set -u
graphcost=$1
source "$(dirname "$0")/check.sh"
if ! command -v mpirun >/dev/null; then
  echo "skipped: no mpirun (scripts/setup.sh installs openmpi-bin)"
  exit 0
fi
mpi() { timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$@"; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$graphcost" gen --out "$out/tree" --graphs 10 --seed 3 --collections layout:xla:random --layout-configs 80 --quiet
train() {  # output model, extra flags...
  local model=$1; shift
  "$@" --data "$out/tree" --collection layout:xla:random --out "$model" --steps-per-epoch 10 --hidden 16 --seed 5 --quiet
}
same_model() {  # two model files: every float array equal within 1e-5 relative
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
worst = 0.0
for k in a.files:
    if a[k].dtype.kind == 'f' and a[k].size:
        worst = max(worst, float(np.max(np.abs(a[k] - b[k]))) / (float(np.max(np.abs(a[k]))) + 1e-12))
print(f"  max relative difference {worst:.2e} over {len(a.files)} arrays")
sys.exit(0 if worst <= 1e-5 else 1)
PY
}

train "$out/single.npz" "$graphcost" train --epochs 2 --graphs-per-step 2 >"$out/single.txt"
mpi 2 "$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/mpi.npz" --steps-per-epoch 10 --hidden 16 --seed 5 \
  --epochs 2 >"$out/mpi.txt" 2>"$out/mpi.err"; status=$?
check "mpirun -np 2 graphcost train exits 0" test "$status" = 0
check "  ...says it trains data-parallel" grep -q "data-parallel training: 2 processes (MPI), 2 graphs per step" "$out/mpi.err"
check "  ...and rank 0 alone reports" test "$(grep -c '^trained on' "$out/mpi.txt")" = 1
check "  ...each rank holds half the training graphs" grep -q "trained on 4 graphs" "$out/mpi.txt"
check "-np 2 trains the model of one process with 2 graphs per step" same_model "$out/single.npz" "$out/mpi.npz"

# Resume: the first epoch with 2 processes, the second in one process with the same 2 graphs per
# step, is the 2-epoch run of one process.
mpi 2 "$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/resumed.npz" --steps-per-epoch 10 --hidden 16 --seed 5 \
  --epochs 2 --stop-after-epoch 1 >/dev/null 2>"$out/stopped.err"
check "--stop-after-epoch 1 stops there" grep -q "stopping after epoch 1 as asked" "$out/stopped.err"
train "$out/resumed.npz" "$graphcost" train --epochs 2 --graphs-per-step 2 --resume >/dev/null
check "a run resumed with another process count continues it exactly" same_model "$out/single.npz" "$out/resumed.npz"
train "$out/reseeded.npz" "$graphcost" train --epochs 2 --stop-after-epoch 1 --graphs-per-step 2 >/dev/null
"$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/reseeded.npz" --steps-per-epoch 10 --hidden 16 --seed 5 \
  --epochs 2 --resume >/dev/null 2>"$out/reseeded.err"; status=$?
check "resuming with other graphs per step works (exit 0)" test "$status" = 0
check "  ...and says the samplers start afresh" grep -q "samplers reseeded" "$out/reseeded.err"
train "$out/toggled.npz" "$graphcost" train --epochs 2 --stop-after-epoch 1 --graphs-per-step 2 >/dev/null
"$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/toggled.npz" --steps-per-epoch 10 --hidden 16 --seed 5 \
  --epochs 2 --graphs-per-step 2 --independent-graphs --resume >/dev/null 2>"$out/toggled.err"; status=$?
check "resuming balanced draws with --independent-graphs works (exit 0)" test "$status" = 0
check "  ...and says the samplers start afresh" grep -q "independent draws; the checkpoint had another count or draws: samplers reseeded" \
  "$out/toggled.err"

mpi 2 "$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/bad.npz" --graphs-per-step 3 >"$out/bad.txt" 2>&1; status=$?
check "graphs per step not a multiple of the processes is refused, no hang" test "$status" -ne 0 -a "$status" -ne 124
check "  ...saying why" grep -q "graphs per step: expected a multiple of the 2 processes, got 3" "$out/bad.txt"
mpi 2 "$graphcost" train --data "$out/tree" --collection layout:xla:random --out "$out/empty.npz" --graphs-per-step 16 >"$out/empty.txt" 2>&1; status=$?
check "more shards than training files is refused, no hang" test "$status" -ne 0 -a "$status" -ne 124
check "  ...saying which shard is empty" grep -q "training shard .* of 16" "$out/empty.txt"
finish
