#!/usr/bin/env bash
# `graphcost simulate` end to end: on generated files it reproduces the generator's own pricing
# config by config (the labels are the simulator's runtimes times 1.5% log-normal noise, so the
# rebuild from node features must be faithful); on every shared real labelled file it reports a tau, top-5 slowdown
# and spreads, and the tau equals scipy's on its own CSV; HLO text is imported on the fly; bad
# input is refused naming the file.
# Usage: test_simulate_cli.sh GRAPHCOST
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

# Generated: the simulator prices the files it labelled.
"$graphcost" gen -q --out "$out/gen" --graphs 8 --seed 4 --max-nodes 900 --layout-configs 200 \
  --collections layout:xla:random,layout:nlp:default >/dev/null
labelled=$(find "$out/gen/npz" -name '*.npz' -not -path '*/test/*' | sort)
"$graphcost" simulate --json --out "$out/gen.csv" $labelled >"$out/gen.json"; status=$?
check "simulate on generated files exits 0" test $status -eq 0
check "generated files: every dot's contracting dims as written, every convolution's operands in order" /usr/bin/python3 -c "
import json, sys
files = [f for f in json.load(open('$out/gen.json'))['files'] if f['kind'] == 'layout']
bad = [(f['file'], f['rebuild']) for f in files if f['rebuild']['dots_unresolved'] or f['rebuild']['convolutions_order_ambiguous']
       or f['rebuild']['dots'] != f['rebuild']['dots_from_dimensions']]
print(bad) if bad else None
sys.exit(0 if len(files) >= 6 and not bad else 1)"
# The generator's label is the simulated runtime times exp(N(0, 0.015)).
check "generated files: measured / simulated is the generator's noise, config by config" /usr/bin/python3 -c "
import csv, math, statistics, sys
layout = [math.log(float(r['measured']) / float(r['simulated_seconds'])) for r in csv.DictReader(open('$out/gen.csv'))]
sd, worst = statistics.pstdev(layout), max(abs(x) for x in layout)
print(f'layout: {len(layout)} configs, sd of log(measured / simulated) {sd:.4f}, worst {worst:.4f}')
sys.exit(0 if len(layout) > 1000 and 0.012 < sd < 0.018 and worst < 0.1 else 1)"

data=$(shared_data_dir)
skip_unless_data "$data"
real="$data/tpugraphs/npz"
files="$real/layout/xla/random/valid/unet_3d.4x4.bf16.npz $real/layout/xla/default/train/unet3d.npz
  $real/layout/xla/random/train/openai_v0_rnn_optimized.npz $real/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz
  $real/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz"
"$graphcost" simulate --json --out "$out/real.csv" $files >"$out/real.json"; status=$?
check "simulate on the five real labelled files exits 0" test $status -eq 0
check "every real file: the rebuild explains every dot and convolution; figures where the simulator orders configs" /usr/bin/python3 -c "
import json, math, sys
files = {f['file'].split('/')[-1]: f for f in json.load(open('$out/real.json'))['files']}
ok = len(files) == 5 and all(f['labelled'] and f['slowdown_at_5'] >= 1 for f in files.values())
unet = files['unet3d.npz']
ok = ok and unet['rebuild']['convolutions'] == 53 and -1 <= unet['kendall_tau'] <= 1 and unet['simulated_distinct'] > 100
rnn = files['openai_v0_rnn_optimized.npz']
ok = ok and rnn['rebuild']['dots'] == 34 and rnn['rebuild']['dots_unresolved'] == 0
# 20 configs of one distinct layout: the simulator prices them the same, and tau is undefined, not invented.
ok = ok and rnn['simulated_distinct'] == 1 and rnn['kendall_tau'] is None
if not ok: print(json.dumps(files, indent=1))
sys.exit(0 if ok else 1)"
check "the reported tau is scipy's tau-b of the CSV's simulated and measured columns" /usr/bin/python3 -c "
import csv, json, sys
from scipy.stats import kendalltau
rows = {}
for r in csv.DictReader(open('$out/real.csv')): rows.setdefault(r['file'], []).append(r)
for f in json.load(open('$out/real.json'))['files']:
    r = rows[f['file']]
    tau = kendalltau([float(x['simulated_seconds']) for x in r], [float(x['measured']) for x in r]).statistic
    if (f['kendall_tau'] is None) != (tau != tau) or (f['kendall_tau'] is not None and abs(tau - f['kendall_tau']) > 1e-9):
        print(f['file'], f['kendall_tau'], tau); sys.exit(1)"

