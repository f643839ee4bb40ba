#!/usr/bin/env python3
"""Writes the demo competition's reference board (scoring/reference_board.h): the shipped models'
and the model-free baselines' scores on the shared real labelled TpuGraphs files, the teams named
as scripts/demo.sh names them. Only files with at least two distinct configs are scored: a file
of one config repeated (openai_v0_rnn_optimized's 20 configs, retinanet's 2) has no order to find,
and its score would measure noise. Each column says whether graphcost-gnn was trained on the file:
scripts/train_models.sh links the real labelled layout:xla train files into the layout model's
training data; valid files, tile files and nlp files are held out.

With --cpu-tree TREE (a tree `graphcost collect` measured on this machine: layout/cpu/random and
tile/cpu), two more columns: the same teams' mean scores on its kernels, every split (no shipped
model was trained on CPU runtimes): the board's truth measured on this CPU. The competition's scorer
knows the five TpuGraphs collections, so the files are scored under the Kaggle collection of their
kind (layout:cpu:random as layout:xla:random, tile:cpu as tile:xla: the same metrics) through links.

Usage: /usr/bin/python3 scripts/real_reference.py --out REFERENCE.json [--data DIR] [--build DIR] [--cpu-tree TREE]
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


def score_split(graphcost, evaluator, work, tree, split, scores, models):
    """Every team's submission for one split of `tree`, scored: scores[team][kaggle ID] = score.
    `models`: the GNN teams, {team: model files}; the baselines are the rest."""
    tag = f"{len(os.listdir(work))}-{split}"  # unique: each call adds files to work
    submissions = {}
    for k, (team, files) in enumerate(models.items()):
        submissions[team] = os.path.join(work, f"gnn{k}-{tag}.csv")
        run([graphcost, "predict", "--model", *files, "--data", tree, "--split", split, "--out", submissions[team]])
    for b in BASELINES:
        submissions[f"baseline-{b}"] = os.path.join(work, f"{b}-{tag}.csv")
        run([evaluator, "baseline", "--data", tree, "--split", split, "--strategy", b, "--seed", "7",
             "--out", submissions[f"baseline-{b}"]])
    for team, submission in submissions.items():
        report = os.path.join(work, f"{team}-{tag}.json")
        run([evaluator, "score", "--solution", tree, "--split", split, "--submission", submission, "--json", report])
        for graph in json.load(open(report))["graphs"]:
            scores[team][graph["id"]] = None if graph["skipped"] else graph["score"]  # skipped: every runtime alike


# A collected tree's collections, and the Kaggle collection of the same kind each is scored as.
CPU_KINDS = [("layout", ("layout", "cpu", "random"), ("layout", "xla", "random"), "Kendall tau-b"),
             ("tile", ("tile", "cpu"), ("tile", "xla"), "2 - top-5 slowdown")]


CPU_TEAM = "graphcost-gnn trained here"
CPU_EPOCHS = 30


def cpu_models(graphcost, work, cpu_tree):
    """The GNN trained on the CPU tree's train split, a model per kind it has files of."""
    models = []
    for kind, source, _, _ in CPU_KINDS:
        if os.path.isdir(os.path.join(cpu_tree, *source, "train")):
            models.append(os.path.join(work, f"cpu-{kind}-model.npz"))
            run([graphcost, "train", "--data", cpu_tree, "--collection", ":".join(source), "--epochs", str(CPU_EPOCHS),
                 "--out", models[-1]])
    return models


