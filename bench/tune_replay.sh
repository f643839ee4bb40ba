#!/usr/bin/env bash
# Every tuning strategy with the default learner (auto) on every shared real labelled layout and
# tile file with enough configs (the raw records' kernels included) and on two generated files,
# budgets 10, 30, 100 and 300, 5 seeds (bench/tune_replay.cpp): the unmeasured configs' tau and
# top-5 slowdown, the best measured against the file's best, ridge and XGBoost fitted to the same
# measurements (the reference columns), medians, and the machine. Writes the table into
# docs/tuning.md between its "tune_replay table" markers.
# Usage: bash bench/tune_replay.sh [SEEDS=5]   (about 15 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}
data=${GRAPHCOST_DATA:-../shared/data}
real="$data/tpugraphs/npz"
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target bench_tune_replay graphcost >/dev/null
work=build/tune-replay
mkdir -p "$work"
[ -f "$work/gen/solution_test.csv" ] || build/native-release/src/graphcost gen --out "$work/gen" --graphs 3 --seed 21 \
  --collections layout:xla:default,tile:xla --quiet
generated=$(find "$work/gen/npz" -path '*/train/*' -name '*.npz' | sort | head -2)
table="$work/table.md"
build/native-release/bench/bench_tune_replay \
  "$real/layout/xla/default/train/unet3d.npz" "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz" \
  "$real/layout/xla/default/valid/unet_3d.4x4.bf16.npz" "$real/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz" \
  "$data/tpugraphs-raw/op_tuning_data.pb" $generated \
  --budgets 10,30,100,300 --seeds "$seeds" --model-layout models/layout_xla.npz --model-tile models/tile_xla.npz --markdown "$table" \
  | tee "$work/output.txt"
machine=$(head -1 "$work/output.txt")
/usr/bin/python3 - "$table" "$machine" <<'PY'
import re, subprocess, sys
table, machine = open(sys.argv[1]).read(), sys.argv[2]
doc = open("docs/tuning.md").read()
commit = subprocess.run(["git", "log", "-1", "--format=%h %cd", "--date=short"], capture_output=True, text=True).stdout.strip()
block = f"<!-- tune_replay table: bash bench/tune_replay.sh -->\n{machine}; commit {commit}\n\n{table}<!-- end of tune_replay table -->"
doc = re.sub(r"<!-- tune_replay table.*?<!-- end of tune_replay table -->", lambda _: block, doc, flags=re.S)
open("docs/tuning.md", "w").write(doc)
PY
echo "tune_replay: the table is in docs/tuning.md"
