#!/usr/bin/env python3
"""The size rule of docs/architecture.md: no file the project writes (src/, evaluation/, web/,
python/, tests/, bench/, experiments/, scripts/, site/, shaders/) over 600 lines and no function
over 120. Prints the longest files and functions and exits 1 when something is over.

    python3 scripts/check_sizes.py [--top N]

Functions are found roughly: after comments, strings and character literals are blanked, a `{`
that follows `)` (or `) const`, `override`, `noexcept`, `-> type`) and is not an if/for/while/
switch/catch opens a function body; lambdas count toward the function around them. Python functions
are measured by their syntax tree (a method on its own, a nested function toward the one around it).
A block that is data, not logic (a table of cases), is exempt when the line before it says
`size-check: data` in a comment, with the reason beside it."""
import argparse
import ast
import os
import re
import sys

FILE_LIMIT, FUNCTION_LIMIT = 600, 120
FOLDERS = ("src", "evaluation", "web", "python", "tests", "bench", "experiments", "scripts", "site", "shaders")
SOURCE = (".cpp", ".h", ".cc", ".hpp", ".c")
PYTHON = (".py",)
OTHER = (".js", ".mjs", ".html", ".sh", ".pyi", ".css", ".glsl", ".vert", ".frag")
SKIPPED = ("node_modules", "build", "__pycache__", "graphcost.egg-info")
DATA_MARK = "size-check: data"
ROOT = os.environ.get("GRAPHCOST_TREE") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blank(text):
    """Comments, strings and character literals replaced by spaces (line breaks kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        raw = re.match(r'R"([^(\s]*)\(', text[i:i + 20]) if text[i] == "R" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if raw:
            end = text.find(")" + raw.group(1) + '"', i) + len(raw.group(1)) + 2
        elif text.startswith("//", i):
            end = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i) + 2
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] != text[i]:
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:end]))
        i = end
    return "".join(out)


FUNCTION_HEAD = re.compile(r"\)\s*(?:const|override|noexcept|final|mutable|\s)*(?:->\s*[\w:<>,\s*&]+)?$")
CONTROL = re.compile(r"\b(?:if|for|while|switch|catch)\s*\(.*\)\s*$")


def functions(text):
    """(first line, line count, head) of each outermost function body."""
    code, stack, found, line = blank(text), [], [], 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            before = code[max(0, i - 300):i].rstrip()
            head = before.split("\n")[-1].strip()
            stack.append((line, bool(FUNCTION_HEAD.search(before)) and not CONTROL.search(head), head))
        elif c == "}" and stack:
            start, is_function, head = stack.pop()
            if is_function and not any(f for _, f, _ in stack):
                found.append((start, line - start + 1, head))
    lines = text.split("\n")
    return [f for f in found if not (f[0] >= 2 and DATA_MARK in lines[f[0] - 2])]


def python_functions(text, path):
    """(first line, line count, head) of each module-level function and method."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        sys.exit(f"{path}: not Python that parses ({error})")
    lines, found = text.split("\n"), []
    for scope in [tree] + [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        for node in scope.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                if start >= 2 and DATA_MARK in lines[start - 2]:
                    continue
                found.append((start, node.end_lineno - start + 1, f"def {node.name}"))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=5, help="how many of the longest to list (default 5)")
    top = parser.parse_args().top
    files, bodies = [], []
    for folder in FOLDERS:
        for directory, subfolders, names in os.walk(os.path.join(ROOT, folder)):
            subfolders[:] = [d for d in subfolders if d not in SKIPPED]
            for name in sorted(names):
                if not name.endswith(SOURCE + PYTHON + OTHER):
                    continue
                path = os.path.join(directory, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                relative = os.path.relpath(path, ROOT)
                files.append((text.count("\n"), relative))
                if name.endswith(SOURCE):
                    bodies += [(count, f"{relative}:{start}", head) for start, count, head in functions(text)]
                elif name.endswith(PYTHON):
                    bodies += [(count, f"{relative}:{start}", head) for start, count, head in python_functions(text, relative)]
    files.sort(reverse=True)
    bodies.sort(reverse=True)
    print(f"longest files (limit {FILE_LIMIT} lines):")
    for count, path in files[:top]:
        print(f"  {count:5d}  {path}")
    print(f"longest functions (limit {FUNCTION_LIMIT} lines):")
    for count, place, head in bodies[:top]:
        print(f"  {count:5d}  {place}  {head[:70]}")
    over = [f for f in files if f[0] > FILE_LIMIT] + [b for b in bodies if b[0] > FUNCTION_LIMIT]
    for item in over:
        print(f"over the limit: {item[1]} ({item[0]} lines)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
