#!/usr/bin/env bash
# README command 1: the main job. Installs what is missing, builds everything (native tools and the
# WebAssembly app), generates demo data when missing, scores the shipped GNN models and the
# model-free baselines into a leaderboard, and serves the browser app and the leaderboard page on
# 127.0.0.1 until Ctrl-C.
#   GRAPHCOST_DEMO_PORT=8000 (default)   GRAPHCOST_DEMO_SERVE=0: build and prepare, do not serve
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
step() { echo; echo "=== $* ==="; }

step "build: native tools, then the WebAssembly app"
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost graphcost-eval
cmake --preset web >/dev/null
cmake --build --preset web --target graphcost_app
graphcost=build/native-release/src/graphcost
evaluator=build/native-release/evaluation/graphcost-eval

step "demo data"
tree=build/demo-data
if [ ! -f "$tree/solution_test.csv" ]; then
  echo "generating a synthetic TpuGraphs tree in $tree (graphcost gen)"
  "$graphcost" gen --out "$tree" --graphs 120 --seed 1
else
  echo "using $tree"
fi

step "leaderboard: the shipped models against the model-free baselines, on the generated test split"
board=build/demo-board
rm -rf "$board" && mkdir -p "$board/submissions"
submit() {  # team, then the command that writes its submission to the path given last
  local team=$1; shift
  mkdir -p "$board/submissions/$team"
  "$@" "$board/submissions/$team/2026-12-01T12-00-00Z.csv" >/dev/null
}
submit graphcost-gnn "$graphcost" predict --model models/layout_xla.npz models/tile_xla.npz --data "$tree" --split test --out
for strategy in fewest-changes random first reverse; do
  submit "baseline-$strategy" "$evaluator" baseline --data "$tree" --split test --strategy "$strategy" --seed 7 --out
done
"$evaluator" leaderboard --solution "$tree/solution_test.csv" --submissions "$board/submissions" --out "$board/data"

step "site: app + leaderboard in build/www"
www=build/www
rm -rf "$www" && mkdir -p "$www/app/demos" "$www/leaderboard"
cp build/web/web/index.html build/web/web/graphcost_app.js build/web/web/graphcost_app.wasm build/web/web/graphcost_app.data "$www/app/"
cp site/index.html site/leaderboard.js site/style.css "$www/leaderboard/"
cp -r "$board/data" "$www/leaderboard/data"
# Demo graphs for the app: one generated file per collection, plus real files when present.
demos="["
add_demo() {  # name, source file
  cp "$2" "$www/app/demos/$1.npz"
  [ "$demos" = "[" ] || demos+=","
  demos+="{\"name\": \"$1\", \"url\": \"demos/$1.npz\"}"
}
for collection in layout/xla/random layout/xla/default layout/nlp/random tile/xla; do
  file=$(find "$tree/npz/$collection/valid" -name '*.npz' 2>/dev/null | sort | head -1)
  [ -n "$file" ] && add_demo "generated ${collection//\//-}" "$file"
done
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
if [ -d "$data/tpugraphs/npz" ]; then
  real="$data/tpugraphs/npz"
  [ -f "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz" ] && add_demo "real unet_3d layout (valid, labelled)" "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz"
  [ -f "$real/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz" ] && add_demo "real nlp test graph (21,918 nodes)" "$real/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"
fi
echo "$demos]" > "$www/app/demos/index.json"
cat > "$www/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>graphcost</title>
<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:4em auto;line-height:1.5}</style>
<h1>graphcost</h1>
<p><a href="app/">The graph viewer</a>: drop a TpuGraphs .npz file or pick a demo; the shipped model ranks its configurations.</p>
<p><a href="leaderboard/">The leaderboard</a>: the shipped GNN models against model-free baselines on the generated test split.</p>
HTML
ls -la "$www/app" | awk '{print $5, $9}' | tail -n +2

port=${GRAPHCOST_DEMO_PORT:-8000}
if [ "${GRAPHCOST_DEMO_SERVE:-1}" = "0" ]; then
  echo "prepared $www (not serving: GRAPHCOST_DEMO_SERVE=0)"
  exit 0
fi
step "serving"
echo "graphcost app:        http://127.0.0.1:$port/app/"
echo "leaderboard:          http://127.0.0.1:$port/leaderboard/"
echo "(Ctrl-C stops the server)"
exec python3 -m http.server --bind 127.0.0.1 --directory "$www" "$port"
