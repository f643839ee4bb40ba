#!/usr/bin/env bash
# Installs everything graphcost needs on a Debian bookworm machine: apt packages, Debian source
# packages of Dear ImGui and zlib for the WebAssembly build (into third_party/, git-ignored), and the
# npm packages of the browser tests. Idempotent: a second run only checks and returns in seconds.
#   --bench  also installs the benchmark peers' packages: python3-torch (bench/model_vs_pytorch.py)
#            and libopenblas0-pthread (Debian's torch uses the system BLAS; without OpenBLAS it would
#            run on the slow reference one). The tests never need them.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=0
for argument in "$@"; do
  case "$argument" in
    --bench) bench=1 ;;
    *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
  esac
done

apt_packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev   # native + sanitizer + libFuzzer
  zlib1g-dev libeigen3-dev nlohmann-json3-dev catch2 libcli11-dev libmetis-dev
  libglfw3-dev libimgui-dev
  emscripten                                                                # WebAssembly build
  python3-numpy python3-scipy                                               # test oracles, benchmarks
  chromium                                                                  # browser tests
  firefox-esr xvfb libgl1-mesa-dri libglx-mesa0 libegl-mesa0                # ... in Firefox (llvmpipe WebGL2)
  dpkg-dev                                                                  # apt-get source
)
if [ "$bench" = 1 ]; then
  apt_packages+=(python3-torch libopenblas0-pthread)
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing apt packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Debian source packages (the WebAssembly build compiles ImGui and zlib with emcc). They need a
# deb-src entry mirroring the existing binary entry.
source_list=/etc/apt/sources.list.d/graphcost-deb-src.sources
if [ ! -f "$source_list" ]; then
  echo "setup: adding deb-src entry $source_list"
  as_root tee "$source_list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  as_root apt-get update -qq
fi

mkdir -p third_party
fetch_source() {  # $1 = source package, $2 = directory glob it unpacks to, $3 = link name
  local package=$1 pattern=$2 link=$3
  if [ ! -e "third_party/$link" ]; then
    echo "setup: fetching Debian source package $package"
    (cd third_party && apt-get source -qq "$package" >/dev/null)
    local dir
    dir=$(cd third_party && ls -d $pattern/ | head -1)
    ln -sfn "${dir%/}" "third_party/$link"
  fi
}
fetch_source imgui 'imgui-*' imgui
fetch_source zlib 'zlib-*' zlib

# npm packages of the browser tests (playwright-core drives Debian's chromium, puppeteer-core Debian's
# firefox-esr; neither downloads a browser of its own).
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/puppeteer-core ]; then
  echo "setup: installing npm packages"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --silent
fi
echo "setup: ok"
