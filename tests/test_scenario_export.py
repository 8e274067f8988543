"""Exporting a position as a scenario (issue 13 point 10, docs/scenarios.md "Exported
positions"): for positions of every phase and step of seeded random games, export → load
gives a state equal to the original with the same legal actions, and the exported
expectations pass; `tactical replay FILE --step N --export OUT.toml` writes such a file and
never replaces one silently; the replay viewer's key writes one too."""

from __future__ import annotations

import asyncio
import collections
import functools
import os
import random
import re
import tomllib
from pathlib import Path

import attrs
import pytest

from ai.selfplay import running
from rules import Config, apply, legal_actions, new_game, pending
from rules.cards import default_cards
from rules.state import GameState
from tactical_tui.cli import main
from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, to_json
from tactical_tui.tools.scenario import (ExportError, ScenarioError, load_scenario, position_data,
                                         position_state, run_scenario, scenario_text, toml_table,
                                         write_new_file)


def kind_of(state: GameState) -> str:
    """The phase and step of a position, finely: the pending decision, and inside an
    attack whether it is a counter."""
    k = pending(state).kind
    b = state.battle
    if b is not None and b.attack is not None:
        k += "/counter" if b.attack.counter else "/attack"
    return k


def random_games(count: int, first_seed: int = 0):
    """(seed, [state before each action, …, the final state]) of seeded random games."""
    for seed in range(first_seed, first_seed + count):
        state, _ = new_game(Config(players=3 + seed % 3, first_game=seed % 4 == 1), None, seed)
        rnd = random.Random(seed)
        states = [state]
        while running(state):           # or given up after ROUND_CAP rounds (RULINGS R19)
            legal = legal_actions(state)
            if not legal:
                break
            state, _ = apply(state, rnd.choice(legal))
            states.append(state)
        yield seed, states


@functools.lru_cache(maxsize=1)
def sample_positions(total: int = 200) -> list[tuple[str, GameState]]:
    """`total` positions from seeded random games, spread over every kind of position
    met (round robin over the kinds, so rare steps such as 《競売》 are in)."""
    by_kind: dict[str, list[GameState]] = collections.defaultdict(list)
    for _, states in random_games(30):
        for st in states:
            by_kind[kind_of(st)].append(st)
    rnd = random.Random(13)
    for pool in by_kind.values():
        rnd.shuffle(pool)
    out: list[tuple[str, GameState]] = []
    while len(out) < total and any(by_kind.values()):
        for kind in sorted(by_kind):
            if by_kind[kind] and len(out) < total:
                out.append((kind, by_kind[kind].pop()))
    return out


@pytest.fixture(scope="module")
def positions() -> list[tuple[str, GameState]]:
    return sample_positions()


def test_the_sample_covers_every_phase_and_step(positions):
    kinds = {k for k, _ in positions}
    assert len(positions) == 200
    for kind in ("draft_pick", "bid", "auction", "payment", "appraisal", "build", "reveal_fix",
                 "turn", "skills/attack", "targets/attack", "defense/attack", "unluck/attack",
                 "draw/attack", "counter/attack", "draw/counter", "over"):
        assert kind in kinds, f"no {kind} position in the sample (kinds: {sorted(kinds)})"


def test_export_then_load_gives_the_same_position(positions):
    """§ all phases: the whole position survives the file — seats, decks in order,
    discards, bids, the attack and its bag, the RNG — and so do its legal actions."""
    for kind, state in positions:
        text = scenario_text(state, name=kind)
        raw = tomllib.loads(text)
        back = position_state(raw["position"], default_cards())
        assert back == state, kind
        assert legal_actions(back) == legal_actions(state), kind
        assert pending(back) == pending(state), kind


def test_exported_files_load_and_their_expectations_pass(tmp_path, positions):
    """A sample of exported files through the whole runner (`tactical check`): the file
    loads, and its expectations (the pending decision, the legal-action count) hold."""
    for i, (kind, state) in enumerate(positions[::10]):
        path = tmp_path / f"p{i}.toml"
        path.write_text(scenario_text(state, name=kind), encoding="utf-8")
        sc = load_scenario(path)
        assert sc.state == state, kind
        result = run_scenario(sc)
        assert result.passed, (kind, result.failures)


