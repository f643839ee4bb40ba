#!/usr/bin/python3
"""Hostile and careless HLO modules against `graphcost import` and the tools that take HLO: each case
writes a module of a few lines (or a generated large one), runs one command (bounded in time), and
checks the documented outcome: exit code, message, peak RSS, and what is on disk. A module is
refused or imported; what import writes is finite, decodes as numpy reads it, and is readable by
graphcost's own `info`. The numbered cases are the hardening issue's list (docs/import.md, "What is
refused"); the parser-level cases are in tests/test_hlo_hostile.cpp.

Usage: hostile_hlo.py GRAPHCOST
Prints one line per case and the closing "N passed, N failed" line; exit 1 on any failure.
"""
import os
import shutil
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import hostile_support  # noqa: E402
from hostile_support import check, expect, partial_files, rss_run, run  # noqa: E402

GRAPHCOST = sys.argv[1]
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODEL = os.path.join(REPO, "models", "layout_xla.npz")
MIB = 1 << 20


def module(body, name="m"):
    return f"HloModule {name}\nENTRY e {{\n{body}\n}}\n"


def write(work, name, text, mode="w"):
    path = os.path.join(work, name)
    with open(path, mode) as f:
        f.write(text)
    return path


def readable(name, path):
    """What import wrote: graphcost's own info reads it, numpy loads it, every float is finite,
    the names decode as strict UTF-8."""
    info = run([GRAPHCOST, "info", path])
    check(f"{name}: info reads what import wrote", info.status == 0, info.err.strip()[:300])
    with np.load(path) as f:
        finite = all(np.isfinite(f[k]).all() for k in f.files if f[k].dtype.kind == "f")
        check(f"{name}: every float written is finite", finite)
        for key in ("node_names", "node_op_names", "computation_names"):
            if key in f.files:
                try:
                    bytes(f[key]).decode("utf-8")
                    ok = True
                except UnicodeDecodeError:
                    ok = False
                check(f"{name}: {key} decodes as UTF-8", ok)


def cases(work):
    """The numbered cases in order, a group of them per function."""
    out = os.path.join(work, "out.npz")
    size_cases(work, out)
    layout_and_name_cases(work, out)
    scale_cases(work, out)
    small = output_cases(work, out)
    dynamic_cases(work, out)
    small_cases(work, out, small)


def size_cases(work, out):
    """Cases 1-3: a dim past 2^62, a nearly exhausted tile space, dims and windows that overflow."""
    g = GRAPHCOST
    # 1. a fusion output dim past 2^62: the tile doubling used to overflow and spin
    huge_dim = write(work, "huge_dim.hlo", "HloModule m\nfused {\n  a = f32[4611686018427387905] parameter(0)\n"
                     "  ROOT n = f32[4611686018427387905] negate(a)\n}\nENTRY e {\n  x = f32[4611686018427387905] parameter(0)\n"
                     "  ROOT f = f32[4611686018427387905] fusion(x), kind=kLoop, calls=fused\n}\n")
    tiles = os.path.join(work, "tiles1")
    result = run([g, "import", huge_dim, "--kind", "tile", "--out", tiles, "-q"], timeout=20)
    expect("1. tile import of a 2^62+1 dim ends (exit 0)", result, 0)
    if result.status == 0:
        readable("1", os.path.join(tiles, os.listdir(tiles)[0]))

    # 2. 390,625 tile combinations, 390,624 wanted
    dims = "32,32,32,32,32,32,128,2048"  # 5 tile options each (docs/import.md), 2^48 elements
    near = write(work, "near_full.hlo", f"HloModule m\nfused {{\n  a = f32[{dims}] parameter(0)\n  ROOT n = f32[{dims}] negate(a)\n}}\n"
                 f"ENTRY e {{\n  x = f32[{dims}] parameter(0)\n  ROOT f = f32[{dims}] fusion(x), kind=kLoop, calls=fused\n}}\n")
    result = run([g, "import", near, "--kind", "tile", "--configs", "390624", "--out", os.path.join(work, "tiles2"), "-q"], timeout=60)
    expect("2. 390,624 of 390,625 tile configs drawn (exit 0, within 60 s)", result, 0)

    # 3. dims whose product overflows: refused at the line, nothing written; rank refuses too
    overflow = write(work, "overflow.hlo", module("  p = f32[8] parameter(0)\n"
                                                  "  ROOT a = f32[1099511627776,1099511627776,1099511627776] broadcast(p), dimensions={0}"))
    expect("3. overflowing dims refused at file:line:column (exit 1)", run([g, "import", overflow, "--out", out]), 1,
           r"overflow\.hlo:4:\d+: .*fits in 64 bits")
    check("3. ...and nothing written", not os.path.exists(out))
    expect("3. rank refuses it the same way (exit 1)", run([g, "rank", overflow, "--model", MODEL]), 1, "fits in 64 bits")
    window = write(work, "window.hlo", module("  p = f32[8,8] parameter(0)\n"
                                              "  ROOT a = f32[8,8] reduce-window(p), window={size=999999999999x999999999999}"))
    expect("3. an overflowing window refused (exit 1)", run([g, "import", window, "--kind", "layout", "--out", out]), 1,
           "window size values")


