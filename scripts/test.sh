#!/usr/bin/env bash
# README command 2: every test. Installs what is missing, builds the WebAssembly and native release
# builds, runs all tests (unit, numpy interop, CLI, browser, WebAssembly-vs-native), then rebuilds
# with AddressSanitizer + UndefinedBehaviorSanitizer and runs the unit and CLI tests again. Prints
# the time of each stage, and a table of them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export GRAPHCOST_DATA=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}

stage_names=()
stage_seconds=()
stage_name=
stage_started=$(date +%s)
stage_end() {
  [ -n "$stage_name" ] || return 0
  stage_names+=("$stage_name"); stage_seconds+=($(( $(date +%s) - stage_started )))
  stage_name=
}
stage() { stage_end; stage_name=$*; stage_started=$(date +%s); echo; echo "=== $* ==="; }
summary() {
  local status=$? i
  stage_end
  echo; echo "=== stage times (scripts/test.sh, exit $status) ==="
  for i in "${!stage_names[@]}"; do printf '%6d s  %s\n' "${stage_seconds[$i]}" "${stage_names[$i]}"; done
}
trap summary EXIT

stage "setup (apt, Debian sources, npm)"
bash scripts/setup.sh

stage "house rules (format, sizes, layers, history)"
bash scripts/check_rules.sh

stage "WebAssembly build (Emscripten)"
cmake --preset web >/dev/null
cmake --build --preset web

stage "native release build"
cmake --preset native-release >/dev/null
cmake --build --preset native-release

stage "native release tests (all but the slow label)"
ctest --preset native-release -j2 -LE slow

stage "the Python wheel (x86-64-v2 and x86-64-v3 builds, installed in a fresh venv, walkthrough from /tmp)"
cmake --preset python-wheel >/dev/null
cmake --build --preset python-wheel
cmake --preset python-wheel-v3 >/dev/null
cmake --build --preset python-wheel-v3
bash scripts/wheel-check.sh

stage "sanitizer build (ASan + UBSan)"
cmake --preset native-debug-sanitize >/dev/null
cmake --build --preset native-debug-sanitize

stage "sanitizer tests (unit and CLI)"
ctest --preset native-debug-sanitize -j2 -L "unit|cli"
