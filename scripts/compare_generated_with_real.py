#!/usr/bin/env python3
"""Writes docs/generated-vs-real.md: the real shared TpuGraphs files next to a generated tree, per
collection, from `graphcost info --json` (nodes, edges, configurable nodes, configs, runtime spread,
opcode histogram), so the likeness of `graphcost gen` output can be judged.

Usage: /usr/bin/python3 scripts/compare_generated_with_real.py [--graphs 100] [--seed 1]
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHCOST = os.path.join(ROOT, "build/native-release/src/graphcost")
COLLECTIONS = ["tile:xla", "layout:xla:random", "layout:xla:default", "layout:nlp:random", "layout:nlp:default"]


def summaries(tree):
    out = []
    for folder, _, files in os.walk(tree):
        for name in sorted(files):
            if name.endswith(".npz"):
                text = subprocess.run([GRAPHCOST, "info", "--json", os.path.join(folder, name)],
                                      capture_output=True, text=True)
                if text.returncode == 0:
                    out.append(json.loads(text.stdout))
    return out


def describe(items):
    if not items:
        return None
    nodes = [s["nodes"] for s in items]
    configs = [s["configs"] for s in items]
    spreads = [s["relative_spread"] for s in items if s["labelled"]]
    configurable = [s["configurable_nodes"] for s in items if s["kind"] == "layout"]
    opcodes = collections.Counter()
    for s in items:
        for op in s["opcodes"]:
            opcodes[op["name"]] += op["nodes"]
    total = sum(opcodes.values())
    top = ", ".join(f"{name} {100 * count / total:.0f}%" for name, count in opcodes.most_common(6))
    return {
        "files": len(items), "labelled": len(spreads),
        "nodes": f"{min(nodes)} / {int(statistics.median(nodes))} / {max(nodes)}",
        "configurable": f"{min(configurable)} / {int(statistics.median(configurable))} / {max(configurable)}" if configurable else "-",
        "configs": f"{min(configs)} / {int(statistics.median(configs))} / {max(configs)}",
        "spread": f"{statistics.median(spreads):.3f} ({min(spreads):.3f}-{max(spreads):.3f})" if spreads else "hidden only",
        "opcodes": top,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", default=os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "generated-vs-real.md"))
    args = parser.parse_args()
    real = summaries(os.path.join(args.data, "tpugraphs"))
    with tempfile.TemporaryDirectory() as tree:
        subprocess.run([GRAPHCOST, "gen", "-q", "--out", tree, "--graphs", str(args.graphs), "--seed", str(args.seed)],
                       check=True, capture_output=True)
        generated = summaries(tree)
    lines = [
        "# Generated vs real TpuGraphs files",
        "",
        f"Written by `scripts/compare_generated_with_real.py` from `graphcost info --json`: the real files in",
        f"`$GRAPHCOST_DATA/tpugraphs` (a few of the dataset's) next to `graphcost gen --graphs {args.graphs} --seed {args.seed}`.",
        "Triples are min / median / max over files. Runtime spread is (max - min) / min of a file's runtimes",
        "(tile: runtime / normalizer), median over labelled files (range in brackets).",
        "",
        "| collection | source | files (labelled) | nodes | configurable | configs | runtime spread | top opcodes (share of nodes) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in COLLECTIONS:
        for source, items in (("real", real), ("generated", generated)):
            d = describe([s for s in items if s["collection"] == name])
            if d is None:
                lines.append(f"| {name} | {source} | 0 | | | | | |")
                continue
            lines.append(f"| {name} | {source} | {d['files']} ({d['labelled']}) | {d['nodes']} | {d['configurable']} | "
                         f"{d['configs']} | {d['spread']} | {d['opcodes']} |")
    lines += ["", "## Known differences", "",
              "- Generated programs are inference graphs of a few hundred to a few thousand nodes; the real",
              "  layout graphs are mostly training graphs (gradients, optimizer updates), ~7.7k nodes on average,",
              "  up to ~44k. `--max-nodes` raises the cap, but the families do not emit backward passes.",
              "- Real files carry many more parameter / get-tuple-element nodes (whole-program I/O); the",
              "  generator's opcode mix is dominated by the forward ops of each family.",
              "- Runtime spread: the shared real xla:random files vary by only 1-2% across configs, the",
              "  generated random collections by 2x and more: the simulator prices layout mismatches and lane",
              "  padding more harshly than the real compiler, which repairs many of them. Rankings, not",
              "  absolute spreads, are what the models learn; the gap is a known limitation.",
              "- The generator's compiler default is often beaten by a wide margin on small-batch UNet-3D",
              "  graphs (batch in the second-minor dimension pads 8x); the real dataset reports up to ~32%.",
              ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
