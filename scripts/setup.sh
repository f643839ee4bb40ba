#!/usr/bin/env bash
# Installs everything graphcost needs on a Debian bookworm machine, from a minbase root on: apt
# packages, Debian source packages of Dear ImGui, zlib, XGBoost and dmlc-core for the WebAssembly build (into
# third_party/, git-ignored), and the npm packages of the browser tests. A second run only checks
# and returns in seconds, but it notices change: a package-lock.json that pins other versions than
# node_modules holds, or an installed -dev package whose version differs from its fetched source.
#   --bench  also installs the benchmark peers' packages: python3-threadpoolctl (which BLAS kernel
#            the peer ran) and libopenblas0-pthread (Debian's python3-torch, which the tests install
#            for Graph.to_torch, uses the system BLAS; without OpenBLAS bench/model_vs_pytorch.py's
#            peer would run on the slow reference one). The tests never need them.
# Prints the time of each stage it had to do.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=0
for argument in "$@"; do
  case "$argument" in
    --bench) bench=1 ;;
    *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
  esac
done
started=$(date +%s)
stage_started=$started
stage_done() { local now; now=$(date +%s); echo "setup: $* in $(( now - stage_started )) s"; stage_started=$now; }

apt_packages=(
  ca-certificates git curl                                                  # clone, serve checks
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev   # native + sanitizer + libFuzzer
  clang-format                                                              # the house rules (scripts/check_rules.sh)
  zlib1g-dev libeigen3-dev nlohmann-json3-dev catch2 libcli11-dev libmetis-dev
  libxgboost-dev python3-xgboost                                            # the learners' trees (tune), and the experiments' peer
  libsqlite3-dev libssl-dev libcpp-httplib-dev libicu-dev                   # the live competition: store, token hashes, server, team names
  nginx openssl                                                             # its front door (deploy/nginx/): test and benchmark
  libopenmpi-dev openmpi-bin                                                # data-parallel training (mpirun)
  libhalide14-0-dev                                                         # modules lowered to Halide and run on the CPU (graphcost lower)
  libglfw3-dev libimgui-dev
  emscripten                                                                # WebAssembly build
  python3 python3-numpy python3-scipy                                       # test oracles, benchmarks
  python3-dev pybind11-dev python3-pytest python3-venv python3-pip python3-setuptools python3-wheel  # the Python package (python/)
  python3-torch                                                             # ... its Graph.to_torch (tests/python/test_interop.py)
  chromium                                                                  # browser tests
  firefox-esr xvfb libgl1-mesa-dri libglx-mesa0 libegl-mesa0                # ... in Firefox (llvmpipe WebGL2)
  dpkg-dev                                                                  # apt-get source
)
# Node.js and npm: Debian's (18 and 9.2) unless the machine already has its own. A Node.js from
# elsewhere usually brings its own npm, and Debian's npm package would fight it over /usr/bin/npm.
command -v node >/dev/null || apt_packages+=(nodejs)
command -v npm >/dev/null || apt_packages+=(npm)
if [ "$bench" = 1 ]; then
  apt_packages+=(libopenblas0-pthread python3-threadpoolctl)
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_update() { [ "$apt_updated" = 1 ] || as_root apt-get update -qq; apt_updated=1; }

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${#missing[@]} apt packages: ${missing[*]}"
  apt_update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  stage_done "apt packages installed"
  # Debian's nginx package enables and starts its default site on port 80 where systemd runs. The
  # tests run their own nginx on free ports; a machine that had no nginx before keeps none running.
  if [[ " ${missing[*]} " == *" nginx "* ]] && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now nginx >/dev/null 2>&1 && echo "setup: nginx installed for the tests; its default service disabled"
  fi
fi

# Debian source packages (the WebAssembly build compiles ImGui and zlib with emcc) need deb-src
# entries. They are derived from the machine's own Debian sources (same URIs, suites, components and
# keyring), so a machine on another mirror or a snapshot gets its own, and no address is written here.
# Third-party entries (suites not of this release) are left out.
source_list=/etc/apt/sources.list.d/graphcost-deb-src.sources
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
derived=$(
  {
    for file in /etc/apt/sources.list.d/*.sources; do
      [ -f "$file" ] && [ "$file" != "$source_list" ] && { cat "$file"; echo; }
    done
  } | awk -v codename="$codename" '
    function flush(   i, n, list, kept) {
      if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "") {
        n = split(suites, list, " "); kept = ""
        for (i = 1; i <= n; i++) if (list[i] == codename || index(list[i], codename "-") == 1) kept = kept " " list[i]
        if (kept != "") {
          print "Types: deb-src"; print "URIs: " uris; print "Suites:" kept; print "Components: " components
          if (signed != "") print "Signed-By: " signed
          print ""
        }
      }
      types = uris = suites = components = signed = enabled = ""
    }
    /^[[:space:]]*#/ { next }
    /^[[:space:]]*$/ { flush(); next }
    { field = $1; $1 = ""; sub(/^ /, ""); value = $0 }
    field == "Types:" { types = value } field == "URIs:" { uris = value } field == "Suites:" { suites = value }
    field == "Components:" { components = value } field == "Signed-By:" { signed = value }
    field == "Enabled:" { enabled = value }
    END { flush() }'
  # One-line entries (/etc/apt/sources.list): deb [options] URI suite components...
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    awk -v codename="$codename" '$1 == "deb" {
      n = 2; options = ""
      if ($2 ~ /^\[/) { while ($n !~ /\]$/) { options = options " " $n; n++ } options = options " " $n; n++ }
      if ($(n + 1) != codename && index($(n + 1), codename "-") != 1) next
      components = ""; for (i = n + 2; i <= NF; i++) components = components " " $i
      signed = ""; if (match(options, /signed-by=[^] ]+/)) signed = substr(options, RSTART + 10, RLENGTH - 10)
      print "Types: deb-src"; print "URIs: " $n; print "Suites: " $(n + 1); print "Components:" components
      if (signed != "") print "Signed-By: " signed
      print ""
    }' "$file"
  done
)
if [ -z "$derived" ]; then
  echo "setup: no Debian $codename apt source found to derive a deb-src entry from" >&2
  echo "       (looked in /etc/apt/sources.list and /etc/apt/sources.list.d/)" >&2
  exit 1
fi
if [ ! -f "$source_list" ] || [ "$(cat "$source_list")" != "$derived" ]; then
  echo "setup: writing $source_list from the machine's Debian sources"
  printf '%s\n' "$derived" | as_root tee "$source_list" >/dev/null
  apt_updated=0
  apt_update
fi

# Each source package at the version of the installed -dev package built from it, or, when the
# mirror does not hold that version's source (security updates' sources may be missing), the newest
# version it does hold, with graphcost's patch for the WebAssembly build applied (cmake/patches/).
# third_party/NAME.version records "installed-version fetched-version patch-sha256"; a change of the
# installed version (an apt upgrade) or of the patch fetches again.
mkdir -p third_party
fetch_source() {  # $1 = source package, $2 = the installed binary package built from it, [$3 = patch]
  local package=$1 binary=$2 patch_file=${3:-} installed stamp version fetched= patch_sum=none
  installed=$(dpkg-query -W -f='${source:Version}' "$binary")
  [ -z "$patch_file" ] || patch_sum=$(sha256sum "$patch_file" | cut -c1-16)
  stamp=$(cat "third_party/$package.version" 2>/dev/null || true)
  [ -e "third_party/$package" ] && [ "${stamp%% *}" = "$installed" ] && [ "${stamp##* }" = "$patch_sum" ] && return 0
  rm -rf "third_party/$package" "third_party/$package.version" third_party/"$package"-[0-9]* \
    third_party/"$package"_*
  for version in "$installed" $(apt-cache showsrc "$package" 2>/dev/null | awk -v skip="$installed" '/^Version:/ && $2 != skip {print $2}' | sort -urV); do
    echo "setup: fetching Debian source package $package $version"
    if (cd third_party && apt-get source -qq -o APT::Sandbox::User=root "$package=$version" >/dev/null 2>&1); then
      fetched=$version
      break
    fi
  done
  if [ -z "$fetched" ]; then
    echo "setup: no version of the source package $package could be fetched (deb-src: $source_list)" >&2
    exit 1
  fi
  [ "$fetched" = "$installed" ] || echo "setup: the mirror has no source of $package $installed; using $fetched"
  local dir
  dir=$(cd third_party && ls -d "$package"-[0-9]*/ | head -1)
  ln -sfn "${dir%/}" "third_party/$package"
  if [ -n "$patch_file" ] && ! patch --quiet --forward -p1 -d "third_party/$package" < "$patch_file"; then
    echo "setup: $patch_file does not apply to the source package $package $fetched" >&2
    exit 1
  fi
  echo "$installed $fetched $patch_sum" > "third_party/$package.version"
  stage_done "source package $package fetched${patch_file:+ and patched}"
}
fetch_source imgui libimgui-dev
fetch_source zlib zlib1g-dev
# XGBoost (the learners' trees) and the dmlc-core it is built on, compiled for the browser's Tune
# panel by cmake/XGBoostWasm.cmake: 32-bit WebAssembly needs the patches.
fetch_source xgboost libxgboost-dev cmake/patches/xgboost-wasm32.patch
fetch_source dmlc-core libdmlc0 cmake/patches/dmlc-core-wasm32.patch

# npm packages of the browser tests (playwright-core drives Debian's chromium, puppeteer-core Debian's
# firefox-esr; neither downloads a browser of its own), exactly as package-lock.json pins them:
# `npm ci` whenever the lock file differs from the one node_modules was installed from.
lock_stamp=node_modules/.graphcost-package-lock.json
if ! cmp -s package-lock.json "$lock_stamp"; then
  echo "setup: installing npm packages (npm ci, node $(node --version), npm $(npm --version))"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
  cp package-lock.json "$lock_stamp"
  stage_done "npm packages installed"
fi
echo "setup: ok ($(( $(date +%s) - started )) s)"
