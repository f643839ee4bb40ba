#!/usr/bin/env python3
"""How well can any model rank a labelled layout file's configs? (docs/tuning.md, "The acceptance figures")

A TpuGraphs layout file measures some configs more than once (identical node_config_feat rows).
Their spread is the measurement noise (pooled within-group sd of log runtime). A perfect model
knows each distinct config's true runtime (here: its group mean); scored against one noisy
measurement per config it reaches Kendall tau "ceiling" (median of 5 noise draws). Files whose
configs differ by little more than the noise cannot reach a high tau, whatever learns them.

Run: /usr/bin/python3 experiments/noise_ceiling.py FILE.npz... (numpy, scipy: scripts/setup.sh)
"""
import sys

import numpy as np
from scipy.stats import kendalltau


def repeat_noise(configs, log_runtime):
    """The pooled sd of log runtime within groups of identical configs (nan: none repeated), each
    distinct config's count and mean log runtime."""
    _, group = np.unique(configs.reshape(configs.shape[0], -1), axis=0, return_inverse=True)
    group = group.reshape(-1)
    groups = np.bincount(group)
    mean = np.bincount(group, weights=log_runtime) / groups
    residual = log_runtime - mean[group]
    dof = int((groups - 1).sum())
    noise = float(np.sqrt((residual ** 2).sum() / dof)) if dof > 0 else float("nan")
    return noise, groups, mean


def ceiling(path):
    with np.load(path) as data:
        configs = data["node_config_feat"]
        runtime = np.log(data["config_runtime"].astype(np.float64))
    noise, groups, mean = repeat_noise(configs, runtime)
    if not np.isfinite(noise):
        return dict(file=path, configs=len(runtime), distinct=len(groups), repeated=0)
    rng = np.random.default_rng(0)
    taus = [kendalltau(mean, mean + rng.normal(0, noise, len(mean)))[0] for _ in range(5)]
    return dict(file=path, configs=len(runtime), distinct=len(groups), repeated=int((groups > 1).sum()),
                noise_sd=noise, spread_sd=float(np.std(mean)), ceiling=float(np.median(taus)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| file | configs | distinct | measured more than once | noise sd (log) | spread sd (log) | ceiling tau |")
    print("|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        r = ceiling(path)
        if "noise_sd" not in r:
            print(f"| {path} | {r['configs']} | {r['distinct']} | 0 | - | - | - |")
            continue
        print(f"| {path} | {r['configs']} | {r['distinct']} | {r['repeated']} | {r['noise_sd']:.6f} | "
              f"{r['spread_sd']:.5f} | {r['ceiling']:.3f} |")


if __name__ == "__main__":
    main()
