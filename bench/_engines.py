"""Two engines side by side, for the benches of issue 16: the code of a base commit
(checked out with `git archive` into a temporary folder) and the working tree, each in
its own long-lived Python subprocess with its tree first on sys.path.

A bench sends calls (`Engine.call("module", "function", *args)`) alternately to both, so
load on a shared machine hits both alike. The called function must live in a module of
`bench/` that imports `rules` / `ai` inside the function (never at module level): which
tree's `rules` it gets is then decided by the subprocess's sys.path alone. Arguments and
results travel as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# The commit before the engine speed work of issue 16.
BASE = "9a887fc"

_WORKER = r"""
import importlib, json, sys
root, bench = sys.argv[1], sys.argv[2]
sys.path[:] = [root, bench] + [p for p in sys.path if p not in ("", root, bench)]
out = sys.stdout
sys.stdout = sys.stderr          # stray prints of the called code go to stderr
for line in sys.stdin:
    mod, fn, args = json.loads(line)
    try:
        result = {"ok": getattr(importlib.import_module(mod), fn)(*args)}
    except Exception as exc:       # reported to the parent, which raises
        import traceback
        result = {"error": traceback.format_exc()}
    out.write(json.dumps(result) + "\n")
    out.flush()
"""


def checkout(commit: str = BASE) -> Path:
    """The tree of `commit` (rules/, ai/, tactical_tui/, cards.toml, ...) extracted into a
    new temporary folder; remove it with `shutil.rmtree` when done."""
    where = Path(tempfile.mkdtemp(prefix=f"tactical-{commit}-"))
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit],
                                 check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        shutil.rmtree(where, ignore_errors=True)
        detail = getattr(exc, "stderr", b"") or str(exc).encode()
        sys.exit(f"cannot check out commit {commit} of {ROOT}: "
                 f"{detail.decode(errors='replace').strip()}")
    import io
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(where, filter="data")
    return where


class Engine:
    """One tree's code in a subprocess."""

    def __init__(self, name: str, root: Path) -> None:
        self.name, self.root = name, root
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(root), str(BENCH)], cwd=root, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        where = self.call("_engines", "where")
        if Path(where).resolve() != (root / "rules").resolve():
            raise RuntimeError(f"{name}: imported rules from {where}, not from {root}")

    def call(self, module: str, fn: str, *args: object) -> object:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps([module, fn, list(args)]) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} engine process ended")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.name} engine: {reply['error']}")
        return reply["ok"]

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


class OldAndNew:
    """`with OldAndNew() as (old, new):` the engine of BASE and the working tree's."""

    def __init__(self, commit: str = BASE) -> None:
        self.commit = commit

    def __enter__(self) -> tuple[Engine, Engine]:
        self.tree = checkout(self.commit)
        self.engines = (Engine(f"old ({self.commit})", self.tree), Engine("new", ROOT))
        return self.engines

    def __exit__(self, *exc: object) -> None:
        for e in self.engines:
            e.close()
        shutil.rmtree(self.tree, ignore_errors=True)


def where() -> str:
    """The folder of the `rules` package this process imports."""
    import rules
    return str(Path(rules.__file__).parent)


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
