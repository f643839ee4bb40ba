#!/usr/bin/env bash
# The wheel travels (docs/python.md, "Install"): `pip wheel ./python` builds it from the python-wheel
# preset (x86-64-v2, no MPI, no METIS, XGBoost and its libraries bundled in graphcost/.libs) and the
# python-wheel-v3 preset (the same for x86-64-v3, in graphcost/isa/, picked at import); it is
# installed into a fresh virtual environment in a scratch folder and docs/python.md's walkthrough
# runs from /tmp with the wheel alone (GRAPHCOST_DATA gives the data). Checks: nothing written into
# python/, no -march=native in the build, every library the extension and the two executables load
# is glibc's, libstdc++/libgcc, zlib or one the wheel bundles (no OpenMPI, no METIS), the console
# scripts run, Model.shipped finds the models, this CPU gets its fastest build and the baseline by
# hand, and both rank alike. Usage: bash scripts/wheel-check.sh (a few minutes after the presets'
# builds: cmake --build --preset python-wheel, and python-wheel-v3).
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
grep -q -- "-march=x86-64-v3" build/python-wheel-v3/compile_commands.json || fail "the wheel's x86-64-v3 build is not for x86-64-v3"

/usr/bin/python3 -m venv --system-site-packages "$work/env"
"$work/env/bin/pip" install -q --no-index --no-deps "$work"/dist/graphcost-*.whl
cd /tmp
site=$(env -u PYTHONPATH "$work/env/bin/python" -c "import graphcost, os; print(os.path.dirname(graphcost.__file__))")
case "$site" in "$work"/*) ;; *) fail "graphcost imported from $site, not the venv" ;; esac
allowed='^(linux-vdso\.so|/lib64/ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libz\.so|libpthread\.so|libdl\.so|librt\.so)'
for binary in "$site"/_graphcost*.so "$site"/bin/* "$site"/isa/*/_graphcost*.so "$site"/isa/*/bin/*; do
  while read -r name arrow path _; do
    [[ "$name" =~ $allowed ]] && continue
    [ "$arrow" = "=>" ] && [ -e "$path" ] && [[ "$(realpath "$path")" == "$site/.libs/"* ]] && continue
    fail "$(basename "$binary") loads $name from ${path:-nowhere}: neither the system's base nor the wheel's"
  done < <(ldd "$binary" | sed 's/^\s*//')
done
echo "wheel-check: $(ls "$work"/dist) ($(du -h "$work"/dist/*.whl | cut -f1)); bundled: $(ls "$site/.libs" | tr '\n' ' ')"
# The build the CPU gets: the highest level whose every flag it shows (x86-64-v3 on AVX2 machines), the baseline by
# hand; the two rank a real graph alike (FMA rounds differently, so not bit for bit).
/usr/bin/python3 - "$work/env/bin/python" "$data" <<'PY' || fail "choosing the build for this CPU"
import json, subprocess, sys
python, data = sys.argv[1:]
code = ("import graphcost as gc, json; graph = gc.load('" + data + "/tpugraphs/npz/layout/xla/default/train/unet3d.npz');"
        "print(json.dumps([gc.build_info(), gc.Model.shipped('layout_xla').predict(graph).tolist()]))")
def run(env):
    return json.loads(subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
fast, fast_costs = run({})
base, base_costs = run({"GRAPHCOST_ISA": "x86-64-v2"})
assert base["march"] == "x86-64-v2" and "AVX" not in base["simd"], base  # Eigen names AVX2 builds "AVX"
assert fast["variants"] == ["x86-64-v3"], fast
# The psABI's x86-64-v3 as the kernel names its flags (lzcnt is "abm"): some VMs hide one (an AMD EPYC
# family 26 guest shows no "abm"), and the baseline is then the right choice.
expected = "x86-64-v3" if {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"} <= set(flags) else "x86-64-v2"
assert fast["march"] == expected and (expected == "x86-64-v2" or "AVX" in fast["simd"]), (fast, expected)
tau = subprocess.run([python, "-c", f"import graphcost as gc; print(gc.kendall_tau({fast_costs}, {base_costs}))"],
                     capture_output=True, text=True, check=True, env={}).stdout
assert float(tau) > 0.999, tau
print(f"wheel-check: this CPU runs {fast['march']} ({fast['simd']}); x86-64-v2 by hand ({base['simd']}); "
      f"their costs of unet3d's {len(base_costs)} configs agree at tau {float(tau):.5f}")
PY
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
