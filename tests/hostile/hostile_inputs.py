#!/usr/bin/python3
"""Hostile and careless inputs against graphcost and graphcost-eval: each case builds its input,
runs one command (bounded in time), and checks the documented outcome: exit code, message, peak RSS
of the command, and what it left on disk. The defects D1-D11 of the hardening issue each have cases
here; docs/architecture.md states the policies they check.

Usage: hostile_inputs.py GRAPHCOST GRAPHCOST_EVAL [--slow]
  --slow also runs the multi-gigabyte cases (a 4 GiB unused member, bombs without a memory limit).
Prints one line per case and the closing "N passed, N failed" line; exit 1 on any failure.
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import npz_forge as forge  # noqa: E402
import hostile_support  # noqa: E402
from hostile_support import check, digest, expect, partial_files, rss_run, run  # noqa: E402,F401

GRAPHCOST, EVALUATOR = sys.argv[1], sys.argv[2]
SLOW = "--slow" in sys.argv[3:]
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MIB = 1 << 20


def tree_file(root, collection, split, stem):
    folder = os.path.join(root, "npz", *collection.split(":"), split)
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, stem + ".npz")


def rewrite_model(source, destination, change_json=None, change_param=None):
    """A copy of a model file with its JSON or one parameter changed."""
    arrays = dict(np.load(source))
    if change_json:
        meta = json.loads(bytes(arrays["model_json"]).decode())
        change_json(meta)
        arrays["model_json"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    if change_param:
        name = sorted(k for k in arrays if k.startswith("param/"))[0]
        arrays[name] = change_param(arrays[name].copy())
    np.savez(destination, **arrays)


def main():
    return hostile_support.run_cases(cases, "graphcost-hostile-")


def cases(work):
    """The sections below in the order of the hardening issue; a section returns what later ones reuse."""
    layout = forge.layout_arrays()
    valid = os.path.join(work, "valid.npz")
    forge.write_arrays(valid, layout)
    expect("a valid small layout file loads", rss_run([GRAPHCOST, "info", valid]), 0)
    bomb, shipped, tree = bomb_cases(work, layout, valid)
    labelled, solution, subs, good = leaderboard_cases(work, layout)
    id_cases(work, layout, shipped, labelled)
    nan_cases(work, shipped, tree)
    fifo_cases(work, solution, good)
    message_cases(work, shipped, tree, solution)
    output_cases(work, valid, shipped, tree, labelled, solution, subs, good)
    if SLOW:
        slow_cases(work, layout, bomb)


# ---- D1: bombs ----------------------------------------------------------------------------------

def bomb_cases(work, layout, valid):
    bomb = os.path.join(work, "bomb.npz")  # node_feat declares 2 GiB of zeros; the file is ~2 MB
    rows = (2 << 30) // (140 * 4)
    arrays = dict(layout)
    del arrays["node_feat"]
    forge.write_npz(bomb, [{"name": "node_feat.npy", "header": forge.npy_header("<f4", (rows, 140)),
                            "payload": forge.ZeroRun(rows * 140 * 4)}] +
                    [forge.array_member(k, v) for k, v in arrays.items()])
    check("  (the 2 GiB bomb file is small)", os.path.getsize(bomb) < 4 * MIB, f"{os.path.getsize(bomb)} bytes")
    expect("D1 a 2 GiB bomb over the memory limit is refused before inflating",
           rss_run([GRAPHCOST, "info", bomb], env={"GRAPHCOST_MEMORY_LIMIT": "512MiB"}), 1,
           r"bomb\.npz: member 'node_feat\.npy': expected at most 512 MiB .* got 2 GiB for this array", 80)

    unused = os.path.join(work, "unused.npz")  # a valid file plus an unused 1 GiB member
    forge.write_arrays(unused, layout, [{"name": "junk.npy", "header": forge.npy_header("<f4", (1 << 28,)),
                                         "payload": forge.ZeroRun(1 << 30)}])
    expect("D1 a member the schema does not read is never inflated", rss_run([GRAPHCOST, "info", unused]), 0,
           None, 80)

    lying = os.path.join(work, "lying.npz")  # npy header declares (10^6, 140) over 3 KiB of data
    small = forge.npy_bytes(layout["node_feat"])
    header = forge.npy_header("<f4", (10 ** 6, 140))
    forge.write_npz(lying, [{"name": "node_feat.npy", "header": header, "payload": small[len(header):]}] +
                    [forge.array_member(k, v) for k, v in layout.items() if k != "node_feat"])
    expect("D1 a member whose npy header disagrees with its zip size is refused",
           rss_run([GRAPHCOST, "info", lying]), 1, r"npy header declares .* got \d+ bytes in the zip directory")

    directory = os.path.join(work, "survey")
    os.makedirs(directory)
    shutil.copy(valid, os.path.join(directory, "a_valid.npz"))
    big_nodes = 600_000  # a consistent graph of 336 MB of node features: loading needs twice that
    big = {k: v for k, v in layout.items() if k not in ("node_feat", "node_opcode", "edge_index")}
    forge.write_npz(os.path.join(directory, "b_big.npz"), [
        {"name": "node_feat.npy", "header": forge.npy_header("<f4", (big_nodes, 140)), "payload": forge.ZeroRun(big_nodes * 560)},
        {"name": "node_opcode.npy", "header": forge.npy_header("|u1", (big_nodes,)), "payload": forge.ZeroRun(big_nodes)},
        forge.array_member("edge_index", np.zeros((0, 2), dtype=np.int64))] +
        [forge.array_member(k, v) for k, v in big.items()])
    shutil.copy(valid, os.path.join(directory, "c_valid.npz"))
    result = run([GRAPHCOST, "info", directory], address_space=500 * MIB)
    check("D1 out of memory (ulimit -v) names the file and the survey goes on to the next",
          result.status == 1 and re.search(r"b_big\.npz: expected memory .* got an allocation failure", result.out) and
          "bad_alloc" not in result.out + result.err and re.search(r"\s3\s+1\s+2\s", result.out),
          f"exit {result.status}; stdout {result.out[-600:]!r}; stderr {result.err[-300:]!r}")

    model_bomb = os.path.join(work, "model_bomb.npz")  # a shipped model whose first weight declares 1.6 GB
    shipped = os.path.join(REPO, "models", "layout_xla.npz")
    members = []
    with np.load(shipped) as model:
        first = sorted(k for k in model.files if k.startswith("param/"))[0]
        for name in model.files:
            if name == first:
                members.append({"name": name + ".npy", "header": forge.npy_header("<f4", (20000, 20000)),
                                "payload": forge.ZeroRun(20000 * 20000 * 4)})
            else:
                members.append(forge.array_member(name, model[name]))
    forge.write_npz(model_bomb, members)
    tree = os.path.join(work, "tree")
    forge.write_arrays(tree_file(tree, "layout:xla:random", "test", "g1"), layout)
    expect("D1 a model file declaring 1.6 GB of zero weights is refused from its header",
           rss_run([GRAPHCOST, "predict", "--model", model_bomb, "--data", tree, "--split", "test",
                    "--out", os.path.join(work, "p.csv")]), 1, r"param/.*expected shape \(\d+, \d+\), got shape \(20000, 20000\) in its npy header", 120)
    return bomb, shipped, tree


# ---- D2, D3, D4: the leaderboard ----------------------------------------------------------------

def leaderboard_cases(work, layout):
    labelled = os.path.join(work, "labelled")
    forge.write_arrays(tree_file(labelled, "layout:xla:random", "valid", "g1"), layout)
    forge.write_arrays(tree_file(labelled, "layout:xla:random", "valid", "g2"), forge.layout_arrays(seed=1))
    forge.write_arrays(tree_file(labelled, "tile:xla", "valid", "k1"), forge.tile_arrays())
    solution = os.path.join(work, "solution.csv")
    expect("make-solution on the labelled tree", rss_run([EVALUATOR, "make-solution", "--data", labelled, "--split",
                                                          "valid", "--seed", "1", "--out", solution]), 0)
    subs = os.path.join(work, "subs")
    good = os.path.join(work, "good.csv")
    run([EVALUATOR, "baseline", "--data", labelled, "--split", "valid", "--strategy", "first", "--out", good])
    os.makedirs(os.path.join(subs, "alpha"))
    shutil.copy(good, os.path.join(subs, "alpha", "2023-11-30T10-00-00Z.csv"))
    os.makedirs(os.path.join(subs, "eve"))
    os.symlink("/etc/passwd", os.path.join(subs, "eve", "2023-11-30T20-02-00Z.csv"))
    os.symlink(os.path.join(subs, "alpha"), os.path.join(subs, "mallory"))
    os.makedirs(os.path.join(subs, "zed"))
    for stamp in ["2023-11-30T20-02-60Z", "2023-02-31T10-00-00Z", "0000-01-01T00-00-00Z", "9999-01-01T00-00-00Z",
                  "2023-02-29T00-00-00Z"]:
        shutil.copy(good, os.path.join(subs, "zed", stamp + ".csv"))
    shutil.copy(good, os.path.join(subs, "zed", "2024-02-29T00-00-00Z.csv"))  # a real leap day
    board_dir = os.path.join(work, "board")
    result = rss_run([EVALUATOR, "leaderboard", "--solution", solution, "--submissions", subs, "--out", board_dir, "--final"])
    board_text = open(os.path.join(board_dir, "leaderboard.json")).read() if result.status == 0 else ""
    board = json.loads(board_text) if board_text else {"teams": [], "submissions": []}
    check("D2 symbolic links in the submissions folder are skipped with a warning",
          result.status == 0 and result.err.count("(a symbolic link)") == 2 and "eve" in result.err and "mallory" in result.err,
          result.err[-400:])
    check("D2 no byte of a linked file reaches the board", "root:" not in board_text and
          all(t["team"] not in ("eve", "mallory") for t in board["teams"]), board_text[:300])
    zed = [s for s in board["submissions"] if s["team"] == "zed"]
    check("D3 impossible timestamps (second 60, Feb 31, Feb 29 2023, years 0000 and 9999) are invalid",
          len(zed) == 6 and sum(s["status"] == "invalid" for s in zed) == 5 and
          any(s["status"] == "scored" and s["timestamp"] == "2024-02-29T00:00:00Z" for s in zed), json.dumps(zed)[:500])
    check("D3 an impossible timestamp does not win the tie: alpha (earlier, same score) ranks first",
          board["teams"] and board["teams"][0]["team"] == "alpha", json.dumps(board["teams"])[:300])
    final_details = os.listdir(os.path.join(board_dir, "details")) if os.path.isdir(os.path.join(board_dir, "details")) else []
    shutil.rmtree(os.path.join(subs, "zed"))
    result = rss_run([EVALUATOR, "leaderboard", "--solution", solution, "--submissions", subs, "--out", board_dir])
    details = sorted(os.listdir(os.path.join(board_dir, "details")))
    leaked = [d for d in details if "private" in open(os.path.join(board_dir, "details", d)).read()]
    check("D4 a public run after a --final run leaves no private details behind",
          result.status == 0 and len(final_details) > len(details) and details and not leaked,
          f"final run wrote {final_details}, public run left {details}, with private data: {leaked}")
    return labelled, solution, subs, good


# ---- D5: IDs from file names --------------------------------------------------------------------

def id_cases(work, layout, shipped, labelled):
    shipped_tile = os.path.join(REPO, "models", "tile_xla.npz")
    for label, stem in [("a comma", b"a,b"), ("a newline", b"a\nb"), ("a quote", b'a"b'), ("a non-UTF-8 byte", b"a\xffb")]:
        bad_tree = os.path.join(work, "ids-" + label.replace(" ", "-"))
        folder = os.path.join(bad_tree, "npz", "layout", "xla", "random", "test")
        os.makedirs(folder)
        forge.write_arrays(os.path.join(folder.encode(), stem + b".npz"), layout)
        out = os.path.join(work, "ids.csv")
        expect(f"D5 predict refuses a file name with {label}",
               rss_run([GRAPHCOST, "predict", "--model", shipped, "--data", bad_tree, "--split", "test", "--out", out]), 1,
               r"file name: expected printable ASCII")
        check(f"  ...and writes no submission", not os.path.exists(out))
    forge.write_arrays(tree_file(os.path.join(labelled, "copy"), "layout:xla:random", "valid", "g1"), layout)
    expect("D5 make-solution refuses two files of one ID",
           rss_run([EVALUATOR, "make-solution", "--data", labelled, "--split", "valid", "--out", os.path.join(work, "s2.csv")]), 1,
           r"a second file for layout:xla:random:g1")
    expect("D5 predict refuses two files of one ID",
           rss_run([GRAPHCOST, "predict", "--model", shipped, shipped_tile, "--data", labelled, "--split", "valid",
                    "--out", os.path.join(work, "dup.csv")]), 1, r"a second file for layout:xla:random:g1")
    shutil.rmtree(os.path.join(labelled, "copy"))


# ---- D6: NaN and Inf ----------------------------------------------------------------------------

def nan_cases(work, shipped, tree):
    for label, value in [("NaN", np.nan), ("Inf", np.inf), ("3e38", 3e38)]:
        model = os.path.join(work, f"model_{label}.npz")
        def poison(array, value=value):
            array.flat[0] = value
            return array
        rewrite_model(shipped, model, change_param=poison)
        expect(f"D6 a model weight of {label} is refused",
               rss_run([GRAPHCOST, "predict", "--model", model, "--data", tree, "--split", "test", "--out",
                        os.path.join(work, "nan.csv")]), 1, r"param/.*expected finite values of magnitude at most")
    model = os.path.join(work, "model_stats.npz")
    rewrite_model(shipped, model, change_json=lambda meta: meta["feature_statistics"]["node_mean"].__setitem__(3, 1e300))
    expect("D6 feature statistics of 1e300 are refused",
           rss_run([GRAPHCOST, "predict", "--model", model, "--data", tree, "--split", "test", "--out",
                    os.path.join(work, "stats.csv")]), 1, r"feature_statistics\.node_mean: expected finite numbers")
    for label, value in [("NaN", np.nan), ("Inf", np.inf)]:
        tile = forge.tile_arrays()
        tile["config_feat"][2, 5] = value
        path = os.path.join(work, f"tile_{label}.npz")
        forge.write_arrays(path, tile)
        expect(f"D6 a tile config_feat of {label} is refused", rss_run([GRAPHCOST, "info", path]), 1,
               r"config_feat: expected finite values, got .* at config 2, column 5")


# ---- D7: FIFOs ----------------------------------------------------------------------------------

def fifo_cases(work, solution, good):
    fifo = os.path.join(work, "fifo.npz")
    os.mkfifo(fifo)
    result = run([GRAPHCOST, "info", fifo], timeout=20)
    check("D7 info on a FIFO fails at once instead of waiting for a writer",
          result.status == 1 and "a FIFO" in result.err and result.seconds < 10, f"exit {result.status}, {result.err!r}")
    fifo_csv = os.path.join(work, "fifo.csv")
    os.mkfifo(fifo_csv)
    result = run([EVALUATOR, "score", "--solution", solution, "--submission", fifo_csv], timeout=20)
    check("D7 score on a FIFO submission fails at once", result.status == 2 and "a FIFO" in result.err,
          f"exit {result.status}, {result.err!r}")
    result = run([EVALUATOR, "score", "--solution", fifo_csv, "--submission", good], timeout=20)
    check("D7 score on a FIFO solution fails at once", result.status == 1 and "a FIFO" in result.err,
          f"exit {result.status}, {result.err!r}")


# ---- D8: messages -------------------------------------------------------------------------------

def message_cases(work, shipped, tree, solution):
    result = run([EVALUATOR, "score", "--solution", solution, "--submission", work])
    check("D8 a directory as --submission is called a directory", result.status == 2 and "a directory" in result.err and
          "9223372036854775807" not in result.err, result.err[-300:])
    for key, value in [("hidden", 10 ** 12), ("layers", -100)]:
        model = os.path.join(work, f"model_{key}.npz")
        rewrite_model(shipped, model, change_json=lambda meta, key=key, value=value: meta["config"].__setitem__(key, value))
        expect(f"D8 a model with {key} {value} is reported with that value",
               rss_run([GRAPHCOST, "predict", "--model", model, "--data", tree, "--split", "test", "--out",
                        os.path.join(work, "m.csv")]), 1, rf"config\.{key}: expected a value in \[.*\], got {value}\b")
    escape = os.path.join(work, "escape.npz")
    forge.write_npz(escape, [{"name": b"\x1b[31mred\x1b[0m.txt", "payload": b"x"}])
    result = run([GRAPHCOST, "info", escape])
    check("D8 control bytes of a member name are escaped, not sent to the terminal",
          result.status == 1 and "\x1b" not in result.err and "\\x1b[31mred" in result.err, repr(result.err))


# ---- D9, D10: outputs ---------------------------------------------------------------------------

def output_cases(work, valid, shipped, tree, labelled, solution, subs, good):
    folder = os.path.join(work, "out-is-a-folder")
    os.makedirs(folder)
    commands = {
        "predict": [GRAPHCOST, "predict", "--model", shipped, "--data", tree, "--split", "test", "--out", folder],
        "layout": [GRAPHCOST, "layout", valid, "--out", folder],
        "make-solution": [EVALUATOR, "make-solution", "--data", labelled, "--split", "valid", "--out", folder],
        "baseline": [EVALUATOR, "baseline", "--data", labelled, "--split", "valid", "--strategy", "first", "--out", folder],
        "score --json": [EVALUATOR, "score", "--solution", solution, "--submission", good, "--json", folder],
    }
    for name, args in commands.items():
        result = run(args)
        check(f"D9 {name} --out naming a folder fails and leaves no partial file",
              result.status == 1 and "a directory" in result.err and not partial_files(work),
              f"exit {result.status}; {result.err[-200:]!r}; partial files {partial_files(work)}")
    os.makedirs(os.path.join(work, "board2", "leaderboard.json"))
    result = run([EVALUATOR, "leaderboard", "--solution", solution, "--submissions", subs, "--out", os.path.join(work, "board2")])
    check("D9 leaderboard whose leaderboard.json is a folder fails and leaves no partial file",
          result.status == 1 and "a directory" in result.err and not partial_files(work), result.err[-200:])
    before = digest(valid)
    result = run([GRAPHCOST, "layout", valid, "--out", valid])
    check("D10 layout --out naming its input is refused and the input kept",
          result.status == 1 and "an output path other than the inputs" in result.err and digest(valid) == before, result.err[-200:])
    target = tree_file(tree, "layout:xla:random", "test", "g1")
    before = digest(target)
    result = run([GRAPHCOST, "predict", "--model", shipped, "--data", tree, "--split", "test", "--out", target])
    check("D10 predict --out naming one of its inputs is refused and the input kept",
          result.status == 1 and "an output path other than the inputs" in result.err and digest(target) == before, result.err[-200:])
    result = run([GRAPHCOST, "predict", "--model", shipped, "--data", tree, "--split", "test", "--out", shipped])
    check("D10 predict --out naming its model is refused", result.status == 1 and "the input file" in result.err, result.err[-200:])


# ---- --slow: the multi-gigabyte cases -----------------------------------------------------------

def slow_cases(work, layout, bomb):
    big_unused = os.path.join(work, "big_unused.npz")
    forge.write_arrays(big_unused, layout, [{"name": "junk.npy", "header": forge.npy_header("<f4", (1 << 30,)),
                                             "payload": forge.ZeroRun(4 << 30)}])
    expect("D1 (slow) an unused 4 GiB member is never inflated", rss_run([GRAPHCOST, "info", big_unused], timeout=300), 0, None, 80)
    result = rss_run([GRAPHCOST, "info", bomb], timeout=300)
    expect("D1 (slow) the 2 GiB bomb under the default limit stays under 2x its declared size",
           result, 1, r"bomb\.npz", 2 * 2048)


if __name__ == "__main__":
    sys.exit(main())
