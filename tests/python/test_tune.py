"""Tuning with a Python function as the oracle: measurements that raise, return NaN or hang past
their timeout are kept as failed ones and tuning goes on; replay ranks what it did not measure."""
import math
import time

import numpy as np

import graphcost as gc
from conftest import real


def test_a_python_oracle_that_raises_returns_nan_and_hangs():
    module = real("hlo/dlrm_keras_jax_f32_train_step.hlo")
    asked = []

    def measure(config):
        c = config["config"]
        asked.append(c)
        if c % 7 == 3:
            raise RuntimeError("device busy")
        if c % 11 == 5:
            time.sleep(2)
        if c % 13 == 4:
            return math.nan
        return 1e-3 + 1e-6 * sum(node["output"][0] + 1 for node in config["nodes"])

    # Every config measured (the module's own and 30 candidates): each kind of failure above occurs
    # whatever order the tuner draws them in.
    result = gc.tune(module, measure=measure, budget=31, per_round=8, candidates=30, timeout=0.5, seed=1)
    statuses = {m["status"] for m in result.measurements}
    assert len(result.measurements) == 31 and len(set(asked)) == 31
    assert {"ok", "failed", "timeout", "garbage"} <= statuses
    assert any("RuntimeError: device busy" in m["message"] for m in result.measurements)
    assert result.best is not None and result.measured.config_count == sum(m["status"] == "ok" for m in result.measurements)
    assert result.costs.shape == (31,) and len(result.rounds) == 4


def test_replay_ranks_the_unmeasured():
    result = gc.tune(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"), budget=20, per_round=10, seed=2)
    last = result.rounds[-1]
    assert last["measured"] == 20 and -1 <= last["unmeasured_tau"] <= 1
    assert np.isfinite(result.costs).all()
