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

finish
