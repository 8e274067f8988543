"""Save, resume, undo, interruption and bad input (issue: save/resume/reliability)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai.selfplay import running
from rules import Config, apply, new_game, pending
from rules.cards import CardDataError, parse_cards
from tactical_tui.table.saves import SaveError, parse, read, to_json, write_atomic
from tactical_tui.table.live import GameTable, SeatSetup

ROOT = Path(__file__).resolve().parent.parent


def drive(table: GameTable, steps: int | None = None) -> None:
    """Play the table as the app does: AI seats by their players, humans by the hint."""
    n = 0
    while not table.over and running(table.state) and (steps is None or n < steps):
        ai, human = table.ai_to_act(), table.human_to_act()
        if ai is not None and (human is None or table.state.phase in ("draft", "build")):
            action, reason = table.ai_decide(ai)
            table.submit_ai(ai, action, reason)
        else:
            action, _ = table.hint(human)
            table.submit(action)
        n += 1


@pytest.mark.parametrize("players", [3, 4, 5])
def test_save_load_round_trip_at_every_checked_step(tmp_path, players):
    """Save → load gives the same state at steps below 10 and at powers of two."""
    seats = (SeatSetup(True),) + tuple(SeatSetup(False, lv) for lv in ("normal", "easy", "random", "normal")[:players - 1])
    for seed in (1, 2):
        table = GameTable(Config(players=players), seats, seed, save_path=tmp_path / "g.json")
        checks = set(range(1, 10)) | {2 ** k for k in range(4, 12)}
        step = 0
        while not table.over and running(table.state):
            drive(table, 1)
            step += 1
            if step in checks:
                data = read(tmp_path / "g.json")
                again = GameTable.from_save(data, table.cards, "g.json")
                assert again.state == table.state
                assert again.history == table.history
        data = parse(to_json(table.save_data()), "x")
        assert data.finished and GameTable.from_save(data, table.cards, "x").state == table.state


def test_undo_returns_to_the_previous_decision_and_replays_ai_the_same(tmp_path):
    table = GameTable(Config(players=4), (SeatSetup(True),) + (SeatSetup(False, "easy"),) * 3, 3)
    drive(table, 60)
    history = list(table.history)
    assert table.undo()
    me = 0
    last = max(i for i, a in enumerate(history) if a.seat == me)
    assert table.history == history[:last]
    # the human makes the same decision again: the AI seats (easy ones, with random
    # mistakes from their seeds) decide exactly as before
    table.submit(history[last])
    drive(table, len(history) - last - 1)
    assert table.history[:len(history)] == history


def test_undo_needs_exactly_one_human_seat():
    table = GameTable(Config(players=3), (SeatSetup(True), SeatSetup(True), SeatSetup(False)), 3)
    drive(table, 10)
    assert not table.can_undo() and not table.undo()


def test_unwritable_save_folder_warns_and_play_goes_on(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    table = GameTable(Config(players=3), (SeatSetup(True),) + (SeatSetup(False),) * 2, 1,
                      save_path=blocker / "sub" / "current.json")
    drive(table, 5)
    assert table.save_problem and "current.json" in table.save_problem
    assert len(table.history) == 5


@pytest.mark.parametrize("content, words", [
    (b"", "empty"),
    (b"{", "invalid JSON"),
    (b"\xff\xfe\x00garbage", "UTF-8"),
    (b"[1, 2, 3]", "JSON object"),
    (json.dumps({"format": 99, "seed": 1}).encode(), "newer"),
    (json.dumps({"format": 1, "seed": 1}).encode(), "missing"),
    (json.dumps({"format": 1, "seed": "x", "config": {}, "seats": [], "actions": []}).encode(), "seed"),
    (json.dumps({"format": 1, "seed": 1, "config": {"players": 9}, "seats": [], "actions": []}).encode(), "damaged"),
])
def test_bad_save_files_give_a_clear_message_and_stay_untouched(tmp_path, content, words):
    path = tmp_path / "save.json"
    path.write_bytes(content)
    with pytest.raises(SaveError) as err:
        data = read(path)
        GameTable.from_save(data, None or __import__("rules").default_cards(), str(path))
    assert str(path) in str(err.value) and words in str(err.value)
    assert path.read_bytes() == content


def _good_save(tmp_path) -> str:
    table = GameTable(Config(players=3), (SeatSetup(True),) + (SeatSetup(False),) * 2, 2)
    drive(table, 40)
    return to_json(table.save_data())


def _mutations(text: str, rnd: random.Random, n: int):
    raw = text.encode()
    for _ in range(n):
        kind = rnd.randrange(10)
        if kind == 0:
            yield raw[: rnd.randrange(len(raw))]                      # truncated
        elif kind == 1:
            b = bytearray(raw)
            for _ in range(rnd.randrange(1, 20)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)           # random bytes
            yield bytes(b)
        elif kind == 2:
            d = json.loads(text)
            d["actions"][rnd.randrange(len(d["actions"]))] = rnd.choice(
                [10 ** 30, -1, "x", None, [], {"type": "Pick"}, {"type": "Nope", "seat": 0}])
            yield json.dumps(d).encode()
        elif kind == 3:
            d = json.loads(text)
            key = rnd.choice(["seed", "config", "seats", "format", "actions"])
            d[key] = rnd.choice([10 ** 40, "", None, [[[]]], {"a": 1}, -5])
            yield json.dumps(d).encode()
        elif kind == 4:
            yield (b"[" * 100000) + (b"]" * 100000)                       # deep nesting
        elif kind == 5:
            d = json.loads(text)
            a = d["actions"][rnd.randrange(len(d["actions"]))]
            a["seat"] = rnd.choice([7, -1, 10 ** 20])
            yield json.dumps(d).encode()
        elif kind == 7:                                                   # huge numbers
            spot = rnd.choice([b'"seed": ', b'"players": ', b'"seat": '])
            yield raw.replace(spot, spot + b"9" * rnd.choice([5000, 4301, 30]), 1)
        elif kind == 8:                                                   # control characters
            d = json.loads(text)
            a = d["actions"][rnd.randrange(len(d["actions"]))]
            key = rnd.choice([k for k in a if k != "seat"] or ["type"])
            a[key] = rnd.choice(["\x1b[2J\x1b]0;pwned\x07", "x\x00y", "\x9b31m", "[/]"])
            yield json.dumps(d, ensure_ascii=rnd.random() < 0.5).encode()
        elif kind == 9:                                                   # wrong-typed fields
            d = json.loads(text)
            where = rnd.choice(["config", "seat", "action", "top"])
            table = {"config": d["config"], "seat": rnd.choice(d["seats"]), "top": d,
                     "action": rnd.choice(d["actions"])}[where]
            key = rnd.choice(sorted(table))
            table[key] = rnd.choice(["4", 4.9, "no", "true", True, False, 0.0, None, [], {}, 3])
            yield json.dumps(d).encode()
        else:
            d = json.loads(text)
            d["actions"] = d["actions"][::-1]                             # wrong order
            yield json.dumps(d).encode()


def test_fuzzed_save_files_never_crash(tmp_path):
    """Hundreds of mutated save files: each loads, or gives a SaveError naming the file."""
    from rules import default_cards
    cards = default_cards()
    good = _good_save(tmp_path)
    rnd = random.Random(1)
    for i, blob in enumerate(_mutations(good, rnd, 300)):
        path = tmp_path / f"m{i}.json"
        path.write_bytes(blob)
        try:
            GameTable.from_save(read(path), cards, str(path))
        except SaveError as exc:
            assert str(path) in str(exc)
            for lang in ("ja", "en"):          # never Python's own words (issue 14 point 4)
                text = exc.text(lang, cards)
                assert not any(w in text for w in ("object has no attribute", "Exceeds the limit",
                                                   "object is not", "<class", "NoneType")), text
        assert path.read_bytes() == blob


def test_fuzzed_card_files_never_crash():
    """Hundreds of mutated cards.toml texts: each loads or raises CardDataError."""
    text = (ROOT / "tests" / "data" / "test_cards.toml").read_text(encoding="utf-8")
    rnd = random.Random(2)
    for _ in range(300):
        kind = rnd.randrange(5)
        if kind == 0:
            t = text[: rnd.randrange(len(text))]
        elif kind == 1:
            chars = list(text)
            for _ in range(rnd.randrange(1, 10)):
                chars[rnd.randrange(len(chars))] = chr(rnd.randrange(32, 0x3000))
            t = "".join(chars)
        elif kind == 2:
            t = text.replace("= 2", "= " + rnd.choice(["99999999999999999999", "-3", '"x"', "[]", "{}", "true"]), 3)
        elif kind == 3:
            t = "x = " + "[" * 5000 + "]" * 5000 + "\n" + text
        else:
            lines = text.splitlines()
            rnd.shuffle(lines)
            t = "\n".join(lines)
        try:
            parse_cards(t, "fuzz.toml")
        except CardDataError as exc:
            assert "fuzz.toml" in str(exc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), players=st.sampled_from([3, 4, 5]),
       picks=st.lists(st.integers(0, 10 ** 6), min_size=50, max_size=400))
def test_property_random_legal_play_keeps_invariants(seed, players, picks):
    """Any sequence of legal actions keeps HP, mana, VP and unluck in range, and a save of
    the actions replays to the same state."""
    state, _ = new_game(Config(players=players), seed=seed)
    actions = []
    from rules import legal_actions
    for k in picks:
        legal = legal_actions(state)
        if not legal:
            break
        a = legal[k % len(legal)]
        state, _ = apply(state, a)
        actions.append(a)
        for s in state.seats:
            assert 0 <= s.hp <= 6 and 0 <= s.unluck <= 2 and s.vp >= 0 and s.mana >= 0
    from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, replay
    data = parse(to_json(SaveData(FORMAT, seed, Config(players=players),
                                  tuple(SeatEntry(True) for _ in range(players)), tuple(actions))), "p")
    from rules import default_cards
    _, steps = replay(data, default_cards(), "p")
    assert (steps[-1][1] if steps else new_game(Config(players=players), seed=seed)[0]) == state


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "current.json"
    write_atomic(path, "old")

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["current.json"]


# --------------------------------------------------------------- a real process, signals

def _spawn(save_dir: Path, *args: str):
    """Start `tactical` in a pseudo-terminal of 80×24 (Textual needs a terminal)."""
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TACTICAL_SAVE_DIR=str(save_dir), TERM="xterm-256color",
               PYTHONPATH=str(ROOT), LANG="C.UTF-8")
    proc = subprocess.Popen([sys.executable, "-m", "tactical_tui.cli", "--lang", "en", *args],
                            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                            start_new_session=True)
    os.close(slave)
    return proc, master


def _drain(master: int) -> None:
    import select
    while select.select([master], [], [], 0)[0]:
        try:
            if not os.read(master, 65536):
                return
        except OSError:
            return


def _wait_for_actions(path: Path, proc, master, at_least: int, timeout: float = 30) -> int:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        _drain(master)
        if path.exists():
            try:
                n = len(read(path).actions)
            except SaveError:
                n = 0
            if n >= at_least:
                return n
        time.sleep(0.05)
    raise AssertionError(f"no progress: {proc.poll()}")


def _the_game(save_dir: Path, proc, master, timeout: float = 30) -> Path:
    """The save file of the one game started in `save_dir` (one file per game)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        _drain(master)
        found = [p for p in (save_dir / "games").glob("*.json") if not p.name.startswith(".")]
        if found:
            (path,) = found
            return path
        time.sleep(0.05)
    raise AssertionError(f"no game started: {proc.poll()}")


