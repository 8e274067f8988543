"""Issue 13 point 6: a new game's seed is 64 bits from the operating system's random source,
so the public opening (guilds, races, revealed targets) cannot be searched back to it;
`--seed N` still gives a reproducible game, and saves and the RNG take any 64-bit seed."""

from __future__ import annotations

import re

import pytest

from rules import Config, apply, legal_actions, new_game
from tactical_tui.app import TacticalApp
from tactical_tui.cli import main
from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, SaveError, parse, replay, to_json
from tactical_tui.table.seeds import SEED_LIMIT, new_seed, valid_seed


def headless(capfd, *args: str) -> tuple[int, str]:
    """`tactical --headless`, its exit code and output."""
    capfd.readouterr()
    code = main(["--headless", "--players", "3", "--lang", "en", *args])
    return code, capfd.readouterr().out


def seed_of(text: str) -> int:
    return int(re.search(r"\(seed (\d+)\)", text.splitlines()[0]).group(1))


def test_new_seeds_are_64_bit_and_differ():
    seeds = [new_seed() for _ in range(8)]
    assert len(set(seeds)) == 8
    assert all(valid_seed(s) for s in seeds)
    # a 30- or 32-bit seed would stay below 2**32 every time (chance 2**-256 here)
    assert any(s >= 1 << 32 for s in seeds)


def test_two_new_games_in_the_app_get_different_64_bit_seeds():
    """Where the app draws a seed (TacticalApp.start_game without --seed)."""
    seeds = []
    for _ in range(4):
        app = TacticalApp(lang="en", autosave=False)
        app.start_game(3, ("human", "normal", "normal"), True, None, 0.0)
        seeds.append(app.table.seed)
    assert len(set(seeds)) == 4 and all(valid_seed(s) for s in seeds)
    assert any(s >= 1 << 32 for s in seeds)
    app = TacticalApp(lang="en", autosave=False, seed=12345)
    app.start_game(3, ("human", "normal", "normal"), True, app.default_seed, 0.0)
    assert app.table.seed == 12345


def test_headless_games_get_different_seeds_and_seed_reproduces(capfd):
    """Where the command line draws a seed (`tactical --headless`)."""
    (c1, a), (c2, b) = headless(capfd), headless(capfd)
    assert c1 == c2 == 0
    sa, sb = seed_of(a), seed_of(b)
    assert sa != sb and valid_seed(sa) and valid_seed(sb)
    assert max(sa, sb) >= 1 << 32
    # --seed N replays the same game, event for event; the largest seed too
    assert headless(capfd, "--seed", str(sa)) == (0, a)
    top = str(SEED_LIMIT - 1)
    assert headless(capfd, "--seed", top) == headless(capfd, "--seed", top)


@pytest.mark.parametrize("bad", ["-1", str(SEED_LIMIT), str(10 ** 30)])
def test_seed_out_of_range_is_refused_with_a_message(bad, capsys):
    code = main(["--headless", "--lang", "en", "--seed", bad])
    assert code == 2
    assert "--seed takes a whole number from 0 to 18446744073709551615" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [0, (1 << 63) - 1, 1 << 63, SEED_LIMIT - 1])
def test_saves_and_the_rng_take_64_bit_seeds(seed):
    """A save with any 64-bit seed loads and replays to the same state as the seed gives."""
    config = Config(players=3)
    state, _ = new_game(config, seed=seed)
    actions = []
    for _ in range(40):
        a = legal_actions(state)[0]
        state, _ = apply(state, a)
        actions.append(a)
    data = parse(to_json(SaveData(FORMAT, seed, config, tuple(SeatEntry(True) for _ in range(3)),
                                  tuple(actions))), "s.json")
    assert data.seed == seed
    from rules import default_cards
    _, steps = replay(data, default_cards(), "s.json")
    assert steps[-1][1] == state
    # different seeds give different games
    assert new_game(config, seed=seed)[0].defense_deck != new_game(config, seed=seed ^ 1)[0].defense_deck


@pytest.mark.parametrize("seed", [-1, SEED_LIMIT, True, 1.0])
def test_a_save_with_a_seed_outside_64_bits_is_refused(seed):
    text = to_json(SaveData(FORMAT, 0, Config(players=3), tuple(SeatEntry(True) for _ in range(3)), ()))
    text = text.replace('"seed": 0', f'"seed": {str(seed).lower()}')
    with pytest.raises(SaveError):
        parse(text, "s.json")


@pytest.mark.parametrize("lang, says", [("en", "Given up unfinished"), ("ja", "未決着のまま打ち切りました")])
def test_a_headless_game_past_the_round_cap_is_said_unfinished(monkeypatch, lang, says):
    """RULINGS R19: the rules end a game only at 5 VP; `tactical --headless` gives a game
    of random players up after ai.selfplay.ROUND_CAP rounds and says so — never a winner
    (here the cap is reached at once: the battle counts as past it)."""
    import io

    import ai.selfplay
    from tactical_tui.cli import headless_game
    monkeypatch.setattr(ai.selfplay, "unfinished", lambda state: state.phase == "battle")
    out = io.StringIO()
    assert headless_game(3, 4, lang, False, None, out=out) == 0
    text = out.getvalue()
    assert says in text and text.rstrip().splitlines()[-1].find(says) >= 0