def test_an_exported_file_can_fail(tmp_path, positions):
    """The exported expectations are real: edit the count and the check fails."""
    kind, state = next((k, s) for k, s in positions if k == "turn")
    n = len(legal_actions(state))
    text = scenario_text(state).replace(f"legal_count = {n}\n", f"legal_count = {n + 1}\n")
    path = tmp_path / "edited.toml"
    path.write_text(text, encoding="utf-8")
    result = run_scenario(load_scenario(path))
    assert not result.passed
    assert f"expected: {n + 1}" in result.failures[0] and f"actual:   {n}" in result.failures[0]


def test_a_position_and_actions_play_on(tmp_path):
    """The workflow of docs/scenarios.md: take a legal action listed in the exported
    file's comments, play it as an [[action]], and the scenario goes on like the game."""
    _, states = next(random_games(1, first_seed=7))
    for k in (40, 150):
        state = states[k]
        text = scenario_text(state)
        listed = [line[4:] for line in text.splitlines() if line.startswith("#   { type")]
        assert len(listed) == min(60, len(legal_actions(state)))
        after = states[k + 1]
        chosen = next(x for x in listed if
                      load_action(x) == next(a for a in legal_actions(state)
                                             if apply(state, a)[0] == after))
        path = tmp_path / f"on{k}.toml"
        path.write_text(f"action = [{chosen}]\n\n" + text +
                        f'\n[[expect]]\n"pending.kind" = "{pending(after).kind}"\n',
                        encoding="utf-8")
        sc = load_scenario(path)
        assert len(sc.steps) == 1
        result = run_scenario(sc)
        assert result.passed, result.failures


def load_action(inline: str):
    from tactical_tui.tools.scenario import ACTIONS
    d = tomllib.loads(f"a = {inline}")["a"]
    return ACTIONS[d.pop("type")](**d)


# ------------------------------------------------------------------- malformed positions

def exported(state: GameState) -> str:
    return "\n".join(toml_table("position", position_data(state)))


def base() -> GameState:
    return sample_positions()[0][1]
HEAD = '[scenario]\nversion = 2\n\n[[expect]]\nphase = "draft"\n\n'


@pytest.mark.parametrize("change, fragments", [
    (lambda t: t.replace('rng = "0x', 'rng = "1x', 1), ["[position], rng", "hex string"]),
    (lambda t: t.replace('phase = "', 'phase = 3 #', 1), ["[position]", "phase", "must be a string"]),
    (lambda t: t.replace("[[position.seats]]\n", "[[position.seats]]\nhat = 1\n", 1),
     ["[position]", "seats[0]", "unknown field", "'hat'"]),
    (lambda t: t.replace("[[position.seats]]\nguild = ", "[[position.seats]]\nguild = 'x'\n#", 1),
     ["[position], seats[0].guild", "no guild 'x'"]),
    (lambda t: re.sub(r"\[position.config\]\n(players = \d\n)?", "[position.config]\n"
                      "players = 9\n", t, count=1), ["[position]", "3, 4 or 5 players"]),
])
def test_a_malformed_position_names_the_file_and_the_field(tmp_path, change, fragments):
    text = change(exported(base()))
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + text, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert msg.startswith(str(path)), msg
    for f in fragments:
        assert f in msg, msg


def test_a_card_placed_twice_in_a_position(tmp_path):
    b = base()
    state = b.with_seat(1, hand=b.seats[1].hand + (b.seats[0].hand[0],))
    path = tmp_path / "twice.toml"
    path.write_text(HEAD + exported(state), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"seats\[1\]\.hand: card .* is placed twice"):
        load_scenario(path)


def test_position_and_seat_tables_do_not_mix(tmp_path):
    path = tmp_path / "mix.toml"
    path.write_text(HEAD + "[[seat]]\nhp = 3\n\n" + exported(base()), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\[\[seat\]\]: not with \[position\]"):
        load_scenario(path)


# ------------------------------------------------------------------- writing files

def test_write_never_replaces_a_file_silently(tmp_path):
    target = tmp_path / "x.toml"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(ExportError) as err:
        write_new_file(target, "new")
    assert err.value.key == "exists"
    assert "already exists" in str(err.value) and "すでにあります" in err.value.text("ja")
    assert target.read_text(encoding="utf-8") == "keep me"
    assert write_new_file(target, "new", overwrite=True) is True
    assert target.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]     # no temp file left