def cpu_columns(graphcost, evaluator, work, cpu_tree, teams):
    """The CPU tree's columns (layout, tile): each team's mean score over the tree's valid and test
    files of that kind with two or more distinct configs, and a GNN trained on its train split
    (CPU_TEAM). Returns (columns, {team: scores}, the CPU)."""
    columns, rows, cpu = [], {team: [] for team in teams + [CPU_TEAM]}, "this machine"
    models = {"graphcost-gnn": MODELS}
    trained = cpu_models(graphcost, work, cpu_tree)
    if trained:
        models[CPU_TEAM] = trained
    for kind, source, target, metric in CPU_KINDS:
        linked = os.path.join(work, f"cpu-{kind}")
        scores = {team: {} for team in rows}
        ids = []
        for split in ("valid", "test"):
            folder = os.path.join(cpu_tree, *source, split)
            kept = []
            for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
                if not name.endswith(".npz"):
                    continue
                info = json.loads(run([graphcost, "info", "--json", os.path.join(folder, name)]))
                if info["labelled"] and info["distinct_configs"] >= 2:
                    kept.append(name)
                    if "measured on " in info.get("source", ""):
                        cpu = info["source"].split("measured on ", 1)[1].split(" through", 1)[0]
            if not kept:
                continue
            os.makedirs(os.path.join(linked, "npz", *target, split))
            for name in kept:
                os.symlink(os.path.abspath(os.path.join(folder, name)), os.path.join(linked, "npz", *target, split, name))
                ids.append(":".join(target) + ":" + name[:-4])
            score_split(graphcost, evaluator, work, linked, split, scores, models)
        if not ids:
            continue
        columns.append({"name": f"this CPU: {len(ids)} {kind} kernels", "metric": f"mean {metric}",
                        "note": f"{':'.join(source)} by graphcost collect, its valid and test splits; held out"})
        for team in rows:
            values = [scores[team][i] for i in ids if scores[team].get(i) is not None]
            rows[team].append(sum(values) / len(values) if values else None)
    return columns, rows, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out")
    parser.add_argument("--card", help="print a model card's real-data lines for collections starting with this")
    parser.add_argument("--reference", help="with --card: the JSON the first form wrote")
    parser.add_argument("--data", default=os.environ.get("GRAPHCOST_DATA", os.path.join(ROOT, "..", "shared", "data")))
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "native-release"))
    parser.add_argument("--cpu-tree", help="a tree graphcost collect measured on this CPU: two more columns")
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
            score_split(graphcost, evaluator, work, tree, split, scores, {"graphcost-gnn": MODELS})
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
    cpu_note, cpu_rows = "", {team: [] for team in teams}  # the CPU columns' scores
    if args.cpu_tree:
        extra, cpu_rows, cpu = cpu_columns(graphcost, evaluator, work, args.cpu_tree, teams)
        columns += extra
        cpu_note = (f" 'This CPU': kernels of the shared HLO modules timed here ({cpu}) by graphcost collect; "
                    f"'{CPU_TEAM}' learned its train split.") if extra else ""
    board = {
        "title": "Scores on real measurements" if cpu_note else "Scores on real TPU measurements",
        "measures": "The standings rank the generated test split, labelled by graphcost's simulator. These are the same teams' "
                    "scores on the shared real labelled TpuGraphs files with at least two distinct configs (measured on TPUs): "
                    "Kendall tau-b for layout files (1 is perfect, 0 random), 2 - top-5 slowdown for tile files (1 is perfect). "
                    "A handful of files: a sanity check, not a ranking." + cpu_note,
        "columns": columns,
        "rows": [{"team": team, "scores": [scores[team].get(f["kaggle_id"]) for f in files] + cpu_rows[team]} for team in teams]
                + ([{"team": CPU_TEAM, "scores": [None] * len(files) + cpu_rows[CPU_TEAM],
                     "note": f"not a team: the GNN trained on the CPU tree's train split ({CPU_EPOCHS} epochs), for the CPU columns"}]
                   if len(cpu_rows.get(CPU_TEAM, [])) == len(columns) - len(files) and any(v is not None for v in cpu_rows[CPU_TEAM])
                   else []),
    }
    with open(args.out, "w") as out:
        json.dump(board, out, indent=1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"real_reference: {len(teams)} teams x {len(columns)} columns ({len(files)} real TPU files) -> {args.out}")


if __name__ == "__main__":
    main()
