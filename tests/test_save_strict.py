"""Issue 14 point 4: every bad save is named precisely, in the player's language, and never
silently coerced; a save records the card data it was played with.

Each case edits one field of a real save and checks the exact message in English and
Japanese (the field named, no Python internals), that nothing is coerced ("4", 4.9 for 4;
"no" for a boolean), and that the file is untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from rules import Config, default_cards
from rules.cards import fingerprint, load_cards, parse_cards
from tactical_tui.table.saves import SAVE_PROBLEMS, SaveError, SaveData, parse, read, replay, to_json
from tactical_tui.table.live import GameTable, SeatSetup

ROOT = Path(__file__).resolve().parent.parent
TEST_CARDS = ROOT / "tests" / "data" / "test_cards.toml"
INTERNALS = ("object has no attribute", "object is not", "Traceback", "NoneType", "<class",
             "cattrs", "KeyError", "TypeError", "ValueError", "invalid literal", "@ ")


def play(cards=None, steps: int = 30, seed: int = 2) -> GameTable:
    table = GameTable(Config(players=3), (SeatSetup(True),) + (SeatSetup(False),) * 2, seed, cards)
    for _ in range(steps):
        human, ai = table.human_to_act(), table.ai_to_act()
        if human is not None:
            table.submit(table.hint(human)[0])
        else:
            action, reason = table.ai_decide(ai)
            table.submit_ai(ai, action, reason)
    return table


@pytest.fixture(scope="module")
def good() -> dict:
    return json.loads(to_json(play().save_data()))


def edited(good: dict, change) -> str:
    d = json.loads(json.dumps(good))
    change(d)
    return json.dumps(d, ensure_ascii=False)


def refusal(text: str, tmp_path: Path) -> SaveError:
    """Read the save from a file (as the app does), check it is untouched, return the error."""
    path = tmp_path / "save.json"
    path.write_text(text, encoding="utf-8")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(SaveError) as info:
        GameTable.from_save(read(path), default_cards(), str(path))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    for lang in ("en", "ja"):
        message = info.value.text(lang, default_cards())
        assert message.startswith(f"{path}: ")
        assert not any(word in message for word in INTERNALS), message
    return info.value


def setter(*keys):
    def change(value):
        def apply(d):
            for k in keys[:-1]:
                d = d[k]
            d[keys[-1]] = value
        return apply
    return change


CASES = [
    # (name, change, English, Japanese)
    ("players = 7", setter("config", "players")(7),
     "config.players: 7 is not 3, 4 or 5", "config.players: 7は3、4、5のどれでもありません"),
    ('players = "4"', setter("config", "players")("4"),
     'config.players: the text "4" is not a whole number', 'config.players: 文字列"4"は整数ではありません'),
    ("players = 4.9", setter("config", "players")(4.9),
     "config.players: the number 4.9 is not a whole number", "config.players: 数値4.9は整数ではありません"),
    ('finished = "no"', setter("finished")("no"),
     'finished: the text "no" is not true or false', 'finished: 文字列"no"はtrueかfalseではありません'),
    ('human = "no"', setter("seats", 1, "human")("no"),
     'seats[1].human: the text "no" is not true or false',
     'seats[1].human: 文字列"no"はtrueかfalseではありません'),
    ("first_game = 1", setter("config", "first_game")(1),
     "config.first_game: the number 1 is not true or false",
     "config.first_game: 数値1はtrueかfalseではありません"),
    ("config is a list", setter("config")([3, False]),
     "config: a list is not a table", "config: リストはオブジェクトではありません"),
    ("a seat is a list", setter("seats", 0)([True]),
     "seats[0]: a list is not a table", "seats[0]: リストはオブジェクトではありません"),
    ("seats is a table", setter("seats")({"human": True}),
     "seats: a table is not a list", "seats: オブジェクトはリストではありません"),
    ('seed = "12"', setter("seed")("12"),
     'seed: the text "12" is not a whole number', 'seed: 文字列"12"は整数ではありません'),
    ("seed = 1.0", setter("seed")(1.0),
     "seed: the number 1.0 is not a whole number", "seed: 数値1.0は整数ではありません"),
    ("seed = -1", setter("seed")(-1),
     "seed: -1 is not between 0 and 18446744073709551615",
     "seed: -1は0から18446744073709551615までの範囲外です"),
    ("seed = 10**30", setter("seed")(10 ** 30),
     "seed: the number is too large", "seed: 数が大きすぎます"),
    ("an unknown field", setter("speed")(2),
     "speed: unknown field", "speed: 不明な項目です"),
    ("an unknown config field", setter("config", "speed")(2),
     "config.speed: unknown field", "config.speed: 不明な項目です"),
    ("a level that is not one", setter("seats", 2, "level")("godlike"),
     'seats[2].level: "godlike" is not "random", "easy", "normal" or "hard"',
     'seats[2].level: "godlike"は"random"、"easy"、"normal"、"hard"のどれでもありません'),
    ("a language that is not one", setter("lang")("fr"),
     'lang: "fr" is not "ja" or "en"', 'lang: "fr"は"ja"、"en"のどれでもありません'),
    ("a seat number as text", setter("actions", 0, "seat")("0"),
     'actions[0].seat: the text "0" is not a whole number',
     'actions[0].seat: 文字列"0"は整数ではありません'),
    ("a seat number as false", setter("actions", 0, "seat")(False),
     "actions[0].seat: false is not a whole number", "actions[0].seat: falseは整数ではありません"),
    ("a seat number as 0.0", setter("actions", 0, "seat")(0.0),
     "actions[0].seat: the number 0.0 is not a whole number",
     "actions[0].seat: 数値0.0は整数ではありません"),
    ("a card as a number", setter("actions", 0, "card")(5),
     "actions[0].card: the number 5 is not text", "actions[0].card: 数値5は文字列ではありません"),
    ("an action field too many", setter("actions", 0, "speed")(1),
     "actions[0].speed: unknown field", "actions[0].speed: 不明な項目です"),
    ("an unknown action", setter("actions", 3)({"type": "Nope", "seat": 0}),
     'actions[3].type: "Nope" is not an action', 'actions[3].type: "Nope"は行動の種類ではありません'),
    ("an action as a list", setter("actions", 1)(["Pick", 0]),
     "actions[1]: a list is not a table", "actions[1]: リストはオブジェクトではありません"),
    ("control characters", setter("actions", 0)({"type": "Assign", "seat": 0, "card": "x",
                                                 "to": "\x1b[2J\x9b"}),
     'actions[0].to: "\\u001b[2J\\u009b" is not "equip", "materialize" or "unused"',
     'actions[0].to: "\\u001b[2J\\u009b"は"equip"、"materialize"、"unused"のどれでもありません'),
    ("actions = null", setter("actions")(None),
     "actions: null is not a list", "actions: nullはリストではありません"),
    ("too few seats", lambda d: d.__setitem__("seats", d["seats"][:2]),
     "seats: 2 seats for 3 players", "seats: 3人のゲームに2席分あります"),
]


@pytest.mark.parametrize("name, change, en, ja", CASES, ids=[c[0] for c in CASES])
def test_a_bad_field_is_named_in_both_languages(good, tmp_path, name, change, en, ja):
    err = refusal(edited(good, change), tmp_path)
    assert err.text("en") == f"{tmp_path / 'save.json'}: damaged save file ({en})"
    assert err.text("ja") == f"{tmp_path / 'save.json'}: 壊れた保存ファイルです（{ja}）"


@pytest.mark.parametrize("keys, en, ja", [
    (("config", "players"), "missing 'config.players'", "config.playersがありません"),
    (("config",), "missing 'config'", "configがありません"),
    (("actions", 0, "card"), "missing 'actions[0].card'", "actions[0].cardがありません"),
    (("actions", 0, "type"), "missing 'actions[0].type'", "actions[0].typeがありません"),
])
def test_a_missing_field_is_named_and_never_defaulted(good, tmp_path, keys, en, ja):
    """The player count is never taken from Config's default."""
    def drop(d):
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]
    err = refusal(edited(good, drop), tmp_path)
    assert err.code == "missing"
    assert err.text("en").endswith(f"damaged save file ({en})")
    assert err.text("ja").endswith(f"壊れた保存ファイルです（{ja}）")