def test_write_into_a_missing_folder_says_so(tmp_path):
    with pytest.raises(ExportError) as err:
        write_new_file(tmp_path / "no" / "x.toml", "text")
    assert err.value.key == "failed"
    assert "not written" in str(err.value) and "書き出せません" in err.value.text("ja")


def test_names_from_outside_cannot_break_the_file(positions):
    """A file name with a newline, quotes or markup goes into TOML strings, escaped."""
    state = positions[3][1]
    name = 'evil"\n[scenario]\nname = "x" [bold]red[/bold] \x1b[2J'
    raw = tomllib.loads(scenario_text(state, name=name, description=name))
    assert raw["scenario"]["name"] == name
    assert "\x1b" not in scenario_text(state, name=name)


def test_a_game_with_other_card_data_carries_it(tmp_path):
    """A game of the shipped card data names none (an equal set counts as shipped); a game
    of other card data carries the whole of it inline ([scenario] cards = "inline"), and
    loads back as the same position with the same card set."""
    from rules.cards import CardSet, load_cards
    cards = default_cards()
    same = load_cards()                                   # an equal set is the shipped one
    assert "[[attack]]" not in scenario_text(attrs.evolve(base(), cards=same))
    smaller = CardSet(families=cards.families, series=cards.series, races=cards.races,
                      guilds=cards.guilds, defense=cards.defense, attack=cards.attack[:-1])
    # a sampled position in which the dropped card lies nowhere (a first game's)
    gone = repr(cards.attack[-1].id)
    state = next(attrs.evolve(st, cards=smaller) for _, st in sample_positions()
                 if gone not in repr(attrs.evolve(st, cards=None)))
    text = scenario_text(state)
    assert tomllib.loads(text)["scenario"]["cards"] == "inline"
    path = tmp_path / "other.toml"
    path.write_text(text, encoding="utf-8")
    sc = load_scenario(path)
    assert sc.state == state and sc.state.cards == smaller
    assert cards.attack[-1].id not in {c.id for c in sc.state.cards.attack}
    assert run_scenario(sc).passed


# ------------------------------------------------------------------- the command

def save_file(tmp_path: Path, seed: int = 5, players: int = 3, count: int = 150):
    cfg = Config(players=players)
    state, _ = new_game(cfg, None, seed)
    rnd = random.Random(seed)
    actions, states = [], [state]
    for _ in range(count):
        legal = legal_actions(state)
        if not legal:
            break
        a = rnd.choice(legal)
        actions.append(a)
        state, _ = apply(state, a)
        states.append(state)
    data = SaveData(FORMAT, seed, cfg, tuple(SeatEntry(False, "random") for _ in range(players)),
                    tuple(actions))
    path = tmp_path / "game.json"
    path.write_text(to_json(data), encoding="utf-8")
    return path, states


def test_replay_export_writes_a_scenario_of_that_step(tmp_path, capsys):
    path, states = save_file(tmp_path)
    out = tmp_path / "pos.toml"
    assert main(["replay", str(path), "--step", "120", "--export", str(out)]) == 0
    assert f"wrote the position as a scenario: {out}" in capsys.readouterr().out
    sc = load_scenario(out)
    assert sc.state == states[120]
    assert run_scenario(sc).passed
    # never replaced silently; --force replaces and says so
    out.write_text("mine", encoding="utf-8")
    assert main(["replay", str(path), "--step", "3", "--export", str(out), "--lang", "ja"]) == 1
    assert "すでにあります" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine"
    assert main(["replay", str(path), "--step", "0", "--export", str(out), "--force"]) == 0
    assert "replaced the existing file" in capsys.readouterr().out
    assert load_scenario(out).state == states[0]


