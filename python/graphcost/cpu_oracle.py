"""The cpu oracle from Python (docs/lowering.md, "From Python"): a module's layout configs lowered to
Halide and timed on this CPU by `graphcost tune --oracle cpu`'s protocol (pinned, compiled outside
the timed region, a warm-up, repeats until the minimum is stable, each config in a bounded process
of its own, every output checked against the first config's), in a `graphcost-cpu oracle` process
this object drives. Use it as tune()'s measure, or to measure what a Tuner asks:

    with graphcost.CpuOracle("module.hlo", kernel="dot.7") as cpu:
        result = graphcost.tune("module.hlo", measure=cpu, kernel="dot.7", budget=30)

graphcost-cpu is built by the CMake build where Halide is installed (Debian's libhalide14-0-dev);
the wheel does not ship it (Halide brings LLVM). It is found as $GRAPHCOST_CPU, beside
$GRAPHCOST_BIN, in this package's bin folder, or on PATH."""
import json
import os
import shutil
import subprocess
import tempfile

from ._arguments import input_path
from ._graphcost import InputError


def _program():
    candidates = [os.environ.get("GRAPHCOST_CPU")]
    if os.environ.get("GRAPHCOST_BIN"):
        candidates.append(os.path.join(os.path.dirname(os.environ["GRAPHCOST_BIN"]), "graphcost-cpu"))
    candidates += [os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "graphcost-cpu"), shutil.which("graphcost-cpu")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError("CpuOracle: no graphcost-cpu (set GRAPHCOST_CPU, or build it: cmake --build --preset native-release "
                            "with Debian's libhalide14-0-dev installed; the wheel does not ship it)")


class CpuOracle:
    """measure(config) -> seconds on this CPU, for the candidates graphcost.Tuner(target, candidates,
    seed, kernel) chooses among (the same arguments give the same candidates; tune() checks it).

    `threads`: the cores a measurement uses (`graphcost measure --threads`). A config is a Tuner's dict (its 'config' index) or an index. A config that fails to compile or
    run, or runs past `timeout` seconds, raises RuntimeError naming why: tune() keeps it as a failed
    measurement. `last` is the last answer: {'config', 'status', 'seconds', 'runs' (every timed run),
    'message'}. close() (or leaving a with block) ends the process."""

    def __init__(self, target, kernel=None, candidates=1000, seed=0, timeout=120, threads=1):
        path = input_path(target, "target")
        command = [_program(), "oracle", path, "--candidates", str(int(candidates)), "--seed", str(int(seed)),
                   "--timeout", repr(float(timeout)), "--threads", str(int(threads))] + (["--kernel", kernel] if kernel else [])
        self._errors = tempfile.TemporaryFile(mode="w+")  # not a pipe: nothing it writes there can fill up and block it
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors, text=True)
        header = self._process.stdout.readline()
        if not header:
            self._process.wait()
            message = self._stderr()
            raise InputError(message.removeprefix("error: ") or f"graphcost-cpu oracle ended ({self._process.returncode})")
        info = json.loads(header)
        self.configs, self.fingerprint, self.last = info["configs"], info["fingerprint"], None

    def check_candidates(self, tuner):
        """ValueError unless `tuner` chooses among the configs this oracle measures."""
        if tuner.fingerprint != self.fingerprint:
            raise ValueError(f"CpuOracle: its candidates ({self.fingerprint}) are not the Tuner's ({tuner.fingerprint}): give "
                             "both the same target, candidates, seed and kernel")

    def __call__(self, config):
        index = config["config"] if isinstance(config, dict) else config
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"CpuOracle: expected a config (a Tuner's dict or an index), got {type(config).__name__}")
        if self._process.poll() is not None:
            raise RuntimeError("CpuOracle: its graphcost-cpu process has ended (closed?)")
        self._process.stdin.write(f"{index}\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            self._process.wait()
            raise RuntimeError(f"CpuOracle: graphcost-cpu ended ({self._process.returncode}): {self._stderr()}")
        answer = json.loads(line)
        if "error" in answer:
            raise ValueError(f"CpuOracle: {answer['error']}")
        self.last = answer
        if answer["status"] != "ok":
            raise RuntimeError(answer["message"])
        return answer["seconds"]

    def _stderr(self):
        self._errors.seek(0)
        return self._errors.read().strip()[-2000:]

    def close(self):
        if self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait()
        self._process.stdout.close()
        self._errors.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def __del__(self):
        process = getattr(self, "_process", None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
