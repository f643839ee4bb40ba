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

# Believable speedups (issue 29): on every shared labelled file, the predicted speedup of the
# model's pick over config 0 lies within [0.5x, 2x] of the measured one, or the model gives none and
# says why; on the 21,918-node nlp test graph (unlike anything its calibration saw) it gives none.
speedup_check() {  # model file -> "predicted measured note" of the model's pick over config 0
  "$graphcost" rank "$2" --model "$1" --top 1 --json >"$out/rank.json" 2>"$out/rank.err" || { echo "rank failed: $(cat "$out/rank.err")"; return; }
  /usr/bin/python3 - "$out/rank.json" "$2" <<'PY'
import json, sys, numpy as np
rank, path = json.load(open(sys.argv[1])), sys.argv[2]
top = rank["top"][0]
runtimes = np.load(path)["config_runtime"].astype(np.float64)
measured = runtimes[0] / runtimes[top["config"]] if runtimes.any() else float("nan")
predicted = top["speedup_over_config_0"]
print(f"{'none' if predicted is None else f'{predicted:.4f}'} {measured:.4f} {rank['speedup_note'] or '-'}")
PY
}
believable() {  # "predicted measured note"
  read -r predicted measured note <<<"$1"
  if [ "$predicted" = none ]; then [ "$note" != - ]; return; fi
  /usr/bin/python3 -c "import sys; p, m = $predicted, $measured; sys.exit(0 if 0.5 <= p / m <= 2 else 1)"
}
for pair in layout_xla:layout/xla/default/train/unet3d.npz layout_xla:layout/xla/random/valid/unet_3d.4x4.bf16.npz \
            layout_xla:layout/xla/random/train/openai_v0_rnn_optimized.npz \
            tile_xla:tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz \
            tile_xla:tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz; do
  result=$(speedup_check "$root/models/${pair%%:*}.npz" "$data/tpugraphs/npz/${pair#*:}")
  check "${pair%%:*} on ${pair#*:}: predicted speedup within [0.5x, 2x] of the measured one, or none with a reason ($result)" believable "$result"
  # The real unet graphs are the kind the layout calibration saw: there it must give a figure.
  case $pair in layout_xla:*unet*) check "  ...a figure, not none" test "${result%% *}" != none ;; esac
done
result=$(speedup_check "$root/models/layout_nlp.npz" "$data/tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz")
check "layout_nlp on the 21,918-node nlp test graph: no predicted speedup, with a reason ($result)" test "${result%% *}" = none
finish