def _stop(proc, master, sig) -> int:
    proc.send_signal(sig)
    end = time.monotonic() + 15
    while proc.poll() is None and time.monotonic() < end:
        _drain(master)
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    os.close(master)
    return proc.returncode


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and pseudo-terminals")
@pytest.mark.parametrize("sig", ["SIGHUP", "SIGTERM"])
def test_signal_saves_and_resume_loses_nothing(tmp_path, sig):
    proc, master = _spawn(tmp_path, "--seats", "normal,normal,normal", "--ai-delay", "0.05",
                          "--seed", "3")
    save = _the_game(tmp_path, proc, master)
    _wait_for_actions(save, proc, master, 30)
    code = _stop(proc, master, getattr(signal, sig))
    assert code == 0
    first = read(save)
    assert len(first.actions) >= 30
    # resume it: the game goes on from exactly there
    proc, master = _spawn(tmp_path, "--resume", "--ai-delay", "0.05")
    _wait_for_actions(save, proc, master, len(first.actions) + 5)
    assert _stop(proc, master, signal.SIGTERM) == 0
    second = read(save)
    assert second.actions[:len(first.actions)] == first.actions


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and pseudo-terminals")
def test_sigkill_loses_at_most_the_last_action(tmp_path):
    proc, master = _spawn(tmp_path, "--seats", "normal,easy,random", "--ai-delay", "0.02",
                          "--seed", "8")
    save = _the_game(tmp_path, proc, master)
    _wait_for_actions(save, proc, master, 20)
    _stop(proc, master, signal.SIGKILL)
    data = read(save)                      # never a torn file
    table = GameTable.from_save(data, __import__("rules").default_cards(), str(save))
    assert table.history == list(data.actions) and len(data.actions) >= 20


