#!/usr/bin/env bash
# `graphcost predict` in WebAssembly (Node.js) ranks the shared test split as the native build does:
# every config's predicted cost agrees to float noise (1e-4 relative), and where the two orders
# differ, the configs swapped are tied in cost to twice that (the SIMD and Eigen kernels round
# differently; identical configs are predicted once in both).
# Usage: test_wasm_predict.sh NATIVE_GRAPHCOST WASM_GRAPHCOST_JS MODELS_DIR
set -euo pipefail
native=$1 wasm=$2 models=$3
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
skip_unless_web_build "$wasm"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$native" predict --model "$models/layout_xla.npz" "$models/layout_nlp.npz" "$models/tile_xla.npz" --data "$data/tpugraphs" --split test --threads 1 \
  --out "$out/native.csv" --costs "$out/native_costs.csv" 2>/dev/null
node --no-experimental-fetch "$wasm" predict --model "$models/layout_xla.npz" "$models/layout_nlp.npz" "$models/tile_xla.npz" --data "$data/tpugraphs" --split test \
  --threads 1 --out "$out/wasm.csv" --costs "$out/wasm_costs.csv" 2>/dev/null
/usr/bin/python3 - "$out" <<'PY'
import csv, sys
out = sys.argv[1]
def costs(path):
    table = {}
    for row in csv.DictReader(open(path)):
        table.setdefault(row["ID"], []).append(float(row["cost"]))
    return table
def orders(path):
    return {row["ID"]: [int(c) for c in row["TopConfigs"].split(";")] for row in csv.DictReader(open(path))}
native_costs, wasm_costs = costs(f"{out}/native_costs.csv"), costs(f"{out}/wasm_costs.csv")
native_orders, wasm_orders = orders(f"{out}/native.csv"), orders(f"{out}/wasm.csv")
assert native_costs.keys() == wasm_costs.keys() == native_orders.keys() == wasm_orders.keys(), "different IDs"
worst, swapped, configs, failures = 0.0, 0, 0, []
for key, native in native_costs.items():
    wasm = wasm_costs[key]
    assert len(native) == len(wasm), f"{key}: {len(native)} vs {len(wasm)} configs"
    configs += len(native)
    for c, (a, b) in enumerate(zip(native, wasm)):
        difference = abs(a - b) / max(1.0, abs(a))
        worst = max(worst, difference)
        if difference > 1e-4:
            failures.append(f"{key} config {c}: native {a}, wasm {b}")
    order, other = native_orders[key], wasm_orders[key]  # tile rows list the top 5 only
    assert len(order) == len(other), f"{key}: {len(order)} vs {len(other)} configs listed"
    for position, (a, b) in enumerate(zip(order, other)):
        if a != b:
            swapped += 1
            if abs(native[a] - native[b]) > 2e-4 * max(1.0, abs(native[a])):  # twice the cost tolerance
                failures.append(f"{key} position {position}: native config {a} ({native[a]}), wasm config {b} ({native[b]}): not a tie")
print(f"{len(native_costs)} IDs, {configs} configs: largest relative cost difference {worst:.2e}; "
      f"{swapped} order positions differ, all between tied configs" if not failures else "\n".join(failures[:20]))
sys.exit(1 if failures else 0)
PY
