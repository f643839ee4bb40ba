#!/usr/bin/env bash
# README command 2: every test. Installs what is missing, builds the WebAssembly and native release
# builds, runs all tests (unit, numpy interop, CLI, WebAssembly-vs-native), then rebuilds with
# AddressSanitizer + UndefinedBehaviorSanitizer and runs the unit and CLI tests again.
set -euo pipefail
cd "$(dirname "$0")/.."
export GRAPHCOST_DATA=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}

bash scripts/setup.sh
step() { echo; echo "=== $* ==="; }

step "WebAssembly build (Emscripten)"
cmake --preset web >/dev/null
cmake --build --preset web

step "native release build + all tests"
cmake --preset native-release >/dev/null
cmake --build --preset native-release
ctest --preset native-release -j2

step "sanitizer build (ASan + UBSan) + unit and CLI tests"
cmake --preset native-debug-sanitize >/dev/null
cmake --build --preset native-debug-sanitize
ctest --preset native-debug-sanitize -j2 -L "unit|cli"
