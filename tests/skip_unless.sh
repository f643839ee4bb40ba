# Sourced by the shell tests: stop a test with "skipped: ..." (exit 0) when what it needs is absent.
# CTest reports such a test as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
#   data=$(shared_data_dir); skip_unless_data "$data"; skip_unless_web_build "$file"

shared_data_dir() {  # $GRAPHCOST_DATA, else ../shared/data beside the checkout
  echo "${GRAPHCOST_DATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/data}"
}

skip_unless_data() {
  if [ ! -d "$1/tpugraphs" ]; then
    echo "skipped: no TpuGraphs data at $1 (set GRAPHCOST_DATA to the shared data folder)"
    exit 0
  fi
}

skip_unless_web_build() {
  if [ ! -f "$1" ]; then
    echo "skipped: no WebAssembly build at $1 (cmake --preset web && cmake --build --preset web)"
    exit 0
  fi
}
