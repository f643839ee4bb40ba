#!/usr/bin/env bash
# Benchmark: labelling layout configs with the incremental simulator (what `graphcost gen` uses)
# against the full simulation (its peer, the slow reference), in the same run on the same configs,
# on a generated 4,535-node nlp (bert) program, 3 runs of 1,000 configs; every runtime must agree bit for bit.
# Then, unless QUICK=1, the issue's tree: 10 layout:nlp:random files of 25,000 configs each,
# 5,000-9,000 nodes, on 2 threads (goal: under 10 minutes).
# Usage: bench/gen_incremental.sh [BUILD_DIR=build/native-release]
set -euo pipefail
build=${1:-build/native-release}
for seed in 1 2 3; do
  "$build/bench/bench_simulator" --nodes 5000 --configs 1000 --seed "$seed" | tail -1
done | /usr/bin/python3 -c "$(cat <<'PY'
import sys, json, statistics as st
rows = [json.loads(line) for line in sys.stdin]
m = rows[0]["machine"]
print(f"machine: {m['cpu']}, {m['cores']} cores, calibration {m['calibration_ms']:.1f} ms")
for kind in ("random", "search"):
    for r in rows:
        k = r[kind]
        print(f"  {kind:6s} {r['nodes']} nodes, {r['configurable']} configurable: full {k['full_configs_per_s']:.0f} configs/s, "
              f"incremental {k['incremental_configs_per_s']:.0f} configs/s, {k['speedup']:.1f}x "
              f"({k['mean_recomputed_nodes']:.0f} nodes recomputed a config, {k['mismatches']} mismatches)")
    print(f"  {kind}: median speedup {st.median(r[kind]['speedup'] for r in rows):.1f}x")
PY
)"
if [ "${QUICK:-0}" != 1 ]; then
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  start=$(date +%s)
  "$build/src/graphcost" gen --out "$work/tree" --graphs 10 --seed 1 --collections layout:nlp:random --min-nodes 5000 --max-nodes 9000 \
    --layout-configs 25000 --threads 2 --quiet
  echo "10 layout:nlp:random files x 25,000 configs (5,000-9,000 nodes), 2 threads: $(( $(date +%s) - start )) s (goal < 600 s)"
fi
