#!/usr/bin/env bash
# Trains the models shipped in models/ and writes their model cards (data, command, seed, metrics).
# Deterministic: same data and seed, same model bytes. Takes about 5 minutes on 2 cores.
#   layout_xla.npz  layout, trained on the real labelled layout/xla train files in $GRAPHCOST_DATA
#                   (../shared/data), validated on the real layout/xla/random valid graph
#   tile_xla.npz    tile, trained on a generated tile:xla set (the real tile train split holds one
#                   2-config file), validated on the generated valid split and scored on the real
#                   tile valid file
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GRAPHCOST_DATA:-../shared/data}
real="$data/tpugraphs"
[ -d "$real/npz" ] || { echo "train_models: no TpuGraphs tree at $real (set GRAPHCOST_DATA)" >&2; exit 1; }
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost >/dev/null
graphcost=build/native-release/src/graphcost
work=build/train-models
mkdir -p "$work" models
seed=1

card() {  # $1 model name, $2 text
  printf '%s\n' "$2" > "models/$1.md"
  echo "train_models: wrote models/$1.npz and models/$1.md"
}

# Layout model on real data.
layout_cmd=("$graphcost" train --data "$real" --collection layout:xla:default,layout:xla:random
            --valid-split valid --epochs 20 --steps-per-epoch 100 --configs-per-step 32 --hidden 64 --layers 2
            --hops 1 --seed "$seed" --out models/layout_xla.npz)
"${layout_cmd[@]}" | tee "$work/layout_train.txt"
layout_valid=$("$graphcost" evaluate-model --model models/layout_xla.npz --data "$real" --collection layout:xla:random --split valid)
card layout_xla "# layout_xla.npz: layout cost model for XLA programs

- **Architecture:** opcode embedding 16 + 140 node features + layout values embedded (7 values x 4,
  18 per configurable node) -> linear 64 -> 2 GraphSAGE layers (in- and out-edges separately,
  residual, layer norm) -> sum + mean pooling -> MLP -> cost. Graphs pruned to configurable nodes
  and their 1-hop neighbours. $(stat -c %s models/layout_xla.npz) bytes.
- **Data:** the labelled files of \`layout/xla/{default,random}/train\` in \$GRAPHCOST_DATA (the shared
  subset: unet3d, 1,159 configs; openai_v0_rnn_optimized has 20 identical configs and teaches
  nothing). Far less than the full dataset's 61-69 xla training programs: retrain with the full download for
  competitive use.
- **Command** (scripts/train_models.sh, seed $seed): \`${layout_cmd[*]}\`
- **Metrics:** $(grep '^final:' "$work/layout_train.txt")
  - real layout/xla/random valid graph (unet_3d.4x4.bf16, 481 configs, a program not trained on): \`$layout_valid\`
  - docs/experiments.md compares this architecture with the baselines over 3 seeds.
- **Predicted speedups** (fitted by \`graphcost train\` on the validation graph): $(grep '^runtime calibration' "$work/layout_train.txt")
- **Intended use:** ranking layout configurations of XLA programs in the browser app and as a
  starting point; not a competition-grade model."

# Tile model on generated data.
if [ ! -f "$work/tile-data/solution_test.csv" ]; then
  "$graphcost" gen --out "$work/tile-data" --graphs 120 --collections tile:xla --seed 7 --quiet
fi
tile_cmd=("$graphcost" train --data "$work/tile-data" --collection tile:xla --epochs 15 --steps-per-epoch 100
          --configs-per-step 32 --hidden 64 --layers 2 --seed "$seed" --out models/tile_xla.npz)
"${tile_cmd[@]}" | tee "$work/tile_train.txt"
tile_real=$("$graphcost" evaluate-model --model models/tile_xla.npz --data "$real" --split valid)
card tile_xla "# tile_xla.npz: tile cost model for XLA kernels

- **Architecture:** opcode embedding 16 + 140 node features + the 24 tile config features
  (normalised, joined to every node) -> linear 64 -> 2 GraphSAGE layers -> sum + mean pooling ->
  MLP -> cost (runtime relative to the kernel's default config). $(stat -c %s models/tile_xla.npz) bytes.
- **Data:** 120 generated tile:xla kernels (\`graphcost gen --graphs 120 --collections tile:xla --seed 7\`,
  labelled by the cost simulator, docs/simulator.md); the shared real tile train split has a single
  2-config file.
- **Command** (scripts/train_models.sh, seed $seed): \`${tile_cmd[*]}\`
- **Metrics:** $(grep '^final:' "$work/tile_train.txt") (generated valid split; tile score = 2 - best runtime among the 5 top-ranked configs / best runtime, 1 is perfect)
  - real tile/xla valid file (inception_v3 kernel, 9 configs): \`$tile_real\`
- **Predicted speedups** (fitted by \`graphcost train\` on the generated valid split): $(grep '^runtime calibration' "$work/tile_train.txt")
- **Intended use:** demonstrations and the browser app; a simulator-trained model is not evidence
  of accuracy on TPU hardware."
