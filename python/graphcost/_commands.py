"""The console scripts a pip install puts on PATH: `graphcost` and `graphcost-eval`, the executables
the wheel ships in graphcost/bin (the same programs the CMake build makes), run with the arguments
given."""
import os
import sys

BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _run(name):
    program = os.path.join(BIN, name)
    if not os.path.exists(program):
        sys.exit(f"{name}: not in this installation ({program}); build it with cmake --build --preset native-release")
    os.execv(program, [name] + sys.argv[1:])


def graphcost():
    _run("graphcost")


def graphcost_eval():
    _run("graphcost-eval")
