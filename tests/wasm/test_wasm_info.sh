#!/usr/bin/env bash
# The WebAssembly build of `graphcost` (run by Node.js) prints exactly what the native build prints,
# for every shared file (text and JSON) and for the nonconforming file's error.
# Usage: test_wasm_info.sh NATIVE_GRAPHCOST WASM_GRAPHCOST_JS
set -u
native=$1 wasm=$2
data=${GRAPHCOST_DATA:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/data}
if [ ! -d "$data/tpugraphs" ]; then
  echo "skipped: no TpuGraphs data at $data (set GRAPHCOST_DATA to the shared data folder)"
  exit 0
fi
if [ ! -f "$wasm" ]; then
  echo "skipped: no WebAssembly build at $wasm (cmake --preset web && cmake --build --preset web)"
  exit 0
fi
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
done < <(find "$data" -name '*.npz' | sort)
compare -q "$data"
echo "$passed passed, $failed failed"
test "$failed" -eq 0 -a "$passed" -gt 10
