#!/usr/bin/env bash
# tests/test_kernels.cpp built for WebAssembly (the 128-bit SIMD kernels), run by Node.js.
# Usage: test_wasm_kernels.sh TEST_KERNELS_JS
set -u
source "$(dirname "$0")/../skip_unless.sh"
skip_unless_web_build "$1"
# --no-experimental-fetch: Emscripten 3.1.6 would fetch() its .wasm by path under Node 18+ (docs/toolchain.md)
exec node --no-experimental-fetch "$1" --use-colour no
