"""The ceiling player of bench/ceiling.py (issue 34) is a bench's, never a table's.

It cannot be reached from `tactical` or `tactical host` (no AI level names it, no
installed package holds it, the game's modules never import it), and what it sees — the
other seats' hands, the decks' order, the RNG state — never reaches a normal player's
observation: the observations of the seats around it, and their decisions, are the same
when all of that is changed, while the ceiling's own decisions are not.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ai import make_player
from ai.normal import NormalPlayer
from ai.selfplay import running
from hidden import hide_differently
from rules import Config, apply, new_game, observe, pending
from rules.cards import default_cards
from tactical_tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import ceiling  # noqa: E402


@pytest.mark.parametrize("level", ["ceiling", "lucky"])
def test_no_table_can_seat_it(level, capsys):
    with pytest.raises(ValueError):
        make_player(level, 0, default_cards())          # every table's AI comes from here
    assert main(["--seats", f"{level},normal,normal"]) == 2
    assert main(["ladder", "--games", "1", "--levels", f"normal,{level}"]) == 2
    from tactical_tui.screens.online import words as lobby
    from tactical_tui.screens import menus
    assert level not in lobby.LEVELS                     # tactical host's AI seats
    assert all(level not in getattr(v, "LEVELS", ()) for v in vars(menus).values())


def test_it_is_not_shipped_nor_imported_by_the_game():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "bench" not in project["tool"]["setuptools"]["packages"]
    for pkg in ("rules", "ai", "tactical_tui"):
        for f in (ROOT / pkg).rglob("*.py"):
            text = f.read_text(encoding="utf-8")
            assert "CeilingPlayer" not in text and "LuckyPlayer" not in text, f
            assert "import ceiling" not in text and "bench.ceiling" not in text, f
    # a process that imports every part of `tactical` and `tactical host` has no ceiling
    code = ("import sys, tactical_tui.cli, tactical_tui.app, tactical_tui.net.server, ai.hard\n"
            "assert not any('ceiling' in m for m in sys.modules), sorted(sys.modules)\n"
            "try:\n    import ceiling\nexcept ModuleNotFoundError:\n    print('unreachable')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "unreachable", out.stderr


def test_the_normal_seats_never_see_what_the_ceiling_sees():
    cards = default_cards()
    rnd = random.Random(5)
    departed_on_hidden = 0
    for seed, n in ((5000, 4), (5001, 3)):
        players = [NormalPlayer(cards, seed * 101 + i) for i in range(n)]
        me = seed % n
        players[me] = ceiling.CeilingPlayer(cards, seed * 101 + me)
        state, _ = new_game(Config(players=n), cards, seed)
        steps = 0
        while running(state):
            s = pending(state).seats[0]
            if s == me:
                action = players[s].choose_seeing(state, s, players)
                if steps % 7 == 0:
                    # the ceiling reads what is hidden: changing it changes its choice
                    # somewhere (checked below over the game)
                    twin = ceiling.CeilingPlayer(cards, seed * 101 + me)
                    twin._normal._intended = getattr(players[s]._normal, "_intended", None)
                    other = twin.choose_seeing(hide_differently(state, s, rnd), s, players)
                    departed_on_hidden += other != action
            else:
                obs = observe(state, s)
                hidden = observe(hide_differently(state, s, rnd), s)
                assert obs == hidden                   # nothing hidden in the observation
                assert not any(isinstance(v, int) and v == state.rng for v in vars_of(obs))
                # the same decision from the observation of the changed state
                twin = NormalPlayer(cards, seed * 101 + s)
                twin._intended = getattr(players[s], "_intended", None)
                action = players[s].choose(obs, obs.legal)
                assert twin.choose(hidden, hidden.legal) == action
            state, _ = apply(state, action)
            steps += 1
    assert departed_on_hidden > 0


def vars_of(obs):
    import attrs
    return [getattr(obs, f.name) for f in attrs.fields(type(obs))]
