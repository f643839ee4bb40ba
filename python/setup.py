"""Packages graphcost's Python module: the extension is built by the project's own CMake (the
native-release preset's build tree, so an earlier `cmake --build --preset native-release` makes
this a copy), not by setuptools compiling the sources a second way. Works offline with
--no-build-isolation (setuptools and wheel from Debian)."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("GRAPHCOST_BUILD_DIR", os.path.join(ROOT, "build", "native-release"))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "--preset", "native-release"], cwd=ROOT)
        subprocess.check_call(["cmake", "--build", BUILD, "--target", "_graphcost"], cwd=ROOT)
        built = os.path.join(BUILD, "python", "graphcost")
        names = [n for n in os.listdir(built) if n.startswith("_graphcost") and n.endswith(".so")]
        if not names:
            sys.exit(f"setup.py: no _graphcost*.so in {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(built, names[0]), target)


setup(
    name="graphcost",
    version="0.1.0",
    description="Learned cost models for ML compiler graphs (TpuGraphs): graphcost's C++ core from Python",
    packages=["graphcost"],
    package_data={"graphcost": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("graphcost._graphcost", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.11",
    install_requires=["numpy"],
    zip_safe=False,
)
