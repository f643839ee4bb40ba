"""python/graphcost/__init__.pyi, the stub editors and type checkers read, says what the module
has: every function and method it declares exists, with the same parameter names in the same
order and the same defaults (pybind11 functions by the signature line of their docstring, Python
ones by inspect), and every public name of the module is declared."""
import ast
import inspect
import os
import re

import graphcost as gc

from conftest import REPO

STUB = os.path.join(REPO, "python", "graphcost", "__init__.pyi")


def stub_functions():
    """{qualified name: [(parameter, default source or None)]} of the stub's defs."""
    tree = ast.parse(open(STUB).read())
    found = {}

    def parameters(node):
        args = [a for a in node.args.args if a.arg not in ("self", "cls")]
        defaults = [None] * (len(args) - len(node.args.defaults)) + [ast.unparse(d) for d in node.args.defaults]
        return [(a.arg, d) for a, d in zip(args, defaults)]

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = parameters(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    found[f"{node.name}.{item.name}"] = parameters(item)
    return found, {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def runtime_parameters(obj):
    """[(parameter, default source or None)] of a Python function or a pybind11 one."""
    try:
        signature = inspect.signature(obj)
        return [(p.name, None if p.default is p.empty else repr(p.default)) for p in signature.parameters.values()
                if p.name not in ("self", "cls")]
    except (TypeError, ValueError):
        pass
    line = (obj.__doc__ or "").strip().split("\n")[0]  # pybind11: "name(self: T, a: int = 3) -> R"
    inside = re.match(r"[\w.]+\((.*)\)\s*->", line)
    assert inside, f"{obj}: no signature line in its docstring: {line!r}"
    result = []
    for part in re.split(r",\s*(?![^\[\(]*[\]\)])", inside.group(1)) if inside.group(1) else []:
        name = part.split(":")[0].strip()
        default = part.split("=", 1)[1].strip() if "=" in part else None
        if name not in ("self", "cls"):
            result.append((name, default))
    return result


def same_default(stub, runtime):
    if stub is None or runtime is None:
        return stub == runtime
    try:  # a float default a binding keeps as float32 (0.002 -> 0.0020000000949949026)
        return abs(float(stub) - float(runtime)) <= 1e-6 * max(1.0, abs(float(stub)))
    except ValueError:
        pass
    normal = lambda text: text.replace("'", '"').replace("()", "[]")
    return normal(stub) == normal(runtime)


def test_every_declared_function_has_the_module_parameters_and_defaults():
    declared, _ = stub_functions()
    problems = []
    for name, stub in declared.items():
        owner, _, member = name.rpartition(".")
        obj = getattr(getattr(gc, owner), member) if owner else getattr(gc, name, None)
        if obj is None:
            problems.append(f"{name}: declared in the stub, missing from the module")
            continue
        runtime = runtime_parameters(obj)
        if [n for n, _ in stub] != [n for n, _ in runtime]:
            problems.append(f"{name}: stub parameters {[n for n, _ in stub]}, module {[n for n, _ in runtime]}")
            continue
        for (parameter, a), (_, b) in zip(stub, runtime):
            if not same_default(a, b):
                problems.append(f"{name}({parameter}): stub default {a}, module {b}")
    assert not problems, "\n".join(problems)


def test_every_public_name_is_declared():
    _, names = stub_functions()
    public = {n for n in dir(gc) if not n.startswith("_") and (inspect.isclass(getattr(gc, n)) or callable(getattr(gc, n)))}
    public -= {"math", "threading"}
    assert public <= names, f"in the module, not in the stub: {sorted(public - names)}"
