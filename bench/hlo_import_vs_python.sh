#!/usr/bin/env bash
# Benchmark: importing an HLO text module (default: the largest shared one, Gemma 3 1B, 2.3 MB),
# beside the fastest other reader of the same text runnable here, measured in the same run: the
# Python reader tests/fixtures/hlo_graph_count.py (regexes; nodes and edges only, no features).
# Prints the machine, the in-process medians of parse and graph+features (MB/s), the whole
# `graphcost import` (median of 5 runs, writing the compressed .npz included) and its peak RSS
# against the file's size, and the ratio to the Python reader.
# Usage: bench/hlo_import_vs_python.sh [MODULE] [BUILD_DIR=build/native-release]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
module=${1:-$data/hlo/gemma3_1b_flax_call.hlo}
build=${2:-build/native-release}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
bytes=$(stat -c %s "$module")
native=$("$build/bench/bench_hlo_import" "$module" 11 2>"$work/machine")
cat "$work/machine"
echo "module: $module ($bytes bytes)"
echo "in process (median of 11): $native"
walls=() peaks=() bare_peaks=()
for run in 1 2 3 4 5; do
  /usr/bin/time -f "%e %M" -o "$work/time" "$build/src/graphcost" import "$module" --out "$work/out.npz" -q >/dev/null
  read -r wall peak <"$work/time"; walls+=("$wall"); peaks+=("$peak")
  /usr/bin/time -f "%e %M" -o "$work/time" "$build/src/graphcost" import "$module" --out "$work/bare.npz" --configs 0 -q >/dev/null
  read -r wall peak <"$work/time"; bare_peaks+=("$peak")
done
/usr/bin/time -f "%M" -o "$work/time" "$build/src/graphcost" --version >/dev/null
baseline=$(cat "$work/time")
python_json=$(/usr/bin/python3 tests/fixtures/hlo_graph_count.py --json --repeat 5 "$module")
/usr/bin/python3 - "$native" "$python_json" "$bytes" "${walls[*]}" "${peaks[*]}" "${bare_peaks[*]}" "$baseline" <<'PY'
import json, statistics, sys
native, peer, size = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
walls = [float(w) for w in sys.argv[4].split()]
peaks = [int(p) for p in sys.argv[5].split()]
bare_peaks = [int(p) for p in sys.argv[6].split()]
baseline = int(sys.argv[7]) * 1024
python_ms = peer["seconds_median"] * 1e3
print(f"graphcost parse {native['parse_ms']:.1f} ms + graph and features {native['graph_ms']:.1f} ms = "
      f"{native['parse_and_graph_ms']:.1f} ms ({native['parse_and_graph_mb_per_s']:.0f} MB/s)")
print(f"python reader (nodes and edges only): {python_ms:.1f} ms ({size / 1e6 / (python_ms / 1e3):.0f} MB/s)")
print(f"ratio: graphcost is {python_ms / native['parse_and_graph_ms']:.1f}x faster than the python reader, doing more")
print(f"whole `graphcost import` (100 random configs, compressed npz written): median {statistics.median(walls):.2f} s")
for label, values in (("config 0 only (--configs 0)", bare_peaks), ("default 100 random configs", peaks)):
    peak = statistics.median(values) * 1024
    print(f"peak RSS, {label}: {peak / 1e6:.1f} MB = {peak / size:.1f}x the file's size "
          f"({(peak - baseline) / size:.1f}x above the {baseline / 1e6:.1f} MB of `graphcost --version`)")
PY
