#!/usr/bin/env bash
# The WebAssembly build of `graphcost` (run by Node.js) prints exactly what the native build prints,
# for every shared file (text and JSON; HLO text modules imported on the fly) and for the
# nonconforming file's error; `import` writes byte-identical files.
# Usage: test_wasm_info.sh NATIVE_GRAPHCOST WASM_GRAPHCOST_JS
set -u
native=$1 wasm=$2
source "$(dirname "$0")/../skip_unless.sh"
data=$(shared_data_dir)
skip_unless_data "$data"
skip_unless_web_build "$wasm"
passed=0 failed=0
compare() {  # args for `info`
  local a b
  a=$("$native" info "$@" 2>&1; echo "exit $?")
  b=$(node --no-experimental-fetch "$wasm" info "$@" 2>&1; echo "exit $?")
  if [ "$a" == "$b" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "DIFFERENT: info $*"; diff <(echo "$a") <(echo "$b") | head -20; fi
}
while IFS= read -r file; do
  compare "$file"
  compare --json "$file"
done < <(find "$data" \( -name '*.npz' -o -name '*.hlo' \) | sort)
compare -q "$data"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for module in "$data"/hlo/cpu.hlo "$data"/hlo/resnet50_keras_jax_f32.hlo; do
  [ -f "$module" ] || continue
  "$native" import "$module" --out "$out/native.npz" --seed 5 -q >/dev/null 2>&1
  node --no-experimental-fetch "$wasm" import "$module" --out "$out/wasm.npz" --seed 5 -q >/dev/null 2>&1
  if cmp -s "$out/native.npz" "$out/wasm.npz"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "DIFFERENT: import $module"; fi
done
echo "$passed passed, $failed failed"
test "$failed" -eq 0 -a "$passed" -gt 10
