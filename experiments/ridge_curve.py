#!/usr/bin/env python3
"""Ridge on a layout file's configs as more of it is measured, by encoding (docs/tuning.md, "The ridge half").

The encodings of train/ridge_ranker.h's per-node ridge, in numpy: "values" (node x column x value
one-hot), "rows" (each node's whole 18-value row as one category) and "both" (the two side by
side, the rows' columns at 0.5, as RidgeRanker fits them; "both at 1" shows why the 0.5). Log runtime, penalty by leave-one-out error over the same grid.
Fitted to k configs drawn at random, scored on the rest: Kendall tau, median and range of 10
draws, and for "both" the held-out residual sd in log runtime beside the file's measurement noise
(pooled sd of its repeated configs, as experiments/noise_ceiling.py). A residual near the noise
means the configs' effects add up and what is left between configs is too small to order.

Run: /usr/bin/python3 experiments/ridge_curve.py FILE.npz... (numpy, scipy: scripts/setup.sh)
"""
import sys

import numpy as np
from scipy.stats import kendalltau

from noise_ceiling import repeat_noise

PENALTIES = (1e-6, 1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)


def values_one_hot(configs):
    count, nodes, width = configs.shape
    columns = (np.arange(nodes)[:, None] * width + np.arange(width)[None, :]) * 7
    x = np.zeros((count, nodes * width * 7))
    x[np.arange(count)[:, None], (columns[None, :, :] + configs.astype(int) + 1).reshape(count, -1)] = 1
    return x


def rows_one_hot(configs):
    blocks = []
    for node in range(configs.shape[1]):
        _, code = np.unique(configs[:, node, :], axis=0, return_inverse=True)
        code = code.reshape(-1)
        blocks.append(np.eye(code.max() + 1)[code])
    return np.hstack(blocks)


def fit_and_predict(x, y, x_test):
    """Ridge (dual form) on centred x, y; penalty by closed-form leave-one-out error."""
    mean_x, mean_y = x.mean(0), y.mean()
    a = x - mean_x
    s, u = np.linalg.eigh(a @ a.T)
    s = np.clip(s, 0, None)
    projected = u.T @ (y - mean_y)
    best = None
    for penalty in PENALTIES:
        shrink = s / (s + penalty)
        residual = (y - mean_y) - u @ (shrink * projected)
        leverage = (u ** 2) @ shrink
        error = np.mean((residual / np.maximum(1 - leverage, 1e-9)) ** 2)
        if best is None or error < best[0]:
            best = (error, penalty)
    weights = a.T @ np.linalg.solve(a @ a.T + best[1] * np.eye(len(a)), y - mean_y)
    return (x_test - mean_x) @ weights + mean_y


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| file | configs | noise sd (log) | k measured | values | rows | both at 1 | both | both: held-out residual sd (log) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        with np.load(path) as data:
            configs = data["node_config_feat"]
            runtime = np.log(data["config_runtime"].astype(np.float64))
        values, rows = values_one_hot(configs), rows_one_hot(configs)
        encodings = {"values": values, "rows": rows, "both at 1": np.hstack([values, rows]), "both": np.hstack([values, 0.5 * rows])}
        count = len(runtime)
        for k in (30, 100, 300):
            if k >= count - 10:
                continue
            taus = {name: [] for name in encodings}
            residuals = []
            for seed in range(10):
                order = np.random.default_rng(seed).permutation(count)
                train, test = order[:k], order[k:]
                for name, x in encodings.items():
                    predicted = fit_and_predict(x[train], runtime[train], x[test])
                    taus[name].append(kendalltau(predicted, runtime[test])[0])
                    if name == "both":
                        residuals.append(np.std(runtime[test] - predicted))
            cells = [f"{np.median(t):.3f} ({min(t):.2f} to {max(t):.2f})" for t in taus.values()]
            print(f"| {path.split('/')[-1]} ({path.split('/')[-3]}) | {count} | {repeat_noise(configs, runtime)[0]:.1e} | {k} | "
                  + " | ".join(cells) + f" | {np.median(residuals):.1e} |")


if __name__ == "__main__":
    main()
