#!/usr/bin/env bash
# Benchmark: bounded-memory training from a config store (graphcost prepare, train --cache
# --memory-budget) against its peer, the in-memory trainer (every file loaded whole), measured in
# the same run on a generated layout:nlp:random tree whose configs (float32, as the npz files hold
# them) exceed the budget at least 10x. Prints:
#   - preparation: wall time, configs per second, peak RSS (against the budget);
#   - training throughput (sampled configs per second of training) and peak RSS per process: the
#     store at -np 1 and -np 2 (mpirun) under the budget, and the in-memory trainer unbounded;
#   - quality: the validation tau after the same fixed budget of steps, store vs in-memory, over 3
#     seeds (mean and sd), both validated on the same 1,000-config sample per graph.
# The defaults are scaled down from the paper's NLP scale (5k-22k nodes, hundreds to ~1,000
# configurable, 20k-100k configs a file) so that a run takes minutes; the paper's shape is
#   FILES=8 CONFIGS=20000 MIN_NODES=5000 MAX_NODES=22000 MAX_CONFIGURABLE=1000 BUDGET_MIB=512
# (8 GB of float32 configs, about 40 minutes on 2 cores). The tree is kept in
# BUILD_DIR/bench-memory-tree-<parameters> between runs.
# Usage: bench/train_memory_budget.sh [BUILD_DIR=build/native-release]
#        env: FILES=8 CONFIGS=20000 MIN_NODES=1500 MAX_NODES=2500 MAX_CONFIGURABLE=500 BUDGET_MIB=140 SEEDS="1 2 3"
set -euo pipefail
build=${1:-build/native-release}
files=${FILES:-8} configs=${CONFIGS:-20000} min_nodes=${MIN_NODES:-1500} max_nodes=${MAX_NODES:-2500}
max_configurable=${MAX_CONFIGURABLE:-500}
budget_mib=${BUDGET_MIB:-140} seeds=${SEEDS:-"1 2 3"}
graphcost=$(realpath "$build/src/graphcost")
"$build/bench/bench_machine" || true
tree=$build/bench-memory-tree-$files-$configs-$min_nodes-$max_nodes-$max_configurable
if [ ! -e "$tree/done" ]; then
  rm -rf "$tree"
  start=$(date +%s)
  "$graphcost" gen --out "$tree" --graphs "$files" --seed 7 --collections layout:nlp:random --min-nodes "$min_nodes" \
    --max-nodes "$max_nodes" --max-configurable "$max_configurable" --layout-configs "$configs" --quiet
  echo "generated $files files of $configs configs in $(( $(date +%s) - start )) s" && touch "$tree/done"
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$tree" "$budget_mib" <<'PY'
import sys, glob, zipfile, numpy as np
files = sorted(glob.glob(sys.argv[1] + "/npz/**/*.npz", recursive=True))
f32 = sum(zipfile.ZipFile(f).getinfo("node_config_feat.npy").file_size for f in files)
nodes = [np.load(f)["node_opcode"].shape[0] for f in files]
nc = [np.load(f)["node_config_ids"].shape[0] for f in files]
budget = int(sys.argv[2]) << 20
print(f"tree: {len(files)} files, {min(nodes)}-{max(nodes)} nodes, {min(nc)}-{max(nc)} configurable; "
      f"node_config_feat {f32 / 2**20:.0f} MiB as float32 ({f32 / budget:.1f}x the {sys.argv[2]} MiB budget), "
      f"{f32 / 4 / 2**20:.0f} MiB as int8 ({f32 / 4 / budget:.1f}x)")
