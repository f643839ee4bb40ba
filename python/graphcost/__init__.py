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
    Dataset(root, collection, split): len, ds[i], ds.ids (Kaggle IDs); graph.to_torch(): PyG's tensors
Metrics and scoring
    kendall_tau(x, y), slowdown_at_k(runtimes, order, k), tile_score(runtimes, order),
    score(solution, submission) -> the report of `graphcost-eval score --json`
    write_submission(path, {id: order}): the Kaggle CSV
Models
    Model.load(path), model.save(path); model.predict(graph), model.rank(graph), model.explain(graph, config),
    model.embed(graph, config) (node embeddings)
    train(data, collection, out, ..., progress=callback)   Ctrl-C stops after the epoch, checkpoint kept
Simulator and generator
    simulate(graph, hardware), gemm_seconds(m, n, k, dtype, hardware), generate(out, graphs, seed)
Tuning
    tune(target, measure=fn, budget=...)   the model learns the program from your measurements
    Tuner(target, journal=...): ask(n), tell(config, seconds), best, model, result(); Tuner.resume(journal)
    CpuOracle(module, kernel=...): measure on this CPU through Halide (needs graphcost-cpu: docs/lowering.md)
Build
    build_info(): the CPU level the core was compiled for (x86-64-v2, x86-64-v3, native) and its vector kernels
Errors
    InputError (ValueError: .file .field .expected .actual), IoError (OSError), InternalError,
    TuneError (RuntimeError: .result); files that cannot be read: FileNotFoundError, PermissionError

