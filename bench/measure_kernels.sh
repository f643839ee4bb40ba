#!/usr/bin/env bash
# Real kernels of the shared HLO modules measured on this CPU through Halide (docs/lowering.md,
# "Measured here"): five kernels' 50 random layout configs and four kernels' whole tile spaces,
# each with two passes, so every row gives the distinct programs among the configs (configs that
# lower to the same statements are measured once), config 0, the fastest, the spread and the tau
# between the passes, and how far config 0's re-measurements lay apart (the machine's noise). Prints a markdown table and the machine; the measured files
# stay in build/measure-kernels/. About 10 minutes on 2 cores; run it with nothing else running.
# Usage: bash bench/measure_kernels.sh [CONFIGS=50]
set -euo pipefail
cd "$(dirname "$0")/.."
configs=${1:-50}
hlo=${GRAPHCOST_DATA:-../shared/data}/hlo
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target graphcost graphcost-cpu >/dev/null
graphcost=build/native-release/src/graphcost
work=build/measure-kernels
mkdir -p "$work"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
  "model $(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) cores), commit $(git rev-parse --short HEAD), $(date -u +%F)"
echo
echo "| kernel | configs | programs | config 0 | fastest | spread | tau between passes | config 0 re-measured | seconds |"
echo "|---|---|---|---|---|---|---|---|---|"
row() {  # NAME MODULE [measure options...]
  local name=$1 module=$2
  shift 2
  local start=$SECONDS out
  out=$("$graphcost" measure "$hlo/$module" "$@" --configs "$configs" --passes 2 --out "$work/$name.npz" -q)
  local measured programs zero fastest spread tau drift
  measured=$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) configs measured.*/\1 of \2/p' <<<"$out")
  programs=$(sed -n 's/^ *\([0-9]*\) distinct programs.*/\1/p' <<<"$out")
  programs=${programs:-${measured%% *}}
  zero=$(sed -n 's/.*config 0 ([^)]*) \([0-9.]*\) ms.*/\1 ms/p' <<<"$out")
  fastest=$(sed -n 's/.*fastest \([0-9.]*\) ms.*/\1 ms/p' <<<"$out")
  spread=$(sed -n 's/.*(spread \([0-9.]*x\)).*/\1/p' <<<"$out")
  tau=$(sed -n 's/.*configs is \([0-9.-]*\) .*/\1/p' <<<"$out")
  drift=$(sed -n 's/.*config 0 re-measured [0-9]* times: .*(\([0-9.]*% apart\)).*/\1/p' <<<"$out")
  echo "| $name | $measured | $programs | $zero | $fastest | $spread | $tau | $drift | $((SECONDS - start)) |"
}
row "xnn (whole module) layouts" xnn.parallel_dots.optimized.hlo --max-repeats 10
row "dlrm dot_general.35 layouts" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.35
row "dlrm dot_general.22 layouts" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.22
row "gemma dot.10064 layouts" gemma3_1b_flax_call.hlo --kernel dot.10064
row "gemma dot.1254 layouts" gemma3_1b_flax_call.hlo --kernel dot.1254
row "dlrm dot_general.24 tiles" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.24 --tile
row "dlrm dot_general.31 tiles" dlrm_keras_jax_f32_train_step.hlo --kernel dot_general.31 --tile
row "xnn fusion f0 tiles" xnn.parallel_dots.optimized.hlo --kernel f0 --tile
row "gemma dot.10064 tiles" gemma3_1b_flax_call.hlo --kernel dot.10064 --tile
row "resnet50 conv_general_dilated.55 layouts" resnet50_keras_jax_f32.hlo --kernel conv_general_dilated.55
row "resnet50 conv_general_dilated.55 tiles" resnet50_keras_jax_f32.hlo --kernel conv_general_dilated.55 --tile
row "depthwise conv (whole module) layouts" depthwise_conv_3x3_1x256x56x56_bf16.hlo
row "depthwise conv tiles" depthwise_conv_3x3_1x256x56x56_bf16.hlo --kernel conv_general_dilated.1 --tile
