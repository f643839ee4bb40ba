"""What a PyG or Kaggle user reaches for: Dataset (len, indexing, Kaggle IDs), write_submission
(scored as graphcost-eval scores it), Graph.to_torch (zero-copy where the dtype allows, PyG's edge
direction) and Model.embed (node embeddings)."""
import os

import numpy as np
import pytest

import graphcost as gc
from conftest import DATA, REPO, real


def test_a_dataset_indexes_a_collection_with_kaggle_ids():
    real("tpugraphs/npz/tile/xla/test")
    ds = gc.Dataset(os.path.join(DATA, "tpugraphs", "npz"), "tile:xla", "test")
    assert len(ds) == len(ds.ids) == len(ds.paths) >= 1
    assert all(i.startswith("tile:xla:") for i in ds.ids)
    graph = ds[0]
    assert graph.source == ds.paths[0] and ds[-1].source == ds.paths[-1]
    assert [g.source for g in ds] == ds.paths and len(ds[:2]) == min(2, len(ds))
    with pytest.raises(IndexError):
        ds[len(ds)]
    with pytest.raises(FileNotFoundError):
        gc.Dataset("/no/such/tree", "tile:xla", "test")


def test_a_submission_written_from_python_scores_as_the_evaluator_reads_it(tmp_path):
    tree = tmp_path / "tree"
    gc.generate(tree, graphs=6, seed=4, collections=["tile:xla", "layout:xla:random"])
    rankings = {}
    for collection in ("tile:xla", "layout:xla:random"):
        ds = gc.Dataset(tree, collection, "valid")
        for graph, id in zip(ds, ds.ids):
            rankings[id] = np.argsort(gc.simulate(graph), kind="stable")  # the simulator's own order: perfect
    out = tmp_path / "submission.csv"
    gc.write_submission(out, rankings)
    report = gc.score(tree, out, split="valid")
    assert report["status"] == "scored"
    lines = out.read_text().splitlines()
    assert lines[0] == "ID,TopConfigs" and len(lines) == len(rankings) + 1
    with pytest.raises(TypeError):
        gc.write_submission(tmp_path / "bad.csv", {"tile:xla:x": [0.5, 1.0]})


def test_to_torch_shares_memory_and_follows_pyg():
    torch = pytest.importorskip("torch")
    graph = gc.load(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"))
    tensors = graph.to_torch()
    assert tensors["x"].dtype == torch.float32 and tuple(tensors["x"].shape) == graph.node_feat.shape
    assert tensors["x"].data_ptr() == graph.node_feat.ctypes.data  # no copy
    assert tensors["node_config_feat"].data_ptr() == graph.node_config_feat.ctypes.data
    assert tensors["edge_index"].dtype == torch.int64 and tuple(tensors["edge_index"].shape) == (2, len(graph.edge_index))
    consumer, producer = graph.edge_index[0]
    assert tensors["edge_index"][0, 0].item() == producer and tensors["edge_index"][1, 0].item() == consumer
    tile = gc.load(real("tpugraphs/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz")).to_torch()
    assert tile["config_feat"].shape[1] == 24 and tile["op"].dtype == torch.int64


def test_a_model_embeds_a_graphs_nodes():
    graph = gc.load(real("tpugraphs/npz/layout/xla/default/train/unet3d.npz"))
    model = gc.Model.load(os.path.join(REPO, "models", "layout_xla.npz"))
    nodes, states = model.embed(graph, 3)
    assert states.shape == (len(nodes), model.config["hidden"]) and states.dtype == np.float32
    assert (np.diff(nodes) > 0).all() and nodes[-1] < graph.node_count and np.isfinite(states).all()
    changed = [int(n) for n in graph.node_config_ids if not np.array_equal(graph.node_config_feat[3], graph.node_config_feat[0])]
    assert not np.array_equal(states, model.embed(graph, 0)[1]) or not changed  # the config moves the states
    with pytest.raises(ValueError):
        model.embed(graph, graph.config_count)