docs/python.md walks through each with real files.
"""
import errno
import io
import os
import tempfile

import numpy as np

from . import _isa

_isa.load_core()  # the wheel's fastest build for this CPU (graphcost/isa/), before anything imports the core
from . import _graphcost as _core  # noqa: E402
from ._arguments import folder_path as _folder_path, input_path as _input_path, output_path as _output_path
from ._graphcost import Graph, InputError, InternalError, IoError, Model  # noqa: F401
from .dataset import Dataset, graph_tensors as _graph_tensors, write_submission  # noqa: F401
from .cpu_oracle import CpuOracle  # noqa: F401
from .tuning import LearnedModel, TuneError, TuneResult, Tuner, tune  # noqa: F401

__all__ = [
    "CpuOracle", "Dataset", "Graph", "build_info", "InputError", "InternalError", "IoError", "LearnedModel", "Model", "TuneError", "TuneResult", "Tuner", "gemm_seconds", "generate", "import_module",
    "import_records", "import_tile_kernels", "kendall_tau", "load", "score", "simulate", "slowdown_at_k", "tile_score", "train", "tune", "write_submission",
]


def _documented(function, core):
    """`function` with the core's docstring (without pybind11's signature line): Python functions,
    so inspect.signature, help() and editors see the real parameters."""
    text = core.__doc__ or ""
    function.__doc__ = text.split("\n\n", 1)[1] if text.startswith(core.__name__ + "(") and "\n\n" in text else text
    return function


def build_info():
    """Which build of the core runs: {"march": the CPU level it was compiled for (x86-64-v2 or a
    faster level in the wheel, which loads the highest this CPU has; native for a source build),
    "simd": the vector instruction sets of its matrix kernels, "variants": the faster levels this
    installation carries (graphcost/isa/), "path": the extension's file}. GRAPHCOST_ISA=<level>
    chooses by hand."""
    return {"march": _core._march, "simd": _core._simd, "variants": _isa.installed(), "path": _core.__file__}


def load(path):
    return _core.load(_input_path(path, "path"))


def import_module(path, configs=100, seed=0):
    return _core.import_module(_input_path(path, "path"), configs, seed)


def import_tile_kernels(path, configs=1000, seed=0):
    return _core.import_tile_kernels(_input_path(path, "path"), configs, seed)


def import_records(path):
    return _core.import_records(_input_path(path, "path"))


def kendall_tau(x, y):
    return _core.kendall_tau(x, y)


def slowdown_at_k(runtimes, order, k=5):
    return _core.slowdown_at_k(runtimes, order, k)


def tile_score(runtimes, order):
    return _core.tile_score(runtimes, order)


def score(solution, submission, split="valid", seed=0, public_fraction=0.5):
    return _core.score(_input_path(solution, "solution", folder=True), _input_path(submission, "submission"), split, seed,
                       public_fraction)


def simulate(graph, hardware="nominal"):
    return _core.simulate(graph, hardware)


def gemm_seconds(m, n, k, dtype="bf16", hardware="tpu-v5e"):
    return _core.gemm_seconds(m, n, k, dtype, hardware)


def generate(out, graphs=10, seed=0, collections=(), threads=1):
    return _core.generate(_output_path(out, "out"), graphs, seed, list(collections), threads)


def train(data, collection, out, epochs=10, steps_per_epoch=100, configs_per_step=16, hidden=None, layers=None, hops=None,
          loss="listmle", learning_rate=2e-3, seed=0, resume=False, init="", relative_configs=None, progress=None, overwrite=False):
    architecture = {"hidden": (hidden, 64), "layers": (layers, 2), "hops": (hops, 1), "relative_configs": (relative_configs, False)}
    given = [name for name, (value, _) in architecture.items() if value is not None]
    value = {name: default if given_value is None else given_value for name, (given_value, default) in architecture.items()}
    init = "" if init in ("", None) else _input_path(init, "init")
    return _core.train(_folder_path(data, "data"), collection, _output_path(out, "out"), epochs, steps_per_epoch, configs_per_step,
                       value["hidden"], value["layers"], value["hops"], loss, learning_rate, seed, resume, init,
                       value["relative_configs"], progress, given, overwrite)


for _name in ("load", "import_module", "import_tile_kernels", "import_records", "kendall_tau", "slowdown_at_k", "tile_score", "score",
              "simulate", "gemm_seconds", "generate", "train"):
    _documented(globals()[_name], getattr(_core, _name))
train.__doc__ += """
hidden, layers, hops, relative_configs: None is the default (64, 2, 1, False) for a new model and
the checkpoint's with resume=True (a value that differs from the checkpoint's is an InputError).
An existing `out` is refused unless resume=True or overwrite=True."""

_core_model_load = Model.load
_core_graph_save = Graph.save


def _model_load(path):
    """Reads a model file (docs/model-format.md); InputError on a bad one, FileNotFoundError when there is none."""
    return _core_model_load(_input_path(path, "path"))


def _graph_save(self, path):
    return _core_graph_save(self, _output_path(path, "path"))


_graph_save.__doc__ = _core_graph_save.__doc__
Model.load = staticmethod(_model_load)
Graph.save = _graph_save
_core_model_save = Model.save


def _model_save(self, path):
    return _core_model_save(self, _output_path(path, "path"))


_model_save.__doc__ = _core_model_save.__doc__
Model.save = _model_save


def _shipped_models_folder():
    """The wheel's graphcost/models, or the repository's models/ above a build tree's package."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "models")] + [os.path.join(here, *[".."] * up, "models") for up in range(1, 5)]
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "layout_xla.npz")):
            return os.path.normpath(folder)
    raise FileNotFoundError(errno.ENOENT, "graphcost's shipped models are not in this installation", candidates[0])


def _model_shipped(name):
    """A model graphcost ships (models/: 'layout_xla', 'layout_nlp', 'tile_xla', ...; each has a
    card, NAME.md, beside it): Model.shipped('layout_xla')."""
    folder = _shipped_models_folder()
    names = sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".npz"))
    if name not in names:
        raise ValueError(f"name: expected one of {', '.join(names)}, got {name!r}")
    return _model_load(os.path.join(folder, name + ".npz"))


Model.shipped = staticmethod(_model_shipped)


# The methods as Python functions (inspect.signature, help() and editors see their parameters),
# each calling the core's.
def _with_signature(cls, name, function):
    core = getattr(cls, name)
    _documented(function, core)
    function.__name__ = name
    function._core = core
    setattr(cls, name, function)