PY
timed() {  # label, command...: wall seconds and peak RSS (MiB) of each process, into $work/<label>.time
  local label=$1; shift
  /usr/bin/time -o "$work/$label.time" -a -f "%e %M" "$@" >"$work/$label.out" 2>"$work/$label.err"
}
cache=$work/cache
timed prepare "$graphcost" prepare --data "$tree" --cache "$cache" --memory-budget ${budget_mib}MiB
read -r seconds rss_kb <"$work/prepare.time"
total=$(sed -n 's/.*: \([0-9]*\) configs, .*/\1/p' "$work/prepare.out")
echo "prepare: $total configs in $seconds s ($(/usr/bin/python3 -c "print(round($total / $seconds))") configs/s), peak RSS $((rss_kb / 1024)) MiB (budget $budget_mib MiB); $(sed -n 's/.*distinct kept, \(.*\) of configs written.*/\1/p' "$work/prepare.out") of int8 configs written"

steps=30 epochs=3 per_step=8
flags=(--data "$tree" --collection layout:nlp:random --epochs $epochs --steps-per-epoch $steps --configs-per-step $per_step --valid-configs 1000 --quiet)
throughput() {  # label, processes: configs per second of training steps (from the epoch times, validation excluded is not separable: whole run)
  local label=$1 processes=$2
  read -r seconds _ < <(tail -1 "$work/$label.time")
  /usr/bin/python3 -c "print(f'{$epochs * $steps * $per_step * $processes / $seconds:.0f}')"
}
timed store1 "$graphcost" train "${flags[@]}" --seed 1 --out "$work/store1.npz" --cache "$cache" --memory-budget ${budget_mib}MiB
timed memory1 "$graphcost" train "${flags[@]}" --seed 1 --out "$work/memory1.npz"
echo "training, $epochs x $steps steps of $per_step configs (validation included):"
echo "  store, -np 1, budget $budget_mib MiB: $(throughput store1 1) configs/s, wall $(cut -d' ' -f1 "$work/store1.time") s, peak RSS $(( $(cut -d' ' -f2 "$work/store1.time") / 1024 )) MiB"
echo "  in memory (peer), -np 1, no budget:  $(throughput memory1 1) configs/s, wall $(cut -d' ' -f1 "$work/memory1.time") s, peak RSS $(( $(cut -d' ' -f2 "$work/memory1.time") / 1024 )) MiB"
if command -v mpirun >/dev/null; then
  /usr/bin/time -o "$work/store2.wall" -f "%e" mpirun --allow-run-as-root --oversubscribe -np 2 /usr/bin/time -o "$work/store2.time" -a -f "%e %M" \
    "$graphcost" train "${flags[@]}" --seed 1 --out "$work/store2.npz" --cache "$cache" --memory-budget ${budget_mib}MiB >/dev/null 2>&1
  wall=$(cat "$work/store2.wall")
  echo "  store, mpirun -np 2 (2 graphs a step), budget $budget_mib MiB per process: $(/usr/bin/python3 -c "print(f'{$epochs * $steps * $per_step * 2 / $wall:.0f}')") configs/s, wall $wall s, peak RSS per process $(awk '{printf "%d MiB ", $2 / 1024}' "$work/store2.time")"
fi
echo "quality: valid tau after $epochs x $steps steps (same 1,000-config sample per graph), seeds: $seeds"
for seed in $seeds; do
  for kind in store memory; do
    extra=(); [ "$kind" = store ] && extra=(--cache "$cache" --memory-budget ${budget_mib}MiB)
    "$graphcost" train "${flags[@]}" --seed "$seed" --out "$work/q-$kind-$seed.npz" "${extra[@]}" | sed -n "s/^final: loss [0-9.]*, valid tau \(.*\)/$kind $seed \1/p" >>"$work/quality.txt"
  done
done
/usr/bin/python3 - "$work/quality.txt" <<'PY'
import sys, statistics as st
rows = [line.split() for line in open(sys.argv[1])]
for kind in ("store", "memory"):
    taus = [float(r[2]) for r in rows if r[0] == kind]
    print(f"  {kind:6s}: " + " ".join(f"{t:.4f}" for t in taus) + f"   mean {st.mean(taus):.4f} sd {st.stdev(taus) if len(taus) > 1 else 0:.4f}")
PY
