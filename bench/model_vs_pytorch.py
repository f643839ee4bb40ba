#!/usr/bin/env python3
"""Benchmark: the graphcost cost model against the same architecture in PyTorch 1.13 (Debian's
python3-torch), on the same TpuGraphs files, fp32, CPU.

Usage: /usr/bin/python3 bench/model_vs_pytorch.py [--binary build/native-release/bench/bench_model]
                                                  [--file F.npz ...] [--rounds 3] [--threads 1] [--avx2-only]
Needs python3-torch and an optimised BLAS under it: `bash scripts/setup.sh --bench` installs
python3-torch and libopenblas0-pthread (Debian's torch is built with BLAS_INFO=generic and would
otherwise run on the reference netlib BLAS, 10x slower). The tests do not need either.

Both sides run: opcode embedding (16) + 140 node features + layout values embedded (7 values x 4,
18 per configurable node) -> linear 64 + GELU(tanh) -> 2 x [h + LayerNorm(GELU(h Ws + mean(producers)
Wp + mean(consumers) Wc + b))] -> sum and mean pooling -> linear 64 + GELU -> linear 1; layout graphs
pruned to the configurable nodes and their 1-hop neighbours. Timed, median of `rounds`:
  train_step: forward + ListMLE + backward + Adam on 16 configs of the graph (graphcost: 16 distinct
    configs drawn at random, as its trainer draws them; it computes each distinct (config, node) row
    once, PyTorch every row)
  forward per 1,000 configs: batched forward passes (16 configs a batch) without gradients
graphcost also reports ranking all configs with its incremental layout inference.

--avx2-only measures both sides as an AVX2-only x86 machine runs them, on any newer x86 (AVX-512
machines included): graphcost from the bench-avx2 preset (-march=x86-64-v3; `cmake --preset
bench-avx2 && cmake --build --preset bench-avx2`), PyTorch with ATEN_CPU_CAPABILITY=avx2 and
OpenBLAS with OPENBLAS_CORETYPE=Haswell (its AVX2 kernels). Each side runs
in its own process; PyTorch gets the same number of threads (torch.set_num_threads) as graphcost
uses for that figure (its tape is single-threaded; --threads sets PyTorch's count).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data"))
DEFAULT_FILES = [
    "tpugraphs/npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz",
    "tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz",
]

TORCH_PROGRAM = r"""
import json, sys, time
import numpy as np
import torch
path, rounds, threads, hidden, layers, sample = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), 64, 2, int(sys.argv[4])
torch.set_num_threads(threads)
torch.manual_seed(0)
z = np.load(path)
feat = z["node_feat"].astype(np.float32)
opcode = z["node_opcode"].astype(np.int64)
edges = z["edge_index"].astype(np.int64)  # (consumer, producer) pairs
n = feat.shape[0]
layout = "node_config_ids" in z.files
if layout:
    configurable = z["node_config_ids"].astype(np.int64)
    values = z["node_config_feat"].astype(np.int64) + 1  # configs x nc x 18, ids 0..6
    # 1-hop pruning, both directions, as graphcost's GraphView.
    keep = np.zeros(n, bool); keep[configurable] = True
    touch = keep[edges[:, 0]] | keep[edges[:, 1]]
    keep2 = keep.copy(); keep2[edges[touch, 0]] = True; keep2[edges[touch, 1]] = True
    nodes = np.nonzero(keep2)[0]
else:
    nodes = np.arange(n)
    tile = z["config_feat"].astype(np.float32)
index = -np.ones(n, np.int64); index[nodes] = np.arange(len(nodes))
e = edges[(index[edges[:, 0]] >= 0) & (index[edges[:, 1]] >= 0)]
consumer, producer = index[e[:, 0]], index[e[:, 1]]
v = len(nodes)
def mean_matrix(rows, cols):
    deg = np.bincount(rows, minlength=v).astype(np.float32)
    w = 1.0 / deg[rows]
    return torch.sparse_coo_tensor(np.stack([rows, cols]), torch.tensor(w), (v, v)).coalesce()
