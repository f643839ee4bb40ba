#!/usr/bin/env python3
"""The layering rule of docs/architecture.md: a module of src/ includes only modules earlier in the
order that page gives ("a module includes only modules earlier in common, nn, ..."), read from the
page itself so the rule has one home; evaluation/ (graphcost-eval), web/ and python/ include src/
modules and cli_options, never cli/. Prints each include that breaks the order and exits 1 if any.

    python3 scripts/check_layers.py"""
import os
import re
import sys

ROOT = os.environ.get("GRAPHCOST_TREE") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def module_order():
    page = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    found = re.search(r"a module includes only modules earlier in\s+(.*?)\s+\(", page, re.S)
    if not found:
        sys.exit("docs/architecture.md: the sentence 'a module includes only modules earlier in ...' is missing")
    return [name.strip() for name in re.sub(r"\s+", " ", found.group(1)).split(",")]


def sources(folder):
    for directory, subfolders, names in os.walk(os.path.join(ROOT, folder)):
        subfolders[:] = [d for d in subfolders if d not in ("build", "node_modules")]
        for name in sorted(names):
            if name.endswith((".cpp", ".h", ".cc")):
                yield os.path.join(directory, name)


def main():
    order = module_order()
    rank = {name: i for i, name in enumerate(order)}
    src = os.path.join(ROOT, "src")
    missing = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and d not in rank)
    broken = [f"src/{d}/ is not in docs/architecture.md's module order" for d in missing]
    for path in sources("src"):
        module = os.path.relpath(path, src).split(os.sep)[0]
        for line, included in ((text.count("\n", 0, m.start()) + 1, m.group(1)) for text in [open(path, encoding="utf-8").read()]
                               for m in INCLUDE.finditer(text)):
            if included in rank and module in rank and rank[included] > rank[module]:
                broken.append(f"{os.path.relpath(path, ROOT)}:{line}: {module}/ includes {included}/, which comes later in the order")
    for folder in ("evaluation", "web", "python"):
        for path in sources(folder):
            text = open(path, encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                if m.group(1) == "cli":
                    line = text.count("\n", 0, m.start()) + 1
                    broken.append(f"{os.path.relpath(path, ROOT)}:{line}: includes cli/ (the graphcost executable's own code)")
    print(f"layers: {len(order)} modules in order ({', '.join(order)})")
    for item in broken:
        print(f"layer rule broken: {item}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
