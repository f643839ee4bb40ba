#!/usr/bin/env bash
# A fine-tuning round of `graphcost tune` on 100 measured configs (bench/bench_tune_round.cpp):
# natively and in WebAssembly (Node.js: the code the app's Tune panel runs), in the same run, on a
# generated program of a few hundred nodes and on the real 3,163-node unet_3d file. Prints the
# machine, each build's median and the ratio. Goals: the default learner under 100 ms natively on
# a few-hundred-node program, a GNN round under 1 s, the WebAssembly build within 2x. By default it
# times the default learner (auto: XGBoost and ridge cross-validated, the chosen one fitted),
# xgboost alone, and weighed (the GNN's fine-tuning beside ridge).
#   bash bench/tune_round.sh [LEARNER...]
set -euo pipefail
cd "$(dirname "$0")/.."
learners=("$@")
[ ${#learners[@]} -gt 0 ] || learners=(auto xgboost weighed)
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
cmake --build --preset native-release --target bench_tune_round bench_machine graphcost >/dev/null
cmake --build --preset web --target bench_tune_round >/dev/null
build/native-release/bench/bench_machine
work=build/tune-round
[ -f "$work/gen/solution_test.csv" ] || build/native-release/src/graphcost gen --out "$work/gen" --graphs 1 --seed 5 --max-nodes 400 \
  --collections layout:xla:random --quiet
small=$(find "$work/gen/npz" -name '*.npz' | head -1)
for learner in "${learners[@]}"; do
for file in "$small" "$data/tpugraphs/npz/layout/xla/default/valid/unet_3d.4x4.bf16.npz"; do
  native=$(build/native-release/bench/bench_tune_round "$file" 100 3 "$learner")
  wasm=$(node --no-experimental-fetch build/web/web/bench_tune_round.js "$file" 100 3 "$learner")
  node -e '
    const [n, w] = process.argv.slice(1).map((line) => JSON.parse(line));
    console.log(`${n.file.split("/").pop()}: ${n.nodes} nodes, ${n.configurable} configurable, ${n.measured} measured, learner ${n.learner}${n.chose ? ` (chose ${n.chose})` : ""}: ` +
                `native ${n.round_ms.toFixed(0)} ms, WebAssembly (Node.js ${process.versions.node}) ${w.round_ms.toFixed(0)} ms, ratio ${(w.round_ms / n.round_ms).toFixed(2)}x`);' \
    "$native" "$wasm"
done
done
