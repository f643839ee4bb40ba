"""What a researcher used to scikit-learn, PyG and Optuna expects of a Python package: no argument
reaches an assert (each was a SIGABRT or a segfault: a dead Jupyter kernel), bad values are
ValueError/TypeError, missing files are FileNotFoundError, paths may be os.PathLike, functions have
signatures, and a tuning run never loses what it measured (Ctrl-C, an exception in measure() or in
progress, a kill: the journal resumes it, in Python or in the CLI)."""
import errno
import inspect
import json
import math
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import graphcost as gc
from conftest import GRAPHCOST, real

LAYOUT = "tpugraphs/npz/layout/xla/default/train/unet3d.npz"


@pytest.mark.parametrize("call", [
    lambda: gc.slowdown_at_k([1, 2, 3], [0, 1, 2], 0),
    lambda: gc.slowdown_at_k([1, 2, 3], [0, 1, 2], -1),
    lambda: gc.slowdown_at_k([1, 2, 3], [], 1),
    lambda: gc.slowdown_at_k([], [0], 1),
    lambda: gc.tile_score([1, 2, 3], []),
    lambda: gc.slowdown_at_k([3, 2, 1], [5], 1),
    lambda: gc.slowdown_at_k([-1.0, 2.0], [0, 1], 1),
    lambda: gc.slowdown_at_k([math.nan, 2.0], [0, 1], 1),
])
def test_metrics_refuse_what_used_to_abort(call):
    # Each of these aborted the interpreter on an assert; now a ValueError naming the argument.
    with pytest.raises(ValueError) as error:
        call()
    assert error.value.field in ("k", "order", "runtimes")


def test_a_float_order_is_a_type_error_not_truncated():
    with pytest.raises(TypeError, match="integer"):
        gc.slowdown_at_k([3, 2, 1], [0.7, 1.2], 1)  # was 3.0: the order read as [0, 1]
    assert gc.slowdown_at_k([3.0, 1.0, 2.0], [0, 2, 1], 2) == pytest.approx(2.0)


@pytest.mark.parametrize("option", [
    {"hidden": 0}, {"epochs": 0}, {"steps_per_epoch": 0}, {"configs_per_step": 1}, {"layers": -1}, {"hops": -5},
    {"learning_rate": -1.0}, {"learning_rate": float("nan")},
])
def test_train_checks_every_option_in_the_library(tmp_path, option):
    # hidden=0 segfaulted; the others trained (nan: a checkpoint Model.load refused). The error names
    # the option by its Python name, not a CLI flag, and nothing is written.
    data = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(real(LAYOUT))))))
    out = tmp_path / "model.npz"
    with pytest.raises(ValueError) as error:
        gc.train(data, "layout:xla:default", out, **{"epochs": 1, "steps_per_epoch": 2, **option})
    assert error.value.field == next(iter(option)) and not error.value.field.startswith("--")
    assert not out.exists()


def test_files_follow_pythons_conventions(tmp_path):
    missing = tmp_path / "missing.npz"
    for call in (lambda: gc.load(missing), lambda: gc.Model.load(missing), lambda: gc.tune(missing, budget=2)):
        with pytest.raises(FileNotFoundError) as error:
            call()
        assert error.value.errno == errno.ENOENT and error.value.filename == str(missing)
    with pytest.raises(IsADirectoryError):
        gc.load(tmp_path)
    with pytest.raises(TypeError, match="path"):
        gc.load(3)
    graph = gc.load(pathlib.Path(real(LAYOUT)))  # os.PathLike everywhere
    assert graph.config_count > 0


def test_functions_have_signatures_and_results_behave_like_objects():
    assert list(inspect.signature(gc.load).parameters) == ["path"]
    assert "journal" in inspect.signature(gc.tune).parameters and "hidden" in inspect.signature(gc.train).parameters
    assert list(inspect.signature(gc.Model.predict).parameters) == ["self", "graph", "configs", "threads"]
    assert list(inspect.signature(gc.Graph.summary).parameters) == ["self"]
    result = gc.tune(real(LAYOUT), budget=10, seed=1)
    assert not hasattr(result, "no_such_field") and result.best is not None  # hasattr raised KeyError
    assert result.model.costs.shape == (result.candidates,) and result.model.describe["learner"] == "auto"  # the default, with its choice
    with pytest.raises(ValueError, match="seed"):
        gc.tune(real(LAYOUT), seed=-1)  # quoted the private _tune signature


