"""Builds .npz (zip) files for the hostile-input tests, including ones no honest writer makes:
members that inflate to gigabytes from a few kilobytes (deflate blocks of zeros repeated), npy
headers that disagree with the zip directory, member names with control bytes.

Each member is (name, header_bytes, payload) where payload is bytes or ZeroRun(n): n zero bytes,
which are never materialised. Sizes and CRCs in the zip directory are the true ones unless a
member overrides `declared_size`.
"""
import struct
import zlib

import numpy as np

_ZERO_BLOCK = 1 << 20
_zero_block_deflated = None


class ZeroRun:
    def __init__(self, count):
        self.count = count


def npy_header(dtype, shape, fortran=False):
    """The bytes of a version-1 npy header for `dtype` and `shape` (numpy's own writer)."""
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                                 "fortran_order": fortran, "shape": tuple(shape)})
    return buffer.getvalue()


def npy_bytes(array):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _self_contained_deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH)


def _zero_crc(crc, count):
    block = bytes(min(count, _ZERO_BLOCK))
    while count > 0:
        take = min(count, len(block))
        crc = zlib.crc32(block[:take] if take < len(block) else block, crc)
        count -= take
    return crc


def _deflate_member(header, payload):
    """(compressed bytes, uncompressed size, crc32) of header + payload."""
    global _zero_block_deflated
    pieces = [_self_contained_deflate(header)] if header else []
    crc = zlib.crc32(header)
    size = len(header)
    if isinstance(payload, ZeroRun):
        if _zero_block_deflated is None:
            _zero_block_deflated = _self_contained_deflate(bytes(_ZERO_BLOCK))
        full, rest = divmod(payload.count, _ZERO_BLOCK)
        pieces.append(_zero_block_deflated * full)
        if rest:
            pieces.append(_self_contained_deflate(bytes(rest)))
        crc = _zero_crc(crc, payload.count)
        size += payload.count
    else:
        pieces.append(_self_contained_deflate(payload))
        crc = zlib.crc32(payload, crc)
        size += len(payload)
    pieces.append(b"\x03\x00")  # an empty final block
    return b"".join(pieces), size, crc & 0xFFFFFFFF


def write_npz(path, members):
    """members: list of dicts {name, header, payload, declared_size (optional)}; bytes names allowed."""
    out = open(path, "wb")
    central = []
    for member in members:
        name = member["name"]
        name = name if isinstance(name, bytes) else name.encode()
        data, size, crc = _deflate_member(member.get("header", b""), member["payload"])
        declared = member.get("declared_size", size)
        offset = out.tell()
        extra = struct.pack("<HHQQ", 1, 16, declared, len(data))
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                              len(name), len(extra)) + name + extra)
        out.write(data)
        central.append((name, crc, declared, len(data), offset))
    directory_offset = out.tell()
    for name, crc, declared, compressed, offset in central:
        extra = struct.pack("<HHQQQ", 1, 24, declared, compressed, offset)
        out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF,
                              0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0xFFFFFFFF) + name + extra)
    directory_size = out.tell() - directory_offset
    zip64_end = out.tell()
    out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, len(central), len(central),
                          directory_size, directory_offset))
    out.write(struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1))
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    out.close()


def array_member(name, array):
    data = npy_bytes(array)
    return {"name": name + ".npy", "header": b"", "payload": data}


def layout_arrays(nodes=6, configs=4, seed=0):
    """The arrays of a small, valid layout file (a chain of nodes, two configurable)."""
    rng = np.random.default_rng(seed)
    node_feat = rng.random((nodes, 140), dtype=np.float32)
    ids = np.array([1, 3], dtype=np.int64)
    config = rng.integers(-1, 3, size=(configs, len(ids), 18)).astype(np.float32)
    return {
        "node_feat": node_feat,
        "node_opcode": np.full(nodes, 2, dtype=np.uint8),
        "edge_index": np.array([[i + 1, i] for i in range(nodes - 1)], dtype=np.int64),
        "node_config_feat": config,
        "node_config_ids": ids,
        "config_runtime": rng.integers(1000, 2000, size=configs).astype(np.int64),
        "node_splits": np.array([[0, nodes]], dtype=np.int64),
    }


def tile_arrays(nodes=5, configs=6, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "node_feat": rng.random((nodes, 140), dtype=np.float32),
        "node_opcode": np.full(nodes, 2, dtype=np.uint8),
        "edge_index": np.array([[i + 1, i] for i in range(nodes - 1)], dtype=np.int64),
        "config_feat": rng.random((configs, 24), dtype=np.float32),
        "config_runtime": rng.integers(1000, 2000, size=configs).astype(np.int64),
        "config_runtime_normalizers": np.full(configs, 1000, dtype=np.int64),
    }


def write_arrays(path, arrays, extra_members=()):
    write_npz(path, [array_member(name, array) for name, array in arrays.items()] + list(extra_members))
