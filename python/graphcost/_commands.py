"""The console scripts a pip install puts on PATH: `graphcost` and `graphcost-eval`, the executables
the wheel ships in graphcost/bin (the same programs the CMake build makes; graphcost/isa/<level>/bin
holds them built for a newer CPU, run when the package's extension is: graphcost._isa), run with the
arguments given."""
import os
import sys

from . import _isa


def _run(name):
    program = _isa.program(name)
    if not os.path.exists(program):
        sys.exit(f"{name}: not in this installation ({program}); build it with cmake --build --preset native-release")
    os.execv(program, [name] + sys.argv[1:])


def graphcost():
    _run("graphcost")


def graphcost_eval():
    _run("graphcost-eval")
