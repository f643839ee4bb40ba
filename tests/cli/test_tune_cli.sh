#!/usr/bin/env bash
# `graphcost tune` end to end (docs/tuning.md): replay on a real labelled file (outputs, the same
# seed giving the same run), the real-hardware oracle on a real HLO module with a measure script
# that fails, hangs and prints garbage for some configs (all recorded, tuning goes on), a run
# killed part way and resumed (nothing measured twice), the results file trained on, train --init,
# and search --out tuned.hlo.
# Usage: test_tune_cli.sh GRAPHCOST_BINARY
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
here=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
unet3d="$data/tpugraphs/npz/layout/xla/default/train/unet3d.npz"
measure="/usr/bin/python3 $here/tests/fixtures/measure_config.py"
# The checks are about the loop (journal, oracle, resume, outputs), not what the model learns: the
# sanitizer build (tests/CMakeLists.txt sets GRAPHCOST_TEST_SANITIZED) fits with a few steps a round,
# where the default recipe took over 10 minutes; the release build runs the defaults.
recipe=()
[ -n "${GRAPHCOST_TEST_SANITIZED:-}" ] && recipe=(--epochs 1 --steps-per-epoch 5)

# Replay: the file's recorded runtimes, revealed one at a time.
"$graphcost" tune "${recipe[@]}" "$unet3d" --budget 20 --per-round 5 --seed 3 --out "$out/replay.npz" --costs-out "$out/costs.csv" --json \
  >"$out/replay.json" 2>"$out/replay.err"; status=$?
check "replay tune exits 0" test $status -eq 0
check "  ...prints a line per round with the out-of-sample tau" grep -q "^round 3: 20/20 measured.*tau on the new ones before measuring" "$out/replay.err"
check "  ...writes a labelled file of the 20 measured configs" bash -c "'$graphcost' info --json '$out/replay.npz' | grep -q '\"configs\": 20'"
check "  ...whose runtimes are the recorded ones" /usr/bin/python3 -c "
import numpy as np, sys
a = np.load('$out/replay.npz'); b = np.load('$unet3d')
rows = {tuple(b['node_config_feat'][i].ravel()): b['config_runtime'][i] for i in range(len(b['config_runtime']))}
sys.exit(0 if all(rows.get(tuple(a['node_config_feat'][i].ravel())) is not None for i in range(20)) else 1)"
check "  ...and a cost for every candidate, the measured ones marked" /usr/bin/python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$out/costs.csv')))
sys.exit(0 if len(rows) == 1159 and sum(int(r['measured']) for r in rows) == 20 and all(r['predicted'] for r in rows) else 1)"
check "  ...and a JSON summary with the unmeasured configs' tau" /usr/bin/python3 -c "
import json, sys
d = json.load(open('$out/replay.json')); r = d['rounds'][-1]
sys.exit(0 if len(d['rounds']) == 4 and r['measured'] == 20 and -1 <= r['unmeasured_tau'] <= 1 and d['best']['seconds'] > 0 else 1)"
"$graphcost" tune "${recipe[@]}" "$unet3d" --budget 20 --per-round 5 --seed 3 --out "$out/again.npz" -q >/dev/null 2>&1
check "the same seed measures the same configs in the same order" bash -c \
  "diff <(tail -n +2 '$out/replay.npz.journal' | sed 's/\"predicted\":[^,}]*//') <(tail -n +2 '$out/again.npz.journal' | sed 's/\"predicted\":[^,}]*//')"
"$graphcost" tune "${recipe[@]}" "$unet3d" --budget 30 --per-round 5 --seed 4 --out "$out/replay.npz" --resume -q >/dev/null 2>"$out/other-seed.txt"; status=$?
check "a resume with other options is refused, naming the option" bash -c "test $status -eq 1 && grep -q 'seed' '$out/other-seed.txt'"

# --model-out: the fitted learner, which rank reads for this program (and refuses for another).
"$graphcost" tune "$unet3d" --learner xgboost --budget 30 --per-round 10 --seed 3 --model-out "$out/learner.json" \
  --costs-out "$out/xgb-costs.csv" -q >/dev/null 2>&1; status=$?
check "tune --model-out writes the fitted learner" bash -c "test $status -eq 0 && grep -q '\"learner\": *\"xgboost\"' '$out/learner.json'"
"$graphcost" rank "$unet3d" --model "$out/learner.json" --top 1159 --json >"$out/learner-rank.json" 2>"$out/learner-rank.err"; status=$?
check "  ...rank with it orders the configs as tune's last fit did" /usr/bin/python3 -c "
import csv, json, sys
costs = {int(r['config']): float(r['predicted']) for r in csv.DictReader(open('$out/xgb-costs.csv'))}
top = json.load(open('$out/learner-rank.json'))['top']
ok = $status == 0 and len(top) == 1159 and all(abs(t['cost'] - costs[t['config']]) <= 1e-5 * abs(costs[t['config']]) for t in top)
sys.exit(0 if ok and top[0]['speedup_over_config_0'] > 0 else 1)"
"$graphcost" rank "$data/tpugraphs/npz/layout/xla/random/valid/unet_3d.4x4.bf16.npz" --model "$out/learner.json" >/dev/null 2>"$out/wrong.txt"; status=$?
check "  ...and refuses it for another program, naming the field" bash -c "test $status -eq 1 && grep -q 'learner.json' '$out/wrong.txt' && grep -q 'nodes' '$out/wrong.txt'"
"$graphcost" tune "${recipe[@]}" "$unet3d" --learner weighed --budget 10 --per-round 5 --seed 3 --hops 2 --configs-per-step 16 -q >/dev/null 2>&1; status=$?
check "the scratch model's recipe is the user's: --hops 2 --configs-per-step 16" test $status -eq 0

