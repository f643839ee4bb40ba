#!/usr/bin/env bash
# The in-browser validator (graphcost_validate.js, web/validator/) against the public ID list gives
# the errors that `graphcost-eval score` gives against the real solution, on a valid submission and
# on broken copies of it (a generated tree: every collection, no shared data needed).
# Usage: test_wasm_validate.sh GRAPHCOST GRAPHCOST_EVAL VALIDATOR_JS
set -euo pipefail
graphcost=$1 eval_tool=$2 validator=$3
source "$(dirname "$0")/../skip_unless.sh"
skip_unless_web_build "$validator"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$graphcost" gen --out "$out/tree" --graphs 20 --seed 4 --layout-configs 40 --quiet
"$eval_tool" baseline --data "$out/tree" --split test --strategy random --seed 1 --out "$out/valid.csv" >/dev/null
exec node --no-experimental-fetch "$(dirname "$0")/validate_matches_native.mjs" "$eval_tool" "$validator" "$out/tree/solution_test.csv" \
  "$out/valid.csv" "$out"
