#!/usr/bin/env python3
"""Writes the demo competition's reference board (scoring/reference_board.h): the shipped models'
and the model-free baselines' scores on the shared real labelled TpuGraphs files, the teams named
as scripts/demo.sh names them. Only files with at least two distinct configs are scored: a file
of one config repeated (openai_v0_rnn_optimized's 20 configs, retinanet's 2) has no order to find,
and its score would measure noise. Each column says whether graphcost-gnn was trained on the file:
scripts/train_models.sh links the real labelled layout:xla train files into the layout model's
training data; valid files, tile files and nlp files are held out.

Usage: /usr/bin/python3 scripts/real_reference.py --out REFERENCE.json [--data DIR] [--build DIR]
       /usr/bin/python3 scripts/real_reference.py --card PREFIX --reference REFERENCE.json
The second form prints a model card's opening lines (scripts/train_models.sh): the graphcost-gnn
row's scores on the files of the collections starting with PREFIX (layout:xla, layout:nlp,
tile:xla), beside the model-free baselines.
"""
import argparse
import json
import os
import subprocess
import sys
import shutil
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = [os.path.join(ROOT, "models", name) for name in ("layout_xla.npz", "layout_nlp.npz", "tile_xla.npz")]
BASELINES = ["fewest-changes", "random", "first", "reverse"]


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"real_reference: {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


def card_lines(reference, prefix):
    board = json.load(open(reference))
    rows = {row["team"]: row["scores"] for row in board["rows"]}
    columns = [(c, column) for c, column in enumerate(board["columns"]) if column["note"].startswith(prefix)]
    if not columns:
        print(f"- **On real TPU measurements:** none: the shared data holds no labelled {prefix} file with two or more distinct")
        print("  configs (its nlp files are test files, runtimes hidden).")
        return
    print(f"- **On real TPU measurements** ({columns[0][1]['metric']}, the shared labelled files with two or more distinct configs;")
    print("  scripts/real_reference.py, the demo board's reference table):")
    for c, column in columns:
        baselines = ", ".join(f"{team[len('baseline-'):]} {scores[c]:.3f}" for team, scores in rows.items() if team.startswith("baseline-"))
        print(f"  - {column['name']} ({column['note']}): **{rows['graphcost-gnn'][c]:.3f}**; model-free: {baselines}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out")
    parser.add_argument("--card", help="print a model card's real-data lines for collections starting with this")
    parser.add_argument("--reference", help="with --card: the JSON the first form wrote")
    parser.add_argument("--data", default=os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "native-release"))
    args = parser.parse_args()
    if args.card:
        if not args.reference:
            parser.error("--card needs --reference")
        card_lines(args.reference, args.card)
        return
    if not args.out:
        parser.error("--out is required")
    graphcost = os.path.join(args.build, "src", "graphcost")
    evaluator = os.path.join(args.build, "evaluation", "graphcost-eval")
    work = tempfile.mkdtemp(prefix="graphcost-real-reference-")
    # The shared tree's labelled files, and the ten real tile kernels of the dataset's raw records
    # (tpugraphs-raw/op_tuning_data.pb) imported as a tree of their own (graphcost import).
    trees = [(os.path.join(args.data, "tpugraphs"), "")]
    raw = os.path.join(args.data, "tpugraphs-raw", "op_tuning_data.pb")
    if os.path.exists(raw):
        raw_tree = os.path.join(work, "raw")
        os.makedirs(os.path.join(raw_tree, "npz", "tile", "xla", "valid"))
        run([graphcost, "import", raw, "--out", os.path.join(raw_tree, "npz", "tile", "xla", "valid")])
        trees.append((raw_tree, "raw records (op_tuning_data.pb)"))
    files = []
    for tree, origin in trees:
        for folder, _, names in os.walk(os.path.join(tree, "npz")):
            for name in sorted(names):
                if name.endswith(".npz"):
                    info = json.loads(run([graphcost, "info", "--json", os.path.join(folder, name)]))
                    if info["labelled"] and info["distinct_configs"] >= 2 and info["split"] in ("train", "valid"):
                        info["tree"], info["origin"] = tree, origin
                        files.append(info)
    if not files:
        sys.exit(f"real_reference: no labelled file with two distinct configs under {trees[0][0]}")
    files.sort(key=lambda f: (f["kind"] != "layout", f["origin"], f["collection"], f["split"], -f["configs"], f["kaggle_id"]))
    teams = ["graphcost-gnn"] + [f"baseline-{b}" for b in BASELINES]
    scores = {team: {} for team in teams}
    for tree in sorted({f["tree"] for f in files}):
        for split in sorted({f["split"] for f in files if f["tree"] == tree}):
            tag = f"{len(scores['graphcost-gnn'])}-{split}"
            submissions = {"graphcost-gnn": os.path.join(work, f"gnn-{tag}.csv")}
            run([graphcost, "predict", "--model", *MODELS, "--data", tree, "--split", split, "--out", submissions["graphcost-gnn"]])
            for b in BASELINES:
                submissions[f"baseline-{b}"] = os.path.join(work, f"{b}-{tag}.csv")
                run([evaluator, "baseline", "--data", tree, "--split", split, "--strategy", b, "--seed", "7",
                     "--out", submissions[f"baseline-{b}"]])
            for team, submission in submissions.items():
                report = os.path.join(work, f"{team}-{tag}.json")
                run([evaluator, "score", "--solution", tree, "--split", split, "--submission", submission, "--json", report])
                for graph in json.load(open(report))["graphs"]:
                    scores[team][graph["id"]] = graph["score"]
    columns = []
    for f in files:
        trained = f["collection"].startswith("layout:xla") and f["split"] == "train" and not f["origin"]
        origin = f", {f['origin']}" if f["origin"] else ""
        columns.append({
            "name": os.path.basename(f["file"])[:-4],
            "metric": "Kendall tau-b" if f["kind"] == "layout" else "2 - top-5 slowdown",
            "note": f"{f['collection']}{origin}, {f['split']}, {f['configs']:,} configs ({f['distinct_configs']:,} distinct); "
                    + ("graphcost-gnn was trained on it" if trained else "held out"),
        })
    board = {
        "title": "Scores on real TPU measurements",
        "measures": "The standings rank the generated test split, labelled by graphcost's simulator. These are the same teams' "
                    "scores on the shared real labelled TpuGraphs files with at least two distinct configs (runtimes measured on "
                    "TPUs): Kendall tau-b for layout files (1 is perfect, 0 random), 2 - top-5 slowdown for tile files (1 is "
                    "perfect). A handful of files: read them as a sanity check, not a ranking.",
        "columns": columns,
        "rows": [{"team": team, "scores": [scores[team].get(f["kaggle_id"]) for f in files]} for team in teams],
    }
    with open(args.out, "w") as out:
        json.dump(board, out, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"real_reference: {len(teams)} teams x {len(files)} real files -> {args.out}")


if __name__ == "__main__":
    main()
