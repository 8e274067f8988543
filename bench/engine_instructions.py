"""The rules engine's cost in instructions, old against new (issue 34): load cannot touch it.

    python bench/engine_instructions.py [--base 5da96c9] [--games 8] [--also COMMIT ...]

On a machine shared with other work, CPU time moves with the load (caches, memory
bandwidth and the other processes' share of the cores), and `bench/engine_speed.py`'s
ratio with it. Valgrind's callgrind counts the instructions a process executes, which
does not depend on the load at all. This bench runs the random legal play of
`bench/engine_speed.py` (`play_games`: the same seeds, the card data of BASE) under
`valgrind --tool=callgrind` for each engine — the base commit's (checked out into a
temporary folder), any `--also` commits, and the working tree's — once with no games and
once with `--games` games per seat count (3, 4, 5), and prints each engine's instructions
per action (the difference of the two runs over the actions played: start-up and
imports cancel out) and the ratio to the base. Needs `valgrind` on PATH; about a minute
per engine at `--games 8`.

The engines of different rules play different games from the same seeds (the bench
prints the actions each played): the figure is per action of each engine's own games.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import sys
root, bench, cards_path, games = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [root, bench]
import engine_speed
import rules
assert rules.__file__.startswith(root), rules.__file__
specs = [[p, 1000 * p + g] for p in (3, 4, 5) for g in range(games)]
print("actions", sum(r[0] for r in engine_speed.play_games(specs, cards_path)))
"""


def instructions(root: Path, cards: Path, games: int) -> tuple[int, int]:
    """(instructions executed, actions played) of one child under callgrind."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         "-c", CHILD, str(root), str(Path(__file__).resolve().parent), str(cards), str(games)],
        capture_output=True, text=True, cwd=root)
    got = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    acts = re.search(r"^actions (\d+)", out.stdout, re.M)
    if out.returncode != 0 or got is None or acts is None:
        raise SystemExit(f"callgrind run failed in {root}:\n{out.stderr[-2000:]}")
    return int(got.group(1)), int(acts.group(1))


def main(argv: list[str] | None = None) -> int:
    from _engines import ROOT, checkout

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default="5da96c9", help="the old engine's commit (default 5da96c9)")
    p.add_argument("--also", nargs="*", default=[], help="more commits to count")
    p.add_argument("--games", type=int, default=8, help="games per seat count (default 8)")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    trees = {}
    try:
        for c in [args.base] + list(args.also):
            trees[c] = checkout(c)
        cards = trees[args.base] / "cards.toml"
        rows = []
        for name, root in list(trees.items()) + [("working tree", ROOT)]:
            empty, _ = instructions(root, cards, 0)
            full, acts = instructions(root, cards, args.games)
            rows.append((name, acts, (full - empty) / max(1, acts)))
            print(f"  {name}: {acts} actions, {(full - empty) / max(1, acts) / 1000:,.1f} k "
                  f"instructions per action", file=sys.stderr)
    finally:
        for root in trees.values():
            shutil.rmtree(root, ignore_errors=True)
    base = rows[0][2]
    print(f"random legal play, {args.games} games per seat count (3, 4, 5), card data of "
          f"{args.base}; instructions counted by callgrind")
    print(f"{'engine':>14} {'actions':>8} {'k instr/action':>15} {'× base':>7}")
    for name, acts, per in rows:
        print(f"{name:>14} {acts:>8} {per / 1000:>15,.1f} {base / per:>6.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
