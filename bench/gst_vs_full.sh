#!/usr/bin/env bash
# Graph Segment Training against full-graph training on large generated graphs (issue 5):
# time per epoch, peak resident memory and the final validation tau of `graphcost train`, both
# runs on the same data with the same seed, one after the other on this machine.
#
#   bash bench/gst_vs_full.sh [DATA_DIR] [extra train flags...]
#
# DATA_DIR (default /tmp/graphcost-gst-data) is generated when missing: 10 layout:nlp:random files
# of 55k-100k nodes (bert encoders grown with --min-nodes), 200 configs each.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
graphcost="${GRAPHCOST_BIN:-$here/build/native-release/src/graphcost}"
data="${1:-/tmp/graphcost-gst-data}"
shift || true
[[ -x "$graphcost" ]] || { echo "build first: cmake --preset native-release && cmake --build build/native-release" >&2; exit 1; }
"$(dirname "$graphcost")/../bench/bench_machine" || true
if [[ ! -d "$data/npz" ]]; then
  "$graphcost" gen --out "$data" --graphs 10 --seed 5 --collections layout:nlp:random --min-nodes 55000 --max-nodes 100000 \
    --layout-configs 200
fi
common=(--data "$data" --collection layout:nlp:random --hops -1 --epochs "${EPOCHS:-3}" --steps-per-epoch "${STEPS:-30}"
        --configs-per-step 8 --seed 1 "$@")
out="$(mktemp -d)"
echo "== full-graph training" >&2
"$graphcost" train "${common[@]}" --out "$out/full.npz" | tee "$out/full.txt"
echo "== graph segment training (METIS, ~5000-node segments)" >&2
"$graphcost" train "${common[@]}" --out "$out/gst.npz" --segment-nodes 5000 --partition metis | tee "$out/gst.txt"
python3 - "$out/full.txt" "$out/gst.txt" <<'PY'
import re, sys
def read(path):
    text = open(path).read()
    epoch = float(re.search(r"mean epoch time ([0-9.]+) s", text).group(1))
    memory = float(re.search(r"peak resident memory ([0-9.]+) MiB", text).group(1))
    tau = float(re.search(r"valid tau ([-0-9.]+)", text).group(1))
    return epoch, memory, tau
full, gst = read(sys.argv[1]), read(sys.argv[2])
print(f"{'':24}{'full graph':>12}{'GST':>12}{'ratio':>10}")
print(f"{'epoch time (s)':24}{full[0]:12.1f}{gst[0]:12.1f}{full[0] / gst[0]:9.2f}x")
print(f"{'peak memory (MiB)':24}{full[1]:12.0f}{gst[1]:12.0f}{full[1] / gst[1]:9.2f}x")
print(f"{'final valid tau':24}{full[2]:12.3f}{gst[2]:12.3f}{gst[2] - full[2]:+10.3f}")
PY