"$graphcost" simulate "$data/hlo/cpu.hlo" >"$out/hlo.txt"; status=$?
check "an HLO module is imported and priced (hidden runtimes said so)" bash -c "test $status -eq 0 && grep -q 'measured: hidden' '$out/hlo.txt'"

head -c 20000 "$real/layout/xla/default/train/unet3d.npz" >"$out/truncated.npz"
"$graphcost" simulate "$out/truncated.npz" >"$out/truncated.txt" 2>&1; status=$?
check "a truncated file exits 1 naming it" bash -c "test $status -eq 1 && grep -q 'truncated.npz' '$out/truncated.txt'"
cp "$real/layout/xla/default/train/unet3d.npz" "$out/input.npz"
"$graphcost" simulate "$out/input.npz" --out "$out/input.npz" >"$out/self.txt" 2>&1; status=$?
check "--out never overwrites an input" bash -c "test $status -eq 1 && cmp -s '$out/input.npz' '$real/layout/xla/default/train/unet3d.npz'"

# Real TPU GEMM timings (docs/simulator.md): each row priced, the figures against the medians.
gemm="$data/tpu-gemm/measurements_v5e.csv"
"$graphcost" simulate --gemm "$gemm" --hardware tpu-v5e --out "$out/gemm.csv" >"$out/gemm.txt" 2>&1; status=$?
check "simulate --gemm on the v5e timings exits 0" test $status -eq 0
check "  ...writes predicted_s beside each row's own columns" /usr/bin/python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$out/gemm.csv'))); src = list(csv.DictReader(open('$gemm')))
ok = len(rows) == len(src) == 450 and all(r['M'] == s['M'] and r['median_s'] == s['median_s'] and float(r['predicted_s']) > 0 for r, s in zip(rows, src))
sys.exit(0 if ok else 1)"
check "  ...and prints median and p90 error and tau (the scipy oracle agrees)" /usr/bin/python3 -c "
import csv, re, sys
from scipy.stats import kendalltau
rows = list(csv.DictReader(open('$out/gemm.csv')))
errors = sorted(abs(float(r['predicted_s']) / float(r['median_s']) - 1) for r in rows)
tau = kendalltau([float(r['predicted_s']) for r in rows], [float(r['median_s']) for r in rows]).statistic
m = re.search(r'against the measured medians +450 rows: median \|error\| +([0-9.]+)%, p90 +([0-9.]+)%, Kendall tau-b ([0-9.]+)', open('$out/gemm.txt').read())
median = (errors[224] + errors[225]) / 2
sys.exit(0 if m and abs(float(m.group(1)) - 100 * median) < 0.06 and abs(float(m.group(3)) - tau) < 0.0006 else 1)"
printf 'M,N,K,dtype\n128,128,128,bf16\n64,x,8,bf16\n' >"$out/bad-gemm.csv"
"$graphcost" simulate --gemm "$out/bad-gemm.csv" --hardware tpu-v5e >"$out/bad-gemm.txt" 2>&1; status=$?
check "a bad GEMM row exits 1 naming its line and column" bash -c "test $status -eq 1 && grep -q 'bad-gemm.csv:3: column N: expected a whole number' '$out/bad-gemm.txt'"
"$graphcost" simulate --gemm "$gemm" >"$out/nominal-gemm.txt" 2>&1; status=$?
check "the nominal profile has no matrix-unit size: refused with the profiles that have one" bash -c "test $status -eq 1 && grep -q 'tpu-v5e, tpu-v6e' '$out/nominal-gemm.txt'"

finish