def test_a_broken_measure_stops_after_a_round_and_keeps_what_it_did():
    with pytest.raises(gc.TuneError) as error:
        gc.tune(real(LAYOUT), measure=lambda config: 1 / 0, budget=50)  # was best=None, no word
    assert len(error.value.result.measurements) == 10
    assert all("ZeroDivisionError" in m["message"] for m in error.value.result.measurements)


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt(), NameError("typo")])
def test_exceptions_that_are_not_measurements_stop_the_run(raised):
    calls = []

    def measure(config):
        calls.append(config)
        if len(calls) == 4:
            raise raised
        return 1e-3 * (1 + config["config"] % 5)

    on_error = "raise" if isinstance(raised, NameError) else "record"
    with pytest.raises(type(raised)) as error:
        gc.tune(real(LAYOUT), measure=measure, budget=30, on_error=on_error)
    assert len(calls) == 4 and len(error.value.tune_result.measurements) == 3


def test_an_exception_in_progress_keeps_the_measurements():
    def progress(report):
        raise RuntimeError("plotting failed")

    with pytest.raises(RuntimeError, match="plotting") as error:
        gc.tune(real(LAYOUT), budget=30, progress=progress)
    assert len(error.value.tune_result.measurements) == 10
    stopped = gc.tune(real(LAYOUT), budget=30, progress=lambda report: False)  # False: stop, no error
    assert stopped.interrupted and len(stopped.measurements) == 10


def test_a_timed_out_measurement_never_overlaps_the_next():
    running, most = [0], [0]
    lock = threading.Lock()

    def measure(config):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.6 if config["config"] % 3 == 0 else 0.01)
        with lock:
            running[0] -= 1
        return 1e-3

    result = gc.tune(real(LAYOUT), measure=measure, budget=12, per_round=6, timeout=0.2, seed=4)
    assert most[0] == 1 and any(m["status"] == "timeout" for m in result.measurements)


