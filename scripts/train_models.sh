#!/usr/bin/env bash
# Trains the models shipped in models/ and writes their model cards (data, command, seed, metrics),
# each card leading with the model's scores on the real labelled files. Deterministic: same code,
# data and seed, same model bytes. Takes about 10 minutes on 2 cores. Models are shipped by their
# real held-out figures: the layout_xla.npz in models/ comes from an earlier trainer and scores
# 0.146 on the held-out real unet_3d file, where this script's model now scores 0.004, so it was
# kept (its card says so; docs/experiments.md, "Generated to real").
#   layout_xla.npz  layout, XLA programs: generated layout:xla:{default,random} programs (the same
#                   programs in both collections) plus the real labelled layout/xla files of
#                   $GRAPHCOST_DATA (../shared/data); validated on both
#   layout_nlp.npz  layout, NLP programs: generated layout:nlp:{default,random} programs
#   tile_xla.npz    tile, trained on a generated tile:xla set (the real tile train split holds one
#                   2-config file), validated on the generated valid split and scored on the real
#                   tile valid file
# The layout recipe is the GNN that docs/experiments.md measures in settings (a)-(e) (ListMLE; the
# variants tried there, configs relative to the most common one and the gap-margin loss, did not
# hold up in every setting); what changed for issue 17 is the data: both collections of the same
# programs, so the models see the compiler's own search as well as random configs.
# Usage: bash scripts/train_models.sh [all|layout|tile]   (default all; `tile` retrains only the
# tile model and its card, `layout` the two layout models and theirs)
set -euo pipefail
cd "$(dirname "$0")/.."
only=${1:-all}
data=${GRAPHCOST_DATA:-../shared/data}
real="$data/tpugraphs"
[ -d "$real/npz" ] || { echo "train_models: no TpuGraphs tree at $real (set GRAPHCOST_DATA)" >&2; exit 1; }
real=$(cd "$real" && pwd)
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

# The last checkpoint without its training state (Adam moments, sampler: docs/model-format.md): the
# shipped files hold only the model. Members are copied as they are, so the bytes stay deterministic.
strip_training_state() {  # $1 model file
  python3 - "$1" <<'PY'
import os, sys, zipfile
path = sys.argv[1]
with zipfile.ZipFile(path) as source, zipfile.ZipFile(path + ".tmp", "w") as target:
    for info in source.infolist():
        if not info.filename.startswith("train_state"):
            target.writestr(info, source.read(info.filename))
os.replace(path + ".tmp", path)
PY
}

# Layout training data: generated programs of both sources, each in its default (compiler search)
# and random collection, with the real labelled xla files linked in beside them.
layout_data=$work/layout-data
layout_gen=(gen --out "$layout_data" --graphs 320 --seed 11
            --collections layout:xla:random,layout:xla:default,layout:nlp:random,layout:nlp:default --quiet)
if [ ! -f "$layout_data/solution_test.csv" ]; then
  "$graphcost" "${layout_gen[@]}"
fi
for file in layout/xla/default/train/unet3d.npz layout/xla/random/train/openai_v0_rnn_optimized.npz \
            layout/xla/random/valid/unet_3d.4x4.bf16.npz; do
  [ -f "$real/npz/$file" ] && ln -sf "$real/npz/$file" "$layout_data/npz/$file"
done
layout_recipe=(--epochs 20 --steps-per-epoch 100 --configs-per-step 32 --hidden 64 --layers 2 --hops 1 --seed "$seed")

