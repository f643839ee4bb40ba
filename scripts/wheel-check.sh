#!/usr/bin/env bash
# The wheel travels (docs/python.md, "Install"): `pip wheel ./python` builds it from the python-wheel
# preset (x86-64-v2, no MPI, no METIS, XGBoost and its libraries bundled in graphcost/.libs); it is
# installed into a fresh virtual environment in a scratch folder and docs/python.md's walkthrough
# runs from /tmp with the wheel alone (GRAPHCOST_DATA gives the data). Checks: nothing written into
# python/, no -march=native in the build, every library the extension and the two executables load
# is glibc's, libstdc++/libgcc, zlib or one the wheel bundles (no OpenMPI, no METIS), the console
# scripts run, Model.shipped finds the models. Usage: bash scripts/wheel-check.sh (a few minutes
# after the preset's build: cmake --build --preset python-wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
data=$(cd "${GRAPHCOST_DATA:-../shared/data}" && pwd)
work=$(mktemp -d /tmp/graphcost-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "wheel-check: $*" >&2; exit 1; }

before=$(git status --porcelain --ignored python)
env -u GRAPHCOST_BUILD_DIR /usr/bin/python3 -m pip wheel --no-build-isolation --no-index --no-deps -q -w "$work/dist" ./python
[ "$before" = "$(git status --porcelain --ignored python)" ] || fail "pip wheel wrote into python/: $(git status --porcelain --ignored python)"
grep -q -- "-march=native" build/python-wheel/compile_commands.json && fail "the wheel's build has -march=native"
grep -q -- "-march=x86-64-v2" build/python-wheel/compile_commands.json || fail "the wheel's build is not for x86-64-v2"

/usr/bin/python3 -m venv --system-site-packages "$work/env"
"$work/env/bin/pip" install -q --no-index --no-deps "$work"/dist/graphcost-*.whl
cd /tmp
site=$(env -u PYTHONPATH "$work/env/bin/python" -c "import graphcost, os; print(os.path.dirname(graphcost.__file__))")
case "$site" in "$work"/*) ;; *) fail "graphcost imported from $site, not the venv" ;; esac
allowed='^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libz\.so|libpthread\.so|libdl\.so|librt\.so)'
for binary in "$site"/_graphcost*.so "$site/bin/graphcost" "$site/bin/graphcost-eval"; do
  while read -r name arrow path _; do
    [[ "$name" =~ $allowed ]] && continue
    [ "$arrow" = "=>" ] && [ -e "$path" ] && [[ "$(realpath "$path")" == "$site/.libs/"* ]] && continue
    fail "$(basename "$binary") loads $name from ${path:-nowhere}: neither the system's base nor the wheel's"
  done < <(ldd "$binary" | sed 's/^\s*//')
done
echo "wheel-check: $(ls "$work"/dist) ($(du -h "$work"/dist/*.whl | cut -f1)); bundled: $(ls "$site/.libs" | tr '\n' ' ')"
env -u PYTHONPATH PATH="$work/env/bin:$PATH" graphcost --help >/dev/null || fail "the graphcost console script"
env -u PYTHONPATH PATH="$work/env/bin:$PATH" graphcost-eval --help >/dev/null || fail "the graphcost-eval console script"
/usr/bin/python3 - "$repo/docs/python.md" "$work/walkthrough.py" <<'PY'
import re, sys
blocks = re.findall(r"```python\n(.*?)```", open(sys.argv[1]).read(), re.S)
open(sys.argv[2], "w").write("\n".join(f"# block {i}\n{code}" for i, code in enumerate(blocks)))
PY
env -u PYTHONPATH GRAPHCOST_DATA="$data" "$work/env/bin/python" "$work/walkthrough.py" >"$work/walkthrough.txt" 2>&1 ||
  { tail -20 "$work/walkthrough.txt"; fail "the walkthrough from /tmp"; }
grep -q "Kendall tau-b of the shipped model on unet3d" "$work/walkthrough.txt" || fail "the walkthrough printed no tau"
echo "wheel-check: the walkthrough ran from /tmp with the wheel alone"
