"""graphcost.Tuner, the tuning loop asked and told (as Optuna's ask/tell): the user measures, in
parallel or in batches; a run killed mid-batch resumes from its journal in Python and in the CLI with
nothing measured twice; an HLO module's configs come as modules to time; the learner is returned."""
import concurrent.futures
import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import graphcost as gc
from conftest import GRAPHCOST, real

LAYOUT = "tpugraphs/npz/layout/xla/default/train/unet3d.npz"
MODULE = "hlo/dlrm_keras_jax_f32_train_step.hlo"


def fake_seconds(config):
    return 1e-3 * (1 + (config["config"] * 7919) % 97)


def told(journal):
    return [json.loads(line)["config"] for line in open(journal).read().splitlines()[1:]]


def test_a_thread_pool_of_four_measures_four_at_a_time():
    tuner = gc.Tuner(real(LAYOUT), budget=30, per_round=10, seed=5)
    running, most, lock = [0], [0], threading.Lock()

    def measure(config):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return fake_seconds(config)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = {pool.submit(measure, c): c for c in tuner.ask(4)}
        while futures:
            finished, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                tuner.tell(futures.pop(future), future.result())
                for config in tuner.ask(1):
                    futures[pool.submit(measure, config)] = config
    assert most[0] == 4 and len(tuner.measurements) == 30 and tuner.done
    assert len({m["config"] for m in tuner.measurements}) == 30
    assert tuner.best["seconds"] == min(m["seconds"] for m in tuner.measurements)
    assert tuner.model is not None and tuner.model.costs.shape == (tuner.candidates,)


def test_tell_refuses_what_was_not_asked():
    tuner = gc.Tuner(real(LAYOUT), budget=10, seed=1)
    config = tuner.ask(1)[0]
    with pytest.raises(ValueError, match="not asked"):
        tuner.tell(config["config"] + 1 if config["config"] + 1 not in tuner.asked else config["config"] + 2, 1.0)
    tuner.tell(config, 1.0)
    with pytest.raises(ValueError, match="told already"):
        tuner.tell(config, 1.0)
    with pytest.raises(TypeError):
        tuner.tell(tuner.ask(1)[0])  # neither seconds nor a failure


def test_a_run_killed_mid_batch_resumes_in_python_and_in_the_cli(tmp_path):
    target, journal = real(LAYOUT), tmp_path / "run.journal"
    # The first process asks a batch of 6, tells 4 of them, and dies (no cleanup, as kill -9).
    script = textwrap.dedent(f"""
        import os, graphcost as gc
        t = gc.Tuner({target!r}, budget=20, per_round=6, seed=2, journal={str(journal)!r})
        t.tell(t.ask(1)[0], 0.01)  # a first round of one, then a batch
        for config in t.ask(6)[:4]:
            t.tell(config, 1e-3 * (1 + config["config"] % 13))
        os._exit(9)
    """)
    assert subprocess.run([sys.executable, "-c", script], env=os.environ).returncode == 9
    first = told(journal)
    assert len(first) == 5
    # Python continues it: the four told are not asked again, the two untold are.
    tuner = gc.Tuner.resume(journal, budget=12)
    asked = tuner.ask(3)
    assert not {c["config"] for c in asked} & set(first)
    for config in asked:
        tuner.tell(config, failure="did not compile") if config["config"] % 5 == 0 else tuner.tell(config, fake_seconds(config))
    while not tuner.done:
        for config in tuner.ask(2):
            tuner.tell(config, fake_seconds(config))
    assert len(told(journal)) == 12
    # The CLI continues the same journal (its OUT.journal) with its command oracle up to 20.
    measure = tmp_path / "measure.sh"
    measure.write_text("#!/bin/sh\necho 0.002\n")
    measure.chmod(0o755)
    subprocess.run([GRAPHCOST, "tune", target, "--oracle", "command", "--measure", str(measure), "--budget", "20", "--per-round", "6",
                    "--seed", "2", "--out", str(tmp_path / "run"), "--resume", "--quiet"], check=True, capture_output=True)
    configs = told(journal)
    assert len(configs) == 20 and len(set(configs)) == 20  # nothing measured twice