layout_card() {  # $1 model name, $2 source (xla or nlp), $3 training log, $4 the training command, $5 the data
  card "$1" "# $1.npz: layout cost model for ${2^^} programs

$(real_figures "layout:$2")
- **Architecture:** opcode embedding 16 + 140 node features + layout values embedded (7 values x 4,
  18 per configurable node) -> linear 64 -> 2 GraphSAGE layers (in- and out-edges separately, residual, layer norm) -> sum + mean pooling ->
  MLP -> cost. Graphs pruned to configurable nodes and their 1-hop neighbours. $(stat -c %s "models/$1.npz") bytes.
- **Data:** $5
- **Command** (scripts/train_models.sh, seed $seed): \`graphcost ${layout_gen[*]}\`, then \`$4\`
- **On generated validation data** (labelled by graphcost's simulator): $(grep '^final:' "$3") (mean Kendall tau-b over the validation files)
  - docs/experiments.md compares this recipe with the baselines over 3 seeds, including the
    compiler's own search configs (settings (c)-(e)).
- **Predicted speedups** (fitted by \`graphcost train\` on the validation files): $(grep '^runtime calibration' "$3")
- **Intended use:** ranking layout configurations in the browser app, the demo competition and as a
  starting point; trained mostly on simulator-labelled programs, so not evidence of accuracy on
  TPU hardware: retrain on the full TpuGraphs download for competitive use."
}

if [ "$only" != tile ]; then
xla_cmd=("$graphcost" train --data "$layout_data" --collection layout:xla:default,layout:xla:random "${layout_recipe[@]}"
         --out models/layout_xla.npz)
"${xla_cmd[@]}" | tee "$work/layout_xla_train.txt"
strip_training_state models/layout_xla.npz

nlp_cmd=("$graphcost" train --data "$layout_data" --collection layout:nlp:default,layout:nlp:random "${layout_recipe[@]}"
         --out models/layout_nlp.npz)
"${nlp_cmd[@]}" | tee "$work/layout_nlp_train.txt"
strip_training_state models/layout_nlp.npz
fi

# Tile model on generated data: 400 kernels, the recipe that ranks the real kernels best of those
# tried (experiments/tile_on_real.sh, docs/experiments.md "Tile models on real kernels").
if [ "$only" != layout ]; then
if [ ! -f "$work/tile-data-400/solution_test.csv" ]; then
  "$graphcost" gen --out "$work/tile-data-400" --graphs 400 --collections tile:xla --seed 7 --quiet
fi
tile_cmd=("$graphcost" train --data "$work/tile-data-400" --collection tile:xla --epochs 15 --steps-per-epoch 100
          --configs-per-step 32 --hidden 64 --layers 2 --seed "$seed" --out models/tile_xla.npz)
"${tile_cmd[@]}" | tee "$work/tile_train.txt"
strip_training_state models/tile_xla.npz
fi
# The cards, each leading with the model's scores on real TPU measurements beside the model-free
# baselines (scripts/real_reference.py: the shared real labelled files with two or more distinct
# configs, and whether the model was trained on each; the demo board shows the same table).
/usr/bin/python3 scripts/real_reference.py --data "$data" --out "$work/real-reference.json" >/dev/null
real_figures() {  # $1 the collections the model ranks (a prefix: layout:xla, layout:nlp, tile:xla)
  /usr/bin/python3 scripts/real_reference.py --card "$1" --reference "$work/real-reference.json"
}
if [ "$only" != tile ]; then
layout_card layout_xla xla "$work/layout_xla_train.txt" "${xla_cmd[*]}" \
  "54 generated programs in each of \`layout/xla/{default,random}/train\` (the same programs,
  searched by a compiler-like hill climb and sampled at random; 1,000 configs each), plus the real
  labelled files of the shared subset (unet3d's 1,159 default configs; openai_v0_rnn_optimized's
  20 identical configs teach nothing). Validation: 13 generated programs per collection and the
  real unet_3d.4x4.bf16 random valid graph."
layout_card layout_nlp nlp "$work/layout_nlp_train.txt" "${nlp_cmd[*]}" \
  "54 generated programs in each of \`layout/nlp/{default,random}/train\` (BERT-like graphs, the same
  programs in both collections, 1,000 configs each); the shared real nlp files are test files
  with hidden runtimes. Validation: 13 generated programs per collection."
fi
[ "$only" = layout ] && exit 0
card tile_xla "# tile_xla.npz: tile cost model for XLA kernels

$(real_figures tile:xla)
- **Architecture:** opcode embedding 16 + 140 node features + the 24 tile config features
  (normalised, joined to every node) -> linear 64 -> 2 GraphSAGE layers -> sum + mean pooling ->
  MLP -> cost (runtime relative to the kernel's default config). $(stat -c %s models/tile_xla.npz) bytes.
- **Data:** 400 generated tile:xla kernels (\`graphcost gen --graphs 400 --collections tile:xla --seed 7\`,
  labelled by the cost simulator, docs/simulator.md); the shared real tile train split has a single
  2-config file.
- **Chosen on real kernels** (experiments/tile_on_real.sh, docs/experiments.md): of the recipes tried
  (120 or 400 generated kernels, ListMLE or hinge, 3 seeds each), 400 kernels ranks the six real
  kernels with more than 5 configs best (mean 2 - top-5 slowdown -0.27, against -0.43 for 120 and
  -0.49 for the model shipped before); every learned recipe loses to the model-free orders there
  (0.96-0.97), all on fusion.191, whose 579 real configs no simulator-trained model ranks.
- **Command** (scripts/train_models.sh, seed $seed): \`${tile_cmd[*]}\`
- **On generated validation data** (labelled by graphcost's simulator): $(grep '^final:' "$work/tile_train.txt") (generated valid split; tile score = 2 - best runtime among the 5 top-ranked configs / best runtime, 1 is perfect)
- **Predicted speedups** (fitted by \`graphcost train\` on the generated valid split): $(grep '^runtime calibration' "$work/tile_train.txt")
- **Intended use:** demonstrations and the browser app; a simulator-trained model is not evidence
  of accuracy on TPU hardware. For a real kernel, measure: \`graphcost tune\` learns the kernel from
  its own measurements (fusion.191: tau 0.84 on its unmeasured configs after 100, docs/tuning.md)."
