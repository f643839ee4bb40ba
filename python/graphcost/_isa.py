"""Which build of the core this CPU runs. The portable wheel (python/setup.py) carries the extension
and the two executables compiled for x86-64-v2 (any x86-64 CPU of the last 15 years) in graphcost/
and, in graphcost/isa/<level>/, the same compiled for newer micro-architecture levels (x86-64-v3:
AVX2 and FMA), whose matrix kernels train and predict faster. At import the package loads the
highest level this CPU has (its /proc/cpuinfo flags), under the one module name
graphcost._graphcost, so pickles and classes are the same whichever build runs.
GRAPHCOST_ISA=x86-64-v2 (or another installed level) chooses by hand. A source build (the tests'
build/native-release, -march=native) has no isa/ folder: its own extension loads as it is."""
import importlib.machinery
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = "x86-64-v2"
# The x86-64 psABI's levels above the baseline, as the Linux kernel names their CPU flags
# (lzcnt is "abm"; the kernel drops avx* flags when the OS does not save their registers).
LEVELS = {
    "x86-64-v3": frozenset(("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave")),
}
LEVELS["x86-64-v4"] = LEVELS["x86-64-v3"] | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}


def cpu_flags(path="/proc/cpuinfo"):
    """The CPU's feature flags (the first processor's), or an empty set where they cannot be read:
    then the baseline runs."""
    try:
        with open(path) as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def _extension(level):
    """The level's extension for this Python (its ABI suffix), or None."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(HERE, "isa", level, "_graphcost" + suffix)
        if os.path.exists(path):
            return path
    return None


def installed():
    """The levels above the baseline this installation carries for this Python (graphcost/isa/<level>/)."""
    return sorted(level for level in LEVELS if _extension(level))


def choose(flags=None, environment=None):
    """The level to run: GRAPHCOST_ISA when set (refused when not installed or not this CPU's), else
    the highest installed level whose flags the CPU has; None for the extension in graphcost/."""
    flags = cpu_flags() if flags is None else flags
    environment = os.environ if environment is None else environment
    available = installed()
    forced = environment.get("GRAPHCOST_ISA")
    if forced:
        if not available:
            raise ImportError(f"GRAPHCOST_ISA={forced}: this installation carries no CPU levels (graphcost/isa/: the wheel's); "
                              "a source build runs the extension it built")
        if forced == BASELINE:
            return None
        if forced not in available:
            raise ImportError(f"GRAPHCOST_ISA={forced}: this installation has {', '.join([BASELINE] + available)}")
        missing = sorted(LEVELS[forced] - flags)
        if missing:
            raise ImportError(f"GRAPHCOST_ISA={forced}: this CPU lacks {', '.join(missing)}")
        return forced
    for level in reversed(available):
        if LEVELS[level] <= flags:
            return level
    return None


def load_core():
    """Loads the chosen level's extension as graphcost._graphcost, before the package imports it."""
    level = choose()
    if level is None:
        return
    path = _extension(level)
    name = __package__ + "._graphcost"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path, loader=loader))
    sys.modules[name] = module
    loader.exec_module(module)
    setattr(sys.modules[__package__], "_graphcost", module)


def program(name):
    """The path of the executable `name` (graphcost, graphcost-eval) built for the chosen level."""
    level = choose()
    return os.path.join(HERE, *(("isa", level) if level else ()), "bin", name)
