"""graphcost: learned cost models for ML compiler graphs (TpuGraphs), from Python.

The core is C++ (the same sources as the `graphcost` command line), bound with pybind11: loading
is graphcost's own npz reader, training and ranking its GNN, scoring exactly as Kaggle did. Long
calls release the GIL; nothing prints unless asked; calls share no state.

Data
    load(path) -> Graph           a TpuGraphs .npz, an XLA module (HLO text or proto), or tuning records
    import_module(path, configs, seed) -> Graph         a module as a layout graph with random configs
    import_tile_kernels(path, configs, seed) -> [Graph] a fused module's kernels
    import_records(path) -> [Graph]                      TpuGraphs raw tuning records, labelled
    Graph: node_feat, node_opcode, edge_index, config_feat / node_config_feat, node_config_ids,
           config_runtime, ... (read-only numpy views, no copies), node_names, save(path)
Metrics and scoring
    kendall_tau(x, y), slowdown_at_k(runtimes, order, k), tile_score(runtimes, order),
    score(solution, submission) -> the report of `graphcost-eval score --json`
Models
    Model.load(path); model.predict(graph), model.rank(graph), model.explain(graph, config)
    train(data, collection, out, ..., progress=callback)   Ctrl-C stops after the epoch, checkpoint kept
Simulator and generator
    simulate(graph, hardware), gemm_seconds(m, n, k, dtype, hardware), generate(out, graphs, seed)
Tuning
    tune(target, measure=fn, budget=...)   the model learns the program from your measurements
Errors
    InputError (ValueError: .file .field .expected .actual), IoError (OSError), InternalError

docs/python.md walks through each with real files.
"""
import math
import threading

from ._graphcost import (  # noqa: F401
    Graph,
    InputError,
    InternalError,
    IoError,
    Model,
    gemm_seconds,
    generate,
    import_module,
    import_records,
    import_tile_kernels,
    kendall_tau,
    load,
    score,
    simulate,
    slowdown_at_k,
    tile_score,
    train,
)
from ._graphcost import _tune

__all__ = [
    "Graph", "InputError", "InternalError", "IoError", "Model", "TuneResult", "gemm_seconds", "generate", "import_module",
    "import_records", "import_tile_kernels", "kendall_tau", "load", "score", "simulate", "slowdown_at_k", "tile_score", "train", "tune",
]


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
    interrupted   True when Ctrl-C stopped it (what was measured is kept)
    target, candidates, oracle, options, learner: as `graphcost tune --json` reports them (the
                  same serializer): the program, the configs to choose among, the oracle ('replay'
                  or 'python'), every option, the last fitted learner
    """

    __getattr__ = dict.__getitem__


def _measure_with_timeout(measure, config, timeout):
    """Runs measure(config) on a daemon thread so a call that hangs past `timeout` seconds can be
    given up on (its thread is left to finish; its answer is ignored). Returns (status, seconds,
    message) as the C++ loop reads it."""
    box = {}

    def call():
        try:
            box["value"] = measure(config)
        except BaseException as error:  # noqa: B902: reported as a failed measurement
            box["error"] = error

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    try:
        worker.join(timeout)
    except KeyboardInterrupt:
        return ("stopped", 0.0, "stopped")
    if worker.is_alive():
        return ("timeout", 0.0, f"no answer within {timeout:g} s")
    if "error" in box:
        if isinstance(box["error"], KeyboardInterrupt):
            return ("stopped", 0.0, "stopped")
        return ("failed", 0.0, f"{type(box['error']).__name__}: {box['error']}")
    try:
        seconds = float(box["value"])
    except (TypeError, ValueError):
        return ("garbage", 0.0, f"not a number of seconds: {box['value']!r}"[:200])
    if not math.isfinite(seconds) or seconds <= 0:
        return ("garbage", 0.0, f"not a positive finite number of seconds: {seconds!r}")
    return ("ok", seconds, "")


def tune(target, measure=None, budget=100, per_round=10, strategy="online", model=None, seed=0, timeout=None, candidates=1000,
         explore=None, init="previous", learner="auto", progress=None):
    """Tunes a program from a few of its measurements (docs/tuning.md).

    target     a path (a labelled or hidden .npz, tuning records, a module: HLO text or proto,
               whose candidates are config 0 and `candidates` random layouts, or a kernel's
               parameter space: T4 results, a Kernel Tuner cache or a T1 definition) or a Graph
    measure    measure(config) -> seconds, called for each config to measure, in this process;
               config is a dict: {'config': index, 'nodes': [{'node', 'name', 'opcode', 'output',
               'input', 'kernel'}...]} (layout), {'config_feat': [...]} (tile) or {'parameters':
               {name: value}} (a space). An exception, a
               value that is not a positive finite number, or no answer within `timeout` seconds
               is a failed measurement: kept, and tuning goes on. None: replay the file's recorded
               runtimes.
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
    progress   progress(round_report) after each round
    Returns a TuneResult. Ctrl-C stops after the measurement in hand (result.interrupted).
    """
    wrapper = None
    if measure is not None:
        def wrapper(config):
            return _measure_with_timeout(measure, config, timeout)
    explore = float("nan") if explore is None else explore
    return TuneResult(_tune(target, wrapper, budget, per_round, strategy, init, learner, model, seed, candidates, explore, progress))