def test_a_good_save_still_loads_exactly(good, tmp_path):
    path = tmp_path / "save.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    data = read(path)
    assert data.card_data == fingerprint(default_cards()) and data.card_data.startswith("sha256:")
    assert to_json(data) == to_json(parse(to_json(data), "again"))
    table = GameTable.from_save(data, default_cards(), str(path))
    assert list(data.actions) == table.history


# ------------------------------------------------------------------- card-data fingerprint

def test_a_save_with_another_card_sets_fingerprint_says_so(tmp_path):
    """Saved with tests/data/test_cards.toml, opened with the shipped cards.toml: refused
    before any action is replayed, in both languages; `tactical replay` says the same."""
    other = load_cards(TEST_CARDS)
    text = to_json(play(other, 12).save_data())
    err = refusal(text, tmp_path)
    path = tmp_path / "save.json"
    assert err.code == "other_cards"
    assert err.params["saved"] == fingerprint(other)[:19]
    assert err.params["now"] == fingerprint(default_cards())[:19]
    source = default_cards().source
    assert err.text("en") == f"{path}: this game was saved with other card data than {source}"
    assert err.text("ja") == f"{path}: このゲームは{source}とは別のカードデータで保存されています"
    with pytest.raises(SaveError) as info:
        replay(read(path), default_cards(), str(path))
    assert info.value.code == "other_cards"
    assert GameTable.from_save(read(path), other, str(path)).history == list(read(path).actions)


