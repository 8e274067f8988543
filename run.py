#!/usr/bin/env python3
"""Bootstrap: make a private virtual environment in `.venv`, install TACTICAL into it
(with its test dependencies) and run it. Needs only Python 3.11+.

    python3 run.py            start a game (any further arguments go to `tactical`)
    python3 run.py test       run the whole test suite on every core (further arguments go
                              to pytest; `-n 0` runs it in one process)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".tactical-installed"


def _wanted_stamp() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def ensure_env() -> None:
    if sys.version_info < (3, 11):
        sys.exit("TACTICAL needs Python 3.11 or newer (this is %d.%d)." % sys.version_info[:2])
    if not (BIN / "python").exists() and not (BIN / "python.exe").exists():
        print("Creating .venv ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _wanted_stamp():
        return
    print("Installing TACTICAL and its dependencies into .venv ...", file=sys.stderr)
    subprocess.run(
        [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-e", f"{ROOT}[test]"],
        check=True,
    )
    STAMP.write_text(_wanted_stamp())


def launcher_command() -> str:
    """`python3 run.py` as the player typed it (the script's path as given: it works
    from the folder they typed it in)."""
    import shlex
    python = "py" if os.name == "nt" else "python3"
    return f"{python} {shlex.quote(sys.argv[0] or 'run.py')}"


def main(argv: list[str]) -> int:
    try:
        ensure_env()
    except subprocess.CalledProcessError as exc:
        print(f"Installing dependencies failed (exit {exc.returncode}); see pip's output above.",
              file=sys.stderr)
        return 1
    if argv[:1] == ["test"]:
        args = argv[1:]
        if not any(a == "-n" or a.startswith(("-n", "--numprocesses")) or a == "no:xdist"
                   for a in args):
            args = ["-n", "auto", "--dist", "worksteal", *args]   # one worker per core
        cmd = [str(BIN / "python"), "-m", "pytest", *args]
        env = None
    else:
        cmd = [str(BIN / "tactical"), *argv]
        # the commands the game prints ("Continue with: … --resume", "… join HOST") must
        # work for how it was started: this script, not a `tactical` only in .venv/bin
        env = {**os.environ, "TACTICAL_COMMAND": launcher_command()}
    try:
        return subprocess.call(cmd, cwd=ROOT, env=env)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
