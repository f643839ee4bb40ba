"""tune(): the tuning loop with a Python function as the oracle (graphcost/_graphcost's _tune runs the
loop in C++ with the GIL released; this layer makes measure() safe to call from it: one at a time,
with a timeout, its exceptions sorted into failed measurements and ones that stop the run)."""
import math
import os
import threading

import numpy as np

from ._arguments import input_path
from ._graphcost import Graph, _tune


class TuneResult(dict):
    """What tune() returns, a dict with attribute access:

    measurements  [{'config', 'status' ('ok', 'failed', 'timeout', 'garbage'), 'seconds', 'message',
                   'round', 'predicted'}] in the order they were made
    rounds        per round: measured, best_seconds, out_of_sample_tau (the model's tau on the
                  round's new measurements predicted before they were made), unmeasured_tau (replay),
                  learner (what learned: {'learner', and for auto 'chosen' and 'cross_validated_tau',
                  for weighed 'gnn_weight'}), seconds, learn_seconds
    costs         float32 array: the final model's cost of every candidate (lower = predicted faster)
    measured      a Graph of the configs measured without failure, with their runtimes
    best          {'config', 'seconds'}: the fastest measured, or None
    interrupted   True when the run was stopped before its budget (Ctrl-C, an error, progress False)
    target, candidates, oracle, options, learner: as `graphcost tune --json` reports them (the
                  same serializer): the program, the configs to choose among, the oracle ('replay'
                  or 'python'), every option, the last fitted learner
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"TuneResult has no {name!r}") from None


class TuneError(RuntimeError):
    """A tuning run that cannot go on: every measurement failed, or a measure() call ran on past its
    timeout into the next one. `result` holds the partial TuneResult (nothing measured is lost)."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