def test_the_fingerprint_ignores_comments_and_layout_not_the_cards(tmp_path):
    text = TEST_CARDS.read_text(encoding="utf-8")
    same = parse_cards("# a comment\n\n" + text.replace(" = ", "  =  "), "same.toml")
    assert fingerprint(same) == fingerprint(parse_cards(text, "x.toml"))
    changed = parse_cards(text.replace("bid = 2", "bid = 3", 1), "changed.toml")
    assert fingerprint(changed) != fingerprint(same)
    made = attrs.evolve(same, data_hash="")          # a card set made in code
    assert fingerprint(made).startswith("sha256:") and fingerprint(made) == fingerprint(made)


def test_an_older_save_without_the_fingerprint_still_loads(good, tmp_path):
    """Saves written before the fingerprint: replayed as before. With the card data they
    were played with they load; with other card data the first action that does not
    apply is named, with a note that the save does not record its card data."""
    old = dict(good)
    del old["card_data"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    data = read(path)
    assert data.card_data == ""
    assert GameTable.from_save(data, default_cards(), str(path)).history == list(data.actions)
    other = load_cards(TEST_CARDS)
    with pytest.raises(SaveError) as info:
        GameTable.from_save(data, other, str(path))
    assert info.value.code == "bad_action"
    assert info.value.text("en").endswith("(this save does not record the card data it was "
                                           "played with: it may be from other card data)")
    assert "対戦時のカードデータの記録がありません" in info.value.text("ja", other)
    with pytest.raises(SaveError) as info:
        replay(data, other, str(path))
    assert "does not record the card data" in str(info.value)


def test_every_new_problem_has_both_languages():
    for code in ("wrong_type", "not_one_of", "out_of_range", "too_big", "unknown_field",
                 "unknown_action", "seat_count", "too_many_actions", "bad_field", "other_cards",
                 "unexpected",
                 "not_regular", "huge_number"):
        assert set(SAVE_PROBLEMS[code]) == {"ja", "en"}


def test_sequences_and_tables_come_only_from_lists_and_tables():
    """A field added to SaveData later (a tuple of reasons, say) is just as strict: text is
    not a tuple of characters, a list is not a table."""
    from typing import Optional
    from tactical_tui.table.saves import FieldProblem, _strict
    from tactical_tui.table.saves import SeatEntry
    for value, tp, where, got in (("abc", tuple[str, ...], "", "text"),
                                  ([1, "a"], tuple[int, ...], "[1]", "text"),
                                  ([True], tuple[Optional[int], ...], "[0]", "bool"),
                                  ([1, 2], tuple[int, str], "[1]", "number"),
                                  ([True, "easy"], SeatEntry, "", "list")):
        with pytest.raises(FieldProblem) as info:
            _strict.structure(value, tp)
        assert (info.value.code, info.value.where, info.value.params["got"][0]) == \
            ("wrong_type", where, got)
    assert _strict.structure([1, None], tuple[Optional[int], ...]) == (1, None)


def test_save_data_has_the_fingerprint_field():
    assert "card_data" in attrs.fields_dict(SaveData)


# ------------------------------------------------------------------ resume from the CLI

def test_resume_of_a_bad_save_in_a_pty_gives_the_message_and_keeps_running(tmp_path):
    """`tactical --resume FILE` with players = 7: the app starts, shows the message (the
    title stays), and the file is untouched — in a pty, bounded in memory and time."""
    import pty
    import select
    import time
    save = tmp_path / "bad.json"
    save.write_text(json.dumps({"format": 1, "seed": 1, "config": {"players": 7}, "seats": [],
                                "actions": []}), encoding="utf-8")
    before = save.read_bytes()
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TACTICAL_SAVE_DIR=str(tmp_path / "saves"),
               TERM="xterm-256color", COLUMNS="80", LINES="24")

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        os.setsid()
    proc = subprocess.Popen([sys.executable, "-m", "tactical_tui.cli", "--lang", "en",
                             "--resume", str(save)], stdin=slave, stdout=slave, stderr=slave,
                            env=env, cwd=ROOT, preexec_fn=limits)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 60

    def said() -> bool:
        """The message is on screen: its words, whatever line the toast breaks them onto
        (the toast's rows are drawn by cursor moves, with its border and padding)."""
        text = re.sub(rb"\x1b\[[0-9;?<>=$]*[A-Za-z~]", b"", out)
        return b"isnot3,4or5" in re.sub(rb"\s", b"", text.replace("▌".encode(), b""))
    try:
        while time.monotonic() < deadline and not said():
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break
        assert said(), out[-2000:]
        assert proc.poll() is None and b"Traceback" not in out
    finally:
        proc.kill()
        proc.wait(10)
        os.close(master)
    assert save.read_bytes() == before
