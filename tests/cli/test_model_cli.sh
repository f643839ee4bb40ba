#!/usr/bin/env bash
# train -> predict -> score on a small generated tree: every step exits 0, the submission is valid;
# calibrate writes a calibrated model from labelled graphs and nothing from unlabelled ones.
# Usage: test_model_cli.sh GRAPHCOST GRAPHCOST_EVAL
set -u
graphcost=$1 eval_tool=$2
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$graphcost" gen -q --out "$out/data" --graphs 10 --seed 4 --collections tile:xla,layout:nlp:default --max-nodes 300 --layout-configs 30 >/dev/null
for collection in tile:xla layout:nlp:default; do
  "$graphcost" train --data "$out/data" --collection $collection --out "$out/${collection//:/_}.npz" --epochs 2 --steps-per-epoch 5 \
    --hidden 16 --layers 1 >"$out/train.txt" 2>"$out/progress.txt"; status=$?
  check "train $collection exits 0" test $status -eq 0
  check "  ...shows epoch progress" grep -q "epoch   2/2" "$out/progress.txt"
  check "  ...writes the model" test -s "$out/${collection//:/_}.npz"
  check "  ...reports its runtime calibration" grep -q "^runtime calibration" "$out/train.txt"
done
"$graphcost" predict --model "$out/tile_xla.npz" --model "$out/layout_nlp_default.npz" --data "$out/data" --split test --out "$out/sub.csv" >/dev/null 2>&1; status=$?
check "predict exits 0" test $status -eq 0
"$eval_tool" score --solution "$out/data/solution_test.csv" --submission "$out/sub.csv" >/dev/null; status=$?
check "the predicted submission is valid and scores" test $status -eq 0
"$graphcost" evaluate-model --model "$out/tile_xla.npz" --data "$out/data" >"$out/eval.txt"; status=$?
check "evaluate-model reports a metric" bash -c "test $status -eq 0 && grep -q 'mean tile score' '$out/eval.txt'"
"$graphcost" calibrate --model "$out/tile_xla.npz" --data "$out/data" --split train --out "$out/calibrated.npz" >"$out/calibrate.txt"; status=$?
check "calibrate on labelled graphs writes a calibrated model" bash -c "test $status -eq 0 && grep -q 'R^2' '$out/calibrate.txt' && test -s '$out/calibrated.npz'"
cp "$out/tile_xla.npz" "$out/checkpoint.npz"
"$graphcost" calibrate --model "$out/checkpoint.npz" --data "$out/data" --split train >/dev/null; status=$?
check "calibrate in place keeps a checkpoint's training state" bash -c "test $status -eq 0 && python3 -c \"import sys, zipfile; sys.exit('train_state_json.npy' not in zipfile.ZipFile('$out/checkpoint.npz').namelist())\""
"$graphcost" calibrate --model "$out/tile_xla.npz" --data "$out/data" --split test --out "$out/unlabelled.npz" >/dev/null 2>"$out/unlabelled.txt"; status=$?
check "calibrate on unlabelled graphs writes nothing and says so" bash -c "test $status -eq 1 && grep -q 'nothing written' '$out/unlabelled.txt' && test ! -e '$out/unlabelled.npz'"
"$graphcost" predict --model "$out/tile_xla.npz" --data "$out/data" --split test --out "$out/partial.csv" >/dev/null 2>"$out/missing.txt"; status=$?
check "a collection without a model is an error naming it" bash -c "test $status -eq 1 && grep -q 'layout:nlp:default' '$out/missing.txt'"
# --resume continues the checkpoint's architecture: a flag that says otherwise is refused, not ignored.
"$graphcost" train --data "$out/data" --collection tile:xla --out "$out/tile_xla.npz" --epochs 3 --steps-per-epoch 2 --resume \
  --hidden 32 >/dev/null 2>"$out/resume_hidden.txt"; status=$?
check "train --resume --hidden other than the checkpoint's is refused" bash -c "test $status -eq 1 && grep -q 'hidden' '$out/resume_hidden.txt' && grep -q '16' '$out/resume_hidden.txt'"
"$graphcost" train --data "$out/data" --collection tile:xla --out "$out/tile_xla.npz" --epochs 3 --steps-per-epoch 2 --resume \
  --hidden 16 --layers 1 >/dev/null 2>&1; status=$?
check "  ...and the same flags continue it" test $status -eq 0
# --relative-configs: layout only, and not over a config store, also when a checkpoint brings it back
# (--resume without the flag).
"$graphcost" train --data "$out/data" --collection tile:xla --out "$out/relative_tile.npz" --epochs 1 --steps-per-epoch 2 \
  --relative-configs >/dev/null 2>"$out/relative_tile.txt"; status=$?
check "train --relative-configs on tile is refused" bash -c "test $status -eq 1 && grep -q 'relative_configs' '$out/relative_tile.txt'"
"$graphcost" train --data "$out/data" --collection layout:nlp:default --out "$out/relative.npz" --epochs 1 --steps-per-epoch 2 \
  --hidden 8 --layers 1 --relative-configs >/dev/null 2>&1; status=$?
check "train --relative-configs on layout exits 0" test $status -eq 0
"$graphcost" predict --model "$out/tile_xla.npz" --model "$out/relative.npz" --data "$out/data" --split test --out "$out/relative.csv" >/dev/null 2>&1; status=$?
check "  ...and its model predicts" test $status -eq 0
"$graphcost" train --data "$out/data" --collection layout:nlp:default --out "$out/relative.npz" --epochs 2 --steps-per-epoch 2 \
  --resume --cache "$out/cache" >/dev/null 2>"$out/relative_cache.txt"; status=$?
check "resuming a relative-configs model over a config store is refused" \
  bash -c "test $status -eq 1 && grep -q 'relative_configs' '$out/relative_cache.txt' && grep -q 'config store' '$out/relative_cache.txt'"
finish
