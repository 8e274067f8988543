"""Data is never markup or terminal control (issue 14 points 1 and 2; BRIEF "Data is never
markup or terminal control").

A card set whose every name (cards, skills, races, guilds, traits, families, series; ja
and en) and every family rule holds markup (`[/]`, `[bold red]`, `[link=…]`,
`[@click=…]`) and terminal control (ESC sequences that retitle the window and clear the
screen, BEL, CR, backspace, C1 CSI, a bidi override, a newline) is driven through every
place that shows data: the app's draft, bidding, build, battle and game-over screens at
80×24 in both languages, the log, the card details, the choice dialogs, notifications
naming a file path with `[/]` and a save whose action holds such text, the replay viewer,
`tactical cards`, `--headless`, `tactical check`, `tactical simulate` and `tactical
balance`. Each must not crash, must never let a raw control character reach the output,
and must show the data as written (the escape visible as `\\x1b`, the brackets literal).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from rules.cards import CardSet, parse_cards
from tactical_tui.text.safe import SafeStream, _UNSAFE, as_text, lines_text, plain

ROOT = Path(__file__).resolve().parent.parent

# The hostile pieces of text. Each name gets one of these and a unique tail.
EVIL = [
    "[/]",
    "[bold red]x",
    "[link=https://e.x]y[/link]",
    "\x1b]0;pwned\x07\x1b[2J",
    "x[/]",
    "\\[b]\\",
    "[@click=app.quit]q[/]",
    "\u202eevil\x9b2J",
    "a\r\x08b\nc",
    "[$accent]v",
]
RAW = {chr(cp) for cp in _UNSAFE} - {"\n"}     # never in anything drawn or printed


def evil_cards_text() -> str:
    """The shipped cards.toml with every name and family rule replaced by hostile text."""
    src = (ROOT / "cards.toml").read_text(encoding="utf-8")
    n = [0]

    def sub(m: re.Match) -> str:
        n[0] += 1
        e = EVIL[n[0] % len(EVIL)]
        return (f'{m.group(1)} = {{ ja = {json.dumps(e + "名" + str(n[0]))}, '
                f'en = {json.dumps(e + "N" + str(n[0]))} }}')
    out = re.sub(r'\b(name|rule) = \{ ja = "[^"]*", en = "[^"]*" \}', sub, src)
    assert n[0] > 100
    return out


@pytest.fixture(scope="module")
def evil_file(tmp_path_factory) -> Path:
    p = hostile(tmp_path_factory.mktemp("evil"), "evil[/]cards.toml")
    p.write_text(evil_cards_text(), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def evil(evil_file) -> CardSet:
    return parse_cards(evil_file.read_text(encoding="utf-8"))


def hostile(folder: Path, name: str) -> Path:
    """folder/name, where `name` may hold "/" (so "[/]x" is the file "]x" in a folder "[")."""
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def assert_clean(out: str, where: str) -> None:
    raw = sorted({repr(c) for c in out if c in RAW})
    assert not raw, f"{where}: raw control characters {raw} in {out[:2000]!r}"


def assert_shown(out: str, where: str) -> None:
    """The hostile text is there, as written: brackets literal, controls visible."""
    assert_clean(out, where)
    assert any(plain(e) in out for e in EVIL), f"{where}: no hostile name in {out[:2000]!r}"


# ---------------------------------------------------------------------- the helper

def test_plain_shows_every_control_character():
    s = "a\x1b[2J\x07\x08\r\x00\x7f\x85\x9b\u202e\u2066\u2028\u2029\ud800\n\tb"
    out = plain(s)
    assert out == ("a\\x1b[2J\\x07\\x08\\r\\x00\\x7f\\x85\\x9b\\u202e\\u2066\\u2028\\u2029"
                   "\\ud800\\n\\tb")
    assert_clean(out, "plain")
    assert "\n" not in out and out.isprintable()
    assert plain(out) == out                     # already safe text is left alone
    assert plain(s, lines=True).endswith("\n\tb")
    assert plain("剣[/]《斬撃》 x") == "剣[/]《斬撃》 x"    # ordinary text unchanged
    assert plain(12) == "12"
    for cp in _UNSAFE:
        assert chr(cp) not in plain(chr(cp)), hex(cp)


def test_text_objects_are_never_markup():
    for e in EVIL:
        t = as_text(e)
        assert isinstance(t, Text) and t.plain == plain(e) and not t.spans
    t = lines_text(["[/]", "a\nb", "\x1b[2J"])
    assert t.plain == "[/]\na\\nb\n\\x1b[2J"
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(lines_text(EVIL))
    out = buf.getvalue()
    assert_shown(out, "rich")
    assert "[link=https://e.x]y[/link]" in out and "[bold red]x" in out


def test_safe_stream_keeps_lines_and_shows_the_rest():
    buf = io.StringIO()
    print("a\x1b[2J", "b\nc\x07", file=SafeStream(buf))
    assert buf.getvalue() == "a\\x1b[2J b\nc\\x07\n"


# ---------------------------------------------------------------------- the app

def drawn(app) -> str:
    """Everything the app would draw now: the screen's cells, every Static, every option,
    every log line and border title of the current screen, and the notifications."""
    from textual.widgets import OptionList, RichLog, Static
    from tactical_tui.widgets.logview import FullLog
    from tui_app import screen_text
    parts = [screen_text(app)]
    for w in app.screen.query("*"):
        if w.border_title:
            parts.append(str(w.border_title))
        if isinstance(w, Static):
            parts.append(str(w.render()))
        elif isinstance(w, OptionList):
            parts += [str(w.get_option_at_index(i).prompt) for i in range(w.option_count)]
        elif isinstance(w, RichLog):
            parts += ["".join(seg.text for seg in strip) for strip in w.lines]
        elif isinstance(w, FullLog):             # the log screen: every line, not just those in view
            parts += [strip.text for i in range(w.n) for strip in w.rows_of(i, w.width_ or 70)]
    for n in app._notifications:
        parts += [n.message, n.title]
    return "\n".join(parts)


async def _visit(app, pilot, seen: dict) -> None:
    """Check what is drawn; on the first visit of each phase screen also open the card
    details, the log and (in the draft) the target list, and check those."""
    from tui_app import settle
    name = type(app.screen).__name__.split("_")[0]
    out = drawn(app)
    assert_clean(out, name)
    seen.setdefault(name, out)
    if name in ("DraftScreen", "BidScreen", "BuildScreen", "BattleScreen", "GameOverScreen") \
            and name + "+" not in seen:
        seen[name + "+"] = ""
        keys = ["l"] + (["d"] if name != "GameOverScreen" else []) + \
            (["t"] if name == "DraftScreen" else [])
        for key in keys:
            screen = app.screen
            await pilot.press(key)
            await pilot.pause(0.05)
            if app.screen is not screen:
                out = drawn(app)
                assert_shown(out, f"{name} {key}")
                seen[f"{name} {key}"] = out
                await settle(app, pilot, "escape")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_app_shows_hostile_card_names_on_every_screen(evil, lang):
    from tactical_tui.app import TacticalApp
    from tactical_tui.screens.gameover import GameOverScreen
    from tui_app import dialog_open, human_turn, settle

    async def run():
        app = TacticalApp(lang=lang, cards=evil, ai_delay=0.0, seed=5, autosave=False,
                          seats=("human", "random", "random", "random"))
        seen: dict = {}
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            for _ in range(30000):
                await pilot.pause(0.005)
                await _visit(app, pilot, seen)
                if isinstance(app.screen, GameOverScreen):
                    break
                if dialog_open(app):
                    await settle(app, pilot, "enter")
                elif human_turn(app):
                    await settle(app, pilot, "H")
            else:
                raise AssertionError("no game over")
            await _visit(app, pilot, seen)
        for name in ("DraftScreen", "BidScreen", "BuildScreen", "BattleScreen", "GameOverScreen",
                     "DraftScreen d", "DraftScreen t", "DraftScreen l", "BidScreen d",
                     "BuildScreen d", "BattleScreen l", "GameOverScreen l"):
            assert name in seen, sorted(seen)
        for name in ("DraftScreen", "BidScreen", "BuildScreen", "BattleScreen"):
            assert_shown(seen[name], name)
        assert "\\x1b]0;pwned" in seen["DraftScreen t"]
        assert "[link=https://e.x]y[/link]" in "".join(seen.values())
    asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_notifications_name_a_hostile_path(tmp_path, lang):
    """`tactical --resume 'x/[/]y.json'` (missing), a save whose action holds markup and
    ESC, and a save folder path with `[/]` that cannot be written."""
    from tactical_tui.app import TacticalApp
    from tui_app import settle

    missing = tmp_path / "x" / "[/]y\x1b[2J.json"
    bad = tmp_path / "[bold red]\x1b]0;pwned\x07.json"
    bad.write_text(json.dumps({"format": 1, "seed": 3, "lang": lang, "config": {"players": 4},
                               "seats": [{"human": i == 0, "level": "normal"} for i in range(4)],
                               "actions": [{"type": "Pick", "seat": 0,
                                            "card": "[/]\x1b]0;pwned\x07\x1b[2J"}]}),
                   encoding="utf-8")
    before = bad.read_bytes()

    async def run():
        app = TacticalApp(lang=lang, ai_delay=0.0, seed=3, autosave=False, resume=str(missing))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause(0.1)
            app.continue_game(str(bad))
            await pilot.pause(0.1)
            messages = [n.message for n in app._notifications]
            assert any(plain(str(missing)) in m for m in messages), messages
            assert any(plain(str(bad)) in m for m in messages), messages
            assert_shown(drawn(app), "notifications")
            assert "[/]y\\x1b[2J.json" in drawn(app)
            # a save folder that cannot be written: the warning names it
            await settle(app, pilot, "enter")            # quick game
            await pilot.pause(0.1)
            app.table.save_path = tmp_path / "[/]no\x1b[2J" / "sub" / "current.json"
            hostile(tmp_path, "[/]no\x1b[2J").write_text("a file, not a folder")
            app.table.autosave()
            app._check_save()
            await pilot.pause(0.1)
            warn = app._notifications
            assert any("[/]no\\x1b[2J" in n.message for n in warn), [n.message for n in warn]
            assert_clean(drawn(app), "save warning")
    asyncio.run(run())
    assert bad.read_bytes() == before


def test_replay_viewer_shows_hostile_names(evil):
    from ai import RandomPlayer
    from rules import Config, apply, legal_actions, new_game, observe
    from tactical_tui.screens.replay import ReplayApp, ReplayScreen
    from tactical_tui.widgets.base import localized

    state, events0 = new_game(Config(players=3), evil, 4)
    steps = []
    bots = [RandomPlayer(i) for i in range(3)]
    while len(steps) < 80 and legal_actions(state):
        seat = legal_actions(state)[0].seat
        obs = observe(state, seat)
        action = bots[seat].choose(obs, obs.legal)
        state, ev = apply(state, action)
        steps.append((action, state, ev))
    for lang in ("ja", "en"):

        async def run():
            screen = localized(ReplayScreen, lang)("[/]\x1b]0;pwned\x07.json", events0, steps,
                                                   evil, lang)
            app = ReplayApp(screen)
            async with app.run_test(size=(80, 24)) as pilot:
                for key in ("right",) * 3 + ("end",):
                    await pilot.press(key)
                    await pilot.pause(0.02)
                    assert_shown(drawn(app), f"replay {lang}")
                assert "[/]\\x1b]0;pwned\\x07.json" in drawn(app)
        asyncio.run(run())


# ---------------------------------------------------------------------- the commands

def _tactical(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update({"PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"})
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "tactical_tui.cli", *args], capture_output=True,
                          env=env, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_cards_command_prints_hostile_names(evil_file, lang):
    r = _tactical("cards", "--cards", str(evil_file), "--lang", lang)
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
    assert r.returncode == 0, err
    assert_shown(out, "tactical cards")
    assert "Traceback" not in err
    for piece in ("[/]", "[bold red]x", "[link=https://e.x]y[/link]", "\\x1b]0;pwned\\x07",
                  "[@click=app.quit]q[/]", "\\u202eevil\\x9b2J", "a\\r\\x08b\\nc", "\\[b]\\"):
        assert piece in out, piece


def test_cards_command_in_process_bold_name(evil):
    from tactical_tui.tools.cards_cmd import TYPES, print_cards
    buf = io.StringIO()
    print_cards(evil, "en", TYPES, False, console=Console(file=buf, width=120, force_terminal=True))
    out = buf.getvalue()
    # styles are the program's own (CSI m); nothing else starts with ESC
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", out), re.findall(r"\x1b.{0,8}", out)[:5]
    assert "\x07" not in out and "[/]" in out


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_headless_prints_hostile_names(evil_file, lang):
    r = _tactical("--headless", "--players", "3", "--seed", "2", "--lang", lang,
                  "--cards", str(evil_file))
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
    assert r.returncode == 0, err
    assert_shown(out, "--headless")
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in out


def test_card_data_error_names_a_hostile_path(tmp_path):
    bad = hostile(tmp_path, "[/]\x1b]0;pwned\x07.toml")
    bad.write_text("this is = not [ toml", encoding="utf-8")
    r = _tactical("cards", "--cards", str(bad))
    err = r.stderr.decode("utf-8")
    assert r.returncode == 2 and "Traceback" not in err, err
    assert_clean(err, "card data error")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_replay_command_names_a_hostile_save(tmp_path, lang):
    bad = hostile(tmp_path, "[/]\x1b]0;pwned\x07.json")
    bad.write_text(json.dumps({"format": 1, "seed": 1, "config": {"players": 3},
                               "seats": [{"human": False, "level": "random"}] * 3,
                               "actions": [{"type": "Pick", "seat": 0,
                                            "card": "[bold red]\x1b[2J\x9b"}]}),
                   encoding="utf-8")
    from tactical_tui.screens.replay import run_replay
    from rules.cards import default_cards
    buf = io.StringIO()
    sys_stderr = sys.stderr
    sys.stderr = buf
    try:
        assert run_replay(str(bad), lang, default_cards()) == 2
    finally:
        sys.stderr = sys_stderr
    assert_clean(buf.getvalue(), "replay error")
    assert "[/]\\x1b]0;pwned\\x07.json" in buf.getvalue()


def test_check_command_shows_hostile_paths_and_contents(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    hostile(folder, "[/]\x1b]0;pwned\x07.toml").write_text('title = "[bold]\\u001b[2J"\nphase = 7\n',
                                                     encoding="utf-8")
    r = _tactical("check", str(folder), str(tmp_path / "no[/]\x1b[2J"))
    out, err = r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
    assert r.returncode == 1 and "Traceback" not in err, err
    assert_clean(out, "tactical check")
    assert "[/]\\x1b]0;pwned\\x07.toml" in out and "no[/]\\x1b[2J" in out
    assert "0 passed, 2 failed" in out


def test_simulate_and_balance_print_plain_text(evil, monkeypatch, capsys, tmp_path):
    from tactical_tui.tools import simulate as sim
    assert sim.run_cli(1, None, "[/],\x1b]0;pwned\x07,[bold]", 0, 1) == 2
    out = capsys.readouterr().out
    assert_clean(out, "simulate")
    assert "[/]" in out
    monkeypatch.setenv("COLUMNS", "200")
    result = sim.play_one(("random",) * 3, 1, evil)
    monkeypatch.setattr(sim, "default_cards", lambda: evil)
    monkeypatch.setattr(sim, "simulate", lambda *a, **k: [result])
    for lang in ("ja", "en"):
        csv = hostile(tmp_path, f"[/]{lang}\x1b[2J.csv")
        assert sim.run_balance_cli(1, 3, 0, 1, str(csv), 0, lang) == 0
        out = capsys.readouterr().out
        assert_shown(out, f"balance {lang}")
        assert f"CSV: {plain(csv)}" in out.replace("\n", "")
        for race, guild, cards in result.builds:
            for name in (evil.race(race).name, evil.guild(guild).name,
                         *(evil.card(c).name for c in cards)):
                assert plain(name.get(lang)) in out, name