_with_signature(Model, "predict", lambda self, graph, configs=None, threads=1: Model.predict._core(self, graph, configs, threads))
_with_signature(Model, "rank", lambda self, graph, threads=1: Model.rank._core(self, graph, threads))
_with_signature(Model, "explain", lambda self, graph, config: Model.explain._core(self, graph, config))
_with_signature(Model, "embed", lambda self, graph, config=0: Model.embed._core(self, graph, config))
_with_signature(Graph, "summary", lambda self: Graph.summary._core(self))


def _file_bytes(save, obj):
    """What save(obj, path) writes, as bytes (a pickle holds a graph or a model as its own file format)."""
    with tempfile.TemporaryDirectory(prefix="graphcost-pickle-") as folder:
        path = os.path.join(folder, "object.npz")
        save(obj, path)
        with open(path, "rb") as file:
            return file.read()


def _graph_from_state(data, source):
    return _core._graph_from_bytes(data, source)


def _model_from_state(data):
    return Model._from_bytes(data)


_FILE_DTYPES = {"node_feat": np.float32, "node_opcode": np.uint8, "edge_index": np.int64, "config_feat": np.float32,
                "node_config_feat": np.float32, "node_config_ids": np.int64, "config_runtime_normalizers": np.int64,
                "node_splits": np.int64, "config_runtime": np.int64}


def _graph_from_arrays(node_feat, node_opcode, edge_index, config_runtime=None, config_feat=None, node_config_feat=None,
                       node_config_ids=None, config_runtime_normalizers=None, node_splits=None, source="arrays"):
    """A Graph from numpy arrays with the TpuGraphs files' names and meanings (docs/tpugraphs.md):
    a tile graph with config_feat (c, 24) and config_runtime_normalizers, a layout graph with
    node_config_feat (c, k, 18) and node_config_ids (k,). config_runtime None: unlabelled (zeros, as
    the test split); node_splits None: one segment, [[0, n]]. The arrays are checked by the same reader as a file (an InputError names the
    array, the expected and the actual shape or value) and copied into the Graph."""
    arrays = {"node_feat": node_feat, "node_opcode": node_opcode, "edge_index": edge_index, "config_feat": config_feat,
              "node_config_feat": node_config_feat, "node_config_ids": node_config_ids,
              "config_runtime_normalizers": config_runtime_normalizers, "node_splits": node_splits}
    arrays = {name: np.asarray(value) for name, value in arrays.items() if value is not None}
    configs = len(arrays["config_feat"] if "config_feat" in arrays else arrays.get("node_config_feat", []))
    arrays["config_runtime"] = np.zeros(configs, np.int64) if config_runtime is None else np.asarray(config_runtime)
    if "node_config_feat" in arrays and "node_splits" not in arrays:  # one segment: the whole graph
        arrays["node_splits"] = np.array([[0, len(arrays["node_feat"])]], np.int64)
    for name, array in arrays.items():  # the files' dtypes; an integer array must be given as integers (never truncated)
        dtype = _FILE_DTYPES[name]
        if np.issubdtype(dtype, np.integer) and array.size and array.dtype.kind not in "iu":
            raise TypeError(f"{name}: expected integers, got dtype {array.dtype}")
        arrays[name] = array.astype(dtype, copy=False)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return _core._graph_from_bytes(buffer.getvalue(), source)


Graph.from_arrays = staticmethod(_graph_from_arrays)
Graph.to_torch = _graph_tensors

# Pickling and copying (joblib, DataLoader workers, copy.deepcopy): a Graph or a Model travels as
# the bytes of its own file (Graph.save, Model.save) and is read back by the same checked reader.
Graph.__reduce__ = lambda self: (_graph_from_state, (_file_bytes(_core_graph_save, self), self.source))
Model.__reduce__ = lambda self: (_model_from_state, (_file_bytes(_core_model_save, self),))