def layout_and_name_cases(work, out):
    """Cases 4-7: a repeated layout dimension, op_names that are not text, fusions of one name."""
    g = GRAPHCOST
    # 4. a repeated dimension in a layout
    repeated = write(work, "repeated.hlo", module("  ROOT p = f32[8,8]{0,0} parameter(0)"))
    expect("4. layout {0,0} refused (exit 1)", run([g, "import", repeated, "--out", out]), 1, "each dimension once in the layout")

    # 5, 6. a raw newline and bytes that are not UTF-8 inside op_name
    names = write(work, "names.hlo", module('  p = f32[8,8] parameter(0), metadata={op_name="a\nb"}\n'
                                            '  ROOT r = f32[64] reshape(p), metadata={op_name="c\xff\xfe"}').encode("latin-1"), "wb")
    result = run([g, "import", names, "--out", out])
    expect("5, 6. op_names with a newline and invalid UTF-8 import (exit 0)", result, 0)
    if result.status == 0:
        readable("5, 6", out)
        with np.load(out) as f:
            op_names = bytes(f["node_op_names"]).decode().split("\n")
        check("5, 6. ...one name per node, the bytes escaped", op_names == ["a\\x0ab", "c\\xff\\xfe"], repr(op_names))
        os.remove(out)

    # 7. two fusions of one name in two computations: two files
    same = write(work, "same_name.hlo", "HloModule m\nfused {\n  a = f32[256] parameter(0)\n  ROOT n = f32[256] negate(a)\n}\n"
                 "other {\n  b = f32[256] parameter(0)\n  ROOT f = f32[256] fusion(b), kind=kLoop, calls=fused\n}\n"
                 "ENTRY e {\n  x = f32[256] parameter(0)\n  y = f32[256] call(x), to_apply=other\n"
                 "  ROOT f = f32[256] fusion(y), kind=kLoop, calls=fused\n}\n")
    tiles7 = os.path.join(work, "tiles7")
    result = run([g, "import", same, "--kind", "tile", "--out", tiles7, "-q"])
    expect("7. same-named fusions in two computations (exit 0)", result, 0)
    check("7. ...two files, none overwritten", result.status == 0 and len(os.listdir(tiles7)) == 2, str(os.listdir(tiles7)))


