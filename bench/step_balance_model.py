#!/usr/bin/env python3
"""A paper model, not a measurement: how much of N synchronous machines' work a data-parallel
step keeps when each step waits for its largest graph (docs/scaling.md, "Where scaling stops").

198 training files with sizes log-uniform over the paper's NLP node range (876-21,919; taken as
the step's rows, though pruning makes a view smaller than its graph),
sharded over N machines, one graph per machine and step, 2,000 steps x 20 draws of the sizes.
Efficiency = mean over steps of (mean graph of the step / largest graph of the step). Three ways
to draw, as `graphcost train` does:
  independent: files dealt in path order (i % N), each machine draws uniformly on its own
               (`--independent-graphs`);
  rank only:   path-order shards, every machine draws the graph at the step's size rank;
  balanced:    files dealt in size order, and the step's size rank (the default).
Usage: /usr/bin/python3 bench/step_balance_model.py [N ...]   (numpy; default N = 8 64)
"""
import sys

import numpy as np

rng = np.random.default_rng(0)
for machines in [int(a) for a in sys.argv[1:]] or [8, 64]:
    kept = {"independent": [], "rank only": [], "balanced": []}
    for _ in range(20):
        sizes = np.exp(rng.uniform(np.log(876), np.log(21919), 198))
        path_shards = [sizes[i::machines] for i in range(machines)]
        ranked_path = [np.sort(s) for s in path_shards]
        ordered = np.sort(sizes)
        ranked_dealt = [ordered[i::machines] for i in range(machines)]
        for _ in range(2000):
            q = rng.random()
            picks = {
                "independent": np.array([s[rng.integers(len(s))] for s in path_shards]),
                "rank only": np.array([s[min(len(s) - 1, int(q * len(s)))] for s in ranked_path]),
                "balanced": np.array([s[min(len(s) - 1, int(q * len(s)))] for s in ranked_dealt]),
            }
            for name, step in picks.items():
                kept[name].append(step.mean() / step.max())
    print(f"{machines:3d} machines: " + ", ".join(f"{name} {np.mean(v):.2f}" for name, v in kept.items()))