# The real-hardware oracle on a real module: failures, timeouts and garbage are kept and survived.
# Every config is measured (the module's own and 30 candidates), so each kind of failure the script
# has for some configs (tests/fixtures/measure_config.py) occurs whatever order the tuner draws them in.
module="$data/hlo/dlrm_keras_jax_f32_train_step.hlo"
"$graphcost" tune "${recipe[@]}" "$module" --oracle command --measure "$measure" --measure-timeout 1 --candidates 30 --budget 31 --per-round 8 \
  --seed 1 --out "$out/hw.npz" >"$out/hw.txt" 2>"$out/hw.err"; status=$?
check "command tune on the DLRM train step exits 0" test $status -eq 0
check "  ...records failed, timed-out and garbage measurements and goes on" /usr/bin/python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$out/hw.npz.journal')][1:]
statuses = {l['status'] for l in lines}
sys.exit(0 if len(lines) == 31 and {'ok', 'failed', 'timeout', 'garbage'} <= statuses else 1)"
check "  ...each failure says why" bash -c "grep -q 'exit status 1' '$out/hw.npz.journal' && grep -q 'no answer within 1 s' '$out/hw.npz.journal' && grep -q 'not a positive number' '$out/hw.npz.journal'"
check "  ...hands the script the module with the config's layouts" bash -c "ls '$out/hw.npz.measurements/' | grep -q 'config-0.hlo'"
check "  ...the results file holds the ok ones" /usr/bin/python3 -c "
import json, sys, numpy as np
ok = sum(1 for l in list(open('$out/hw.npz.journal'))[1:] if json.loads(l)['status'] == 'ok')
sys.exit(0 if len(np.load('$out/hw.npz')['config_runtime']) == ok else 1)"

# Killed part way (Ctrl-C, then kill -9), resumed: nothing measured twice.
MEASURE_LOG="$out/asked.txt" "$graphcost" tune "${recipe[@]}" "$module" --oracle command --measure "$measure" --measure-timeout 1 --candidates 60 \
  --budget 24 --per-round 8 --seed 2 --out "$out/killed.npz" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ "$(wc -l <"$out/killed.npz.journal" 2>/dev/null || echo 0)" -ge 6 ] && break; sleep 0.1; done  # up to a minute on a loaded machine
kill -9 $pid; wait $pid 2>/dev/null
before=$(($(wc -l <"$out/killed.npz.journal") - 1))
check "a killed run left its measurements in the journal" test "$before" -ge 5
MEASURE_LOG="$out/asked.txt" "$graphcost" tune "${recipe[@]}" "$module" --oracle command --measure "$measure" --measure-timeout 1 --candidates 60 \
  --budget 24 --per-round 8 --seed 2 --out "$out/killed.npz" --resume >"$out/resume.txt" 2>"$out/resume.err"; status=$?
check "--resume finishes the run" bash -c "test $status -eq 0 && grep -q '^resumed: $before measurements' '$out/resume.err'"
check "  ...measuring nothing twice" /usr/bin/python3 -c "
import json, sys
configs = [json.loads(l)['config'] for l in list(open('$out/killed.npz.journal'))[1:]]
sys.exit(0 if len(configs) == 24 and len(set(configs)) == 24 else 1)"
# The config in flight when the kill came was asked but never answered: the resume may ask it again.
check "  ...nor asking the script twice for a config it answered" /usr/bin/python3 -c "
import json, sys
asked = [int(l) for l in open('$out/asked.txt')]
answered_before_the_kill = [json.loads(l)['config'] for l in list(open('$out/killed.npz.journal'))[1:$before + 1]]
sys.exit(0 if all(asked.count(c) == 1 for c in answered_before_the_kill) and len(asked) - len(set(asked)) <= 1 else 1)"
"$graphcost" tune "${recipe[@]}" "$module" --oracle command --measure "$measure" --candidates 60 --budget 4 --out "$out/killed.npz" -q >/dev/null 2>"$out/exists.txt"; status=$?
check "a journal is never overwritten by a new run" bash -c "test $status -eq 1 && grep -q 'resume' '$out/exists.txt'"

# The results file trains a model; train --init starts from a model.
mkdir -p "$out/tree/npz/layout/xla/default/train"
cp "$out/replay.npz" "$out/tree/npz/layout/xla/default/train/tuned.npz"
"$graphcost" train --data "$out/tree" --collection layout:xla:default --epochs 1 --steps-per-epoch 5 --hidden 16 --out "$out/m.npz" -q >/dev/null 2>&1; status=$?
check "the results file trains a model" test $status -eq 0
"$graphcost" train --data "$out/tree" --collection layout:xla:default --epochs 1 --steps-per-epoch 5 --init "$here/models/layout_xla.npz" \
  --out "$out/warm.npz" -q >/dev/null 2>&1; status=$?
check "train --init starts from the shipped model" test $status -eq 0

# search --out tuned.hlo: the module text with the found config's layouts written in.
"$graphcost" search "$data/hlo/cpu.hlo" --model "$here/models/layout_xla.npz" --rounds 2 --out "$out/tuned.hlo" -q >"$out/search.txt" 2>&1; status=$?
check "search --out tuned.hlo exits 0" test $status -eq 0
check "  ...writes HLO text that parses" bash -c "'$graphcost' info '$out/tuned.hlo' >/dev/null"

finish
