"""Type stubs of the graphcost package (the C++ extension and its Python layer), for editors."""
import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

class InputError(ValueError):
    file: str
    field: str
    expected: str
    actual: str

class IoError(OSError): ...
class InternalError(RuntimeError): ...

class TuneError(RuntimeError):
    result: Optional["TuneResult"]

Path = Union[str, "os.PathLike[str]"]

class Graph:
    kind: str
    source: str
    provenance: str
    node_count: int
    config_count: int
    labelled: bool
    node_feat: npt.NDArray[np.float32]
    node_opcode: npt.NDArray[np.uint8]
    edge_index: npt.NDArray[np.int32]
    config_feat: Optional[npt.NDArray[np.float32]]
    node_config_feat: Optional[npt.NDArray[np.int8]]
    node_config_ids: npt.NDArray[np.int32]
    config_runtime: npt.NDArray[np.int64]
    config_runtime_normalizers: Optional[npt.NDArray[np.int64]]
    node_splits: npt.NDArray[np.int64]
    node_names: List[str]
    op_names: List[str]
    node_computations: List[str]
    def summary(self) -> Dict[str, Any]: ...
    def save(self, path: Path) -> None: ...
    @staticmethod
    def from_arrays(node_feat: npt.ArrayLike, node_opcode: npt.ArrayLike, edge_index: npt.ArrayLike,
                    config_runtime: Optional[npt.ArrayLike] = None, config_feat: Optional[npt.ArrayLike] = None,
                    node_config_feat: Optional[npt.ArrayLike] = None, node_config_ids: Optional[npt.ArrayLike] = None,
                    config_runtime_normalizers: Optional[npt.ArrayLike] = None, node_splits: Optional[npt.ArrayLike] = None,
                    source: str = "arrays") -> "Graph": ...
    def to_torch(self) -> Dict[str, Any]: ...

def build_info() -> dict[str, Any]: ...
def load(path: Path) -> Graph: ...
def import_module(path: Path, configs: int = 100, seed: int = 0) -> Graph: ...
def import_tile_kernels(path: Path, configs: int = 1000, seed: int = 0) -> List[Graph]: ...
def import_records(path: Path) -> List[Graph]: ...

def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float: ...
def slowdown_at_k(runtimes: Sequence[float], order: Sequence[int], k: int = 5) -> float: ...
def tile_score(runtimes: Sequence[float], order: Sequence[int]) -> float: ...
def score(solution: Path, submission: Path, split: str = "valid", seed: int = 0, public_fraction: float = 0.5) -> Dict[str, Any]: ...

class Model:
    kind: str
    config: Dict[str, Any]
    @staticmethod
    def load(path: Path) -> "Model": ...
    @staticmethod
    def shipped(name: str) -> "Model": ...
    def save(self, path: Path) -> None: ...
    def predict(self, graph: Graph, configs: Optional[Sequence[int]] = None, threads: int = 1) -> npt.NDArray[np.float32]: ...
    def rank(self, graph: Graph, threads: int = 1) -> npt.NDArray[np.int32]: ...
    def explain(self, graph: Graph, config: int) -> Dict[str, Any]: ...
    def embed(self, graph: Graph, config: int = 0) -> Tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]: ...

def train(data: Path, collection: str, out: Path, epochs: int = 10, steps_per_epoch: int = 100, configs_per_step: int = 16,
          hidden: Optional[int] = None, layers: Optional[int] = None, hops: Optional[int] = None, loss: str = "listmle",
          learning_rate: float = 2e-3, seed: int = 0, resume: bool = False, init: str = "", relative_configs: Optional[bool] = None,
          progress: Optional[Callable[[Dict[str, Any]], Optional[bool]]] = None, overwrite: bool = False) -> Dict[str, Any]: ...

def simulate(graph: Graph, hardware: str = "nominal") -> npt.NDArray[np.float64]: ...
def gemm_seconds(m: int, n: int, k: int, dtype: str = "bf16", hardware: str = "tpu-v5e") -> float: ...
def generate(out: Path, graphs: int = 10, seed: int = 0, collections: Sequence[str] = (), threads: int = 1) -> Dict[str, Any]: ...

class TuneResult(Dict[str, Any]):
    model: Optional["LearnedModel"]
    measurements: List[Dict[str, Any]]
    rounds: List[Dict[str, Any]]
    costs: npt.NDArray[np.float32]
    measured: Graph
    best: Optional[Dict[str, Any]]
    interrupted: bool
    candidates: int
    target: str
    oracle: str
    options: Dict[str, Any]
    learner: Optional[Dict[str, Any]]

def tune(target: Union[Path, Graph], measure: Optional[Callable[[Dict[str, Any]], float]] = None, budget: int = 100, per_round: int = 10,
         strategy: str = "online", model: Optional[Model] = None, seed: int = 0, timeout: Optional[float] = None, candidates: int = 1000,
         explore: Optional[float] = None, init: str = "previous", learner: str = "auto",
         progress: Optional[Callable[[Dict[str, Any]], Optional[bool]]] = None, journal: Optional[Path] = None,
         on_error: str = "record", kernel: Optional[str] = None) -> TuneResult: ...

class CpuOracle:
    configs: int
    fingerprint: str
    last: Optional[Dict[str, Any]]
    def __init__(self, target: Path, kernel: Optional[str] = None, candidates: int = 1000, seed: int = 0,
                 timeout: float = 120, threads: int = 1) -> None: ...
    def check_candidates(self, tuner: "Tuner") -> None: ...
    def __call__(self, config: Union[Dict[str, Any], int]) -> float: ...
    def close(self) -> None: ...
    def __enter__(self) -> "CpuOracle": ...
    def __exit__(self, *args: Any) -> None: ...

class LearnedModel:
    costs: npt.NDArray[np.float32]
    describe: Optional[Dict[str, Any]]
    def save(self, path: Path) -> None: ...

class Tuner:
    budget: int
    per_round: int
    def __init__(self, target: Union[Path, Graph], budget: int = 100, per_round: int = 10, strategy: str = "online",
                 learner: str = "auto", model: Optional[Model] = None, seed: int = 0, candidates: int = 1000,
                 explore: Optional[float] = None, init: str = "previous", journal: Optional[Path] = None,
                 oracle: str = "python", kernel: Optional[str] = None) -> None: ...
    @classmethod
    def resume(cls, journal: Path, target: Optional[Union[Path, Graph]] = None, budget: Optional[int] = None,
               model: Optional[Model] = None) -> "Tuner": ...
    def ask(self, n: int = 1) -> List[Dict[str, Any]]: ...
    def tell(self, config: Union[Dict[str, Any], int], seconds: Optional[float] = None, failure: Optional[str] = None,
             status: Optional[str] = None) -> Dict[str, Any]: ...
    def release(self, config: Union[Dict[str, Any], int]) -> None: ...
    def write_config(self, config: Union[Dict[str, Any], int], path: Path) -> None: ...
    done: bool
    asked: List[int]
    measurements: List[Dict[str, Any]]
    rounds: List[Dict[str, Any]]
    best: Optional[Dict[str, Any]]
    model: Optional[LearnedModel]
    journal: Optional[str]
    candidates: int
    fingerprint: str
    def result(self, interrupted: bool = False) -> TuneResult: ...

class Dataset:
    root: str
    collection: str
    split: str
    paths: List[str]
    ids: List[str]
    def __init__(self, root: Path, collection: str, split: str) -> None: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: Union[int, slice]) -> Any: ...
    def __iter__(self) -> Iterator[Graph]: ...

def write_submission(path: Path, rankings: Any) -> None: ...
