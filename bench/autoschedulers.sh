#!/usr/bin/env bash
# graphcost's search against Halide's own autoschedulers on real kernels of the shared HLO modules
# (docs/lowering.md, "Against Halide's autoschedulers"): `graphcost tune --oracle cpu --budget N`
# (layout configs measured on this CPU), then the best config it found, config 0 (the module's own
# layouts, Halide's default schedule) and the schedules Adams2019, Mullapudi2016 and Li2018 choose
# for config 0 re-measured alternately, three times each (--against-autoschedulers). Prints a
# markdown table and the machine; about 10 minutes on 2 cores; run it with nothing else running.
# Usage: bash bench/autoschedulers.sh [BUDGET=30]
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-30}
hlo=${GRAPHCOST_DATA:-../shared/data}/hlo
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost graphcost-cpu >/dev/null
graphcost=build/native-release/src/graphcost
work=build/autoschedulers
mkdir -p "$work"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
  "model $(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) cores), commit $(git rev-parse --short HEAD), $(date -u +%F)"
echo
echo "| kernel | config 0 | tune's best after $budget | Adams2019 | Mullapudi2016 | Li2018 | seconds |"
echo "|---|---|---|---|---|---|---|"
anchor() {  # NAME OUTPUT: "12.3 ms (1.20x)" or "failed"
  local line
  line=$(grep "Halide's $1" <<<"$2" || true)
  if grep -q "not measured" <<<"$line"; then echo "failed"; return; fi
  sed -n 's/.*: \([0-9.]*\) ms, \([0-9.]*x\) config.*/\1 ms (\2)/p' <<<"$line"
}
row() {  # NAME MODULE [tune options...]
  local name=$1 module=$2
  shift 2
  local start=$SECONDS out
  rm -f "$work/$name.npz" "$work/$name.npz.journal"
  out=$("$graphcost" tune "$hlo/$module" "$@" --oracle cpu --budget "$budget" --against-autoschedulers --out "$work/$name.npz" -q)
  echo "$out" >"$work/$name.txt"
  local zero best
  zero=$(sed -n 's/.*, config 0 \([0-9.]*\) ms.*/\1 ms/p' <<<"$out")
  best=$(sed -n 's/.*alternately): config \([0-9]*\) \([0-9.]*\) ms.*: \([0-9.]*x\) \([a-z]*\) than.*/\2 ms (config \1, \3 \4)/p' <<<"$out")
  [ -n "$best" ] || best=$(sed -n 's/.*the best found is config 0 itself (\([0-9.]*\) ms.*/\1 ms (config 0)/p' <<<"$out")
  echo "| $name | ${zero:-$best} | $best | $(anchor Adams2019 "$out") | $(anchor Mullapudi2016 "$out") | $(anchor Li2018 "$out") | $((SECONDS - start)) |"
}
row "dlrm dot_general.35" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.35
row "dlrm dot_general.22" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.22
row "gemma dot.1254 (bf16)" gemma3_1b_flax_call.hlo --kernel dot.1254
row "gemma dot.10064 (bf16)" gemma3_1b_flax_call.hlo --kernel dot.10064
row "xnn (whole module)" xnn.parallel_dots.optimized.hlo
row "resnet50 conv_general_dilated.55 (3x3, 56x56x64)" resnet50_keras_jax_f32.hlo --kernel conv_general_dilated.55
