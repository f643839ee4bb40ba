#!/usr/bin/env bash
# Bounded-memory training (data/config_store.h, docs/scaling.md) on a generated nlp tree whose
# configs, as the npz files hold them (float32), exceed the budget: `graphcost prepare` writes the
# config store and keeps current entries; `train --cache --memory-budget` stays under the budget
# (peak resident memory, as the run reports it); without a cache the same budget is refused up
# front; a corrupt file is refused by name; data-parallel training reads the store too.
# Usage: test_memory_budget.sh GRAPHCOST
set -u
graphcost=$1
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
budget_mib=80
"$graphcost" gen --out "$out/tree" --graphs 5 --seed 11 --collections layout:nlp:random --min-nodes 1000 --max-nodes 1400 \
  --layout-configs 3000 --quiet
config_mib=$(/usr/bin/python3 - "$out/tree" <<'PY'
import sys, glob, zipfile
total = sum(zipfile.ZipFile(f).getinfo("node_config_feat.npy").file_size for f in glob.glob(sys.argv[1] + "/npz/**/*.npz", recursive=True))
print(total >> 20)
PY
)
echo "  the tree's node_config_feat arrays: $config_mib MiB as float32; budget $budget_mib MiB"
check "the tree's configs exceed the budget" test "$config_mib" -gt "$budget_mib"

"$graphcost" prepare --data "$out/tree" --cache "$out/cache" --memory-budget 16MiB >"$out/prepare.txt" 2>"$out/prepare.err"; status=$?
check "graphcost prepare exits 0" test "$status" = 0
check "  ...prepares every layout file" grep -q "prepared 5 layout files into $out/cache (0 already current)" "$out/prepare.txt"
check "  ...with progress per file" test "$(grep -c '^prepare [0-9]/5 ' "$out/prepare.err")" = 5
check "  ...writes numpy-readable int8 configs" /usr/bin/python3 -c "
import glob, numpy as np
for f in glob.glob('$out/cache/**/configs.npy', recursive=True):
    a = np.load(f, mmap_mode='r'); assert a.dtype == np.int8 and a.ndim == 3 and a.shape[2] == 18, (f, a.dtype, a.shape)"
"$graphcost" prepare --data "$out/tree" --cache "$out/cache" >"$out/again.txt" 2>/dev/null
check "preparing again keeps current entries" grep -q "(5 already current)" "$out/again.txt"

train() {  # output, extra flags...
  local model=$1; shift
  "$graphcost" train --data "$out/tree" --collection layout:nlp:random --out "$model" --epochs 2 --steps-per-epoch 10 \
    --configs-per-step 4 --seed 3 --quiet "$@"
}
train "$out/stored.npz" --cache "$out/cache" --memory-budget ${budget_mib}MiB >"$out/stored.txt" 2>&1; status=$?
check "train --cache --memory-budget ${budget_mib}MiB exits 0" test "$status" = 0
peak=$(sed -n 's/^peak resident memory \([0-9]*\) MiB (budget .*/\1/p' "$out/stored.txt")
echo "  peak resident memory ${peak:-?} MiB, budget $budget_mib MiB"
check "  ...and its peak resident memory stays under the budget" test "${peak:-999999}" -lt "$budget_mib"
check "  ...validates (a tau is reported)" grep -q "^final: loss [0-9.]*, valid tau -\?[0-9]" "$out/stored.txt"

"$graphcost" train --data "$out/tree" --collection layout:nlp:random --out "$out/greedy.npz" --epochs 1 --steps-per-epoch 2 \
  --configs-per-step 4096 --seed 3 --quiet --cache "$out/cache" --memory-budget ${budget_mib}MiB >"$out/greedy.txt" 2>&1; status=$?
proposed=$(sed -n 's/.*--configs-per-step \([0-9]*\) fits.*/\1/p' "$out/greedy.txt")
echo "  4096 configs per step refused; proposed: ${proposed:-none}"
check "too many configs per step are refused, proposing the most that fit" test "$status" = 1 -a "${proposed:-0}" -ge 4 -a "${proposed:-0}" -lt 4096
"$graphcost" train --data "$out/tree" --collection layout:nlp:random --out "$out/fitted.npz" --epochs 1 --steps-per-epoch 2 \
  --configs-per-step 4096 --seed 3 --quiet --cache "$out/cache" --memory-budget ${budget_mib}MiB --fit-configs-per-step >"$out/fitted.txt" 2>&1; status=$?
fitted_peak=$(sed -n 's/^peak resident memory \([0-9]*\) MiB (budget .*/\1/p' "$out/fitted.txt")
check "  ...or, asked to fit, trains with them under the budget" bash -c "test $status = 0 && grep -q 'configs per step: ${proposed:-x} (lowered from 4096' '$out/fitted.txt' && test '${fitted_peak:-999999}' -lt $budget_mib"
train "$out/whole.npz" --memory-budget ${budget_mib}MiB >"$out/whole.txt" 2>&1; status=$?
check "the same budget without a cache is refused" test "$status" = 1
check "  ...up front, naming the parts and the cache" grep -q "memory budget: expected at least .* configs .*a config store holds no configs), got 80 MiB" "$out/whole.txt"
check "  ...before loading anything" test ! -e "$out/whole.npz"

cp "$(find "$out/tree/npz" -name '*.npz' -path '*train*' | head -1)" "$out/corrupt.npz"
mkdir -p "$out/bad/npz/layout/nlp/random/train"
head -c 300000 "$out/corrupt.npz" >"$out/bad/npz/layout/nlp/random/train/cut.npz"
"$graphcost" prepare --data "$out/bad" --cache "$out/bad-cache" >"$out/bad.txt" 2>&1; status=$?
check "a truncated file is refused (exit 1)" test "$status" = 1
check "  ...naming it" grep -q "cut.npz" "$out/bad.txt"
check "  ...and leaves no finished entry" test -z "$(find "$out/bad-cache" -name manifest.json 2>/dev/null)"

if command -v mpirun >/dev/null; then
  timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$graphcost" train --data "$out/tree" --collection layout:nlp:random \
    --out "$out/mpi.npz" --epochs 1 --steps-per-epoch 5 --configs-per-step 4 --cache "$out/cache" --memory-budget ${budget_mib}MiB --quiet \
    >"$out/mpi.txt" 2>&1; status=$?
  check "mpirun -np 2 trains from the store under the budget (exit 0)" test "$status" = 0
  check "  ...rank 0 reports once" test "$(grep -c '^trained on' "$out/mpi.txt")" = 1
fi
finish
