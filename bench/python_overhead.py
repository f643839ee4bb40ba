#!/usr/bin/python3
"""What the Python bindings cost: the same calls timed through `import graphcost` and in C++ alone
(build/native-release/bench/bench_python_peer), in the same run, on the same real file: loading it,
ranking every config with a model, and training for 50 steps. Prints the machine, medians, and the
bindings' share (goal: under 5%); then, when PyTorch is installed (scripts/setup.sh --bench), the
model against PyTorch on the same file, graphcost's side timed through Python.
Usage: /usr/bin/python3 bench/python_overhead.py [GRAPH.npz]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "native-release")
sys.path.insert(0, os.path.join(BUILD, "python"))
import graphcost as gc  # noqa: E402

DATA = os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data"))


def median_ms(repeat, body):
    """(median, fastest) of `repeat` timed runs, in ms."""
    body()  # one untimed run first (caches, the heap's first growth), as bench_python_peer does
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        body()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    graph_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(DATA, "tpugraphs/npz/layout/xla/default/train/unet3d.npz")
    model_path = os.path.join(ROOT, "models", "layout_xla.npz")
    print(subprocess.run([os.path.join(BUILD, "bench", "bench_machine")], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as work:
        tree = os.path.join(work, "tree")
        gc.generate(tree, graphs=6, seed=5, collections=["layout:xla:random"])
        # This machine's speed drifts by tens of percent over seconds (2-core VMs): the two sides
        # alternate, ROUNDS times each, and each figure is the median of its rounds' medians.
        repeat, rounds = 7, 5
        graph = gc.load(graph_path)
        model = gc.Model.load(model_path)
        peer_rounds, our_rounds = [], []
        for _ in range(rounds):
            peer_rounds.append(json.loads(subprocess.run(
                [os.path.join(BUILD, "bench", "bench_python_peer"), graph_path, model_path, tree, "layout:xla:random", str(repeat)],
                capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]))
            our_rounds.append({
                "load_ms": median_ms(repeat, lambda: gc.load(graph_path)),
                "predict_ms": median_ms(repeat, lambda: model.predict(graph)),
                "train_50_steps_ms": median_ms(max(1, repeat // 2), lambda: gc.train(tree, "layout:xla:random", os.path.join(work, "m.npz"),
                                                                                      epochs=1, steps_per_epoch=50, hidden=64)),
            })
    print(f"file: {graph_path} ({graph.node_count} nodes, {graph.config_count} configs); C++ and Python alternating, {rounds} rounds "
          f"of {repeat} runs (training {max(1, repeat // 2)}); medians of the rounds' medians")
    print("(noise only adds time, so the fastest runs bound what the bindings add)")
    print(f"{'call':<22} {'C++ (ms)':>10} {'Python (ms)':>12} {'bindings':>9}   {'fastest C++':>11} {'Python':>8} {'bindings':>9}")
    for key in ("load_ms", "predict_ms", "train_50_steps_ms"):
        peer = statistics.median(r[key] for r in peer_rounds)
        peer_min = min(r[key.replace("_ms", "_min_ms")] for r in peer_rounds)
        ours = statistics.median(r[key][0] for r in our_rounds)
        ours_min = min(r[key][1] for r in our_rounds)
        print(f"{key[:-3]:<22} {peer:>10.2f} {ours:>12.2f} {ours / peer - 1:>+8.1%}   {peer_min:>11.2f} {ours_min:>8.2f} {ours_min / peer_min - 1:>+8.1%}")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch: not installed (bash scripts/setup.sh --bench installs Debian's python3-torch); comparison skipped")
        return
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "model_vs_pytorch.py")], check=False)


if __name__ == "__main__":
    main()
