#!/usr/bin/env bash
# Tuning strategies on the shared Kernel Tuner spaces (a 2D convolution's 4,362 configs brute-forced
# on six GPUs): the default (online), random search, Kernel Tuner's genetic algorithm and XGBoost on
# random measurements, budgets 20, 50 and 100, 5 seeds, and each GPU warm-started from every other
# (bench/tune_spaces.cpp). Writes the table into docs/tuning.md between its "tune_spaces table"
# markers. Usage: bash bench/tune_spaces.sh [SEEDS=5]   (about 2 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}
data=${GRAPHCOST_DATA:-../shared/data}
cmake --preset native-release >/dev/null
cmake --build --preset native-release --target bench_tune_spaces >/dev/null
work=build/tune-spaces
mkdir -p "$work"
table="$work/table.md"
build/native-release/bench/bench_tune_spaces "$data"/kernel-tuner/convolution/*_T4.json.gz --seeds "$seeds" --warm-start \
  --markdown "$table" | tee "$work/output.txt"
machine=$(head -1 "$work/output.txt")
/usr/bin/python3 - "$table" "$machine" <<'PY'
import re, subprocess, sys
table, machine = open(sys.argv[1]).read(), sys.argv[2]
doc = open("docs/tuning.md").read()
commit = subprocess.run(["git", "log", "-1", "--format=%h %cd", "--date=short"], capture_output=True, text=True).stdout.strip()
block = f"<!-- tune_spaces table: bash bench/tune_spaces.sh -->\n{machine}; commit {commit}\n\n{table}<!-- end of tune_spaces table -->"
doc = re.sub(r"<!-- tune_spaces table.*?<!-- end of tune_spaces table -->", lambda _: block, doc, flags=re.S)
open("docs/tuning.md", "w").write(doc)
PY
echo "tune_spaces: the table is in docs/tuning.md"
