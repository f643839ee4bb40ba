#!/usr/bin/env bash
# The models in models/ load and rank every test file of the shared data into a valid Kaggle
# submission (graphcost-eval checks it against the sample submission's IDs for those files).
# Usage: test_shipped_models.sh GRAPHCOST_BINARY
set -u
graphcost=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

"$graphcost" predict --model "$root/models/layout_xla.npz" --model "$root/models/layout_nlp.npz" --model "$root/models/tile_xla.npz" --data "$data/tpugraphs" --split test \
  --out "$out/sub.csv" >"$out/predict.txt" 2>&1; status=$?
check "predict with the shipped models exits 0" test $status -eq 0
check "  ...one row per shared test file (10)" test "$(tail -n +2 "$out/sub.csv" | wc -l)" -eq 10
check "  ...every row's ID is in the official sample submission" bash -c "
  tail -n +2 '$out/sub.csv' | cut -d, -f1 | while read -r id; do grep -q \"^\$id,\" '$data/tpugraphs/sample_submission.csv' || exit 1; done"
check "  ...the nlp row ranks all 1,001 configs" bash -c "grep '^layout:nlp:default:3a0c' '$out/sub.csv' | cut -d, -f2 | tr ';' '\n' | sort -n | uniq | wc -l | grep -qx 1001"
"$graphcost" evaluate-model --model "$root/models/layout_xla.npz" --data "$data/tpugraphs" --collection layout:xla:random >"$out/eval.txt"; status=$?
check "the xla layout model scores the real xla random valid graph" bash -c "test $status -eq 0 && grep -q 'mean Kendall tau-b 0\\.' '$out/eval.txt'"
finish