def test_every_save_problem_reads_in_japanese_and_english(tmp_path):
    """Each SaveError code has both texts; the Japanese one is what a Japanese player
    sees (app: continue / --resume, `tactical replay`), with the file named."""
    from tactical_tui.table.saves import SAVE_PROBLEMS
    for code, table in SAVE_PROBLEMS.items():
        assert set(table) == {"ja", "en"} and table["ja"] != table["en"], code
    path = tmp_path / "save.json"
    path.write_bytes(b"")
    with pytest.raises(SaveError) as err:
        read(path)
    assert err.value.code == "empty"
    assert err.value.text("ja") == f"{path}: ファイルが空です"
    assert err.value.text("en") == str(err.value) == f"{path}: the file is empty"


def test_save_with_an_illegal_action_names_the_refusal_in_japanese(tmp_path):
    """A save whose action does not apply: the refusal is translated, card names too."""
    from rules import default_cards
    cards = default_cards()
    d = json.loads(_good_save(tmp_path))
    first = d["actions"][0]
    assert first["type"] == "Pick"
    first["card"] = "no_such_card"
    path = tmp_path / "save.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(SaveError) as err:
        GameTable.from_save(read(path), cards, str(path))
    ja = err.value.text("ja", cards)
    assert err.value.code == "bad_action" and "1番目の行動（カードの選択）を適用できません: " in ja
    assert "not legal" not in ja and "cannot" not in ja
    assert "action 1 (Pick) does not apply" in str(err.value)


