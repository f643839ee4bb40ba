#!/usr/bin/env python3
"""Benchmark: load every array of an .npz natively (graphcost) and with numpy's np.load.

Usage: /usr/bin/python3 bench/npz_load_vs_numpy.py [--binary build/native-release/bench/bench_npz_load]
                                                    [--file F.npz] [--rounds 5] [--repeat 11]
Default file: the 21,918-node nlp test graph in $GRAPHCOST_DATA (../shared/data). Each round runs
one graphcost process and one numpy process, alternating; each process reports the median of
`repeat` loads. Printed: median over rounds of those medians, peak RSS above the process's own
baseline (from a separate single-load process each), and the ratios. Goal: graphcost no slower.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_env import peer_environment  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMPY_PROGRAM = r"""
import json, resource, sys, time
def rss_kib():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * 4
import numpy as np
path, repeat = sys.argv[1], int(sys.argv[2])
baseline = rss_kib()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    times.append(time.perf_counter() - start)
    total = sum(a.nbytes for a in arrays.values())
    del arrays
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "baseline_rss_kib": baseline, "array_bytes": total, "repeat": repeat}))
"""


def run(command):
    # Both sides in the peer's environment (bench/peer_env.py): the OpenBLAS pins unset; np.load uses no BLAS.
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=peer_environment(report=False)).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    data = os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/native-release/bench/bench_npz_load"))
    parser.add_argument("--file", default=os.path.join(
        data, "tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    machine = os.path.join(os.path.dirname(args.binary), "bench_machine")
    print(subprocess.run([machine], check=True, capture_output=True, text=True).stdout.strip() if os.path.exists(machine) else "machine: (build bench_machine to print it)")
    peer_environment()
    python = "/usr/bin/python3"
    native_cmd = lambda repeat: [args.binary, args.file, str(repeat)]
    numpy_cmd = lambda repeat: [python, "-c", NUMPY_PROGRAM, args.file, str(repeat)]

    native_times, numpy_times = [], []
    for round_index in range(args.rounds):
        native_times.append(run(native_cmd(args.repeat))["median_ms"])
        numpy_times.append(run(numpy_cmd(args.repeat))["median_ms"])
        print(f"round {round_index + 1}/{args.rounds}: graphcost {native_times[-1]:.2f} ms, "
              f"numpy {numpy_times[-1]:.2f} ms", file=sys.stderr)
    native_mem = run(native_cmd(1))
    numpy_mem = run(numpy_cmd(1))
    native_ms, numpy_ms = statistics.median(native_times), statistics.median(numpy_times)
    native_peak = (native_mem["peak_rss_kib"] - native_mem["baseline_rss_kib"]) / 1024
    numpy_peak = (numpy_mem["peak_rss_kib"] - numpy_mem["baseline_rss_kib"]) / 1024
    array_mib = native_mem["array_bytes"] / 2**20
    print(f"file: {args.file}")
    print(f"arrays: {array_mib:.1f} MiB decompressed ({os.path.getsize(args.file) / 2**20:.1f} MiB on disk)")
    print(f"{'':12} {'median load':>12} {'peak RSS above baseline':>25}")
    print(f"{'graphcost':12} {native_ms:9.2f} ms {native_peak:22.1f} MiB")
    print(f"{'numpy':12} {numpy_ms:9.2f} ms {numpy_peak:22.1f} MiB")
    print(f"ratio: graphcost is {numpy_ms / native_ms:.2f}x numpy's speed, "
          f"using {native_peak / numpy_peak:.2f}x its peak memory (goal: speed >= 1.00x)")


if __name__ == "__main__":
    main()
