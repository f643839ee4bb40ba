"""Tuning from Python: Tuner, the loop asked and told (the caller measures: in parallel, on other
machines, in batches), and tune(), a loop over it with a Python function as the oracle, made safe to
call: one measurement at a time, with a timeout, its exceptions sorted into failed measurements and
ones that stop the run. The C++ core (tune/tuner.h) learns and chooses with the GIL released and
journals every measurement told, in the CLI's format (`graphcost tune --out OUT` writes OUT.journal)."""
import json
import math
import os
import tempfile
import threading

import numpy as np

from ._arguments import input_path, output_path, path_text
from ._graphcost import Graph, _Tuner


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
    model         tune()'s: the learner fitted to every measurement (a LearnedModel: costs,
                  describe, save(path)), or None without one
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
    """measure(config) -> seconds as a measurement: (status, seconds, message).

    Each call runs on a daemon thread so that one hanging past `timeout` seconds can be given up on.
    Measurements never overlap: the next call first waits for a timed-out one to return (up to
    another `timeout` and 10 s), and raises TuneError when it does not. An exception that is not an
    Exception (KeyboardInterrupt, SystemExit) is raised again, as is any exception with
    on_error='raise'; with 'record' an Exception is a failed measurement, kept."""

    def __init__(self, measure, timeout, on_error):
        if on_error not in ("record", "raise"):
            raise ValueError(f"on_error: expected 'record' or 'raise', got {on_error!r}")
        self.measure, self.timeout, self.on_error = measure, timeout, on_error
        self.stale = None  # the thread of a call that timed out

    def __call__(self, config):
        if self.stale is not None:
            self.stale.join((self.timeout or 0) + 10)
            if self.stale.is_alive():
                raise TuneError(f"measure() is still running {self.timeout:g} s past its timeout: "
                                "graphcost does not start a measurement while another runs")
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
        if worker.is_alive():
            self.stale = worker
            return ("timeout", 0.0, f"no answer within {self.timeout:g} s")
        if "error" in box:
            error = box["error"]
            if not isinstance(error, Exception) or self.on_error == "raise":
                raise error
            return ("failed", 0.0, f"{type(error).__name__}: {error}"[:2000])
        value = box["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
            return ("garbage", 0.0, f"not a number of seconds: {value!r}"[:200])
        seconds = float(value)
        if not math.isfinite(seconds) or seconds <= 0:
            return ("garbage", 0.0, f"not a positive finite number of seconds: {seconds!r}")
        return ("ok", seconds, "")


def _integer(name, value):
    """`value` as an int; TypeError otherwise. Its range is the library's to check (TuneOptions::check,
    load_tuning_target, the Tuner's ask), once, for the CLI and Python alike."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    return int(value)


class LearnedModel:
    """What a Tuner has learned: `costs` (float32, every candidate; lower = predicted faster),
    `describe` (the learner: its name, auto's choice and cross-validated taus), `save(path)` (a
    learner file, as `graphcost tune --model-out` writes: `graphcost rank PROGRAM --model FILE`)."""

    def __init__(self, tuner):
        self._core = tuner
        self.costs = tuner.costs
        self.describe = tuner.learner

    def save(self, path):
        if self._core is None:
            raise ValueError("save: this LearnedModel was unpickled without its learner (save it before pickling)")
        self._core.save_learner(output_path(path, "path"))

    def __getstate__(self):  # the costs and the description travel; the fitted learner stays in its Tuner
        return {"_core": None, "costs": self.costs, "describe": self.describe}

    def __repr__(self):
        return f"LearnedModel({self.describe!r})"


class Tuner:
    """The tuning loop asked and told, as Optuna's study.ask()/tell() and TVM's tuners: the caller
    measures (in parallel, on remote machines, in batches) and tells each result.

        t = graphcost.Tuner("module.hlo", journal="run.jsonl", seed=0)
        while not t.done:
            for config in t.ask(4):          # dicts, as tune()'s measure() receives them
                t.tell(config, seconds)      # or t.tell(config, failure="did not compile")
        t.best, t.model.costs, t.result()

    ask(n) hands out up to n configs of the round's batch (the learner learns and chooses when a
    batch is handed out; configs asked and not told stay taken). Every tell is in the journal on
    disk before it returns (the CLI's format: `graphcost tune TARGET --out OUT --resume` continues
    OUT.journal, and Tuner.resume continues the CLI's). write_config(config, path) writes an HLO
    target's module with the config's layouts, for the script that times it.
    Arguments as tune()'s (target, budget, per_round, strategy, learner, model, seed, candidates,
    explore, init, journal, kernel); oracle names who measures in the journal ('python', or 'command' for
    a run continued from the CLI's --oracle command, or 'replay'). learner may also be an object with
    scikit-learn's fit(X, y) and predict(X) (as TVM's PyCostModel): X the configs' varying values
    (float32, a row per config: a layout config's configurable nodes' values, a tile config's
    features, a space's parameters), y the measured runtimes' logs; its predictions rank the
    candidates (lower = faster). Any scikit-learn regressor, xgboost.XGBRegressor, or your own."""

    def __init__(self, target, budget=100, per_round=10, strategy="online", learner="auto", model=None, seed=0, candidates=1000,
                 explore=None, init="previous", journal=None, oracle="python", kernel=None):
        target = target if isinstance(target, Graph) else input_path(target, "target")
        _integer("budget", budget)
        _integer("per_round", per_round)
        _integer("candidates", candidates)
        if _integer("seed", seed) < 0 or seed >= 2**64:  # beyond uint64 pybind11 would quote the private signature
            raise ValueError(f"seed: expected an integer in [0, 2**64), got {seed}")
        journal = "" if journal is None else path_text(journal, "journal")
        explore = float("nan") if explore is None else float(explore)
        estimator = None
        if not isinstance(learner, str):  # a Python learner: scikit-learn's fit(X, y) / predict(X)
            estimator, learner = learner, "python"
        if kernel is not None and not isinstance(kernel, str):
            raise TypeError(f"kernel: expected an instruction's name (str) or None, got {type(kernel).__name__}")
        self._core = _Tuner(target, oracle, budget, per_round, strategy, init, learner, model, seed, candidates, explore, journal,
                            estimator, kernel or "")
        self.budget, self.per_round = budget, per_round

    @classmethod
    def resume(cls, journal, target=None, budget=None, model=None):
        """The run a journal holds (written by a Tuner, tune(journal=...) or the CLI), continued: its
        target (or `target`, when the file moved), options and oracle from the journal's header;
        `budget` may be raised. Nothing told before is asked again."""
        path = input_path(journal, "journal")
        with open(path) as file:
            try:
                header = json.loads(file.readline())
            except ValueError as error:
                raise ValueError(f"{path}: line 1: expected a tuning journal's header (JSON), got {error}") from None
        options = header.get("options") if isinstance(header, dict) else None
        if not isinstance(options, dict) or "graphcost_tune" not in header:
            raise ValueError(f"{path}: line 1: expected a tuning journal's header with its options")
        learner = options.get("learner", {})
        explore = options.get("explore")
        return cls(target if target is not None else header["target"], budget=budget if budget is not None else header["budget"],
                   per_round=options["per_round"], strategy=options["strategy"], learner=learner.get("learner", "auto"), model=model,
                   seed=options["seed"], candidates=header.get("candidates", 1000), explore=explore,
                   init=learner.get("init", "previous"), journal=path, oracle=header.get("oracle", "python"),
                   kernel=header.get("kernel"))

    def ask(self, n=1):
        """Up to n configs to measure next (fewer only when the budget or the candidates run out)."""
        return self._core.ask(_integer("n", n))

    def tell(self, config, seconds=None, failure=None, status=None):
        """The measurement of an asked config (its dict or its index): `seconds`, or `failure` (a
        message: the config failed; status 'failed', or 'timeout' / 'garbage')."""
        index = config["config"] if isinstance(config, dict) else _integer("config", config)
        if failure is None and status is None:
            if seconds is None:
                raise TypeError("tell: expected seconds, or failure='why it failed'")
            return self._core.tell(index, "ok", float(seconds), "")
        status = status or "failed"
        if status not in ("failed", "timeout", "garbage"):
            raise ValueError(f"status: expected 'failed', 'timeout' or 'garbage', got {status!r}")
        return self._core.tell(index, status, 0.0, "" if failure is None else str(failure))

    def release(self, config):
        """Gives an asked config back untold (its measurement was abandoned): it may be asked again."""
        self._core.release(config["config"] if isinstance(config, dict) else _integer("config", config))

    def write_config(self, config, path):
        """An HLO text target's module with the config's layouts, written to `path` (atomically)."""
        index = config["config"] if isinstance(config, dict) else _integer("config", config)
        self._core.write_config(index, output_path(path, "path"))

    @property
    def done(self):
        """Nothing left to ask (the budget is measured or asked, or every candidate is)."""
        return self._core.done

    @property
    def asked(self):
        """Configs asked and not told yet (indices)."""
        return self._core.asked

    @property
    def measurements(self):
        return self._core.measurements

    @property
    def rounds(self):
        self._core.settle()
        return self._core.rounds

    @property
    def best(self):
        """{'config', 'seconds'} of the fastest measurement told, or None."""
        ok = [m for m in self._core.measurements if m["status"] == "ok"]
        return None if not ok else {k: min(ok, key=lambda m: m["seconds"])[k] for k in ("config", "seconds")}

    @property
    def model(self):
        """The learner fitted to every measurement told (a LearnedModel), or None before it has learned."""
        self._core.settle()
        return LearnedModel(self._core) if self._core.learner is not None else None

    @property
    def journal(self):
        return self._core.journal or None

    @property
    def candidates(self):
        return self._core.candidates

    @property
    def fingerprint(self):
        """What the candidates are (node count, configs, a hash): a CpuOracle checks it measures the same."""
        return self._core.fingerprint

    def result(self, interrupted=False):
        """The run as tune() returns it (a TuneResult)."""
        self._core.settle()
        return TuneResult(self._core.result(interrupted))


def tune(target, measure=None, budget=100, per_round=10, strategy="online", model=None, seed=0, timeout=None, candidates=1000,
         explore=None, init="previous", learner="auto", progress=None, journal=None, on_error="record", kernel=None):
    """Tunes a program from a few of its measurements (docs/tuning.md): a loop over Tuner.

    target     a path (str or os.PathLike: a labelled or hidden .npz, tuning records, a module:
               HLO text or proto, whose candidates are config 0 and `candidates` random layouts, or
               a kernel's parameter space: T4 results, a Kernel Tuner cache or a T1 definition) or
               a Graph
    measure    measure(config) -> seconds, called for each config to measure, one at a time, in
               this process; config is a dict: {'config': index, 'nodes': [{'node', 'name',
               'opcode', 'output', 'input', 'kernel'}...]} (layout), {'config_feat': [...]} (tile)
               or {'parameters': {name: value}} (a space); for a module read from HLO text it also
               holds 'module': the path of the module with the config's layouts, written for it.
               A value that is not a positive finite number, or no answer within `timeout`
               seconds, is a failed measurement: kept, and tuning goes on. None: replay the file's
               recorded runtimes. A CpuOracle (graphcost.CpuOracle(target)) times each config on
               this CPU through Halide, as `graphcost tune --oracle cpu`.
    kernel     a module target: the instruction (a dot, a fusion) tuned as a module of its own
    on_error   what an Exception raised by measure() is: 'record' (a failed measurement, its
               message kept) or 'raise' (the run stops and the exception rises). KeyboardInterrupt
               and SystemExit always stop the run and rise. Either way the exception carries the
               partial TuneResult as `.tune_result`.
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
               'weighed' (GNN and ridge weighed by how each ranked the new measurements), 'blend',
               or a Python object with fit(X, y) / predict(X) (Tuner says what X and y are)
    progress   progress(round_report) after each round; returning False stops the run
    Returns a TuneResult. Ctrl-C stops after the measurement in hand and raises KeyboardInterrupt
    with the partial result as `.tune_result`. TuneError (its `.result` the partial one) when every
    measurement of the first round failed: a broken measure(), not a bad config.
    """
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValueError(f"timeout: expected a positive number of seconds or None, got {timeout!r}")
    oracle = None if measure is None else _Oracle(measure, timeout, on_error)
    tuner = Tuner(target, budget=budget, per_round=per_round, strategy=strategy, learner=learner, model=model, seed=seed,
                  candidates=candidates, explore=explore, init=init, journal=journal, oracle="replay" if measure is None else "python",
                  kernel=kernel)
    if hasattr(measure, "check_candidates"):  # a CpuOracle: it must measure the candidates this run chooses among
        measure.check_candidates(tuner)
    core, stopped = tuner._core, False
    modules = tempfile.TemporaryDirectory(prefix="graphcost-tune-") if core.writes_modules and oracle is not None else None
    try:
        while not core.done and not stopped:
            batch = core.ask(per_round)
            for config in batch:
                if oracle is None:
                    status, seconds, message = core.replay(config["config"])
                else:
                    if modules is not None:  # the module with this config's layouts, for a script that compiles and times it
                        config["module"] = os.path.join(modules.name, f"config-{config['config']}.hlo")
                        core.write_config(config["config"], config["module"])
                    status, seconds, message = oracle(config)
                core.tell(config["config"], status, seconds, message)
            core.settle()
            report = core.rounds[-1]
            if oracle is not None and report["ok"] == 0 and report["measured"] >= min(per_round, budget):
                raise TuneError(f"every one of the {report['measured']} measurements so far failed: measure() looks broken "
                                "(each failure's message is in the result's measurements)")
            if progress is not None:
                go_on = progress(report)
                stopped = go_on is not None and not go_on
    except BaseException as error:  # noqa: B902: the run stops; what it measured goes with the error
        for config in core.asked:
            core.release(config)
        result = tuner.result(interrupted=True)
        if isinstance(error, TuneError):
            error.result = result
        try:
            error.tune_result = result
        except AttributeError:  # an exception type without a __dict__
            pass
        raise
    finally:
        if modules is not None:
            modules.cleanup()
    result = tuner.result(interrupted=stopped)
    result["model"] = tuner.model
    return result
