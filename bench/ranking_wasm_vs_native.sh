#!/usr/bin/env bash
# Ranking every config of one layout graph with the shipped model on one thread: the WebAssembly
# build (Node.js; the browser app runs the same code) next to the native build, in the same run.
# Prints each build's median over --repeat runs and the ratio. Default file: the 21,918-node nlp
# test graph with 1,001 configs (the browser app's goal: under 2 s in WebAssembly).
#   bash bench/ranking_wasm_vs_native.sh [file.npz] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
file=${1:-$data/tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz}
rounds=${2:-3}
cmake --build --preset native-release --target bench_model bench_machine >/dev/null
build/native-release/bench/bench_machine
cmake --build --preset web --target bench_model >/dev/null
for round in $(seq "$rounds"); do
  native=$(build/native-release/bench/bench_model "$file" --model models/layout_xla.npz --what rank --repeat 3)
  wasm=$(node --no-experimental-fetch build/web/web/bench_model.js "$file" --model models/layout_xla.npz --what rank --repeat 3)
  ROUND=$round node -e '
    const [native, wasm] = process.argv.slice(1).map((line) => JSON.parse(line));
    const n = native.rank_all_1thread_ms, w = wasm.rank_all_1thread_ms;
    console.log(`round ${process.env.ROUND || ""}: ${native.configs} configs, ${native.view_rows} view rows: native ${n.toFixed(0)} ms, ` +
                `WebAssembly (Node.js ${process.versions.node}) ${w.toFixed(0)} ms, ratio ${(w / n).toFixed(2)}x`);' "$native" "$wasm"
done
