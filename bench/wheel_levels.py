#!/usr/bin/python3
"""What the wheel's CPU levels cost against a native build: the same two jobs timed with the
extension built for x86-64-v2 (the wheel's baseline), x86-64-v3 (the faster level the wheel loads on
an AVX2 CPU) and -march=native (a source build), alternately in fresh interpreters: ranking a real
file's configs with the shipped layout model (median of 7) and 20 training steps on a generated
layout tree (median of 3). Prints the machine, each build's medians and the ratios to native.
Needs the three build trees: cmake --build --preset python-wheel, python-wheel-v3, native-release.
Usage: /usr/bin/python3 bench/wheel_levels.py [ROUNDS (default 2)]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data"))
BUILDS = {"x86-64-v2": "python-wheel", "x86-64-v3": "python-wheel-v3", "native": "native-release"}

JOB = r"""
import json, statistics, sys, time
import graphcost as gc
graph_path, model_path, tree = sys.argv[1:4]
graph, model = gc.load(graph_path), gc.Model.load(model_path)
def median(repeat, body):
    body()
    times = []
    for _ in range(repeat):
        start = time.perf_counter(); body(); times.append(time.perf_counter() - start)
    return statistics.median(times)
rank = median(7, lambda: model.predict(graph))
train = median(3, lambda: gc.train(tree, "layout:xla:random", tree + "/model.npz", epochs=1, steps_per_epoch=20, seed=0, overwrite=True))
print(json.dumps({"build": gc.build_info(), "rank_ms": rank * 1e3, "train_s": train}))
"""


def machine():
    """The CPU as /proc/cpuinfo names it, with its family and model (some VMs name only the vendor)."""
    fields = {}
    for line in open("/proc/cpuinfo"):
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    avx512 = "AVX-512" if "avx512f" in fields.get("flags", "").split() else "no AVX-512"
    return f"{fields.get('model name', 'unknown CPU')} family {fields.get('cpu family', '?')} model {fields.get('model', '?')}, {avx512}"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    graph = os.path.join(DATA, "tpugraphs/npz/layout/xla/default/train/unet3d.npz")
    model = os.path.join(ROOT, "models", "layout_xla.npz")
    print(f"machine: {machine()}, {os.cpu_count()} cores; the file: {graph}")
    with tempfile.TemporaryDirectory() as tree:
        native = os.path.join(ROOT, "build", "native-release", "python")
        subprocess.run([sys.executable, "-c", f"import graphcost as gc; gc.generate({tree!r}, graphs=6, seed=1, collections=['layout:xla:random'])"],
                       env={**os.environ, "PYTHONPATH": native}, check=True)
        results = {name: [] for name in BUILDS}
        for _ in range(rounds):
            for name, preset in BUILDS.items():
                env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "build", preset, "python")}
                out = subprocess.run([sys.executable, "-c", JOB, graph, model, tree], env=env, capture_output=True, text=True, check=True)
                results[name].append(json.loads(out.stdout))
        base = results["native"]
        native_rank = statistics.median(r["rank_ms"] for r in base)
        native_train = statistics.median(r["train_s"] for r in base)
        print(f"medians of {rounds} rounds (each: rank a median of 7, train a median of 3); ratios to native's median")
        for name, runs in results.items():
            rank = statistics.median(r["rank_ms"] for r in runs)
            train = statistics.median(r["train_s"] for r in runs)
            print(f"{name:10} ({runs[0]['build']['simd']}): rank {rank:.2f} ms ({rank / native_rank:.2f}x), "
                  f"20 train steps {train:.2f} s ({train / native_train:.2f}x)")


if __name__ == "__main__":
    main()
