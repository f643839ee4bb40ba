#!/usr/bin/env bash
# `graphcost draw` end to end: the 21,918-node nlp file is drawn in layers and exports one row per
# node; the old name `layout` still works; a nonconforming file is refused by name.
# Usage: test_draw_cli.sh GRAPHCOST_BINARY
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

nlp="$data/tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"
"$graphcost" draw "$nlp" --out "$out/nlp.csv" >"$out/nlp.txt" 2>"$out/progress.txt"; status=$?
check "drawing the nlp file exits 0" test $status -eq 0
check "  ...reports nodes and layers" grep -q "21918 nodes, .* layers" "$out/nlp.txt"
check "  ...shows progress" grep -q "100%" "$out/progress.txt"
check "  ...exports one row per node" test "$(wc -l < "$out/nlp.csv")" -eq 21919
check "  ...no cycles in a real graph" grep -q " 0 ignored edges" "$out/nlp.txt"
"$graphcost" layout "$data/nonconforming/alexnet_trimmed_columns.npz" >/dev/null 2>"$out/bad.txt"; status=$?
check "a nonconforming file exits 1 naming node_feat (through the old name, layout)" bash -c "test $status -eq 1 && grep -q 'node_feat' '$out/bad.txt'"
finish