def test_the_python_oracle_gets_the_module_with_the_configs_layouts(tmp_path):
    seen = []

    def measure(config):
        text = open(config["module"]).read()  # what a JAX or XLA script compiles and times
        seen.append((config["config"], "HloModule" in text, text))
        return fake_seconds(config)

    result = gc.tune(real(MODULE), measure=measure, budget=6, per_round=3, candidates=10, seed=0)
    assert len(seen) == 6 and all(is_module for _, is_module, _ in seen)
    texts = {config: text for config, _, text in seen}
    assert len(set(texts.values())) > 1  # the configs' layouts differ in the text
    tuner = gc.Tuner(real(MODULE), budget=4, candidates=10, seed=0)
    tuner.write_config(3, tmp_path / "config-3.hlo")
    if 3 in texts:
        assert (tmp_path / "config-3.hlo").read_text() == texts[3]
    with pytest.raises(ValueError, match="HLO text"):
        gc.Tuner(real(LAYOUT), budget=4).write_config(0, tmp_path / "x.hlo")
    assert result.best is not None


def test_the_learned_model_is_returned_and_ranks_as_the_cli(tmp_path):
    target = real(LAYOUT)
    tuner = gc.Tuner(target, budget=20, seed=3, learner="ridge")
    while not tuner.done:
        for config in tuner.ask(5):
            tuner.tell(config, fake_seconds(config))
    model = tuner.model
    assert model.describe["learner"] == "ridge"
    model.save(tmp_path / "ridge.json")
    out = subprocess.run([GRAPHCOST, "rank", target, "--model", str(tmp_path / "ridge.json"), "--json", "--top", "5"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    top = json.loads(out.stdout)["top"]
    for entry in top:  # the CLI's costs of the saved learner are the Tuner's
        assert entry["cost"] == pytest.approx(float(model.costs[entry["config"]]), rel=1e-5, abs=1e-6)


class NearestMean:
    """A learner written in Python with scikit-learn's protocol: the mean log runtime of the k
    measured configs nearest in X (a stand-in for any regressor)."""

    def __init__(self, k=3):
        self.k, self.calls = k, []

    def fit(self, X, y):
        import numpy as np

        self.X, self.y = np.asarray(X, np.float64), np.asarray(y)
        self.calls.append(("fit", X.shape, X.dtype.name))
        return self

    def predict(self, X):
        import numpy as np

        distance = ((np.asarray(X, np.float64)[:, None, :] - self.X[None, :, :]) ** 2).sum(-1)
        nearest = np.argsort(distance, axis=1)[:, : self.k]
        return self.y[nearest].mean(1)


def test_a_learner_written_in_python_is_plugged_in():
    graph = gc.load(real(LAYOUT))
    learner = NearestMean()
    tuner = gc.Tuner(graph, budget=30, per_round=10, seed=1, learner=learner)
    replay = graph.config_runtime
    while not tuner.done:
        for config in tuner.ask(10):
            tuner.tell(config, replay[config["config"]] * 1e-9)
    model = tuner.model  # the last round learned: every measurement, a row each
    fits = [call for call in learner.calls if call[0] == "fit"]
    assert fits and all(dtype == "float32" for _, _, dtype in fits)
    assert fits[-1][1][0] == 30
    assert model.describe["learner"] == "python" and model.describe["estimator"].endswith("NearestMean")
    assert model.costs.shape == (graph.config_count,)
    result = gc.tune(graph, budget=20, learner=NearestMean(), seed=2)
    assert result.rounds[-1]["unmeasured_tau"] > 0  # it ranks the unmeasured better than chance on unet3d
    with pytest.raises(ValueError, match="fit"):
        gc.Tuner(graph, learner=object())
    with pytest.raises(ValueError, match="python"):  # the name alone is not a learner
        gc.Tuner(graph, learner="python")
