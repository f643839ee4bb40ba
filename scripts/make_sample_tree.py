"""Writes a tiny TpuGraphs-format tree with Debian's numpy (np.savez_compressed, real keys and
dtypes): one labelled tile file and one labelled layout file. Used by scripts/demo.sh when no real
data is present; `graphcost gen` will produce realistic ones.

Usage: /usr/bin/python3 scripts/make_sample_tree.py OUT_DIR
"""
import os
import sys

import numpy as np


def node_features(shapes):
    feat = np.zeros((len(shapes), 140), dtype=np.float32)
    for i, shape in enumerate(shapes):
        feat[i, 13] = 1  # element type f32
        feat[i, 21:21 + len(shape)] = shape
        feat[i, 27] = sum(shape)
        feat[i, 28] = np.prod(shape)
        feat[i, 134:134 + len(shape)] = list(range(len(shape)))[::-1]
    feat[-1, 0] = 1  # root
    return feat


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    # Tile: parameter, parameter -> dot -> add (a fused kernel).
    tile_dir = os.path.join(out, "npz/tile/xla/train")
    os.makedirs(tile_dir, exist_ok=True)
    configs = rng.choice([1, 2, 4, 8, 16, 32, 64, 128], size=(12, 2)).astype(np.float32)
    config_feat = np.zeros((12, 24), dtype=np.float32)
    config_feat[:, 0:2] = configs
    config_feat[:, 6] = configs.sum(1)
    config_feat[:, 7] = configs.prod(1)
    runtime = (1e5 / np.sqrt(configs.prod(1)) + 1e3 * configs.prod(1) / 64).astype(np.int64)
    np.savez_compressed(
        os.path.join(tile_dir, "sample_dot_add.npz"),
        node_feat=node_features([[128, 256], [256, 64], [128, 64], [128, 64]]),
        node_opcode=np.array([63, 63, 34, 2], dtype=np.uint8),
        edge_index=np.array([[2, 0], [2, 1], [3, 2]], dtype=np.int64),
        config_feat=config_feat, config_runtime=runtime,
        config_runtime_normalizers=np.full(12, runtime[0], dtype=np.int64))
    # Layout: parameter -> convolution -> reshape -> dot, two configurable nodes.
    layout_dir = os.path.join(out, "npz/layout/xla/random/train")
    os.makedirs(layout_dir, exist_ok=True)
    config = np.full((6, 2, 18), -1, dtype=np.float32)
    for c in range(6):
        config[c, 0, 0:4] = rng.permutation(4)
        config[c, 1, 0:2] = rng.permutation(2)
    edges = np.asfortranarray(np.array([[1, 0], [2, 1], [3, 2]], dtype=np.int64))
    np.savez_compressed(
        os.path.join(layout_dir, "sample_conv_dot.npz"),
        node_feat=node_features([[8, 32, 32, 16], [8, 32, 32, 64], [256, 2048], [256, 128]]),
        node_opcode=np.array([63, 26, 75, 34], dtype=np.uint8),
        edge_index=edges, node_config_feat=config,
        node_config_ids=np.array([1, 3], dtype=np.int64),
        config_runtime=(1e6 * (1 + rng.random(6))).astype(np.int64),
        node_splits=np.array([[0, 4]], dtype=np.int64))
    print(f"wrote a 2-file sample tree to {out}")


if __name__ == "__main__":
    main()
