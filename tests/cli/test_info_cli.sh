#!/usr/bin/env bash
# `graphcost info` end to end on the shared data: a file, a tree, the nonconforming file, bad usage.
# Usage: test_info_cli.sh GRAPHCOST_BINARY
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
source "$(dirname "$0")/check.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

nlp="$data/tpugraphs/npz/layout/nlp/default/test/3a0c5517a87df8d82fd637b83298a3ba.npz"
"$graphcost" info "$nlp" >"$out/nlp.txt" 2>&1; status=$?
check "info on the nlp file exits 0" test $status -eq 0
check "nlp file: node count" grep -q "^nodes  *21,918$" "$out/nlp.txt"
check "nlp file: configurable nodes" grep -q "^configurable nodes  *848$" "$out/nlp.txt"
check "nlp file: configs" grep -q "^configs  *1,001 (988 distinct)$" "$out/nlp.txt"
check "nlp file: hidden runtimes" grep -q "hidden" "$out/nlp.txt"
check "nlp file: Kaggle id" grep -q "layout:nlp:default:3a0c5517a87df8d82fd637b83298a3ba" "$out/nlp.txt"
check "nlp file: opcode names" grep -q "multiply" "$out/nlp.txt"

"$graphcost" info --json "$data/tpugraphs/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz" >"$out/tile.json"
check "tile json parses and is labelled" /usr/bin/python3 -c "
import json,sys; d=json.load(open('$out/tile.json')); sys.exit(0 if d['labelled'] and d['configs']==9 and d['kind']=='tile' else 1)"

"$graphcost" info "$data/nonconforming/alexnet_trimmed_columns.npz" >"$out/alexnet.txt" 2>&1; status=$?
check "nonconforming file exits 1" test $status -eq 1
check "nonconforming file: message names node_feat and 140" grep -q "alexnet_trimmed_columns.npz: node_feat: expected shape (n, 140), got shape (372, 70)" "$out/alexnet.txt"

"$graphcost" info -q "$data" >"$out/tree.txt" 2>&1; status=$?
check "tree with one bad file exits 1" test $status -eq 1
check "tree: nlp default row" grep -q "^layout:nlp:default  *test  *1  *0  *0  *1  *21918" "$out/tree.txt"
check "tree: tile test row" grep -q "^tile:xla  *test  *6  *0  *0  *6" "$out/tree.txt"
check "tree: lists the failing file" grep -q "1 file(s) failed" "$out/tree.txt"

"$graphcost" info -q "$data/tpugraphs" >/dev/null 2>&1; status=$?
check "the conforming tree exits 0" test $status -eq 0

"$graphcost" info /nonexistent.npz >"$out/missing.txt" 2>&1; status=$?
check "missing file exits 1 and names it" bash -c "test $status -eq 1 && grep -q '/nonexistent.npz' '$out/missing.txt'"
"$graphcost" info >/dev/null 2>&1; status=$?
check "missing argument is a usage error (exit 2)" test $status -eq 2
"$graphcost" frobnicate >/dev/null 2>&1; status=$?
check "unknown subcommand is a usage error (exit 2)" test $status -eq 2

finish
