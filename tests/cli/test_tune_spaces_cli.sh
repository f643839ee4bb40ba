#!/usr/bin/env bash
# `graphcost info` and `graphcost tune` on kernels' parameter spaces (Kernel Tuner's T4 files and T1
# definition in ../shared/data/kernel-tuner): a summary, replay with the file's failures, the genetic
# and random strategies, a warm start from another GPU, the learners a space cannot have refused by
# name, --out written as T4 and read back to the measured configs, and a measure command that gets
# the config's parameters by name.
# Usage: test_tune_spaces_cli.sh GRAPHCOST_BINARY
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
here=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
spaces="$data/kernel-tuner/convolution"
a100="$spaces/A100_T4.json.gz"

"$graphcost" info "$a100" >"$out/info.txt" 2>&1; status=$?
check "info summarizes a T4 space" bash -c "test $status -eq 0 && grep -q '10 parameters, 4362 configs: compile 6 ok 4201 runtime 155' '$out/info.txt'"
check "  ...with its best config" grep -q "best 553.6 us" "$out/info.txt"
"$graphcost" info --json "$spaces/convolution_milo.json" >"$out/t1.json"; status=$?
check "info reads the T1 definition: the configs its restrictions allow" \
  bash -c "test $status -eq 0 && grep -q '\"configs\": 4362' '$out/t1.json' && grep -q '\"unmeasured\": 4362' '$out/t1.json'"

"$graphcost" import "$spaces/W7800_T4.json.gz" --out "$out/w7800.json" -q >/dev/null 2>&1; status=$?
check "import writes a space as T4 results" test $status -eq 0
check "  ...which read back to the same configs, outcomes and times" /usr/bin/python3 -c "
import gzip, json, sys
key = lambda r: json.dumps(r['configuration'], sort_keys=True)
truth = {key(r): r for r in json.load(gzip.open('$spaces/W7800_T4.json.gz', 'rt'))['results']}
ours = json.load(open('$out/w7800.json'))['results']
same = lambda r, t: r['invalidity'] == t['invalidity'] and (r['invalidity'] != 'correct' or abs(r['measurements'][0]['value'] - t['measurements'][0]['value']) < 1e-9 * t['measurements'][0]['value'])
sys.exit(0 if len(ours) == len(truth) == 4362 and all(same(r, truth[key(r)]) for r in ours) else 1)"
"$graphcost" import "$spaces/convolution_milo.json" --out "$out/t1.json" >"$out/import-t1.txt" 2>&1; status=$?
check "  ...and refuses a T1 definition, which has nothing measured" bash -c "test $status -eq 1 && grep -q 'nothing measured\|needs none' '$out/import-t1.txt'"

"$graphcost" tune "$a100" --budget 30 --seed 2 --out "$out/a100.json" --json >"$out/replay.json" 2>"$out/replay.err"; status=$?
check "tune replays a space" test $status -eq 0
check "  ...learning with XGBoost or ridge on its parameters" grep -Eq '"chosen": "(xgboost|ridge)"' "$out/replay.json"
"$graphcost" info --json "$out/a100.json" >"$out/measured.json"; status=$?
check "  ...and writes its measurements as T4 that info reads back" bash -c "test $status -eq 0 && grep -q '\"configs\": 30' '$out/measured.json'"
check "  ...with the recorded times of the configs measured" /usr/bin/python3 -c "
import gzip, json, sys
truth = {json.dumps(r['configuration'], sort_keys=True): r for r in json.load(gzip.open('$a100', 'rt'))['results']}
ours = json.load(open('$out/a100.json'))['results']
ok = all(abs(r['measurements'][0]['value'] - truth[json.dumps(r['configuration'], sort_keys=True)]['measurements'][0]['value']) < 1e-9
         if r['invalidity'] == 'correct' else r['invalidity'] == truth[json.dumps(r['configuration'], sort_keys=True)]['invalidity']
         for r in ours)
sys.exit(0 if ok and len(ours) == 30 else 1)"
"$graphcost" tune "$a100" --budget 30 --seed 2 --json 2>/dev/null | grep -v seconds >"$out/again.json"
grep -v seconds "$out/replay.json" >"$out/first.json"
check "the same seed measures the same configs" cmp -s "$out/first.json" "$out/again.json"

for strategy in random genetic; do
  "$graphcost" tune "$a100" --strategy "$strategy" --budget 30 --seed 1 -q >"$out/$strategy.txt" 2>&1; status=$?
  check "tune --strategy $strategy on a space" bash -c "test $status -eq 0 && grep -q '^30 measured; best config' '$out/$strategy.txt'"
done
"$graphcost" tune "$a100" --warm-start "$spaces/A4000_T4.json.gz" --budget 20 --seed 1 -q >"$out/warm.txt" 2>&1; status=$?
check "tune --warm-start from another GPU's space" bash -c "test $status -eq 0 && grep -q '^20 measured' '$out/warm.txt'"
"$graphcost" tune "$data/tpugraphs/npz/layout/xla/default/train/unet3d.npz" --warm-start "$spaces/A4000_T4.json.gz" -q >"$out/warm-graph.txt" 2>&1
check "  ...refused for a graph target" grep -q "warm_start: expected a parameter space target" "$out/warm-graph.txt"

"$graphcost" tune "$a100" --learner gnn -q >"$out/gnn.txt" 2>&1; status=$?
check "the GNN is refused on a space, saying why" bash -c "test $status -eq 1 && grep -q 'no graph for the GNN' '$out/gnn.txt'"
"$graphcost" tune "$a100" --oracle simulate -q >"$out/simulate.txt" 2>&1; status=$?
check "the simulator is refused on a space" bash -c "test $status -eq 1 && grep -q 'replay or command for a parameter space' '$out/simulate.txt'"
"$graphcost" tune "$spaces/convolution_milo.json" -q >"$out/unmeasured.txt" 2>&1; status=$?
check "replaying an unmeasured space is refused" bash -c "test $status -eq 1 && grep -q 'recorded runtimes' '$out/unmeasured.txt'"

# The T1 space measured by a command: the config's parameters by name, a failing config kept as data.
"$graphcost" tune "$spaces/convolution_milo.json" --oracle command --measure "/usr/bin/python3 $here/tests/fixtures/measure_space_config.py" \
  --budget 20 --per-round 5 --out "$out/measured_t1.json" -q >"$out/command.txt" 2>&1; status=$?
check "tune --oracle command measures a space defined by T1" bash -c "test $status -eq 0 && grep -q '^20 measured' '$out/command.txt'"
check "  ...its results a T4 file of the 20 configs, failures kept" /usr/bin/python3 -c "
import json, sys
results = json.load(open('$out/measured_t1.json'))['results']
failed = [r for r in results if r['invalidity'] != 'correct']
work = lambda c: c['block_size_x'] * c['block_size_y'] * c['tile_size_x'] * c['tile_size_y']
sys.exit(0 if len(results) == 20 and all(work(r['configuration']) > 4096 for r in failed) else 1)"

finish
