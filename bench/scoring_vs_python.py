#!/usr/bin/env python3
"""Benchmark: scoring a full-size submission, and Kendall tau-b on 10^6 elements, against Python.

Usage: /usr/bin/python3 bench/scoring_vs_python.py [--build build/native-release] [--rounds 5]

1. A synthetic full-size solution and submission (894 IDs: 844 tile graphs, 50 layout graphs of
   1,000 configs) are written by bench_scoring. graphcost reads the solution, validates and scores
   the submission in process (median of 11); the peer is a compact Python scorer doing the same
   arithmetic with numpy and scipy.stats.kendalltau (no validation). Goal: graphcost < 50 ms.
2. tau-b on 10^6 elements (ties included) against scipy.stats.kendalltau on the same arrays.
   Goal: graphcost at least 5x faster. Both results must agree.
Medians over rounds; each round alternates graphcost and Python.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_env import peer_environment  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"

PY_SCORER = r"""
import csv, json, sys, time
import numpy as np
from scipy import stats
folder, repeat = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(repeat):
    start = time.perf_counter()
    truth = {}
    with open(folder + '/solution.csv') as f:
        for row in csv.DictReader(f):
            runtimes = np.array(row['Runtimes'].split(';'), dtype=np.float64)
            if row['Normalizers']:
                runtimes = runtimes / np.array(row['Normalizers'].split(';'), dtype=np.float64)
            truth[row['ID']] = (row['Usage'], runtimes)
    scores = {}
    with open(folder + '/submission.csv') as f:
        for row in csv.DictReader(f):
            usage, y = truth[row['ID']]
            order = np.array(row['TopConfigs'].split(';'), dtype=np.int64)
            collection = row['ID'].rsplit(':', 1)[0]
            if collection == 'tile:xla':
                score = 2 - y[order[:5]].min() / y.min()
            else:
                position = np.empty(len(order)); position[order] = np.arange(len(order))
                score = stats.kendalltau(position, y).correlation
            scores.setdefault((usage, collection), []).append(score)
    public = [np.mean(v) for (u, c), v in scores.items() if u == 'Public']
    overall = float(np.mean(public))
    times.append((time.perf_counter() - start) * 1e3)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2], "public_overall": overall}))
"""

PY_TAU = r"""
import json, sys, time
import numpy as np
from scipy import stats
z = np.load(sys.argv[1]); x, y = z['x'], z['y']
repeat = int(sys.argv[2]); times = []
for _ in range(repeat):
    start = time.perf_counter(); tau = stats.kendalltau(x, y).correlation
    times.append((time.perf_counter() - start) * 1e3)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2], "tau_b": tau}))
"""


def run(command):
    # Both sides in the peer's environment (bench/peer_env.py): the OpenBLAS pins unset; scipy's kendalltau and numpy's sorts use no BLAS.
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=peer_environment(report=False)).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build/native-release"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    machine = os.path.join(os.path.dirname(os.path.join(args.build, "bench/bench_scoring")), "bench_machine")
    print(subprocess.run([machine], check=True, capture_output=True, text=True).stdout.strip() if os.path.exists(machine) else "machine: (build bench_machine to print it)")
    peer_environment()
    bench = os.path.join(args.build, "bench/bench_scoring")
    with tempfile.TemporaryDirectory() as folder:
        run([bench, "make", folder, "1"])
        subprocess.run([PYTHON, "-c", "import numpy as np; r=np.random.default_rng(5); n=10**6; "
                        "np.savez(r'%s/tau.npz', x=r.integers(0, 1000, n).astype(float), "
                        "y=np.round(r.lognormal(0, 1, n), 3))" % folder], check=True)
        results = {"score": ([], []), "tau": ([], [])}
        for round_index in range(args.rounds):
            native = run([bench, "score", folder, "11"])
            python = run([PYTHON, "-c", PY_SCORER, folder, "3"])
            results["score"][0].append(native["median_ms"])
            results["score"][1].append(python["median_ms"])
            native_tau = run([bench, "tau", folder + "/tau.npz", "5"])
            python_tau = run([PYTHON, "-c", PY_TAU, folder + "/tau.npz", "3"])
            results["tau"][0].append(native_tau["median_ms"])
            results["tau"][1].append(python_tau["median_ms"])
            print(f"round {round_index + 1}/{args.rounds}: score {native['median_ms']:.1f} vs {python['median_ms']:.1f} ms, "
                  f"tau {native_tau['median_ms']:.1f} vs {python_tau['median_ms']:.1f} ms", file=sys.stderr)
        agree_score = abs(native["public_overall"] - python["public_overall"]) < 1e-9
        agree_tau = native_tau["tau_b"] == python_tau["tau_b"]
    score_native, score_python = (statistics.median(v) for v in results["score"])
    tau_native, tau_python = (statistics.median(v) for v in results["tau"])
    print(f"{'':40} {'graphcost':>10} {'python':>10} {'ratio':>7}")
    print(f"{'score 894-ID submission (ms, median)':40} {score_native:10.2f} {score_python:10.2f} "
          f"{score_python / score_native:6.1f}x   goal < 50 ms; same score: {agree_score}")
    print(f"{'tau-b on 10^6 elements (ms, median)':40} {tau_native:10.2f} {tau_python:10.2f} "
          f"{tau_python / tau_native:6.1f}x   goal >= 5x; identical value: {agree_tau}")


if __name__ == "__main__":
    main()
