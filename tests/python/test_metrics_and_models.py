"""Metrics and models from Python against their oracles: tau equals scipy's, a submission scores as
graphcost-eval scores it, predictions equal `graphcost predict --costs` to the last digit, training
reports its epochs and stops when asked, keeping its checkpoint."""
import json
import os
import subprocess

import numpy as np
import pytest
from scipy.stats import kendalltau

import graphcost as gc
from conftest import EVALUATOR, GRAPHCOST, REPO, real


def test_kendall_tau_equals_scipy():
    rng = np.random.default_rng(1)
    for n in (2, 10, 1000):
        x, y = rng.integers(0, 20, n).astype(float), rng.normal(size=n)  # ties in x
        assert gc.kendall_tau(x, y) == pytest.approx(kendalltau(x, y).statistic, abs=1e-12)
    assert np.isnan(gc.kendall_tau([1, 1, 1], [1, 2, 3]))
    assert gc.slowdown_at_k([3.0, 1.0, 2.0], [0, 2, 1], 2) == pytest.approx(2.0)
    assert gc.tile_score([3.0, 1.0, 2.0], [1, 0, 2]) == pytest.approx(1.0)


def test_score_equals_the_evaluator(tmp_path):
    tree = real("tpugraphs")
    submission = str(tmp_path / "fewest.csv")
    subprocess.run([EVALUATOR, "baseline", "--data", tree, "--split", "train,valid", "--strategy", "fewest-changes", "--out", submission],
                   check=True, capture_output=True)
    cli = str(tmp_path / "score.json")
    subprocess.run([EVALUATOR, "score", "--solution", tree, "--split", "train,valid", "--seed", "1", "--submission", submission, "--json", cli],
                   check=True, capture_output=True)
    assert gc.score(tree, submission, split="train,valid", seed=1) == json.load(open(cli))


def test_predictions_equal_the_cli_to_the_last_digit(tmp_path):
    model_path = os.path.join(REPO, "models", "layout_xla.npz")
    tree = tmp_path / "tree" / "npz" / "layout" / "xla" / "default" / "train"
    tree.mkdir(parents=True)
    os.symlink(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"), tree / "unet3d.npz")
    costs = str(tmp_path / "costs.csv")
    subprocess.run([GRAPHCOST, "predict", "--model", model_path, "--data", str(tmp_path / "tree"), "--split", "train", "--out",
                    str(tmp_path / "sub.csv"), "--costs", costs, "--threads", "1"], check=True, capture_output=True)
    cli = [line.split(",") for line in open(costs).read().split("\n")[1:] if line]
    model = gc.Model.load(model_path)
    ours = model.predict(gc.load(str(tree / "unet3d.npz")))
    assert len(cli) == len(ours)
    assert all(np.float32(float(row[-1])) == value for row, value in zip(cli, ours))  # %.9g round-trips a float exactly
    assert list(model.rank(gc.load(str(tree / "unet3d.npz")))[:5]) == list(np.argsort(ours, kind="stable")[:5])


def test_explain_and_wrong_kind():
    graph = gc.load(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"))
    model = gc.Model.load(os.path.join(REPO, "models", "layout_xla.npz"))
    explained = model.explain(graph, 3)
    assert len(explained["nodes"]) == len(explained["contribution"]) > 0
    with pytest.raises(gc.InputError, match="a tile graph"):
        model.predict(gc.load(real("tpugraphs/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz")))


def test_train_reports_epochs_and_stops_when_asked(tmp_path):
    data = str(tmp_path / "gen")
    gc.generate(data, graphs=6, seed=2, collections=["tile:xla"])
    seen = []
    out = str(tmp_path / "tile.npz")

    def progress(report):
        seen.append(report)
        return report["epoch"] < 2  # stop after the second epoch

    summary = gc.train(data, "tile:xla", out, epochs=5, steps_per_epoch=3, hidden=8, progress=progress)
    assert [r["epoch"] for r in summary["epochs"]] == [0, 1, 2] and os.path.exists(out)
    resumed = gc.train(data, "tile:xla", out, epochs=3, steps_per_epoch=3, hidden=8, resume=True)
    assert resumed["epochs"][-1]["epoch"] == 3


def test_simulator_and_gemm_model():
    graph = gc.load(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"))
    seconds = gc.simulate(graph)
    assert seconds.shape == (graph.config_count,) and (seconds > 0).all()
    assert gc.gemm_seconds(8192, 8192, 8192, "bf16", "tpu-v5e") == pytest.approx(6.1e-3, rel=0.1)  # measured: 6.14 ms
    with pytest.raises(gc.InputError):
        gc.gemm_seconds(8, 8, 8, "fp8")
