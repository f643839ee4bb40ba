#!/usr/bin/env bash
# The outputs a refactoring must not change, in one folder: `graphcost info/predict/layout` and
# `graphcost-eval score/leaderboard/baseline/make-solution` on the shared real files and on a small
# generated tree. Run it before and after a change and compare with `diff -r BEFORE AFTER`.
#   bash scripts/output-fingerprint.sh OUT_DIR [BUILD_DIR=build/native-release]
# Progress lines are dropped, the output folder's path is written <out>, and wall-clock figures
# (the "N ms" / "N s" a command prints about itself) are masked as "<time>"; everything else is
# kept byte for byte. The generated tree is made by the build's own `graphcost gen`, so the
# generator is part of the comparison (kept in BUILD_DIR/fingerprint-data for the commands).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: output-fingerprint.sh OUT_DIR [BUILD_DIR]}
build=${2:-build/native-release}
graphcost=$build/src/graphcost
evaluator=$build/evaluation/graphcost-eval
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
real=$data/tpugraphs/npz
rm -rf "$out" && mkdir -p "$out"
mask_times() {  # timings only: "in 2.1 s", "layout 40 ms", "3 s elapsed", "~5 s left", "(12.5 ms)", a tune round's seconds
  sed -E -e 's/(in|layout|took|\(|~) ?[0-9]+(\.[0-9]+)? ?(ms|s|min)\b/\1 <time>/g' -e 's/[0-9]+(\.[0-9]+)? ?(ms|s|min) (elapsed|left)/<time> \3/g' \
    -e 's/^(      "(learn_|measure_)?seconds": ).*/\1<time>,/' -e 's/(read|parse|write) [0-9.]+ ms/\1 <time>/g' -e 's/peak memory [0-9]+ MiB/peak memory <MiB>/'
}
run() {  # name, command...: stdout+stderr and the exit code into OUT/name.txt
  local name=$1; shift
  local rc=0
  "$@" >"$out/$name.txt" 2>&1 || rc=$?
  grep -Ev '^gen: [0-9]+/[0-9]+ files' "$out/$name.txt" | mask_times | sed "s|$out|<out>|g" >"$out/$name.tmp" || true
  mv "$out/$name.tmp" "$out/$name.txt"
  echo "exit $rc" >>"$out/$name.txt"
}

tree=$build/fingerprint-data
run gen "$graphcost" gen --out "$out/gen-tree" --graphs 40 --seed 5
rm -rf "$tree" && mv "$out/gen-tree" "$tree"
(cd "$tree" && find . -type f | sort | xargs sha256sum) >"$out/gen-tree.sha256"

# info: each real file, text and JSON; the trees.
if [ -d "$real" ]; then
  while IFS= read -r file; do
    name=$(echo "${file#"$real"/}" | tr '/' '_')
    run "info_$name" "$graphcost" info "$file"
    run "info-json_$name" "$graphcost" info --json "$file"
  done < <(find "$real" -name '*.npz' | sort)
  run info_real_tree "$graphcost" info "$real"
  run info_nonconforming "$graphcost" info "$data/nonconforming/alexnet_trimmed_columns.npz"
  # layout: the real layout files' positions.
  for file in "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz" "$real/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz" \
              "$real/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz"; do
    name=$(basename "$file" .npz)
    run "drawing_$name" "$graphcost" draw "$file" --out "$out/drawing_$name.csv"
  done
  # The simulator, import, rank and tune: the rooms the layout moves touch.
  unet=$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz
  run simulate_unet "$graphcost" simulate "$unet" --out "$out/simulate_unet.csv"
  run simulate_tile "$graphcost" simulate --hardware tpu-v5e "$real/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz"
  run simulate_gemm "$graphcost" simulate --gemm "$data/tpu-gemm/measurements_v5e.csv" --hardware tpu-v5e
  run import_fusion "$graphcost" import "$data/hlo/fusion.hlo" --out "$out/import_fusion.npz"
  run info_import_fusion "$graphcost" info --json "$out/import_fusion.npz"
  run rank_unet "$graphcost" rank "$unet" --model models/layout_xla.npz
  for learner in auto ridge xgboost; do
    run "tune_$learner" "$graphcost" tune "$unet" --budget 30 --seed 4 --learner "$learner" --json -q --costs-out "$out/tune_costs_$learner.csv"
  done
  run tune_simulate_module "$graphcost" tune "$data/hlo/depthwise_conv_3x3_1x256x56x56_bf16.hlo" --oracle simulate --budget 20 --candidates 200 --seed 2 --json -q
  run predict_real "$graphcost" predict --model models/layout_xla.npz models/layout_nlp.npz models/tile_xla.npz --data "$data/tpugraphs" --split test --out "$out/predict_real.csv"
fi
run info_gen_tree "$graphcost" info "$tree"
run predict_gen "$graphcost" predict --model models/layout_xla.npz models/layout_nlp.npz models/tile_xla.npz --data "$tree" --split test --out "$out/predict_gen.csv"

# The evaluator on the generated tree: a solution, baselines, scores, a leaderboard.
run make_solution "$evaluator" make-solution --data "$tree" --split valid --seed 3 --out "$out/solution.csv"
mkdir -p "$out/submissions/gnn" "$out/submissions/fewest"
cp "$out/predict_gen.csv" "$out/submissions/gnn/2026-12-01T12-00-00Z.csv"
for strategy in fewest-changes random first reverse; do
  run "baseline_$strategy" "$evaluator" baseline --data "$tree" --split test --strategy "$strategy" --seed 7 --out "$out/baseline_$strategy.csv"
done
cp "$out/baseline_fewest-changes.csv" "$out/submissions/fewest/2026-12-01T13-00-00Z.csv"
run score_gnn "$evaluator" score --solution "$tree/solution_test.csv" --submission "$out/predict_gen.csv"
run score_gnn_json "$evaluator" score --json "$out/score_gnn.json" --solution "$tree/solution_test.csv" --submission "$out/predict_gen.csv"
run score_random "$evaluator" score --solution "$tree/solution_test.csv" --submission "$out/baseline_random.csv"
head -c 300 "$out/predict_gen.csv" >"$out/truncated.csv"
run score_invalid "$evaluator" score --solution "$tree/solution_test.csv" --submission "$out/truncated.csv"
run leaderboard "$evaluator" leaderboard --solution "$tree/solution_test.csv" --submissions "$out/submissions" --out "$out/board"
run leaderboard_final "$evaluator" leaderboard --final --solution "$tree/solution_test.csv" --submissions "$out/submissions" --out "$out/board-final"
(cd "$out" && find . -type f | sort | xargs sha256sum) >"$out/../$(basename "$out").sha256"
echo "fingerprint: $(find "$out" -type f | wc -l) files in $out (sha256 list: $out/../$(basename "$out").sha256)"
