#!/usr/bin/env bash
# `graphcost import` end to end on the real HLO modules of ../shared/data/hlo: every module imports,
# `info` accepts the result, node and edge counts equal an independent count of the text
# (tests/fixtures/hlo_graph_count.py, not the importer); bad text is refused at line:column; the
# input is never overwritten; tile kernels from fusions; rank, search, draw and info on .hlo
# files imported on the fly; predict on imported files in a tree.
# Usage: test_import_cli.sh GRAPHCOST_BINARY
set -u
graphcost=$1
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
source "$(dirname "$0")/check.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
hlo="$data/hlo"
model="$here/models/layout_xla.npz"

for module in "$hlo"/*.hlo; do
  name=$(basename "$module" .hlo)
  "$graphcost" import "$module" --out "$out/$name.npz" -q >"$out/$name.log" 2>&1; status=$?
  check "$name imports" test $status -eq 0
  "$graphcost" info --json "$out/$name.npz" >"$out/$name.json" 2>&1; status=$?
  check "$name: info accepts the result" test $status -eq 0
  /usr/bin/python3 "$here/tests/fixtures/hlo_graph_count.py" --json "$module" >"$out/$name.count.json"
  check "$name: nodes and edges equal the independent count" /usr/bin/python3 -c "
import json, sys
mine = json.load(open('$out/$name.json')); theirs = json.load(open('$out/$name.count.json'))
ok = mine['nodes'] == theirs['nodes'] and mine['edges'] == theirs['edges'] and theirs['backward_edges'] == 0
ok = ok and mine['names']['computations'] == len(theirs['computations'])
if not ok: print('importer', mine['nodes'], mine['edges'], 'count', theirs['nodes'], theirs['edges'])
sys.exit(0 if ok else 1)"
done

check "gemma: 1,646 configurable, 101 configs" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$out/gemma3_1b_flax_call.json')); sys.exit(0 if d['configurable_nodes'] == 1646 and d['configs'] == 101 else 1)"
check "fusion.hlo (nothing configurable): one config" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$out/fusion.json')); sys.exit(0 if d['configurable_nodes'] == 0 and d['configs'] == 1 else 1)"
check "the names arrays load in numpy" /usr/bin/python3 -c "
import numpy as np, sys
f = np.load('$out/cpu.npz'); names = bytes(f['node_names']).decode().split('\n')
sys.exit(0 if len(names) == f['node_feat'].shape[0] and 'param_dot_lhs' in names else 1)"

# Bad text: refused with file:line:column, exit 1, nothing written.
head -c 100000 "$hlo/gemma3_1b_flax_call.hlo" >"$out/truncated.hlo"
"$graphcost" import "$out/truncated.hlo" --out "$out/truncated.npz" >"$out/truncated.txt" 2>&1; status=$?
check "a truncated module exits 1" test $status -eq 1
check "a truncated module: file:line:column in the message" grep -qE "truncated.hlo:[0-9]+:[0-9]+: .*expected .*got end of file" "$out/truncated.txt"
check "a truncated module: nothing written" test ! -e "$out/truncated.npz"
printf 'HloModule m\nENTRY e {\n  ROOT a = f32[2] negate(ghost)\n}\n' >"$out/ghost.hlo"
"$graphcost" import "$out/ghost.hlo" --out "$out/ghost.npz" >"$out/ghost.txt" 2>&1; status=$?
check "an unknown operand exits 1 at its line and column" bash -c "test $status -eq 1 && grep -q \"ghost.hlo:3:26: instruction 'a': expected an instruction defined earlier in computation 'e', got 'ghost'\" '$out/ghost.txt'"
cp "$hlo/cpu.hlo" "$out/self.hlo"
"$graphcost" import "$out/self.hlo" --out "$out/self.hlo" >"$out/self.txt" 2>&1; status=$?
check "import refuses to overwrite its input" bash -c "test $status -eq 1 && cmp -s '$hlo/cpu.hlo' '$out/self.hlo'"

# Tile kernels of a post-optimization module; a pre-optimization one has no fusion.
"$graphcost" import "$hlo/fusion.hlo" --kind tile --out "$out/tiles" -q >"$out/tiles.txt" 2>&1; status=$?
check "tile import of fusion.hlo exits 0" test $status -eq 0
check "tile import: one file per fusion (4)" test "$(ls "$out/tiles" | wc -l)" -eq 4
check "tile kernels load as tile graphs" bash -c "for f in '$out'/tiles/*.npz; do '$graphcost' info --json \"\$f\" | grep -q '\"kind\": \"tile\"' || exit 1; done"
"$graphcost" import "$hlo/depthwise_conv_3x3_1x256x56x56_bf16.hlo" --kind tile --out "$out/none" >"$out/none.txt" 2>&1; status=$?
check "tile import of a module without fusions exits 1 and says why" bash -c "test $status -eq 1 && grep -q 'fusion instructions' '$out/none.txt'"

# Every tool takes HLO text directly.
"$graphcost" info "$hlo/resnet50_keras_jax_f32.hlo" >"$out/info.txt" 2>&1; status=$?
check "info on .hlo" bash -c "test $status -eq 0 && grep -q '^nodes  *1,755$' '$out/info.txt' && grep -q 'HLO computations' '$out/info.txt'"
"$graphcost" draw "$hlo/dlrm_keras_jax_f32_train_step.hlo" -q >"$out/draw.txt" 2>&1; status=$?
check "draw on .hlo" test $status -eq 0
"$graphcost" rank "$hlo/resnet50_keras_jax_f32.hlo" --model "$model" --top 3 --json >"$out/rank.json" 2>"$out/rank.err"; status=$?
check "rank on .hlo exits 0" test $status -eq 0
check "rank: 3 configs listed, config 0's rank given" /usr/bin/python3 -c "
import json, sys; d = json.load(open('$out/rank.json')); sys.exit(0 if len(d['top']) == 3 and 1 <= d['config_0_rank'] <= 101 and d['configs'] == 101 else 1)"
"$graphcost" rank "$out/tiles/$(ls "$out/tiles" | head -1)" --model "$model" >"$out/wrongkind.txt" 2>&1; status=$?
check "rank refuses a layout model on a tile graph" bash -c "test $status -eq 1 && grep -q 'a tile model' '$out/wrongkind.txt'"
"$graphcost" search "$out/resnet50_keras_jax_f32.npz" --model "$model" --rounds 2 --out "$out/found.npz" -q >"$out/search.txt" 2>&1; status=$?
check "search exits 0" test $status -eq 0
check "search: the found config is appended" bash -c "'$graphcost' info --json '$out/found.npz' | grep -q '\"configs\": 102'"

# predict on imported files placed in a tree.
mkdir -p "$out/tree/npz/layout/xla/default/test"
cp "$out/resnet50_keras_jax_f32.npz" "$out/tree/npz/layout/xla/default/test/resnet50.npz"
"$graphcost" predict --model "$model" --data "$out/tree" --out "$out/sub.csv" >/dev/null 2>&1; status=$?
check "predict on an imported file" bash -c "test $status -eq 0 && grep -q '^layout:xla:default:resnet50,' '$out/sub.csv'"

# Binary modules and the dataset's raw tuning records (docs/import.md).
raw="$data/tpugraphs-raw"
"$graphcost" info "$hlo/hlo_opt_hlo_protobinary.pb" >"$out/pb.txt" 2>&1; status=$?
check "info on XLA's binary HloProto" bash -c "test $status -eq 0 && grep -q '^source .*HloProto, module .module_mod1.' '$out/pb.txt'"
"$graphcost" import "$raw/module_tuning_data_layout.pb" --out "$out/unet_3d.npz" >"$out/raw.txt" 2>&1; status=$?
check "import of the raw layout record: 112 labelled configs" bash -c "test $status -eq 0 && grep -q '3163 nodes, 112 labelled configs' '$out/raw.txt'"
check "  ...and info says where they come from" bash -c "'$graphcost' info '$out/unet_3d.npz' | grep -q '^source .*112 of 122 runs kept as configs (10 failed)'"
train_tree="$out/raw-tree/npz/tile/xla"
mkdir -p "$train_tree/train" "$train_tree/valid"
"$graphcost" import "$raw/op_tuning_data.pb" --out "$train_tree/train" >"$out/tiles-raw.txt" 2>&1; status=$?
check "import of the raw tile records: ten labelled tile files" bash -c "test $status -eq 0 && test \$(ls '$train_tree/train' | wc -l) -eq 10"
mv "$train_tree/train/op_tuning_data.fusion.245.npz" "$train_tree/valid/"
"$graphcost" train --data "$out/raw-tree" --collection tile:xla --epochs 1 --steps-per-epoch 5 --hidden 16 --out "$out/raw-tile.npz" >"$out/raw-train.txt" 2>&1; status=$?
check "a tile model trains on the imported kernels" test $status -eq 0
"$graphcost" evaluate-model --model "$out/raw-tile.npz" --data "$out/raw-tree" >"$out/raw-eval.txt" 2>&1; status=$?
check "  ...and is evaluated on one of them" test $status -eq 0
"$graphcost" import "$raw/op_tuning_data.pb" --out "$out/one.npz" >"$out/many.txt" 2>&1; status=$?
check "a TuningData of ten kernels wants a folder" bash -c "test $status -eq 1 && grep -q 'not a folder' '$out/many.txt'"
"$graphcost" rank "$raw/op_tuning_data.pb" --model "$here/models/tile_xla.npz" >"$out/rank-many.txt" 2>&1; status=$?
check "rank on records of ten modules says import writes each" bash -c "test $status -eq 1 && grep -q 'writes a file for each of several' '$out/rank-many.txt'"
finish
