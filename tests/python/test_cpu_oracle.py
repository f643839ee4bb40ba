"""graphcost.CpuOracle: configs timed on this CPU through Halide by a graphcost-cpu process, as
tune()'s measure; the candidates checked against the Tuner's; a kernel tuned apart and resumed."""
import os

import pytest

import graphcost as gc

from conftest import GRAPHCOST

SMALL_DOT = """HloModule small_dot

ENTRY main {
  a = f32[96,128]{1,0} parameter(0)
  b = f32[128,64]{1,0} parameter(1)
  d = f32[96,64]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[64,96]{1,0} reshape(d)
  ROOT n = f32[64,96]{1,0} negate(r)
}
"""


@pytest.fixture
def module(tmp_path, monkeypatch):
    cpu = os.path.join(os.path.dirname(GRAPHCOST), "graphcost-cpu")
    if not os.path.exists(cpu):
        pytest.skip(f"skipped: no graphcost-cpu beside {GRAPHCOST} (a build without Halide)")
    monkeypatch.setenv("GRAPHCOST_CPU", cpu)
    path = tmp_path / "small_dot.hlo"
    path.write_text(SMALL_DOT)
    return str(path)


def test_tune_measures_on_this_cpu(module):
    with gc.CpuOracle(module, candidates=6) as cpu:
        result = gc.tune(module, measure=cpu, budget=4, per_round=2, candidates=6)
        assert cpu.last["status"] == "ok" and len(cpu.last["runs"]) >= 3
    assert [m["status"] for m in result.measurements] == ["ok"] * 4
    assert result.best["seconds"] > 0 and all(m["seconds"] > 0 for m in result.measurements)


def test_candidates_must_be_the_tuners(module):
    with gc.CpuOracle(module, candidates=6) as cpu:
        with pytest.raises(ValueError, match="not the Tuner's"):
            gc.tune(module, measure=cpu, budget=2, candidates=8)
        with pytest.raises(ValueError, match="config index from 0 to 6"):
            cpu(7)


def test_a_kernel_tuned_apart_and_resumed(module, tmp_path):
    journal = str(tmp_path / "run.jsonl")
    with gc.CpuOracle(module, kernel="d", candidates=4) as cpu:
        tuner = gc.Tuner(module, budget=2, per_round=2, candidates=4, kernel="d", journal=journal)
        cpu.check_candidates(tuner)
        for config in tuner.ask(2):
            tuner.tell(config, cpu(config))
    resumed = gc.Tuner.resume(journal, budget=3)
    assert resumed.fingerprint == tuner.fingerprint and len(resumed.measurements) == 2


def test_bad_target_is_an_input_error(module, tmp_path):
    with pytest.raises(gc.InputError, match="--kernel"):
        gc.CpuOracle(module, kernel="nowhere")