def scale_cases(work, out):
    """Cases 8-11: a million configs, 2,000 kernels, 1.3M instructions, runtimes past int64 ns."""
    g = GRAPHCOST
    # 8. a million configs of 30 reshapes: written a config at a time, under the memory limit
    reshapes = write(work, "reshapes.hlo", module("  p0 = f32[4,8] parameter(0)\n" +
                                                  "".join(f"  r{i} = f32[8,4] reshape(p0)\n" for i in range(30)) +
                                                  "  ROOT t = (f32[8,4]) tuple(r29)"))
    result = rss_run([g, "import", reshapes, "--configs", "1000000", "--out", out, "-q"], env={"GRAPHCOST_MEMORY_LIMIT": "1GiB"},
                     timeout=120)
    expect("8. 1,000,000 configs of 30 reshapes under GRAPHCOST_MEMORY_LIMIT=1GiB", result, 0, max_rss_mib=100)
    if os.path.exists(out):
        os.remove(out)

    # 9. 2,000 fusions calling one 2,000-instruction computation: one kernel at a time
    chain = "".join(f"  n{i} = f32[128,256] negate({'p0' if i == 1 else f'n{i - 1}'})\n" for i in range(1, 2000))
    fusions = write(work, "fusions.hlo", f"HloModule m\nfused {{\n  p0 = f32[128,256] parameter(0)\n{chain}}}\nENTRY e {{\n"
                    "  x = f32[128,256] parameter(0)\n" +
                    "".join(f"  f{i} = f32[128,256] fusion(x), kind=kLoop, calls=fused\n" for i in range(2000)) + "}\n")
    tiles9 = os.path.join(work, "tiles9")
    result = rss_run([g, "import", fusions, "--kind", "tile", "--out", tiles9, "-q"], timeout=120)
    expect("9. 2,000 kernels of 2,000 instructions, memory of one kernel", result, 0, max_rss_mib=100)
    shutil.rmtree(tiles9, ignore_errors=True)

    # 10. 1.3 million one-line instructions: import within 10x the text
    big = os.path.join(work, "big.hlo")
    with open(big, "w") as f:
        f.write("HloModule big\nENTRY main {\n  p0 = f32[] parameter(0)\n")
        f.writelines(f"  a{i} = f32[] add({'p0' if i == 1 else f'a{i - 1}'}, p0)\n" for i in range(1, 1300000))
        f.write("}\n")
    text_mib = os.path.getsize(big) / MIB
    result = rss_run([g, "import", big, "--out", out, "-q"], timeout=120)
    expect(f"10. 1.3M instructions ({text_mib:.0f} MiB of text) import within 10x the text", result, 0, max_rss_mib=int(10 * text_mib))
    if result.status == 0:
        readable("10", out)
        os.remove(out)
    result = run([g, "rank", big, "--model", MODEL], env={"GRAPHCOST_MEMORY_LIMIT": "512MiB"}, timeout=60)
    expect("10. rank refuses a graph past the memory limit, saying how much it needs (exit 1)", result, 1,
           "about .* for 1300000 nodes")
    os.remove(big)

    # 11. dots of 2^31-sized dims (2^93 flops; every operand's element count fits 64 bits) in gen
    # --programs: refused, not labelled 1 ns
    programs = os.path.join(work, "programs")
    os.makedirs(programs)
    n = 2147483648
    write(programs, "huge_dot.hlo", module(f"  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n" +
                                           "".join(f"  d{i} = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}},"
                                                   " rhs_contracting_dims={0}\n" for i in range(8)) +
                                           f"  ROOT t = (f32[{n},{n}]) tuple(d7)"))
    result = run([g, "gen", "--out", os.path.join(work, "gen"), "--graphs", "2", "--programs", programs, "--program-share", "1"], timeout=120)
    expect("11. gen --programs refuses a program whose runtimes pass int64 ns (exit 1)", result, 1, "simulated runtime")


