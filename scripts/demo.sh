#!/usr/bin/env bash
# README command 1: the main job. Installs what is missing, builds everything (native tools and the
# WebAssembly app), generates demo data when missing, creates a live competition on its test split
# with the shipped GNN models and the model-free baselines as teams (and a team 'you' whose token it
# prints), and serves it with `graphcost-eval serve` on 127.0.0.1 until Ctrl-C: the leaderboard at
# /, the submission page, the JSON API, and the browser app under /app/.
#   GRAPHCOST_DEMO_PORT=8000 (default)   GRAPHCOST_DEMO_SERVE=0: build and prepare, do not serve
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
step() { echo; echo "=== $* ==="; }

step "build: native tools, then the WebAssembly app"
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost graphcost-eval
cmake --preset web >/dev/null
cmake --build --preset web --target graphcost_app graphcost_validate
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

step "competition: the shipped models against the model-free baselines, on the generated test split"
competition=build/demo-competition
db=$competition/competition.sqlite
if [ -f "$db" ]; then
  echo "using $db (its teams and submissions are kept; delete $competition for a fresh competition)"
else
  mkdir -p "$competition/submissions"
  "$evaluator" competition init --db "$db" --solution "$tree/solution_test.csv" \
    --title "graphcost demo: TpuGraphs runtime ranking (generated test split)" \
    --deadline "$(date -u -d '+30 days' +%Y-%m-%dT%H:%M:%SZ)" --daily-cap 5 --finals 2
  enter() {  # team, then the command that writes its submission to the path given last
    local team=$1; shift
    "$evaluator" competition team add --db "$db" "$team" >/dev/null
    "$@" "$competition/submissions/$team.csv" >/dev/null
    "$evaluator" competition submit --db "$db" --team "$team" --file "$competition/submissions/$team.csv"
  }
  enter graphcost-gnn "$graphcost" predict --model models/layout_xla.npz models/layout_nlp.npz models/tile_xla.npz --data "$tree" --split test --out
  for strategy in fewest-changes random first reverse; do
    enter "baseline-$strategy" "$evaluator" baseline --data "$tree" --split test --strategy "$strategy" --seed 7 --out
  done
  # A team for whoever runs the demo: its token lets them submit through the page or curl.
  "$evaluator" competition team add --db "$db" you | awk '{print $NF}' > "$competition/your-token"
fi
"$evaluator" competition export --db "$db" --out "$competition/board"   # scores what is queued, writes the static board too
"$evaluator" competition status --db "$db"

step "site: the app and its validator in build/www/app"
www=build/www
rm -rf "$www" && mkdir -p "$www/app/demos"
cp build/web/web/index.html build/web/web/app_page.js build/web/web/graphcost_app.js build/web/web/graphcost_app.wasm build/web/web/graphcost_app.data \
   build/web/web/graphcost_validate.js build/web/web/graphcost_validate.wasm "$www/app/"
# Demo graphs for the app: one generated file per collection, plus real files when present.
demos="["
add_demo() {  # name, source file[, "default": the graph the app opens on arrival]
  cp "$2" "$www/app/demos/$1.npz"
  [ "$demos" = "[" ] || demos+=","
  demos+="{\"name\": \"$1\", \"url\": \"demos/$1.npz\"${3:+, \"default\": true}}"
}
for collection in layout/xla/random layout/xla/default layout/nlp/random tile/xla; do
  file=$(find "$tree/npz/$collection/valid" -name '*.npz' 2>/dev/null | sort | head -1)
  [ -n "$file" ] && add_demo "generated ${collection//\//-}" "$file"
done
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
if [ -d "$data/tpugraphs/npz" ]; then
  real="$data/tpugraphs/npz"
  [ -f "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz" ] &&
    add_demo "real unet_3d layout (valid, labelled)" "$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz" default
  [ -f "$real/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz" ] && add_demo "real nlp test graph (21,918 nodes)" "$real/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"
fi
if [ -f "$data/hlo/resnet50_keras_jax_f32.hlo" ]; then  # a user's own program: HLO text imported (docs/import.md)
  build/native-release/src/graphcost import "$data/hlo/resnet50_keras_jax_f32.hlo" --out build/demo-resnet50-imported.npz -q >/dev/null
  add_demo "imported HLO - ResNet-50 (Keras-JAX)" build/demo-resnet50-imported.npz
fi
echo "$demos]" > "$www/app/demos/index.json"
ls -la "$www/app" | awk '{print $5, $9}' | tail -n +2

port=${GRAPHCOST_DEMO_PORT:-8000}
if [ "${GRAPHCOST_DEMO_SERVE:-1}" = "0" ]; then
  echo "prepared $www (not serving: GRAPHCOST_DEMO_SERVE=0)"
  exit 0
fi
step "serving: graphcost-eval serve (the live competition, the app under /app/)"
echo "leaderboard:          http://127.0.0.1:$port/"
echo "submit:               http://127.0.0.1:$port/submit.html   (team 'you', token: $(cat "$competition/your-token"))"
echo "graphcost app:        http://127.0.0.1:$port/app/"
echo "by script:            curl -H \"Authorization: Bearer \$(cat $competition/your-token)\" --data-binary @$competition/submissions/baseline-random.csv http://127.0.0.1:$port/api/submissions"
echo "(Ctrl-C stops the server; $db keeps everything)"
exec "$evaluator" serve --db "$db" --port "$port" --app "$www/app"