to_producers = mean_matrix(consumer, producer)   # row i: mean over what node i reads
to_consumers = mean_matrix(producer, consumer)   # row i: mean over who reads node i
x_nodes = torch.tensor(np.sign(feat[nodes]) * np.log1p(np.abs(feat[nodes])))
x_nodes = (x_nodes - x_nodes.mean(0)) / (x_nodes.std(0) + 1e-6)
ops = torch.tensor(opcode[nodes])
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.opcode = torch.nn.Embedding(121, 16)
        width = 16 + 140 + (18 * 4 if layout else 24)
        if layout: self.value = torch.nn.Embedding(7, 4)
        self.input = torch.nn.Linear(width, hidden)
        self.self_w = torch.nn.ModuleList([torch.nn.Linear(hidden, hidden) for _ in range(layers)])
        self.prod_w = torch.nn.ModuleList([torch.nn.Linear(hidden, hidden, bias=False) for _ in range(layers)])
        self.cons_w = torch.nn.ModuleList([torch.nn.Linear(hidden, hidden, bias=False) for _ in range(layers)])
        self.norm = torch.nn.ModuleList([torch.nn.LayerNorm(hidden) for _ in range(layers)])
        self.head = torch.nn.Linear(2 * hidden, hidden)
        self.out = torch.nn.Linear(hidden, 1)
    def forward(self, configs):
        b = len(configs)
        node = torch.cat([self.opcode(ops), x_nodes], 1)                       # v x 156
        if layout:
            emb = self.value(torch.tensor(values[configs])).reshape(b, -1, 18 * 4)  # b x nc x 72
            cfg = torch.zeros(b, v, 18 * 4)
            cfg[:, torch.tensor(index[configurable])] = emb
        else:
            cfg = torch.tensor(tile[configs])[:, None, :].expand(b, v, 24)
        h = torch.cat([node.expand(b, v, node.shape[1]), cfg], 2).reshape(b * v, -1)
        h = torch.nn.functional.gelu(self.input(h), approximate="tanh")
        for l in range(layers):
            hb = h.reshape(b, v, hidden).transpose(0, 1).reshape(v, b * hidden)   # nodes x (b*h)
            p = torch.sparse.mm(to_producers, hb).reshape(v, b, hidden).transpose(0, 1).reshape(b * v, hidden)
            c = torch.sparse.mm(to_consumers, hb).reshape(v, b, hidden).transpose(0, 1).reshape(b * v, hidden)
            m = torch.nn.functional.gelu(self.self_w[l](h) + self.prod_w[l](p) + self.cons_w[l](c), approximate="tanh")
            h = h + self.norm[l](m)
        hb = h.reshape(b, v, hidden)
        pooled = torch.cat([hb.sum(1), hb.mean(1)], 1)
        return self.out(torch.nn.functional.gelu(self.head(pooled), approximate="tanh"))[:, 0]
def listmle(cost, runtime):
    order = torch.argsort(runtime)
    s = -cost[order]
    return (torch.logcumsumexp(s.flip(0), 0).flip(0) - s).sum()
model = Model()
adam = torch.optim.Adam(model.parameters(), lr=1e-3)
count = int(values.shape[0] if layout else tile.shape[0])
step_configs = list(range(min(16, count)))
runtime = torch.tensor([float(c % 7 + 1) for c in step_configs])
def step():
    adam.zero_grad()
    loss = listmle(model(step_configs), runtime)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    adam.step()
def forward_sample():
    configs = list(range(min(sample, count)))
    with torch.no_grad():
        for s in range(0, len(configs), 16):
            model(configs[s:s + 16])
