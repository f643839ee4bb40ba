"""Packages graphcost for Python: the extension, the `graphcost` and `graphcost-eval` executables and
the shipped models, built by the project's own CMake (not by setuptools compiling the sources a
second way). Works offline with --no-build-isolation (setuptools and wheel from Debian).

Which build: GRAPHCOST_BUILD_DIR when set (the tests install from build/native-release: this
machine's CPU, MPI and METIS); otherwise build/python-wheel, configured by the python-wheel preset:
x86-64-v2 (any x86-64 CPU of the last 15 years), no MPI, no METIS, and the shared libraries the
extension and the executables need beyond glibc, libstdc++ and zlib (XGBoost, dmlc-core, libgomp;
the evaluator's SQLite, OpenSSL and ICU) bundled in graphcost/.libs and found there first (RPATH).
Beside it the same built for faster CPUs (VARIANTS: build/python-wheel-v3, x86-64-v3's AVX2 and
FMA) in graphcost/isa/<level>/, chosen at import by graphcost/_isa.py. What setuptools writes while building goes
under that build folder, not into the source tree."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GIVEN = os.environ.get("GRAPHCOST_BUILD_DIR")
BUILD = GIVEN or os.path.join(ROOT, "build", "python-wheel")
STAGING = os.path.join(BUILD, "setuptools")  # setuptools' own build and egg-info folders
# What every Linux the wheel runs on has: glibc's libraries, GCC's C++ runtime and zlib.
# The faster builds the portable wheel also carries, each its own CMake build folder (CMakePresets.json).
VARIANTS = (("x86-64-v3", "python-wheel-v3"),)
BASE = ("linux-vdso.so", "ld-linux", "libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "libstdc++.so", "libgcc_s.so",
        "libz.so")


def bundled_libraries(binaries):
    """The shared libraries `ldd` resolves for the binaries beyond BASE (XGBoost and dmlc-core,
    libgomp; the evaluator's SQLite, OpenSSL and ICU): shipped in graphcost/.libs."""
    found = set()
    for binary in binaries:
        for line in subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and not parts[0].startswith(BASE):
                found.add(parts[2])
    return sorted(found)


def build(folder, preset):
    """Builds the extension and the two executables in a CMake build folder (configured by `preset`
    first if it is not yet); returns (the extension, the executables)."""
    if not os.path.exists(os.path.join(folder, "CMakeCache.txt")):
        if GIVEN:
            sys.exit(f"setup.py: GRAPHCOST_BUILD_DIR={GIVEN} is not a configured CMake build folder")
        subprocess.check_call(["cmake", "--preset", preset], cwd=ROOT)
    subprocess.check_call(["cmake", "--build", folder, "--target", "_graphcost", "graphcost", "graphcost-eval"], cwd=ROOT)
    built = os.path.join(folder, "python", "graphcost")
    names = [n for n in os.listdir(built) if n.startswith("_graphcost") and n.endswith(".so")]
    if not names:
        sys.exit(f"setup.py: no _graphcost*.so in {built}")
    return os.path.join(built, names[0]), (os.path.join(folder, "src", "graphcost"), os.path.join(folder, "evaluation", "graphcost-eval"))


def place(extension, programs, folder):
    """Copies a build's extension and executables (folder/bin, run by the console scripts) into the wheel."""
    os.makedirs(os.path.join(folder, "bin"), exist_ok=True)
    shutil.copyfile(extension, os.path.join(folder, os.path.basename(extension)))
    for program in programs:
        shutil.copy2(program, os.path.join(folder, "bin"))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        extension, programs = build(BUILD, "python-wheel")
        target = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(target)
        os.makedirs(package, exist_ok=True)
        place(extension, programs, package)
        os.replace(os.path.join(package, os.path.basename(extension)), target)
        os.makedirs(os.path.join(package, "models"), exist_ok=True)
        for model in glob.glob(os.path.join(ROOT, "models", "*.npz")) + glob.glob(os.path.join(ROOT, "models", "*.md")):
            shutil.copy2(model, os.path.join(package, "models"))
        if GIVEN:
            return
        # The portable build: the faster levels (graphcost/_isa.py picks one at import) and the
        # libraries they all load, the system's, as the CMake trees' copies load them.
        binaries = [extension, *programs]
        shutil.rmtree(os.path.join(package, "isa"), ignore_errors=True)
        for level, preset in VARIANTS:
            extension, programs = build(os.path.join(ROOT, "build", preset), preset)
            place(extension, programs, os.path.join(package, "isa", level))
            binaries += [extension, *programs]
        shutil.rmtree(os.path.join(package, ".libs"), ignore_errors=True)
        os.makedirs(os.path.join(package, ".libs"))
        for library in bundled_libraries(binaries):
            shutil.copy2(library, os.path.join(package, ".libs"))


os.makedirs(STAGING, exist_ok=True)
setup(
    name="graphcost",
    version="0.1.0",
    description="Learned cost models for ML compiler graphs (TpuGraphs): graphcost's C++ core from Python",
    packages=["graphcost"],
    package_data={"graphcost": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("graphcost._graphcost", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"console_scripts": ["graphcost = graphcost._commands:graphcost", "graphcost-eval = graphcost._commands:graphcost_eval"]},
    options={"build": {"build_base": os.path.join(STAGING, "build")}, "egg_info": {"egg_base": STAGING}},
    python_requires=">=3.11",
    install_requires=["numpy"],
    zip_safe=False,
)
