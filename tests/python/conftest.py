"""Where the Python tests find things: the package (PYTHONPATH, set by CTest to the build tree's
python/ folder, or an installed graphcost), the shared real data (GRAPHCOST_DATA, default
../shared/data), the CLI to compare with (GRAPHCOST_BIN) and the repository."""
import os

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.environ.get("GRAPHCOST_DATA", os.path.join(REPO, "..", "shared", "data"))
GRAPHCOST = os.environ.get("GRAPHCOST_BIN", os.path.join(REPO, "build", "native-release", "src", "graphcost"))
EVALUATOR = os.environ.get("GRAPHCOST_EVAL", os.path.join(REPO, "build", "native-release", "evaluation", "graphcost-eval"))


def real(relative):
    path = os.path.join(DATA, relative)
    if not os.path.exists(path):
        pytest.skip(f"skipped: no TpuGraphs data at {DATA}")
    return path
