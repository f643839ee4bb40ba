#!/usr/bin/env bash
# `graphcost gen` end to end: writes a tree that `graphcost info` accepts, with a test-split
# solution that graphcost-eval scores; same seed gives the same bytes; bad options exit 1 or 2.
# Usage: test_gen_cli.sh GRAPHCOST GRAPHCOST_EVAL
set -u
graphcost=$1 eval_tool=$2
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

"$graphcost" gen --out "$out/a" --graphs 15 --seed 9 --max-nodes 800 --layout-configs 50 >"$out/gen.txt" 2>"$out/progress.txt"; status=$?
check "gen exits 0" test $status -eq 0
check "gen reports what it wrote" grep -q "wrote 15 files" "$out/gen.txt"
check "gen shows progress" grep -q "gen: 15/15 files" "$out/progress.txt"
"$graphcost" info -q "$out/a" >"$out/info.txt"; status=$?
check "info accepts every generated file" test $status -eq 0
check "  ...five collections" test "$(grep -c '^tile:xla\|^layout:' "$out/info.txt")" -ge 10
"$graphcost" gen -q --out "$out/b" --graphs 15 --seed 9 --max-nodes 800 --layout-configs 50 --threads 1 >/dev/null
check "same seed, same bytes (1 vs 2 threads)" diff -r -q "$out/a" "$out/b"
"$eval_tool" baseline --data "$out/a" --split test --strategy random --out "$out/sub.csv" >/dev/null
"$eval_tool" score --solution "$out/a/solution_test.csv" --submission "$out/sub.csv" >"$out/score.txt"; status=$?
check "graphcost-eval scores the generated test split" test $status -eq 0
"$graphcost" gen --out "$out/c" --graphs 3 --collections layout:tpu:fast >/dev/null 2>"$out/bad.txt"; status=$?
check "an unknown collection is refused (exit 1) naming it" bash -c "test $status -eq 1 && grep -q \"layout:tpu:fast\" '$out/bad.txt'"
"$graphcost" gen --out "$out/d" --graphs 0 >/dev/null 2>&1; status=$?
check "zero graphs is a usage error (exit 2)" test $status -eq 2

# Real program structures (--programs): the shared HLO modules, imported, labelled like the families.
data=${GRAPHCOST_DATA:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/data}
if [ -d "$data/hlo" ]; then
  "$graphcost" gen --out "$out/p" --graphs 10 --seed 2 --layout-configs 50 --collections layout:xla:random,layout:nlp:default \
    --programs "$data/hlo" --program-share 1 >"$out/p.txt" 2>/dev/null; status=$?
  check "gen --programs exits 0 and lists the modules used and left out" bash -c "test $status -eq 0 &&
    grep -q 'program: resnet50_keras_jax_f32 (xla, 1755 nodes, 483 configurable)' '$out/p.txt' &&
    grep -q 'program left out: fusion (0 configurable nodes' '$out/p.txt' && grep -q '10 of 10 files hold an imported program' '$out/p.txt'"
  check "  ...every file is a module as imported: its size, its names, xla modules in xla collections" /usr/bin/python3 -c "
import glob, json, subprocess, sys
sizes = {'layout:xla:random': {1755}, 'layout:nlp:default': {1386, 9738, 1729}}
files = [json.loads(subprocess.run(['$graphcost', 'info', '--json', f], capture_output=True, text=True).stdout)
         for f in glob.glob('$out/p/npz/**/*.npz', recursive=True)]
bad = [(f['file'], f['nodes']) for f in files if f['nodes'] not in sizes[f['collection']] or 'names' not in f]
print(bad) if bad else None
sys.exit(0 if len(files) == 10 and not bad else 1)"
  "$graphcost" simulate --out "$out/p.csv" $(find "$out/p/npz" -name '*.npz' -not -path '*/test/*') >/dev/null
  check "  ...labelled as the simulator prices them (measured / simulated is the 1.5% noise)" /usr/bin/python3 -c "
import csv, math, statistics, sys
logs = [math.log(float(r['measured']) / float(r['simulated_seconds'])) for r in csv.DictReader(open('$out/p.csv'))]
sys.exit(0 if len(logs) >= 300 and 0.011 < statistics.pstdev(logs) < 0.019 else 1)"
  "$graphcost" gen -q --out "$out/p1" --graphs 10 --seed 2 --layout-configs 50 --collections layout:xla:random,layout:nlp:default \
    --programs "$data/hlo" --program-share 1 --threads 1 >/dev/null
  check "  ...same seed, same bytes (1 vs 2 threads)" diff -r -q "$out/p/npz" "$out/p1/npz"
  # Half from modules: the family-built files are those of a run without --programs, byte for byte.
  "$graphcost" gen -q --out "$out/half" --graphs 12 --seed 2 --layout-configs 30 --collections layout:xla:random,layout:nlp:random \
    --programs "$data/hlo" >"$out/half.txt"
  "$graphcost" gen -q --out "$out/none" --graphs 12 --seed 2 --layout-configs 30 --collections layout:xla:random,layout:nlp:random >/dev/null
  check "  ...--program-share 0.5: some files from modules, the others identical to a run without" bash -c "
    from=\$(grep -o '^[0-9]* of 12' '$out/half.txt' | cut -d' ' -f1); same=0
    for f in \$(cd '$out/none/npz' && find . -name '*.npz'); do cmp -s '$out/none/npz/'\$f '$out/half/npz/'\$f && same=\$((same + 1)); done
    test \$from -ge 1 && test \$from -le 11 && test \$((same + from)) -eq 12"
  mkdir -p "$out/empty"
  "$graphcost" gen --out "$out/e" --graphs 3 --programs "$out/empty" >/dev/null 2>"$out/empty.txt"; status=$?
  check "--programs on a folder without modules exits 1 saying so" bash -c "test $status -eq 1 && grep -q 'none in the folder' '$out/empty.txt'"
  mkdir -p "$out/badmod" && printf 'HloModule m\nENTRY e {\n  ROOT a = f32[2] negate(ghost)\n}\n' >"$out/badmod/bad.hlo"
  "$graphcost" gen --out "$out/b" --graphs 3 --programs "$out/badmod" >/dev/null 2>"$out/badmod.txt"; status=$?
  check "--programs with a broken module exits 1 at its line and column" bash -c "test $status -eq 1 && grep -q 'bad.hlo:3:26' '$out/badmod.txt'"
  "$graphcost" gen --out "$out/s" --graphs 3 --programs "$data/hlo" --program-share 2 >/dev/null 2>&1; status=$?
  check "--program-share outside [0, 1] is a usage error (exit 2)" test $status -eq 2
else
  echo "skipped --programs checks: no HLO modules at $data/hlo"
fi

finish