class _Oracle:
    """measure(config) -> seconds as the C++ loop reads it: (status, seconds, message).

    Each call runs on a daemon thread so that one hanging past `timeout` seconds can be given up on.
    Measurements never overlap: the next call first waits for a timed-out one to return (up to
    another `timeout` and 10 s), and stops the run when it does not. An exception that is not an
    Exception (KeyboardInterrupt, SystemExit) stops the run and is raised again after it, as is any
    exception with on_error='raise'; with 'record' an Exception is a failed measurement, kept."""

    def __init__(self, measure, timeout, on_error):
        if on_error not in ("record", "raise"):
            raise ValueError(f"on_error: expected 'record' or 'raise', got {on_error!r}")
        self.measure, self.timeout, self.on_error = measure, timeout, on_error
        self.pending = None  # the exception that stops the run, raised once the loop has returned
        self.stale = None    # the thread of a call that timed out

    def stop(self, error):
        self.pending = self.pending or error
        return ("stopped", 0.0, "stopped")

    def __call__(self, config):
        if self.pending is not None:
            return ("stopped", 0.0, "stopped")
        try:
            if self.stale is not None:
                self.stale.join((self.timeout or 0) + 10)
                if self.stale.is_alive():
                    return self.stop(TuneError(f"measure() is still running {self.timeout:g} s past its timeout: "
                                               "graphcost does not start a measurement while another runs"))
                self.stale = None
            box = {}

            def call():
                try:
                    box["value"] = self.measure(config)
                except BaseException as error:  # noqa: B902: sorted out below, on the caller's thread
                    box["error"] = error

            worker = threading.Thread(target=call, daemon=True)
            worker.start()
            worker.join(self.timeout)
        except BaseException as error:  # noqa: B902: Ctrl-C while waiting: the run stops, the error rises after it
            return self.stop(error)
        if worker.is_alive():
            self.stale = worker
            return ("timeout", 0.0, f"no answer within {self.timeout:g} s")
        if "error" in box:
            error = box["error"]
            if not isinstance(error, Exception) or self.on_error == "raise":
                return self.stop(error)
            return ("failed", 0.0, f"{type(error).__name__}: {error}"[:2000])
        value = box["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return ("garbage", 0.0, f"not a number of seconds: {value!r}"[:200])
        seconds = float(value)
        if not math.isfinite(seconds) or seconds <= 0:
            return ("garbage", 0.0, f"not a positive finite number of seconds: {seconds!r}")
        return ("ok", seconds, "")


def tune(target, measure=None, budget=100, per_round=10, strategy="online", model=None, seed=0, timeout=None, candidates=1000,
         explore=None, init="previous", learner="auto", progress=None, journal=None, on_error="record"):
    """Tunes a program from a few of its measurements (docs/tuning.md).

    target     a path (str or os.PathLike: a labelled or hidden .npz, tuning records, a module:
               HLO text or proto, whose candidates are config 0 and `candidates` random layouts, or
               a kernel's parameter space: T4 results, a Kernel Tuner cache or a T1 definition) or
               a Graph
    measure    measure(config) -> seconds, called for each config to measure, one at a time, in
               this process; config is a dict: {'config': index, 'nodes': [{'node', 'name',
               'opcode', 'output', 'input', 'kernel'}...]} (layout), {'config_feat': [...]} (tile)
               or {'parameters': {name: value}} (a space). A value that is not a positive finite
               number, or no answer within `timeout` seconds, is a failed measurement: kept, and
               tuning goes on. None: replay the file's recorded runtimes.
    on_error   what an Exception raised by measure() is: 'record' (a failed measurement, its
               message kept) or 'raise' (the run stops and the exception rises). KeyboardInterrupt
               and SystemExit always stop the run and rise. Either way the exception carries the
               partial TuneResult as `.tune_result` (TuneError's as `.result`).
    journal    a path: every measurement is written there as it is made (the CLI's journal format,
               docs/tuning.md); an existing journal of the same run is resumed, nothing measured
               twice (a larger budget may be given)
    strategy   'online' (learn after each round), 'zero-shot' (model as is), 'random', 'fewest-changes',
               'genetic' (a space: Kernel Tuner's genetic algorithm)
    explore    the share of each online batch drawn at random; None: the target's default (0.3 for
               graphs, 0.1 for parameter spaces)
    model      a Model: zero-shot's, or the warm start with init='model'
    init       the GNN: where each fit starts: 'previous' (the one before; the first from scratch),
               'scratch' (a fresh model every round), 'model' (`model`'s weights)
    learner    'auto' (of 'xgboost' and 'ridge', the one that ranks the measured configs best in
               cross-validation, chosen at every round: docs/tuning.md), 'xgboost', 'ridge', 'gnn',
               'weighed' (GNN and ridge weighed by how each ranked the new measurements), 'blend'
    progress   progress(round_report) after each round; returning False stops the run (as Ctrl-C)
    Returns a TuneResult. Ctrl-C stops after the measurement in hand and raises KeyboardInterrupt
    with the partial result as `.tune_result`. TuneError when every measurement of the first round
    failed (a broken measure(), not a bad config).
    """
    target = target if isinstance(target, Graph) else input_path(target, "target")
    journal = "" if journal is None else os.fspath(journal)
    for name, value in (("budget", budget), ("per_round", per_round), ("seed", seed), ("candidates", candidates)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if seed < 0 or seed >= 2**64:
        raise ValueError(f"seed: expected an integer in [0, 2**64), got {seed}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout: expected a positive number of seconds or None, got {timeout!r}")
    oracle = None if measure is None else _Oracle(measure, timeout, on_error)
    stopped = {}

    def report(round_report):
        if oracle is not None and round_report["ok"] == 0 and round_report["measured"] >= min(per_round, budget):
            stopped["error"] = TuneError(f"every one of the {round_report['measured']} measurements so far failed: "
                                         "measure() looks broken (each failure's message is in the result's measurements)")
            return False
        if progress is None:
            return True
        try:
            go_on = progress(round_report)
        except BaseException as error:  # noqa: B902: stops the run; raised once the loop has returned
            stopped["error"] = error
            return False
        if go_on is not None and not go_on:
            stopped["by_progress"] = True
            return False
        return True

    explore = float("nan") if explore is None else explore
    result = TuneResult(_tune(target, oracle, budget, per_round, strategy, init, learner, model, seed, candidates, explore, report,
                              journal))
    error = stopped.get("error") or (oracle.pending if oracle is not None else None)
    if error is None and result.interrupted and "by_progress" not in stopped:
        error = KeyboardInterrupt()  # Ctrl-C, seen by the loop between measurements
    if error is not None:
        if isinstance(error, TuneError):
            error.result = result
        try:
            error.tune_result = result
        except AttributeError:  # an exception type without a __dict__
            pass
        raise error
    return result
