#!/usr/bin/env bash
# README command 1: the main job. Installs what is missing, builds graphcost, and runs
# `graphcost info` on the TpuGraphs tree in $GRAPHCOST_DATA (default ../shared/data), or, where no
# data is present, on a synthetic tree written by `graphcost gen`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost
graphcost=build/native-release/src/graphcost

data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
if [ -d "$data/tpugraphs/npz" ]; then
  tree="$data/tpugraphs"
else
  tree=build/demo-data
  if [ ! -f "$tree/solution_test.csv" ]; then
    echo "no TpuGraphs data at $data: generating a synthetic tree in $tree"
    "$graphcost" gen --out "$tree" --graphs 40 --seed 1
  fi
fi
echo
echo "\$ graphcost info $tree"
"$graphcost" info -q "$tree" || true   # a tree may hold nonconforming files: they are listed, not fatal here
first=$(find "$tree" -path '*layout*' -name '*.npz' | sort | head -1)
echo
echo "\$ graphcost info $first"
"$graphcost" info "$first"