def test_replay_export_step_out_of_range_and_bad_save(tmp_path, capsys):
    path, states = save_file(tmp_path, count=20)
    out = tmp_path / "pos.toml"
    assert main(["replay", str(path), "--step", "999", "--export", str(out)]) == 2
    assert "--step must be from 0 to 20 (not 999)" in capsys.readouterr().err
    assert not out.exists()
    assert main(["replay", str(path), "--export", str(out)]) == 0       # default: the last
    assert load_scenario(out).state == states[-1]
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["replay", str(bad), "--export", str(tmp_path / "b.toml")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_replay_export_from_a_process(tmp_path):
    import subprocess
    import sys
    path, states = save_file(tmp_path, count=60)
    out = tmp_path / "p.toml"
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, "-m", "tactical_tui.cli", "replay", str(path),
                           "--step", "60", "--export", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "tactical_tui.cli", "check", str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 0 failed" in proc.stdout


# ------------------------------------------------------------------- the viewer's key

@pytest.mark.parametrize("lang, words", [("en", "wrote the position"), ("ja", "書き出しました")])
def test_the_replay_viewers_export_key(tmp_path, lang, words):
    from tactical_tui.screens.replay import ReplayApp, ReplayScreen, load_replay
    from tactical_tui.widgets.base import localized
    path, states = save_file(tmp_path, count=80)
    events0, steps, start = load_replay(str(path), lang, default_cards())
    folder = tmp_path / "out"
    folder.mkdir()
    screen = localized(ReplayScreen, lang)(path.name, events0, steps, default_cards(), lang,
                                           start=start, export_dir=folder)
    app = ReplayApp(screen)
    seen: list[str] = []

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("e")                    # step 0: the deal
            await pilot.press("pagedown", "pagedown", "pagedown")
            await pilot.press("e", "e")               # twice: a second, new file
            await pilot.pause()
            seen.extend(str(n.message) for n in app._notifications)
    asyncio.run(run())
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["game-step0.toml", "game-step30-2.toml", "game-step30.toml"]
    assert load_scenario(folder / "game-step0.toml").state == states[0]
    assert load_scenario(folder / "game-step30.toml").state == states[30]
    assert load_scenario(folder / "game-step30-2.toml").state == states[30]
    assert any(words in m for m in seen), seen


@pytest.mark.parametrize("make, kind", [
    (lambda p: os.mkfifo(p), "a named pipe"),
    (lambda p: p.mkdir(), "a folder"),
])
def test_force_never_replaces_what_is_not_a_regular_file(tmp_path, make, kind):
    """`replay --export PATH --force` replaced a named pipe at PATH with a regular file
    (and, run as root, /dev/null): only a regular file or a symbolic link is replaced."""
    target = tmp_path / "x.toml"
    make(target)
    before = os.lstat(target).st_mode
    for overwrite in (False, True):
        with pytest.raises(ExportError) as err:
            write_new_file(target, "new", overwrite=overwrite)
        assert err.value.key == "not_regular"
        assert f"is {kind}, not a regular file" in str(err.value)
        assert "通常のファイルではなく" in err.value.text("ja")
    assert os.lstat(target).st_mode == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.toml"]     # no temp file left


def test_force_replaces_a_symlink_itself_not_what_it_points_to(tmp_path):
    kept = tmp_path / "kept.toml"
    kept.write_text("keep me", encoding="utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(kept)
    assert write_new_file(link, "new", overwrite=True) is True
    assert kept.read_text(encoding="utf-8") == "keep me"
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "new"


def test_a_name_too_long_is_a_message_not_a_traceback(tmp_path):
    with pytest.raises(ExportError) as err:
        write_new_file(tmp_path / ("a" * 300), "text", overwrite=True)
    assert err.value.key == "failed" and "not written" in str(err.value)


def test_a_folders_name_is_never_written_as_a_file(tmp_path):
    """`--export out/new/` wrote a file named `new` (Path() drops the slash)."""
    for name in (str(tmp_path / "new") + "/", str(tmp_path) + "/"):
        with pytest.raises(ExportError) as err:
            write_new_file(name, "text", overwrite=True)
        assert "it is a folder, not a file" in str(err.value)
        assert "フォルダ" in err.value.text("ja")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