def median(fn, repeat):
    t = []
    for _ in range(repeat):
        start = time.perf_counter(); fn(); t.append(time.perf_counter() - start)
    t.sort(); return t[len(t) // 2]
# Which BLAS the peer ran and how: threadpoolctl (python3-threadpoolctl) when present, else the
# OpenBLAS this process mapped, asked directly (openblas_get_corename / _num_threads / _config).
def blas_in_use():
    try:
        from threadpoolctl import threadpool_info
        return "; ".join(f"{i.get('internal_api')} {i.get('version')} {i.get('architecture') or ''} "
                         f"{i.get('num_threads')} threads ({i.get('filepath')})" for i in threadpool_info()
                         if i.get("user_api") == "blas") or "no BLAS loaded"
    except ImportError:
        pass
    import ctypes
    paths = sorted({line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line and ".so" in line})
    if not paths:
        return "not OpenBLAS (" + torch.__config__.show().split("BLAS_INFO=")[-1].split(",")[0] + ")"
    lib = ctypes.CDLL(paths[0])
    lib.openblas_get_corename.restype = lib.openblas_get_config.restype = ctypes.c_char_p
    return (f"OpenBLAS kernel {lib.openblas_get_corename().decode()}, {lib.openblas_get_num_threads()} threads "
            f"({lib.openblas_get_config().decode().strip()}; {paths[0]})")


step()  # warm up
train = median(step, rounds * 3)
forward = median(forward_sample, rounds)
print(json.dumps({"view_rows": v, "train_step_ms": train * 1e3, "train_step_configs": len(step_configs),
                  "forward_per_1000_configs_ms": forward / min(sample, count) * 1000 * 1e3, "threads": threads,
                  "blas": blas_in_use(), "torch": torch.__version__}))
"""




def run(command, env=None):
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/native-release/bench/bench_model"))
    parser.add_argument("--file", action="append", help="TpuGraphs .npz (repeatable); default: two real layout files")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads (graphcost's tape uses 1)")
    parser.add_argument("--sample", type=int, default=32, help="configs timed for the forward-per-1,000 figure")
    parser.add_argument("--avx2-only", action="store_true", help="both sides on AVX2 + FMA kernels only (see above)")
    args = parser.parse_args()
    # The peer at its best: a machine may set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) for its own
    # reasons, which pins a current OpenBLAS to older, slower kernels; the peer runs without them
    # (--avx2-only sets the core type on purpose), and prints the kernel it ran.
    peer_env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    peer_env.update(OPENBLAS_NUM_THREADS=str(args.threads), OMP_NUM_THREADS=str(args.threads))
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            print(f"{name}={os.environ[name]} is set here: unset for the peer")
    if args.avx2_only:
        if parser.get_default("binary") == args.binary:
            args.binary = os.path.join(ROOT, "build/bench-avx2/bench/bench_model")
        if not os.path.exists(args.binary):
            sys.exit(f"model_vs_pytorch: {args.binary} is missing; run `cmake --preset bench-avx2 && cmake --build --preset bench-avx2`")
        peer_env.update(ATEN_CPU_CAPABILITY="avx2", OPENBLAS_CORETYPE="Haswell")
        print("AVX2 only: graphcost built for x86-64-v3, PyTorch ATEN_CPU_CAPABILITY=avx2, OpenBLAS OPENBLAS_CORETYPE=Haswell")
    # The machine line: the benchmark's own build's bench_machine, else the release build's (the
    # bench-avx2 preset builds bench_model only).
    machines = [os.path.join(os.path.dirname(args.binary), "bench_machine"), os.path.join(ROOT, "build/native-release/bench/bench_machine")]
    machine = next((m for m in machines if os.path.exists(m)), None)
    print(subprocess.run([machine], check=True, capture_output=True, text=True).stdout.strip() if machine else "machine: (build bench_machine to print it)")
    try:
        import torch
    except ImportError:
        sys.exit("model_vs_pytorch: python3-torch is missing; run `bash scripts/setup.sh --bench`")
    blas = torch.__config__.show()
    if "BLAS_INFO=generic" in blas and not os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3").count("openblas"):
        print("warning: PyTorch's generic BLAS is the reference netlib one; install libopenblas0-pthread "
              "(setup.sh --bench does) or the peer is unfairly slow", file=sys.stderr)
    files = args.file or [os.path.join(DATA, f) for f in DEFAULT_FILES]
    print(f"{'file':<44} {'rows':>5} {'':>10} {'graphcost':>11} {'pytorch':>11} {'ratio':>6}")
    for path in files:
        ours = run([args.binary, path, "--repeat", str(args.rounds), "--sample", str(args.sample)])
        peer = run(["/usr/bin/python3", "-c", TORCH_PROGRAM, path, str(args.rounds), str(args.threads), str(args.sample)],
                   env=peer_env)
        name = os.path.basename(path)[:44]
        print(f"{name}: PyTorch {peer.get('torch', '')} on {peer['blas']}")
        for key, label in (("train_step_ms", "train step"), ("forward_per_1000_configs_ms", "fwd/1000")):
            print(f"{name:<44} {ours['view_rows']:>5} {label:>10} {ours[key]:>9.1f}ms {peer[key]:>9.1f}ms "
                  f"{peer[key] / ours[key]:>5.2f}x")
        if "rank_all_1thread_ms" in ours:
            per_1000 = lambda ms: ms / ours["configs"] * 1000
            for threads in (1, 2):
                ms = per_1000(ours[f"rank_all_{threads}thread_ms"])
                print(f"{name:<44} {ours['view_rows']:>5} {'incr/1000':>10} {ms:>9.1f}ms "
                      f"{peer['forward_per_1000_configs_ms']:>9.1f}ms {peer['forward_per_1000_configs_ms'] / ms:>5.2f}x"
                      f"  ({threads} thread{'s' if threads > 1 else ''}; all {ours['configs']} configs)")
        print(json.dumps({"file": path, "graphcost": ours, "pytorch": peer}), file=sys.stderr)


if __name__ == "__main__":
    main()