def test_file_system_errors_read_in_the_players_language(tmp_path):
    """A save that cannot be written or read names the cause in Japanese or English, not
    only in the operating system's English."""
    import errno as errno_
    from tactical_tui.text.catalog import os_error_text
    blocker = tmp_path / "file"
    blocker.write_text("x")
    table = GameTable(Config(players=3), (SeatSetup(True),) + (SeatSetup(False),) * 2, 1,
                      save_path=blocker / "sub" / "current.json")
    drive(table, 2)
    assert table.save_error is not None and table.save_error.errno == errno_.ENOTDIR
    assert os_error_text(table.save_error, "ja") == "パスの途中がフォルダではありません"
    assert "a part of the path is not a folder" in table.save_problem
    with pytest.raises(SaveError) as info:
        read(blocker / "current.json")
    assert "パスの途中がフォルダではありません" in info.value.text("ja")
    assert "a part of the path is not a folder" in info.value.text("en")
    denied = PermissionError(errno_.EACCES, "Permission denied")
    assert os_error_text(denied, "ja") == "アクセスが許可されていません"
    assert os_error_text(denied, "en") == "permission denied"
    odd = OSError(errno_.EAGAIN, "Resource temporarily unavailable")
    assert os_error_text(odd, "ja") == "Resource temporarily unavailable"


def test_invalid_json_names_the_position_in_both_languages(tmp_path):
    path = tmp_path / "save.json"
    path.write_text('{"format": 1,\n  "seed": }', encoding="utf-8")
    with pytest.raises(SaveError) as err:
        read(path)
    assert err.value.code == "invalid_json"
    assert err.value.text("ja").endswith("（JSONとして読めません: 2行11列目）")
    assert "line 2 column 11" in err.value.text("en")
    path.write_bytes(b"[" * 100000 + b"]" * 100000)
    with pytest.raises(SaveError) as err:
        read(path)
    assert err.value.code == "too_deep" and "入れ子" in err.value.text("ja")
