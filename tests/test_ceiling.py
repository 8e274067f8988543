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


# ------------------------------------------------------------ keyed chance (--chance keyed)

def _chance_seen(state, seed, players, keyed):
    """Play on with `players`; the first chip of each attack — by (battle round, turn seat,
    attacking seat), with the bag it came from — and each entry die by (round, seat)."""
    from rules.events import BagFilled, ChipDrawn, DieRolled, TurnStarted
    firsts, areas, turn, bag = {}, {}, None, None
    while running(state):
        s = pending(state).seats[0]
        o = observe(state, s)
        state, events = ceiling.step(state, players[s].choose(o, o.legal),
                                     seed if keyed else None)
        for e in events:
            if isinstance(e, TurnStarted):
                turn = (e.round, e.seat)
            elif isinstance(e, DieRolled) and e.reason in ("enter", "reenter"):
                areas[turn] = e.value
            elif isinstance(e, BagFilled):
                bag = e.chips
            elif isinstance(e, ChipDrawn) and bag is not None:
                firsts[turn + (e.seat,)] = (bag, e.chip)
                bag = None
    return firsts, areas


def _two_worlds(seed, keyed, n=4):
    """The game of `seed` twice: the first draft pick the normal player's, or another."""
    cards = default_cards()
    players = lambda: [NormalPlayer(cards, seed * 101 + i) for i in range(n)]  # noqa: E731
    with ceiling.keyed_chance():
        state, _ = new_game(Config(players=n), cards, seed)
        s = pending(state).seats[0]
        obs = observe(state, s)
        first = players()[s].choose(obs, obs.legal)
        other = next(a for a in obs.legal if a != first)
        worlds = []
        for pick in (first, other):
            ps = players()
            ps[s].choose(obs, obs.legal)               # the same player, another pick
            after, _ = ceiling.step(state, pick, seed if keyed else None)
            worlds.append(_chance_seen(after, seed, ps, keyed))
    return worlds


def test_keyed_chance_draws_the_same_chip_and_die_in_two_worlds():
    """Under keyed chance the same physical draw — the first chip of seat s's attack in
    seat t's turn of round r, from the same bag; the die of seat s entering in round r —
    has the same outcome whatever pick came before; with the game's own stream it does
    not (the same setup, so this test can tell the two apart)."""
    same = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}   # chips compared, equal; dice, equal
    for keyed in (True, False):
        for seed in (5000, 5001, 5002, 5003):
            (chips1, dice1), (chips2, dice2) = _two_worlds(seed, keyed)
            common = [k for k in chips1 if k in chips2 and chips1[k][0] == chips2[k][0]]
            same[keyed][0] += len(common)
            same[keyed][1] += sum(chips1[k][1] == chips2[k][1] for k in common)
            both = [k for k in dice1 if k in dice2]
            same[keyed][2] += len(both)
            same[keyed][3] += sum(dice1[k] == dice2[k] for k in both)
    chips, chips_equal, dice, dice_equal = same[True]
    assert chips >= 5 and dice >= 10                    # enough draws compared
    assert chips_equal == chips and dice_equal == dice
    chips, chips_equal, dice, dice_equal = same[False]
    assert chips_equal < chips and dice_equal < dice    # the stream moves with the pick


def test_keyed_chance_keys_only_the_benchs_own_steps():
    """`step` without a seed is `apply`, open keyed chance or not; a plain `apply` (the
    hard player's search) is untouched while it is open; closing it restores `rules`."""
    from rules import apply
    from rules.battle import stages, turns
    cards = default_cards()
    seed, n = 5004, 4
    players = [NormalPlayer(cards, seed * 101 + i) for i in range(n)]
    state, _ = new_game(Config(players=n), cards, seed)
    with ceiling.keyed_chance():
        while running(state):
            s = pending(state).seats[0]
            o = observe(state, s)
            a = players[s].choose(o, o.legal)
            got = ceiling.step(state, a)
            assert got[0] == apply(state, a)[0] and got[1] == apply(state, a)[1]
            state = got[0]
        with pytest.raises(RuntimeError):
            ceiling.keyed_chance().__enter__()          # not twice
    assert turns.roll is ceiling._ROLL and stages.draw_chip is ceiling._DRAW_CHIP
    with pytest.raises(RuntimeError):
        ceiling.step(state, None, seed)                 # keyed only while it is open
    # the game played outside is the same game
    players = [NormalPlayer(cards, seed * 101 + i) for i in range(n)]
    again, _ = new_game(Config(players=n), cards, seed)
    while running(again):
        s = pending(again).seats[0]
        o = observe(again, s)
        again, _ = apply(again, players[s].choose(o, o.legal))
    assert again == state


def test_a_stream_run_is_the_run_it_was(tmp_path):
    """`--chance stream` (the default) plays `apply` itself and logs what it logged before
    the option (no `chance` in the run record, so old logs resume); `--chance keyed` is
    another run in the same log, and plays other games."""
    log = tmp_path / "log.jsonl"
    cmd = [sys.executable, str(ROOT / "bench" / "ceiling.py"), "--who", "normal", "--games",
           "3", "--seed", "5000", "--log", str(log)]
    for extra in ([], ["--chance", "keyed"]):
        out = subprocess.run(cmd + extra, cwd=ROOT, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    import json
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    assert [r["run"] for r in recs[:3]] == [
        {"who": "normal", "players": 4, "sims": None, "phases": None}] * 3
    assert [r["run"].get("chance") for r in recs[3:]] == ["keyed"] * 3
    cards = default_cards()
    for r in recs[:3]:
        seed, n = r["seed"], 4
        players = [NormalPlayer(cards, seed * 101 + i) for i in range(n)]
        state, _ = new_game(Config(players=n), cards, seed)
        while running(state):
            s = pending(state).seats[0]
            o = observe(state, s)
            state, _ = apply(state, players[s].choose(o, o.legal))
        assert r["rounds"] == state.battle.round and r["reason"] == state.end_reason
        assert r["share"] == ceiling._share(state, (seed - 5000) % n)
    assert [r["rounds"] for r in recs[:3]] != [r["rounds"] for r in recs[3:]] or \
        [r["share"] for r in recs[:3]] != [r["share"] for r in recs[3:]]
