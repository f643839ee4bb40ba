"""graphcost.tune on a kernel's parameter space (Kernel Tuner's T4 files in ../shared/data): the
replay finds a config as the CLI does, the space's own exploration default, and a Python measure
function that receives the config's parameters by name."""
import graphcost as gc

from conftest import real

A100 = "kernel-tuner/convolution/A100_T4.json.gz"


def test_tune_replays_a_space():
    result = gc.tune(real(A100), budget=20, seed=1)
    assert len(result.measurements) == 20
    assert result.best is not None and result.best["seconds"] > 0
    assert result.options["explore"] == 0.1  # a space's default; graphs keep 0.3
    assert result.learner["learner"] == "auto"


def test_a_measure_function_gets_the_parameters_by_name():
    seen = []

    def measure(config):
        parameters = config["parameters"]
        seen.append(parameters)
        return 1e-3 * (1 + abs(parameters["block_size_x"] - 64) / 64)

    result = gc.tune(real(A100), measure=measure, budget=12, per_round=6, seed=2)
    assert len(seen) == 12 and all("tile_size_y" in p for p in seen)
    assert result.best["seconds"] == min(1e-3 * (1 + abs(p["block_size_x"] - 64) / 64) for p in seen)
