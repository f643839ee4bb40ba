"""TpuGraphs from Python as PyG and scikit-learn users expect: Dataset (one collection and split of
a tree: len, indexing, Kaggle IDs), write_submission (the Kaggle CSV) and graph_tensors (a Graph's
arrays as torch tensors in PyG's conventions)."""
import os

import numpy as np

from ._arguments import folder_path, output_path
from ._graphcost import _collection_files, _kaggle_id, _write_submission, load


class Dataset:
    """The graphs of one collection and split of a TpuGraphs tree (npz/tile/xla/train, npz/layout/
    xla/default/valid, ...), as PyG's datasets: len(ds), ds[i] (a Graph, read when indexed; a slice
    gives a list), iteration, ds.ids (Kaggle IDs, "layout:xla:default:unet3d"), ds.paths.

        ds = graphcost.Dataset("tpugraphs/npz", "layout:xla:default", "valid")
        for graph, id in zip(ds, ds.ids): ...

    root is the tree's npz folder (the one holding tile/ and layout/); collection "tile:xla",
    "layout:xla:default", ...; split "train", "valid" or "test" (or a comma list)."""

    def __init__(self, root, collection, split):
        self.root = folder_path(root, "root")
        self.collection, self.split = collection, split
        self.paths = list(_collection_files(self.root, collection, split))
        self.ids = [_kaggle_id(path) or os.path.splitext(os.path.basename(path))[0] for path in self.paths]

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [load(path) for path in self.paths[index]]
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index: expected an integer or a slice, got {type(index).__name__}")
        return load(self.paths[index])  # IndexError past the end, as a list

    def __iter__(self):
        return (load(path) for path in self.paths)

    def __repr__(self):
        return f"Dataset({self.collection!r}, {self.split!r}, {len(self)} graphs under {self.root!r})"


def write_submission(path, rankings):
    """A Kaggle submission (ID,TopConfigs CSV, rows sorted by ID; a tile row keeps its first 5
    configs, as Kaggle scores), written atomically. rankings: {id: order} or [(id, order)], each
    order the graph's config indices predicted fastest first (integers: model.rank(graph))."""
    items = rankings.items() if isinstance(rankings, dict) else rankings
    _write_submission(output_path(path, "path"), [(str(id), order) for id, order in items])


def graph_tensors(self):  # Graph.to_torch
    """A Graph's arrays as torch tensors in PyG's conventions: {'x' (nodes x 140 float32),
    'op' (node opcodes, int64), 'edge_index' (2 x edges int64, row 0 the producer: messages flow
    from operand to user, as PyG's source -> target), 'config_feat' (tile: configs x 24 float32) or
    'node_config_feat' (layout: configs x configurable x 18, int8) and 'node_config_ids' (int64),
    'y' (runtimes, int64 ns)}. x, config_feat, node_config_feat and y share the Graph's memory
    (no copy; torch has no read-only tensors: do not write to them); the rest are converted.
    torch_geometric.data.Data(**g.to_torch()) builds PyG's Data. Needs torch."""
    import warnings

    import torch

    def shared(array):
        with warnings.catch_warnings():  # "non-writable": the arrays are read-only views of the Graph
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(array)

    graph = self
    edges = graph.edge_index  # rows [consumer, producer]
    out = {"x": shared(graph.node_feat), "op": torch.from_numpy(graph.node_opcode.astype(np.int64)),
           "edge_index": torch.from_numpy(np.ascontiguousarray(edges[:, ::-1].T).astype(np.int64)), "y": shared(graph.config_runtime)}
    if graph.kind == "tile":
        out["config_feat"] = shared(graph.config_feat)
    else:
        out["node_config_feat"] = shared(graph.node_config_feat)
        out["node_config_ids"] = torch.from_numpy(graph.node_config_ids.astype(np.int64))
    return out
