#!/usr/bin/env bash
# Which tile model to ship, decided on real TPU measurements: candidate recipes are trained on
# generated kernels (the simulator's labels) and scored on every real labelled tile kernel the
# shared data holds (the inception valid file, and the ten kernels of tpugraphs-raw/op_tuning_data.pb
# imported by `graphcost import`), none of which any candidate saw. Prints each candidate's score
# per kernel (2 - top-5 slowdown, the Kaggle tile metric: 1 is perfect) beside the model-free
# baselines, and the mean over the kernels where the choice matters (more than 5 distinct configs).
# Usage: bash experiments/tile_on_real.sh [SEEDS=3]   (about 12 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-3}
data=${GRAPHCOST_DATA:-../shared/data}
graphcost=build/native-release/src/graphcost
evaluator=build/native-release/evaluation/graphcost-eval
work=build/tile-on-real
mkdir -p "$work"
tree="$work/real-tree"
rm -rf "$tree"
mkdir -p "$tree/npz/tile/xla/valid"
"$graphcost" import "$data/tpugraphs-raw/op_tuning_data.pb" --out "$tree/npz/tile/xla/valid" >/dev/null
ln -sf "$(cd "$data/tpugraphs/npz/tile/xla/valid" && pwd)"/*.npz "$tree/npz/tile/xla/valid/"

score() {  # $1 label, $2 submission -> lines "label kaggle_id score"
  "$evaluator" score --solution "$tree" --split valid --submission "$2" --json "$work/score.json" >/dev/null
  /usr/bin/python3 -c "
import json
for g in json.load(open('$work/score.json'))['graphs']: print('$1', g['id'], g['score'])"
}

results="$work/results.txt"
: >"$results"
for strategy in first reverse random fewest-changes; do
  "$evaluator" baseline --data "$tree" --split valid --strategy "$strategy" --seed 7 --out "$work/$strategy.csv"
  score "baseline-$strategy" "$work/$strategy.csv" >>"$results"
done
"$graphcost" predict --model models/tile_xla.npz --data "$tree" --split valid --out "$work/shipped.csv" >/dev/null
score shipped "$work/shipped.csv" >>"$results"

# Candidate recipes: the shipped one (120 generated kernels, ListMLE), more generated kernels, and
# the hinge loss; each with several seeds (the model's seed; the data stays the same).
gen() {  # $1 graphs
  local out="$work/gen-$1"
  [ -f "$out/solution_test.csv" ] || "$graphcost" gen --out "$out" --graphs "$1" --collections tile:xla --seed 7 --quiet
}
gen 120
gen 400
for seed in $(seq 1 "$seeds"); do
  for recipe in "generated-120:120:listmle" "generated-400:400:listmle" "hinge-120:120:hinge"; do
    IFS=: read -r name graphs loss <<<"$recipe"
    model="$work/$name-seed$seed.npz"
    [ -f "$model" ] || "$graphcost" train --data "$work/gen-$graphs" --collection tile:xla --epochs 15 --steps-per-epoch 100 \
      --configs-per-step 32 --hidden 64 --layers 2 --loss "$loss" --seed "$seed" --out "$model" -q >/dev/null
    "$graphcost" predict --model "$model" --data "$tree" --split valid --out "$work/$name.csv" >/dev/null
    score "$name" "$work/$name.csv" >>"$results"
  done
done

/usr/bin/python3 - "$results" "$tree" "$graphcost" <<'PY'
import collections, json, statistics, subprocess, sys, os
results, tree, graphcost = sys.argv[1:]
scores = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(results):
    team, kernel, value = line.split()
    scores[team][kernel].append(float(value))
folder = os.path.join(tree, "npz/tile/xla/valid")
distinct = {}
for name in os.listdir(folder):
    info = json.loads(subprocess.run([graphcost, "info", "--json", os.path.join(folder, name)], capture_output=True, text=True).stdout)
    distinct[info["kaggle_id"]] = info["distinct_configs"]
kernels = sorted(distinct, key=lambda k: -distinct[k])
telling = [k for k in kernels if distinct[k] > 5]
print("| team | " + " | ".join(f"{k.split(':')[-1]} ({distinct[k]})" for k in kernels) + " | mean, > 5 configs |")
print("|---" * (len(kernels) + 2) + "|")
for team in sorted(scores, key=lambda t: -statistics.mean(statistics.mean(scores[t][k]) for k in telling)):
    cells = []
    for k in kernels:
        v = scores[team][k]
        cells.append(f"{statistics.mean(v):.3f}" + (f" ({min(v):.3f}-{max(v):.3f})" if len(v) > 1 else ""))
    mean = statistics.mean(statistics.mean(scores[team][k]) for k in telling)
    print(f"| {team} | " + " | ".join(cells) + f" | **{mean:.3f}** |")
PY
