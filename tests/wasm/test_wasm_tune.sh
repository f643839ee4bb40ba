#!/usr/bin/env bash
# `graphcost tune` in WebAssembly (Node.js) replays a real file as the native build does: the same
# configs measured, and every config's final predicted cost equal to float noise (1e-4 relative).
# The default learner on a layout file is auto, which cross-validates XGBoost against ridge and fits
# XGBoost: this is the check that the browser's XGBoost (cmake/XGBoostWasm.cmake, compiled from
# Debian's source with graphcost's wasm32 patches) learns what Debian's native libxgboost learns.
# Usage: test_wasm_tune.sh NATIVE_GRAPHCOST WASM_GRAPHCOST_JS
set -euo pipefail
native=$1 wasm=$2
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
skip_unless_web_build "$wasm"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
file="$data/tpugraphs/npz/layout/xla/default/train/unet3d.npz"
for learner in auto xgboost; do
  "$native" tune "$file" --learner $learner --budget 30 --per-round 10 --seed 3 -q --costs-out "$out/native-$learner.csv" >/dev/null
  node --no-experimental-fetch "$wasm" tune "$file" --learner $learner --budget 30 --per-round 10 --seed 3 -q \
    --costs-out "$out/wasm-$learner.csv" >/dev/null
done
/usr/bin/python3 - "$out" <<'PY'
import csv, sys
out, failures = sys.argv[1], []
for learner in ("auto", "xgboost"):
    native = list(csv.DictReader(open(f"{out}/native-{learner}.csv")))
    wasm = list(csv.DictReader(open(f"{out}/wasm-{learner}.csv")))
    if len(native) != len(wasm):
        failures.append(f"{learner}: {len(native)} native configs, {len(wasm)} in WebAssembly")
        continue
    measured = [r["config"] for r in native if r["measured"] == "1"]
    if measured != [r["config"] for r in wasm if r["measured"] == "1"]:
        failures.append(f"{learner}: the two builds measured different configs")
    worst = max(abs(float(a["predicted"]) - float(b["predicted"])) / max(1.0, abs(float(a["predicted"]))) for a, b in zip(native, wasm))
    if worst > 1e-4:
        failures.append(f"{learner}: predicted costs differ by up to {worst:.2e} (relative)")
    print(f"{learner}: {len(native)} configs, {len(measured)} measured by both builds, largest relative cost difference {worst:.2e}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
PY
