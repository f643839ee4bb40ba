"""Graphs from Python: loading equals numpy's np.load of the same file, arrays are views (no
copies), modules and records import with their names, hostile files raise graphcost's errors."""
import os
import subprocess

import numpy as np
import pytest

import graphcost as gc
from conftest import DATA, GRAPHCOST, real

LAYOUT = "tpugraphs/npz/layout/xla/default/train/unet3d.npz"
TILE = "tpugraphs/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz"


def test_loading_equals_np_load():
    for relative in (LAYOUT, TILE):
        path = real(relative)
        graph, arrays = gc.load(path), np.load(path)
        np.testing.assert_array_equal(graph.node_feat, arrays["node_feat"])
        np.testing.assert_array_equal(graph.node_opcode, arrays["node_opcode"])
        np.testing.assert_array_equal(graph.edge_index, arrays["edge_index"])
        np.testing.assert_array_equal(graph.config_runtime, arrays["config_runtime"])
        if graph.kind == "layout":
            np.testing.assert_array_equal(graph.node_config_feat, arrays["node_config_feat"])
            np.testing.assert_array_equal(graph.node_config_ids, arrays["node_config_ids"])
            np.testing.assert_array_equal(graph.node_splits, arrays["node_splits"])  # the same shape: (1, 3)
        else:
            np.testing.assert_array_equal(graph.config_feat, arrays["config_feat"])
            np.testing.assert_array_equal(graph.config_runtime_normalizers, arrays["config_runtime_normalizers"])


def test_arrays_are_read_only_views_that_keep_their_graph():
    graph = gc.load(real(LAYOUT))
    features = graph.node_feat
    assert features.base is not None and not features.flags.owndata and not features.flags.writeable
    with pytest.raises(ValueError):
        features[0, 0] = 1
    del graph
    assert features.shape == (2774, 140) and np.isfinite(features).all()


def test_save_round_trips_and_numpy_reads_it(tmp_path):
    graph = gc.load(real(LAYOUT))
    out = str(tmp_path / "copy.npz")
    graph.save(out)
    again = gc.load(out)
    np.testing.assert_array_equal(again.node_feat, graph.node_feat)
    np.testing.assert_array_equal(np.load(out)["config_runtime"], graph.config_runtime)


def test_modules_import_with_names_as_the_cli_does(tmp_path):
    module = real("hlo/resnet50_keras_jax_f32.hlo")
    graph = gc.import_module(module, configs=10, seed=3)
    out = str(tmp_path / "resnet.npz")
    subprocess.run([GRAPHCOST, "import", module, "--out", out, "--configs", "10", "--seed", "3", "-q"], check=True, capture_output=True)
    arrays = np.load(out)
    np.testing.assert_array_equal(graph.node_feat, arrays["node_feat"])
    np.testing.assert_array_equal(graph.node_config_feat, arrays["node_config_feat"])
    assert graph.node_names == bytes(arrays["node_names"]).decode().split("\n")
    assert graph.node_count == 1755 and any(name for name in graph.op_names)
    assert len(gc.import_tile_kernels(real("hlo/fusion.hlo"))) == 4
    kernels = gc.import_records(real("tpugraphs-raw/op_tuning_data.pb"))
    assert len(kernels) == 10 and all(k.labelled and k.kind == "tile" for k in kernels)
    assert gc.load(real("hlo/hlo_opt_hlo_protobinary.pb")).node_count == 1


def test_hostile_files_raise_graphcost_errors_not_crashes(tmp_path):
    with pytest.raises(gc.InputError) as error:
        gc.load(real("nonconforming/alexnet_trimmed_columns.npz"))
    assert error.value.field == "node_feat" and error.value.expected == "shape (n, 140)" and "(372, 70)" in error.value.actual
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(open(real(LAYOUT), "rb").read()[:5000])
    with pytest.raises(gc.InputError, match="truncated.npz"):
        gc.load(str(truncated))
    garbage = tmp_path / "garbage.pb"
    garbage.write_bytes(bytes([0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f]))
    with pytest.raises(gc.InputError, match="byte 0: message field 3: expected a length within"):
        gc.load(str(garbage))
    cut = tmp_path / "cut.pb"
    cut.write_bytes(open(real("tpugraphs-raw/op_tuning_data.pb"), "rb").read()[:3000])
    with pytest.raises(gc.InputError, match="byte 0: message field 1: expected a length within"):
        gc.import_records(str(cut))
    hlo = tmp_path / "bad.hlo"
    hlo.write_text("HloModule m\nENTRY e {\n  ROOT a = f32[2]{0,0} parameter(0)\n}\n")
    with pytest.raises(gc.InputError, match="bad.hlo:3:"):
        gc.import_module(str(hlo))
    with pytest.raises(FileNotFoundError):
        gc.load(str(tmp_path / "missing.npz"))
