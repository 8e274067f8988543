"""Issue 33, docs/ARCHITECTURE.md: the code's shape holds — the packages stand in one order
(no import cycle anywhere in rules/, ai/, tactical_tui/, counting imports inside functions,
under TYPE_CHECKING and by importlib strings), no module reaches into another's underscore
names, no module passes 1,200 lines, and tactical_tui/ holds at most 12 modules of its own
(the rest are in its subpackages). rules/ importing ai/, tactical_tui/, Textual or rich is
tests/test_layers.py's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "ai", "tactical_tui")
MAX_LINES = 1200
MAX_TOP_MODULES = 12


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    return {module_name(root, p): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: Path, known) -> set[str]:
    """The project modules `module` imports, wherever the import is (module level, inside a
    function, under TYPE_CHECKING) and `importlib.import_module("…")` / `__import__("…")`
    strings. `from p import m` where p.m is a module is an import of p.m."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    wanted: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or "" if node.level == 0 else \
                _resolve(module, is_package, node.level, node.module)
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            wanted += subs + ([base] if len(subs) < len(node.names) else [])
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in ("import_module", "__import__") and node.args and \
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                wanted.append(node.args[0].value)
    out = set()
    for target in wanted:
        parts = target.split(".")
        while parts and ".".join(parts) not in known:     # `import a.b.c` of a name in a.b
            parts.pop()
        if parts and ".".join(parts) != module:
            out.add(".".join(parts))
    return out


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    mods = project_modules(root, packages)
    return {m: imports_of(m, p, mods) for m, p in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        group.append(top)
                        if top == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def underscore_reaches(root: Path, packages=PACKAGES) -> list[str]:
    """Places where a module imports or reads another project module's underscore name
    (`from x import _y`, `x._y` where x names a project module)."""
    mods = project_modules(root, packages)
    out = []
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or "" if node.level == 0 else \
                    _resolve(module, is_package, node.level, node.module)
                for a in node.names:
                    if f"{base}.{a.name}" in mods:
                        aliases[a.asname or a.name] = f"{base}.{a.name}"
                    elif base in mods and base != module and private(a.name):
                        out.append(f"{path.relative_to(root)}:{node.lineno}: from {base} import {a.name}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods:       # `import x.y as z` binds z to x.y; `import x.y` binds x
                        if a.asname:
                            aliases[a.asname] = a.name
                        else:
                            aliases[a.name.split(".")[0]] = a.name.split(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and private(node.attr):
                chain, value = [], node.value
                while isinstance(value, ast.Attribute):
                    chain.append(value.attr)
                    value = value.value
                if isinstance(value, ast.Name) and value.id in aliases:
                    owner = ".".join([aliases[value.id], *reversed(chain)])
                    if owner in mods and owner != module:
                        out.append(f"{path.relative_to(root)}:{node.lineno}: {owner}.{node.attr}")
    return out


# ---------------------------------------------------------------------------- the tree

def test_no_import_cycle_in_rules_ai_or_tactical_tui():
    graph = import_graph(ROOT)
    assert {"rules.engine", "ai.normal", "tactical_tui.app"} <= set(graph)
    assert "rules.state" in graph["rules.engine"]       # the scan sees the imports
    assert cycles(graph) == []


def test_no_module_reaches_into_another_modules_underscore_names():
    assert underscore_reaches(ROOT) == []


@pytest.mark.parametrize("top", ["rules", "ai", "tactical_tui", "bench", "tests"])
def test_no_module_over_1200_lines(top):
    long = {str(p.relative_to(ROOT)): n for p in sorted((ROOT / top).rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_tactical_tui_keeps_its_modules_in_subpackages():
    top = sorted(p.name for p in (ROOT / "tactical_tui").glob("*.py"))
    assert "app.py" in top and "cli.py" in top
    assert len(top) <= MAX_TOP_MODULES, top
    subpackages = {p.parent.name for p in (ROOT / "tactical_tui").glob("*/__init__.py")}
    assert {"table", "screens", "widgets", "text", "net", "tools"} <= subpackages


def test_every_package_is_installed():
    """pyproject.toml lists every package (a wheel without one would not start)."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {module_name(ROOT, p.parent / "__init__.py") for pkg in PACKAGES
             for p in (ROOT / pkg).rglob("__init__.py")}
    assert found == listed


# ---------------------------------------------------------- the checks can fail

def _sample(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_cycle_check_sees_imports_inside_functions_and_strings(tmp_path):
    root = _sample(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import x\n",
        "pkg/b.py": "def f():\n    from . import c\n",
        "pkg/c.py": "import importlib\nimportlib.import_module('pkg.a')\n",
        "pkg/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import e\n",
        "pkg/e.py": "import pkg.d as D\n",
        "pkg/f.py": "from pkg import a\n",
    })
    graph = import_graph(root, ("pkg",))
    assert graph["pkg.b"] == {"pkg.c"} and graph["pkg.f"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.e"]]


def test_the_underscore_check_sees_imports_and_attributes(tmp_path):
    root = _sample(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "_hidden = 1\nvisible = 2\n__all__ = []\n",
        "pkg/b.py": "from pkg.a import _hidden, visible, __all__\n",
        "pkg/c.py": "from pkg import a\nprint(a._hidden, a.visible)\n",
        "pkg/d.py": "import pkg.a\nprint(pkg.a._hidden)\n",
        "pkg/e.py": "class K:\n    _own = 1\n    def f(self):\n        return self._own\n",
    })
    assert underscore_reaches(root, ("pkg",)) == [
        "pkg/b.py:1: from pkg.a import _hidden", "pkg/c.py:2: pkg.a._hidden",
        "pkg/d.py:2: pkg.a._hidden"]