def output_cases(work, out):
    """Cases 13, 14: --out a FIFO or a device; bounded excerpts in messages. Returns the small module."""
    g = GRAPHCOST
    # 13. --out naming a FIFO or a device node is refused, and left as it was
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    small = write(work, "small.hlo", module("  ROOT p = f32[8,8] parameter(0)"))
    expect("13. --out a FIFO refused (exit 1)", run([g, "import", small, "--out", fifo], timeout=10), 1, "a FIFO")
    check("13. ...and still a FIFO", stat.S_ISFIFO(os.stat(fifo).st_mode))
    if os.geteuid() == 0:
        device = os.path.join(work, "null-device")
        os.mknod(device, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        expect("13. --out a character device refused (exit 1)", run([g, "import", small, "--out", device]), 1, "a character device")
        check("13. ...and still a device", stat.S_ISCHR(os.stat(device).st_mode))
        expect("13. the same for every command's --out (draw)", run([g, "draw", small, "--out", device, "-q"]), 1, "a character device")

    # 14. errors quote a bounded excerpt of attacker-sized text
    labels = write(work, "labels.hlo", module("  p = f32[8,8] parameter(0)\n  ROOT c = f32[8,8] convolution(p, p), dim_labels=" +
                                              "b" * (10 << 20)))
    result = run([g, "import", labels, "--out", out])
    expect("14. a 10 MB dim_labels: exit 1 with a short message", result, 1, r"\(10485760 bytes\)")
    check("14. ...under 1 KB of stderr", len(result.err) < 1024, f"{len(result.err)} bytes")
    return small


def dynamic_cases(work, out):
    """Cases 15, 16: unbounded dynamic dimensions."""
    g = GRAPHCOST
    # 15, 16. unbounded dynamic dims: imported; simulate says why it cannot price them; tile skips them
    dynamic = write(work, "dynamic.hlo", "HloModule m\nfused {\n  a = f32[?,8] parameter(0)\n  ROOT n = f32[?,8] negate(a)\n}\n"
                    "ENTRY e {\n  x = f32[?,8] parameter(0)\n  y = f32[8,8] parameter(1)\n  f = f32[?,8] fusion(x), kind=kLoop, calls=fused\n"
                    "  ROOT g = f32[8,8] fusion(y), kind=kLoop, calls=fused\n}\n")
    result = run([g, "import", dynamic, "--out", out])
    expect("15. '?' dims import (exit 0)", result, 0)
    expect("15. simulate names the node and says '?' has no size (exit 1)", run([g, "simulate", dynamic]), 1,
           r"node 0 \('a'\).*unbounded dynamic dimension")
    tiles16 = os.path.join(work, "tiles16")
    result = run([g, "import", dynamic, "--kind", "tile", "--out", tiles16])
    expect("16. tile import skips the kernel with a '?' output, saying so (exit 0)", result, 0, r"skipped e/f")
    if result.status == 0:
        check("16. ...and writes the other", len(os.listdir(tiles16)) == 1)
        readable("16", os.path.join(tiles16, os.listdir(tiles16)[0]))


def small_cases(work, out, small):
    """Case 18: the small ones."""
    g = GRAPHCOST
    # 18. the small ones
    bom = write(work, "bom.hlo", b"\xef\xbb\xbf" + module("  ROOT p = f32[8,8] parameter(0)").encode(), "wb")
    expect("18. a UTF-8 byte order mark is skipped (exit 0)", run([g, "import", bom, "--out", out]), 0)
    stray = write(work, "stray.hlo", module("  ROOT p = \xef[8] parameter(0)").encode("latin-1"), "wb")
    result = run([g, "import", stray, "--out", out])
    expect("18. a byte that is not UTF-8 is escaped, not echoed (exit 1)", result, 1, r"'\\xef' \(a byte that is not UTF-8\)")
    check("18. ...stderr is UTF-8", "\ufffd" not in result.err)
    cr = write(work, "cr.hlo", "HloModule m\rENTRY e {\r  ROOT a = f32[] negate(ghost)\r}\r")
    expect("18. CR-only line ends: the error is on its own line", run([g, "import", cr, "--out", out]), 1, r"cr\.hlo:3:25:")
    for seed in ("18446744073709551616", "-1", "1e3"):
        expect(f"18. --seed {seed} refused as a usage error (exit 2)", run([g, "import", small, "--out", out, "--seed", seed]), 2, "--seed")
    missing = os.path.join(work, "no-such-folder", "x.npz")
    expect("18. --out into a missing folder names the folder (exit 1)", run([g, "import", small, "--out", missing]), 1,
           "no folder '.*no-such-folder'")
    check("18. ...and leaves no partial file", not partial_files(work))
    for label, body in (("f32[+5]", "  ROOT p = f32[+5] parameter(0)"), ("tuple[2]", "  ROOT p = tuple[2] parameter(0)")):
        expect(f"18. {label} refused (exit 1)", run([g, "import", write(work, "bad.hlo", module(body)), "--out", out]), 1)
    two = write(work, "two_entries.hlo", module("  ROOT p = f32[] parameter(0)") + "ENTRY f {\n  ROOT q = f32[] parameter(0)\n}\n")
    expect("18. two ENTRY computations refused (exit 1)", run([g, "import", two, "--out", out]), 1, "one ENTRY computation")
    nameless = write(work, "nameless.hlo", "HloModule\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    expect("18. a module without a name refused (exit 1)", run([g, "import", nameless, "--out", out]), 1, "the module's name")


def main():
    return hostile_support.run_cases(cases, "graphcost-hostile-hlo-")


if __name__ == "__main__":
    sys.exit(main())