def test_ctrl_c_raises_keyboard_interrupt_with_the_partial_result(tmp_path):
    # As train does: the loop stops after the measurement in hand and KeyboardInterrupt rises (it was
    # swallowed: `for seed in range(3): gc.tune(...)` ran the next seeds in full).
    script = textwrap.dedent(f"""
        import time, graphcost as gc
        def measure(config):
            time.sleep(0.05)
            return 1e-3 * (1 + config["config"] % 7)
        try:
            gc.tune({real(LAYOUT)!r}, measure=measure, budget=400, journal={str(tmp_path / 'run.journal')!r})
            print("finished")
        except KeyboardInterrupt as error:
            print("interrupted", len(error.tune_result.measurements))
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ)
    time.sleep(3)
    process.send_signal(signal.SIGINT)
    output = process.communicate(timeout=60)[0]
    assert output.startswith("interrupted"), output
    kept = int(output.split()[1])
    lines = (tmp_path / "run.journal").read_text().splitlines()
    assert 0 < kept < 400 and len(lines) == kept + 1  # the header, then every measurement made


def test_a_journal_continues_in_python_and_in_the_cli(tmp_path):
    # Python measures 20, Python resumes to 30, the CLI resumes to 40: the same 40 configs in the same
    # order as one uninterrupted CLI run, nothing measured twice.
    target = real(LAYOUT)
    journal = tmp_path / "run.npz.journal"
    gc.tune(target, budget=20, seed=3, journal=journal)
    again = gc.tune(target, budget=30, seed=3, journal=journal)
    assert len(again.measurements) == 30
    for out, resume in ((tmp_path / "run.npz", ["--resume"]), (tmp_path / "whole.npz", [])):
        subprocess.run([GRAPHCOST, "tune", target, "--oracle", "replay", "--budget", "40", "--seed", "3", "--out", str(out)] + resume,
                       check=True, capture_output=True)

    def configs(path):
        return [json.loads(line)["config"] for line in path.read_text().splitlines()[1:]]

    resumed, whole = configs(journal), configs(tmp_path / "whole.npz.journal")
    assert resumed == whole and len(set(resumed)) == 40
    with pytest.raises(ValueError, match="header"):
        gc.tune(target, budget=50, seed=4, journal=journal)  # another run's journal is refused


def test_train_neither_ignores_options_on_resume_nor_overwrites(tmp_path):
    data = str(tmp_path / "gen")
    gc.generate(data, graphs=6, seed=2, collections=["tile:xla", "layout:xla:random", "layout:xla:default"])
    out = tmp_path / "tile.npz"
    gc.train(data, "tile:xla", out, epochs=1, steps_per_epoch=2, hidden=8)
    with pytest.raises(ValueError, match="resume") as error:
        gc.train(data, "tile:xla", out, epochs=2, steps_per_epoch=2, hidden=8)  # was rewritten without a word
    assert error.value.field == "out"
    with pytest.raises(ValueError) as error:
        gc.train(data, "tile:xla", out, epochs=2, steps_per_epoch=2, hidden=64, resume=True)  # hidden=64 stayed 8, no word
    assert error.value.field == "hidden" and "8" in error.value.expected
    gc.train(data, "tile:xla", out, epochs=2, steps_per_epoch=2, resume=True)  # None: the checkpoint's architecture
    assert gc.Model.load(out).config["hidden"] == 8
    gc.train(data, "tile:xla", out, epochs=1, steps_per_epoch=2, hidden=4, overwrite=True)
    assert gc.Model.load(out).config["hidden"] == 4
    # A model fine-tuned on another collection names the one it is trained on now.
    layout = tmp_path / "layout.npz"
    gc.train(data, "layout:xla:random", layout, epochs=1, steps_per_epoch=2, hidden=8)
    tuned = tmp_path / "tuned.npz"
    gc.train(data, "layout:xla:default", tuned, epochs=1, steps_per_epoch=2, init=layout)
    assert gc.Model.load(tuned).config["collection"] == "layout:xla:default"  # was layout:xla:random


def test_graphs_models_and_results_pickle_copy_and_save(tmp_path):
    import copy
    import pickle

    import numpy as np

    graph = gc.load(real(LAYOUT))
    again = pickle.loads(pickle.dumps(graph))  # was: cannot pickle (no joblib, no DataLoader workers)
    assert again.source == graph.source and again.node_splits.shape == (1, 3)  # np.load's shape (was (3,))
    for name in ("node_feat", "edge_index", "node_config_feat", "node_config_ids", "config_runtime"):
        assert np.array_equal(getattr(again, name), getattr(graph, name))
    model = gc.Model.load(os.path.join(os.path.dirname(__file__), "..", "..", "models", "layout_xla.npz"))
    assert np.array_equal(copy.deepcopy(model).predict(graph), model.predict(graph))
    model.save(tmp_path / "copy.npz")  # Model.save
    assert np.array_equal(gc.Model.load(tmp_path / "copy.npz").predict(graph), model.predict(graph))
    result = gc.tune(graph, budget=10, seed=1)
    assert pickle.loads(pickle.dumps(result)).best == result.best
    built = gc.Graph.from_arrays(graph.node_feat, graph.node_opcode, graph.edge_index, graph.config_runtime,
                                 node_config_feat=graph.node_config_feat, node_config_ids=graph.node_config_ids)
    assert np.array_equal(built.node_config_feat, graph.node_config_feat) and built.labelled
    with pytest.raises(gc.InputError) as error:
        gc.Graph.from_arrays(graph.node_feat[:, :70], graph.node_opcode, graph.edge_index, node_config_feat=graph.node_config_feat,
                             node_config_ids=graph.node_config_ids)
    assert error.value.field == "node_feat"
    with pytest.raises(TypeError, match="integers"):
        gc.Graph.from_arrays(graph.node_feat, graph.node_opcode, graph.edge_index + 0.5, node_config_feat=graph.node_config_feat,
                             node_config_ids=graph.node_config_ids)
    # Every measurement failed: nothing to save, said before a file load would refuse is written.
    tuner = gc.Tuner(graph, budget=3)
    for config in tuner.ask(3):
        tuner.tell(config, failure="did not compile")
    with pytest.raises(gc.InputError, match="config_count"):
        tuner.result().measured.save(tmp_path / "none.npz")
    assert not (tmp_path / "none.npz").exists()
