"""Issue 14 point 6: card data that cannot make a game is refused with a reason
(docs/RULINGS.md R31; §4 セットアップ, §5-1, §5-2, §5-3).

Loading refuses data that cannot make even a 3-player game with every card; starting a
game (rules.new_game, and so the app, --headless, simulate and balance) refuses the game
asked for. The message names what is short and by how much, in Japanese and English.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from rules import Config, new_game
from rules.cards import (CardDataError, NotPlayable, check_playable, load_cards, parse_cards,
                         shortages)
from tactical_tui.tools.simulate import play_one
from tactical_tui.text.catalog import card_error_text

ROOT = Path(__file__).resolve().parent.parent
TEST_CARDS = ROOT / "tests" / "data" / "test_cards.toml"
TEXT = TEST_CARDS.read_text(encoding="utf-8")


def blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(head, [(section, block)]): a `[[x]]` entry with its `[[x.skills]]` sub-tables."""
    parts = re.split(r"(?m)^(?=\[\[)", text)
    head, out = parts[0], []
    for part in parts[1:]:
        name = part[2:part.index("]]")]
        if "." in name and out:
            out[-1] = (out[-1][0], out[-1][1] + part)
        else:
            out.append((name, part))
    return head, out


def keep(text: str, section: str, n: int) -> str:
    """The card data with only the first `n` entries of `section`."""
    head, entries = blocks(text)
    out, kept = [head], 0
    for name, block in entries:
        if name == section:
            kept += 1
            if kept > n:
                continue
        out.append(block)
    return "".join(out)


def initial_only(text: str, section: str, n: int) -> str:
    """The card data with only the first `n` initial-set entries of `section` left in the
    initial set: the other ones get the star (standard set)."""
    head, entries = blocks(text)
    out, kept = [head], 0
    for name, block in entries:
        if name == section and "star = false" in block:
            kept += 1
            if kept > n:
                block = block.replace("star = false", "star = true", 1)
        out.append(block)
    return "".join(out)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cards.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess:
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    return subprocess.run([sys.executable, "-m", "tactical_tui.cli", *args], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True, timeout=120, preexec_fn=limits)


def test_the_test_and_shipped_sets_can_make_every_game():
    for path in (ROOT / "cards.toml", TEST_CARDS, ROOT / "tests" / "data" / "battle_cards.toml"):
        cards = load_cards(path)
        for players in (3, 4, 5):
            for first in (False, True):
                assert shortages(cards, players, first) == [], (path, players, first)


@pytest.mark.parametrize("text", ["", "\n  \n", "# only a comment\n"])
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_an_empty_card_file(tmp_path, text, lang):
    path = write(tmp_path, text)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(CardDataError) as info:
        load_cards(path)
    assert info.value.code == "empty"
    proc = run_cli("--cards", str(path), "--headless", "--lang", lang)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == {
        "en": f"Cannot load the card data: {path}: the file holds no card data",
        "ja": f"カードデータを読み込めません: {path}: カードデータがありません"}[lang]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_too_few_races_and_guilds_are_refused_at_load(tmp_path):
    """3 players need 3 guilds and 6 races: 2 guilds and 5 races are both named."""
    path = write(tmp_path, keep(keep(TEXT, "race", 5), "guild", 2))
    with pytest.raises(NotPlayable) as info:
        load_cards(path)
    assert str(info.value) == (
        f"{path}: cannot make a game: too few guilds for 3 players: 3 needed (1 per player), "
        "2 in the card data (1 short); too few races for 3 players: 6 needed (2 per player), "
        "5 in the card data (1 short)")
    assert card_error_text(info.value, "ja") == (
        f"{path}: ゲームを始められません: 3人のゲームにはギルドが3枚必要です（1人1枚）。"
        "カードデータには2枚です（1枚不足）。3人のゲームには種族が6枚必要です（1人2枚）。"
        "カードデータには5枚です（1枚不足）")
    proc = run_cli("--cards", str(path), "--headless", "--lang", "ja")
    assert proc.returncode == 2 and "ギルドが3枚必要です" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("cards", "--cards", str(path), "--type", "guild")   # a listing, not a game
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert load_cards(path, for_game=False).guilds


def test_too_few_races_for_five_players_is_refused_when_the_game_starts(tmp_path):
    """8 races make a 3- or 4-player game, not a 5-player one (10 needed)."""
    path = write(tmp_path, keep(TEXT, "race", 8))
    cards = load_cards(path)
    new_game(Config(players=4), cards, 1)
    with pytest.raises(NotPlayable) as info:
        new_game(Config(players=5), cards, 1)
    assert isinstance(info.value, ValueError)          # as new_game raised before
    assert str(info.value).endswith("too few races for 5 players: 10 needed (2 per player), "
                                    "8 in the card data (2 short)")
    for lang, words in (("en", "too few races for 5 players: 10 needed"),
                        ("ja", "5人のゲームには種族が10枚必要です（1人2枚）。カードデータには8枚です（2枚不足）")):
        proc = run_cli("--cards", str(path), "--headless", "--players", "5", "--lang", lang)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
        assert proc.stdout == ""                         # no headless "game" that never starts
    proc = run_cli("--cards", str(path), "--headless", "--players", "4", "--seed", "1")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


