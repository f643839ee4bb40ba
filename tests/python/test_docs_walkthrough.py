"""docs/python.md's walkthrough, run as a newcomer would: a fresh virtual environment
(`python3 -m venv --system-site-packages`), `pip install --no-build-isolation --no-index ./python`
offline, then the document's python blocks in order in one interpreter of that environment."""
import os
import re
import subprocess
import sys
import venv

from conftest import DATA, REPO, real

DOC = os.path.join(REPO, "docs", "python.md")


def blocks():
    return re.findall(r"```python\n(.*?)```", open(DOC).read(), re.S)


def test_walkthrough_in_a_fresh_venv_installed_offline(tmp_path):
    real("tpugraphs")
    env_dir = tmp_path / "env"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    python = str(env_dir / "bin" / "python")
    build = os.path.dirname(os.path.dirname(os.environ.get("GRAPHCOST_BIN", os.path.join(REPO, "build/native-release/src/graphcost"))))
    environment = dict(os.environ, GRAPHCOST_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    environment.pop("PYTHONPATH", None)  # the installed package, not the build tree
    install = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", os.path.join(REPO, "python")],
                             capture_output=True, text=True, env=environment, cwd=str(tmp_path))
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    where = subprocess.run([python, "-c", "import graphcost, os; print(graphcost.__file__)"], capture_output=True, text=True, env=environment,
                           cwd=str(tmp_path))
    assert str(env_dir) in where.stdout, where.stdout + where.stderr
    script = tmp_path / "walkthrough.py"
    script.write_text("\n".join(f"# block {i}\n{code}" for i, code in enumerate(blocks())))
    environment["GRAPHCOST_DATA"] = os.path.abspath(DATA)  # the data path, given once; run from elsewhere than the checkout
    run = subprocess.run([python, str(script)], capture_output=True, text=True, env=environment, cwd=str(tmp_path), timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Kendall tau-b of the shipped model on unet3d" in run.stdout


def test_help_explains_the_package_in_a_screen():
    text = subprocess.run([sys.executable, "-c", "import graphcost; help(graphcost)"], capture_output=True, text=True,
                          env=dict(os.environ, PAGER="cat")).stdout
    first_screen = text.split("\n")[:45]
    assert any("tune(target" in line for line in first_screen) and any("load(path)" in line for line in first_screen)
