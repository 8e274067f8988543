"""DESIGN.md "Layers — dependencies point one way": rules/ is pure game logic; it imports
nothing from ai/, tactical_tui/, Textual or rich."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "rules"
FORBIDDEN = ("ai", "tactical_tui", "textual", "rich")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in a file, relative imports resolved against the
    `rules` package; also string arguments of importlib.import_module / __import__."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.append((node.lineno, node.module or ""))
            elif node.level == 1:           # inside the rules package
                out.append((node.lineno, "rules." + node.module if node.module else "rules"))
            elif node.module:               # `from ..x import y` leaves the package
                out.append((node.lineno, node.module))
            else:                           # `from .. import ai`: the names are modules
                out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in ("import_module", "__import__") and node.args and \
                    isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value))
    return sorted(out)


def forbidden(module: str) -> bool:
    top = module.split(".")[0]
    return top in FORBIDDEN


def rules_files() -> list[Path]:
    return sorted(RULES.rglob("*.py"))


def test_layers_rules_sources_found():
    files = rules_files()
    assert RULES.is_dir()
    assert {"engine.py", "state.py", "cards.py"} <= {p.name for p in files}


@pytest.mark.parametrize("path", rules_files(), ids=lambda p: p.name)
def test_layers_rules_imports_no_ui_or_ai(path):
    """DESIGN.md Layers: rules/ — No Textual, no rich … imports neither ai/ nor tactical_tui/."""
    bad = [(line, m) for line, m in imported_modules(path) if forbidden(m)]
    assert not bad, f"{path.name} imports {bad}"


def test_layers_checker_catches_forbidden_imports(tmp_path):
    """The scan itself must be able to fail."""
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nimport textual.app\nfrom rich import print\n"
                      "from ai.base import RandomPlayer\nfrom ..tactical_tui import app\n"
                      "import importlib\nimportlib.import_module('rich.console')\n"
                      "from . import state\n", encoding="utf-8")
    mods = [m for _, m in imported_modules(sample)]
    assert [m for m in mods if forbidden(m)] == ["textual.app", "rich", "ai.base",
                                                 "tactical_tui", "rich.console"]
    assert "rules" in mods and "os" in mods
    assert not forbidden("rules.state") and not forbidden("attrs")
