"""Which build of the core a CPU runs (graphcost/_isa.py): the portable wheel carries the baseline
(x86-64-v2) and faster levels in graphcost/isa/; the highest level whose flags the CPU has loads,
GRAPHCOST_ISA chooses by hand and is refused where it would crash (SIGILL) or find nothing.
scripts/wheel-check.sh checks the same on the installed wheel, with both builds run."""
import pytest

import graphcost as gc
from graphcost import _isa

V3 = _isa.LEVELS["x86-64-v3"]
V4 = _isa.LEVELS["x86-64-v4"]
OLD_CPU = frozenset(("sse4_2", "popcnt", "ssse3", "cx16"))


@pytest.fixture
def both_levels(monkeypatch):
    monkeypatch.setattr(_isa, "installed", lambda: ["x86-64-v3", "x86-64-v4"])


def test_the_highest_level_the_cpu_has_loads(both_levels):
    assert _isa.choose(V4, {}) == "x86-64-v4"
    assert _isa.choose(V3, {}) == "x86-64-v3"
    assert _isa.choose(V3 | {"avx512f"}, {}) == "x86-64-v3"  # AVX-512 in part is not v4
    assert _isa.choose(OLD_CPU, {}) is None
    assert _isa.choose(frozenset(), {}) is None  # flags unreadable: the baseline


def test_a_level_not_installed_is_never_chosen(monkeypatch):
    monkeypatch.setattr(_isa, "installed", lambda: ["x86-64-v3"])
    assert _isa.choose(V4, {}) == "x86-64-v3"
    monkeypatch.setattr(_isa, "installed", lambda: [])
    assert _isa.choose(V4, {}) is None


def test_graphcost_isa_chooses_by_hand(both_levels):
    assert _isa.choose(V4, {"GRAPHCOST_ISA": "x86-64-v2"}) is None
    assert _isa.choose(V4, {"GRAPHCOST_ISA": "x86-64-v3"}) == "x86-64-v3"
    with pytest.raises(ImportError, match=r"GRAPHCOST_ISA=x86-64-v4: this CPU lacks avx512bw, avx512cd"):
        _isa.choose(V3 | {"avx512f"}, {"GRAPHCOST_ISA": "x86-64-v4"})
    with pytest.raises(ImportError, match=r"GRAPHCOST_ISA=znver9: this installation has x86-64-v2, x86-64-v3, x86-64-v4"):
        _isa.choose(V4, {"GRAPHCOST_ISA": "znver9"})


def test_graphcost_isa_in_a_source_build_is_refused(monkeypatch):
    monkeypatch.setattr(_isa, "installed", lambda: [])
    with pytest.raises(ImportError, match=r"GRAPHCOST_ISA=x86-64-v2: this installation carries no CPU levels"):
        _isa.choose(V4, {"GRAPHCOST_ISA": "x86-64-v2"})


def test_cpu_flags_reads_the_first_processor(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx2 fma\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert _isa.cpu_flags(str(cpuinfo)) == {"fpu", "avx2", "fma"}
    assert _isa.cpu_flags(str(tmp_path / "missing")) == frozenset()


def test_build_info_names_the_running_build():
    info = gc.build_info()
    assert info["march"] in ("native", "x86-64-v2", "x86-64-v3", "x86-64-v4"), info
    assert "SSE2" in info["simd"], info
    assert info["path"].endswith(".so")