def test_too_few_cards_for_the_draft(tmp_path):
    """§5-2: 8 defense cards per player are dealt before the draft, copies counted."""
    head, entries = blocks(TEXT)
    text = "".join([head] + [re.sub(r"(?m)^copies = \d+", "copies = 2", b) if n == "defense" else b
                             for n, b in entries])
    cards = parse_cards(text, "few.toml")
    have = sum(c.copies for c in cards.defense)
    assert 24 <= have < 32
    check_playable(cards, 3)
    with pytest.raises(NotPlayable) as info:
        new_game(Config(players=5), cards, 1)
    assert str(info.value) == (f"few.toml: cannot make a game: too few defense cards for the "
                               f"draft of 5 players: 40 needed (8 per player, copies counted), "
                               f"{have} in the card data ({40 - have} short)")


def test_too_few_cards_for_the_first_game_mode(tmp_path):
    """§4: the first game uses the initial set (no star) only; 10 initial attack cards
    cannot give 3 players' 4 targets × 3 rounds, though the whole set can."""
    path = write(tmp_path, initial_only(TEXT, "attack", 10))
    cards = load_cards(path)
    new_game(Config(players=3), cards, 1)
    with pytest.raises(NotPlayable) as info:
        new_game(Config(players=3, first_game=True), cards, 1)
    assert str(info.value).endswith(
        "too few attack cards for the bid targets of 3 players: 12 needed (4 per round × 3 "
        "rounds), 10 in the initial set (cards without the star) (2 short)")
    assert card_error_text(info.value, "ja").endswith(
        "3人の武器入札の入札対象にはアタックカードが12枚必要です（1ラウンド4枚×3ラウンド）。"
        "初期セット（星マークのないカード）には10枚です（2枚不足）")
    proc = run_cli("--cards", str(path), "--headless", "--first-game", "--players", "3")
    assert proc.returncode == 2 and "10 in the initial set" in proc.stderr


def test_no_attack_cards_for_the_bid_targets(tmp_path):
    path = write(tmp_path, keep(TEXT, "attack", 0))
    with pytest.raises(NotPlayable) as info:
        load_cards(path)
    assert str(info.value).endswith("too few attack cards for the bid targets of 3 players: "
                                    "12 needed (4 per round × 3 rounds), 0 in the card data "
                                    "(12 short)")


def test_simulate_refuses_a_game_the_cards_cannot_make(tmp_path):
    cards = load_cards(write(tmp_path, keep(TEXT, "race", 8)))
    with pytest.raises(NotPlayable, match="too few races for 5 players"):
        play_one(("random",) * 5, 1, cards)
    assert play_one(("random",) * 3, 1, cards).actions > 0


@pytest.mark.parametrize("command", ["simulate", "balance"])
@pytest.mark.parametrize("lang, words", [("en", "--cards cannot be used"),
                                         ("ja", "--cards は使えません")])
def test_simulate_and_balance_say_they_do_not_take_other_cards(tmp_path, command, lang, words):
    """They deal from the shipped card data in worker processes: `--cards` is refused with
    a message instead of being silently ignored (it was)."""
    path = write(tmp_path, keep(TEXT, "race", 8))
    proc = run_cli("--lang", lang, "--cards", str(path), command, "--games", "1")
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("lang, words", [
    ("en", "cannot make a game: too few races for 5 players: 10 needed"),
    ("ja", "5人のゲームには種族が10枚必要です"),
])
def test_the_app_refuses_a_game_the_cards_cannot_make(tmp_path, lang, words):
    """Starting a 5-player game with 8 races: a message and no game; 4 players start."""
    from tactical_tui.app import TacticalApp
    cards = load_cards(write(tmp_path, keep(TEXT, "race", 8)))

    async def run():
        app = TacticalApp(lang=lang, cards=cards, ai_delay=0.0, seed=1, autosave=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.start_game(5, ("human",) + ("random",) * 4, False, 1, 0.0)
            await pilot.pause(0.05)
            assert app.table is None
            assert any(words in n.message for n in app._notifications), \
                [n.message for n in app._notifications]
            app.start_game(4, ("human",) + ("random",) * 3, False, 1, 0.0)
            await pilot.pause(0.05)
            assert app.table is not None
    asyncio.run(run())
