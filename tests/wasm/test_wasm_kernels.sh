#!/usr/bin/env bash
# tests/test_kernels.cpp built for WebAssembly (the 128-bit SIMD kernels), run by Node.js.
# Usage: test_wasm_kernels.sh TEST_KERNELS_JS
set -u
if [ ! -f "$1" ]; then
  echo "skipped: no WebAssembly build at $1 (cmake --preset web && cmake --build --preset web)"
  exit 0
fi
# --no-experimental-fetch: Emscripten 3.1.6 would fetch() its .wasm by path under Node 18+ (docs/toolchain.md)
exec node --no-experimental-fetch "$1" --use-colour no
