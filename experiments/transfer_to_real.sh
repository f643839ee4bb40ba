#!/usr/bin/env bash
# Transfer from generated to real data (issue 29, docs/experiments.md "Generated to real"): layout
# models trained on generated layout:xla data only, by the shipped recipe (scripts/train_models.sh),
# scored on every real labelled layout file with two or more distinct configs, beside the shipped
# model (which also trained on the real train-split files) and the model-free baselines.
#   families   graphcost gen's synthetic families (the shipped model's generated xla data)
#   programs   the same, half of the layout graphs drawn from the shared HLO modules (--programs)
#   real-weighted  families plus the real unet3d train file linked in 100 times (about 40% of the
#              default collection's train files), so the one real training program is drawn often
# Three seeds each. Prints a markdown table: per real file, mean and range over the seeds.
#   bash experiments/transfer_to_real.sh [SEEDS="1 2 3"]   (~25 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-"1 2 3"}
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
real="$data/tpugraphs"
[ -d "$real/npz" ] || { echo "transfer_to_real: no TpuGraphs tree at $real (set GRAPHCOST_DATA)" >&2; exit 1; }
cmake --build --preset native-release --target graphcost graphcost-eval >/dev/null
graphcost=build/native-release/src/graphcost
evaluator=build/native-release/evaluation/graphcost-eval
work=build/transfer-to-real
mkdir -p "$work"
recipe=(--collection layout:xla:default,layout:xla:random --epochs 20 --steps-per-epoch 100 --configs-per-step 32 --hidden 64
        --layers 2 --hops 1)
gen=(gen --graphs 160 --seed 11 --collections layout:xla:random,layout:xla:default --quiet)
[ -f "$work/families/solution_test.csv" ] || "$graphcost" "${gen[@]}" --out "$work/families" >/dev/null
[ -f "$work/programs/solution_test.csv" ] || "$graphcost" "${gen[@]}" --out "$work/programs" --programs "$data/hlo" >"$work/programs-gen.txt"
if [ ! -d "$work/real-weighted" ]; then  # the families tree's files, plus the real train program 100 times
  (cd "$work/families" && find npz -name '*.npz') | while read -r file; do
    mkdir -p "$work/real-weighted/$(dirname "$file")"
    ln -s "$(cd "$work/families" && pwd)/$file" "$work/real-weighted/$file"
  done
  for i in $(seq 1 100); do ln -s "$real/npz/layout/xla/default/train/unet3d.npz" "$work/real-weighted/npz/layout/xla/default/train/real_unet3d_$i.npz"; done
fi

# Scores one model (or baseline submission maker) on the real train and valid splits: per-graph JSON.
score_real() {  # $1 name, then the command that writes a submission for --split S to the path given last
  local name=$1; shift
  for split in train valid; do
    "$@" "$split" "$work/$name-$split.csv" >/dev/null
    "$evaluator" score --solution "$real" --split "$split" --submission "$work/$name-$split.csv" --json "$work/$name-$split.json" >/dev/null
  done
}
predict() { "$graphcost" predict --model "$1" models/layout_nlp.npz models/tile_xla.npz --data "$real" --split "$2" --out "$3"; }
baseline() { "$evaluator" baseline --data "$real" --strategy "$1" --seed 7 --split "$2" --out "$3"; }

for variant in families programs real-weighted; do
  for seed in $seeds; do
    model="$work/$variant-seed$seed.npz"
    if [ ! -f "$model" ]; then
      echo "transfer_to_real: training $variant, seed $seed" >&2
      "$graphcost" train --data "$work/$variant" "${recipe[@]}" --seed "$seed" --out "$model" >"$work/$variant-seed$seed.log" 2>&1
    fi
    score_real "$variant-seed$seed" predict "$model"
  done
done
score_real shipped predict models/layout_xla.npz
for strategy in fewest-changes random first; do score_real "baseline-$strategy" baseline "$strategy"; done

/usr/bin/python3 - "$work" "$seeds" "$real" "$graphcost" <<'PY'
import json, os, statistics, subprocess, sys
work, seeds, real, graphcost = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
def scores(name):
    out = {}
    for split in ("train", "valid"):
        for graph in json.load(open(f"{work}/{name}-{split}.json"))["graphs"]:
            out[graph["id"]] = graph["score"]
    return out
files = []
for folder, _, names in os.walk(os.path.join(real, "npz", "layout")):
    for name in sorted(names):
        info = json.loads(subprocess.run([graphcost, "info", "--json", os.path.join(folder, name)], capture_output=True, text=True).stdout)
        if info["labelled"] and info["distinct_configs"] >= 2 and info["split"] in ("train", "valid"):
            files.append(info)
files.sort(key=lambda f: f["kaggle_id"])
rows = []
for variant in ("families", "programs", "real-weighted"):
    per_seed = [scores(f"{variant}-seed{s}") for s in seeds]
    cells = []
    for f in files:
        values = [p[f["kaggle_id"]] for p in per_seed]
        cells.append(f"{statistics.mean(values):.3f} ({min(values):.3f} to {max(values):.3f})")
    rows.append((f"GNN trained on generated data only: {variant}" if variant != "real-weighted"
                 else "GNN trained on families + the real unet3d train file x100", cells))
shipped = scores("shipped")
rows.append(("shipped layout_xla.npz (generated + the real train files)", [f"{shipped[f['kaggle_id']]:.3f}" for f in files]))
for strategy in ("fewest-changes", "random", "first"):
    s = scores(f"baseline-{strategy}")
    rows.append((f"baseline {strategy}", [f"{s[f['kaggle_id']]:.3f}" for f in files]))
print("| Kendall tau-b | " + " | ".join(f"{os.path.basename(f['file'])[:-4]} ({f['collection']}, {f['split']}, {f['configs']} configs)" for f in files) + " |")
print("|---|" + "---|" * len(files))
for label, cells in rows:
    print(f"| {label} | " + " | ".join(cells) + " |")
print(f"\nseeds {' '.join(seeds)}; the shipped model trained on the real train-split files, so only its valid-split figures are held out")
PY
