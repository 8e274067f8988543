"""Several windows on one save folder, interruptions, resume without re-thinking
(issue 14 points 7–9)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules import Config
from tactical_tui.table import saves
from tactical_tui.table.saves import GameLock, SaveLocked, list_games, lock_holder, read
from tactical_tui.table.live import GameTable, SeatSetup
from test_saves import drive as _drive

ROOT = Path(__file__).resolve().parent.parent
HELPER = ROOT / "tests" / "session_app.py"
posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX locks, signals, pty")


def _env(save_dir: Path) -> dict:
    return dict(os.environ, TACTICAL_SAVE_DIR=str(save_dir), PYTHONPATH=str(ROOT),
                LANG="C.UTF-8")


def _app(save_dir: Path, lang: str, mode: str, arg: str = "", hold: str = "",
         wait: bool = True):
    cmd = [sys.executable, str(HELPER), lang, mode, arg, hold]
    proc = subprocess.Popen(cmd, env=_env(save_dir), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _wait_file(path: Path, proc, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the first window never got going"
        time.sleep(0.05)


def _games(save_dir: Path) -> list[Path]:
    """The game files of a save folder (not the temporary files of a write)."""
    return sorted(p for p in (save_dir / "games").glob("*.json") if not p.name.startswith("."))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------- point 7: two windows

@posix
@pytest.mark.parametrize("lang, words", [("en", "open in another window"),
                                         ("ja", "別のウィンドウ（プロセス")])
def test_two_windows_on_one_save_folder_lose_no_game(tmp_path, lang, words):
    """Window 1 plays a game; window 2 asks for the last game (`--resume`) and is told
    it is open elsewhere, then starts a game of its own: both games are kept, window 1's
    file untouched by window 2. Once window 1 is closed, its game resumes."""
    saves_dir = tmp_path / "saves"
    hold = str(tmp_path / "release")
    first = _app(saves_dir, lang, "new", "human,normal,normal", hold, wait=False)
    _wait_file(Path(hold + ".ready"), first)
    (path1,) = _games(saves_dir)
    before = _digest(path1)
    assert lock_holder(path1) == first.pid

    second = _app(saves_dir, lang, "resume")
    assert second["save"] is None and any(words in n and str(first.pid) in n
                                          for n in second["notes"]), second
    second = _app(saves_dir, lang, "resume", str(path1))      # --resume PATH likewise
    assert second["save"] is None and any(words in n for n in second["notes"]), second
    third = _app(saves_dir, lang, "new", "human,easy,random")  # a new game of its own
    assert third["save"] and Path(third["save"]) != path1
    assert _digest(path1) == before                             # window 1's game untouched

    Path(hold).write_text("")
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["save"] == str(path1)
    files = _games(saves_dir)
    assert len(files) == 2 and all(not read(p).finished for p in files)
    assert not list((saves_dir / "games").glob("*.lock"))      # released on exit
    again = _app(saves_dir, lang, "resume", str(path1))
    assert again["save"] == str(path1) and again["actions"] == result["actions"]


def test_a_lock_is_exclusive_names_its_holder_and_a_stale_one_is_taken_over(tmp_path):
    save = tmp_path / "g.json"
    lock = GameLock.acquire(save)
    assert saves.lock_path(save).read_text().strip() == str(os.getpid())
    with pytest.raises(SaveLocked) as err:
        GameLock.acquire(save)                      # a second hold, even in one process
    assert err.value.pid == os.getpid()
    assert lock_holder(save) == os.getpid()
    lock.release()
    assert lock_holder(save) == 0 and not saves.lock_path(save).exists()
    # a lock file whose holder is gone (kill -9): no flock on it, so it is stale
    saves.lock_path(save).write_text("999999\n")
    again = GameLock.acquire(save)
    assert saves.lock_path(save).read_text().strip() == str(os.getpid())
    again.release()


def test_new_games_never_replace_an_unfinished_one_and_are_listed(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    seats = (SeatSetup(True), SeatSetup(False, "random"), SeatSetup(False, "hard"))
    paths = []
    for seed in (1, 2):
        path = saves.new_game_path()
        table = GameTable(Config(players=3), seats, seed, save_path=path)
        table.autosave()
        paths.append(path)
        os.utime(path, (1000 + seed, 1000 + seed))
    assert paths[0] != paths[1] and all(p.exists() for p in paths)
    # an old single save (current.json) is listed too, and resumes like any other
    old = GameTable(Config(players=3), seats, 3, save_path=saves.current_path())
    _drive(old, 40)
    games = list_games(old.cards)
    assert [g.path for g in games] == [saves.current_path(), paths[1], paths[0]]
    assert games[0].phase == str(old.state.phase) and games[2].phase == "draft"
    assert [s.level for s in games[0].seats if not s.human] == ["random", "hard"]


def test_clean_up_removes_finished_and_the_oldest_but_never_an_open_game(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    seats = (SeatSetup(False, "random"),) * 3
    made = []
    for seed in range(8):
        path = saves.new_game_path()
        table = GameTable(Config(players=3), seats, seed, save_path=path)
        if seed == 0:
            _drive(table)                     # a finished game
        table.autosave()
        os.utime(path, (1000 + seed, 1000 + seed))
        made.append(path)
    held = GameLock.acquire(made[1])          # the second oldest is open elsewhere
    from rules.cards import default_cards
    removed = saves.clean_old_games(default_cards(), keep=5)
    left = _games(tmp_path)
    # finished game 0 and unfinished 2 go; 1 is open elsewhere; the 5 newest stay
    assert removed == 2 and left == sorted([made[1]] + made[3:])
    held.release()


# --------------------------------------------------------------- point 8: temp files

@posix
def test_temp_files_of_a_killed_writer_are_cleaned_and_a_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    games = tmp_path / "games"
    games.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        killed = games / f".tmp-{dead.pid}-abc123_x.json"
        writing = games / f".tmp-{live.pid}-def456yz.json"
        mine = tmp_path / f".tmp-{os.getpid()}-q1w2e3r4.json"
        old_style = tmp_path / ".tmp-k3j4h5g6.json"        # before the pid was in the name
        fresh_old_style = tmp_path / ".tmp-a1b2c3d4.json"
        other = tmp_path / ".tmp-notes.txt"                # not ours
        for p in (killed, writing, mine, old_style, fresh_old_style, other):
            p.write_text("{")
        os.utime(old_style, (time.time() - 3600,) * 2)
        assert saves.clean_temp_files() == 2
        assert not killed.exists() and not old_style.exists()
        assert writing.exists() and mine.exists() and fresh_old_style.exists() and other.exists()
    finally:
        live.kill()
        live.wait()


def test_the_app_cleans_temp_files_at_start(tmp_path, monkeypatch):
    import asyncio
    from tactical_tui.app import TacticalApp
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = tmp_path / f".tmp-{dead.pid}-zzzzzzzz.json"
    left.write_text("{")

    async def go():
        app = TacticalApp(lang="en", ai_delay=0.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
    asyncio.run(go())
    assert not left.exists()


# --------------------------------------------------------------- point 9: no re-thinking

def _steady_players(monkeypatch):
    """AI players whose choices do not depend on the clock (hard: a simulation cap
    instead of a time budget), so that two runs can be compared move by move."""
    import tactical_tui.table.live as table_mod
    from ai import make_player
    from ai.hard import HardPlayer

    def steady(level, seed=0, cards=None, budget=None):
        if level == "hard":
            return HardPlayer(cards, seed, budget=None, sims=1, horizon=0.3)
        return make_player(level, seed, cards)
    monkeypatch.setattr(table_mod, "make_player", steady)


def _forbid_thinking(monkeypatch):
    """Every AI decision entry point raises: rebuilding must not use any."""
    from ai.base import RandomPlayer
    from ai.hard import HardPlayer
    from ai.normal import NormalPlayer

    def no(*args, **kwargs):
        raise AssertionError("an AI was asked while rebuilding a saved game")
    for cls in (RandomPlayer, NormalPlayer, HardPlayer):
        monkeypatch.setattr(cls, "choose", no)
    for cls in (NormalPlayer, HardPlayer):
        monkeypatch.setattr(cls, "choose_explained", no)


SEATS5 = (SeatSetup(True), SeatSetup(False, "hard"), SeatSetup(False, "easy"),
          SeatSetup(False, "random"), SeatSetup(False, "hard"))


def test_resume_never_asks_an_ai_and_the_log_keeps_the_reasons(tmp_path, monkeypatch):
    _steady_players(monkeypatch)
    table = GameTable(Config(players=5), SEATS5, 21, save_path=tmp_path / "g.json")
    _drive(table, 1)
    while table.state.phase != "battle":
        _drive(table, 1)
    _drive(table, 40)
    assert not table.over
    reasons = [(e.seat, e.reason) for e in table.log if e.reason is not None]
    assert reasons                               # the battle log has AI reasons
    data = read(tmp_path / "g.json")
    with monkeypatch.context() as m:
        _forbid_thinking(m)
        again = GameTable.from_save(data, table.cards, "g.json")
    assert again.state == table.state and again.history == table.history
    assert [(e.seat, e.reason) for e in again.log if e.reason is not None] == reasons
    assert [(e.event, e.seat, e.reason) for e in again.log] == \
        [(e.event, e.seat, e.reason) for e in table.log]


@pytest.mark.parametrize("stop", [25, 90, 160])
def test_resumed_ai_seats_play_on_exactly_as_if_never_stopped(tmp_path, monkeypatch, stop):
    """Random, easy (random mistakes), normal and hard seats carry state from one
    decision to the next (their RNG, the intended target): after a resume that asked
    no AI they go on with the very moves of an uninterrupted game."""
    _steady_players(monkeypatch)
    seats = (SeatSetup(False, "hard"), SeatSetup(False, "easy"), SeatSetup(False, "random"),
             SeatSetup(False, "normal"))
    whole = GameTable(Config(players=4), seats, 4)
    _drive(whole, stop + 60)
    part = GameTable(Config(players=4), seats, 4, save_path=tmp_path / "g.json")
    _drive(part, stop)
    with monkeypatch.context() as m:
        _forbid_thinking(m)
        resumed = GameTable.from_save(read(tmp_path / "g.json"), part.cards, "g.json")
    _drive(resumed, 60)
    assert resumed.history == whole.history


def test_undo_never_asks_an_ai_and_keeps_the_reasons(monkeypatch):
    _steady_players(monkeypatch)
    table = GameTable(Config(players=5), SEATS5, 8)
    while not (table.state.phase == "battle" and table.human_to_act() is not None
               and sum(1 for e in table.log if e.reason is not None) > 5):
        _drive(table, 1)
    me = max(i for i, a in enumerate(table.history) if a.seat == 0)
    kept = [e for e in table.log if e.reason is not None]
    with monkeypatch.context() as m:
        _forbid_thinking(m)
        assert table.undo()
    assert len(table.history) == me
    after = [e for e in table.log if e.reason is not None]
    assert after and after == kept[:len(after)]


def test_a_damaged_ai_reason_is_named_not_shown(tmp_path, monkeypatch):
    _steady_players(monkeypatch)
    table = GameTable(Config(players=5), SEATS5, 21, save_path=tmp_path / "g.json")
    while sum(1 for e in table.log if e.reason is not None) < 3:
        _drive(table, 1)
    raw = json.loads((tmp_path / "g.json").read_text())
    note = next(x for x in raw["ai"] if "reason" in x)
    note["reason"][1] = [["card", "no such card"], ["target", 1], ["value", 1.0]]
    note["reason"][0] = "attack"
    (tmp_path / "g.json").write_text(json.dumps(raw))
    with pytest.raises(saves.SaveError) as err:
        GameTable.from_save(read(tmp_path / "g.json"), table.cards, "g.json")
    assert f"action {note['n'] + 1}" in str(err.value)
    for bad in ({"n": "1"}, {"n": 10 ** 6}, {"n": 0, "reason": "x"}, {"n": 0, "memo": [1]},
                {"n": 0, "extra": 1}, {"n": 0, "reason": ["k", [["v", [1, 2]]]]}):
        raw["ai"] = [bad]
        with pytest.raises(saves.SaveError):
            saves.parse(json.dumps(raw), "g.json")


# --------------------------------------------------------------- point 8: the terminal goes

@pytest.fixture(scope="module")
def hard_save_text(tmp_path_factory) -> bytes:
    """A 4-seat save with three hard AI seats, stopped mid-battle (its moves made by
    normal players, which is quick; the save holds only the seats' levels)."""
    from ai import make_player
    path = tmp_path_factory.mktemp("hard") / "hard.json"
    seats = (SeatSetup(False, "hard"),) * 3 + (SeatSetup(False, "normal"),)
    table = GameTable(Config(players=4), seats, 12, save_path=path)
    for i in range(3):
        table.players[i] = make_player("normal", i, table.cards)
    while table.state.phase != "battle":
        _drive(table, 1)
    _drive(table, 30)
    assert table.state.phase == "battle"
    return path.read_bytes()


def _in_terminal(save_dir: Path, *args: str, controlling: bool = True):
    """`tactical` with a pseudo-terminal of 80×24 as its controlling terminal (as in a
    terminal window or over SSH): closing the master side hangs the terminal up and
    sends SIGHUP. Without `controlling` no signal comes: the input just ends."""
    import fcntl
    import struct
    import termios
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(_env(save_dir), TERM="xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tactical_tui.cli", "--lang", "en", *args],
        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True,
        preexec_fn=(lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0)) if controlling else None)
    os.close(slave)
    return proc, master


def _read_until(master: int, proc, until, timeout: float) -> bytes:
    import select
    out = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None and not until(out):
        if select.select([master], [], [], 0.05)[0]:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
    return out


def _ended(proc, timeout: float) -> bool:
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return False


@posix
@pytest.mark.parametrize("delay, controlling", [(0.0, True), (0.4, True), (1.5, True),
                                                (1.5, False)])
def test_closing_the_terminal_ends_the_process_while_hard_seats_think(
        tmp_path, delay, controlling, hard_save_text):
    save = tmp_path / "hard.json"
    save.write_bytes(hard_save_text)
    before = len(read(save).actions)
    proc, master = _in_terminal(tmp_path, "--resume", str(save), "--ai-delay", "0",
                                controlling=controlling)
    _read_until(master, proc, lambda out: False, 3.0)          # on screen, AI thinking
    time.sleep(delay)
    os.close(master)                                          # the window is closed
    assert _ended(proc, 30), "the process outlived its terminal"
    after = read(save)                                        # the save is whole
    assert len(after.actions) >= before


@posix
@pytest.mark.parametrize("sig", ["SIGHUP", "SIGTERM"])
@pytest.mark.parametrize("after", [0.0, 0.15, 0.5])
def test_a_signal_during_a_resume_exits_cleanly(tmp_path, sig, after, hard_save_text):
    """Today's `NoMatches: No nodes match '#actions'`: the signal comes while the saved
    game is being opened; the process leaves with code 0 and no traceback."""
    import signal
    save = tmp_path / "hard.json"
    save.write_bytes(hard_save_text)
    proc, master = _in_terminal(tmp_path, "--resume", str(save), "--ai-delay", "0")
    out = _read_until(master, proc, lambda out: len(out) > 0, 20)
    time.sleep(after)
    proc.send_signal(getattr(signal, sig))
    out += _read_until(master, proc, lambda out: False, 20)
    assert _ended(proc, 20)
    os.close(master)
    assert proc.returncode == 0, out[-2000:]
    assert b"Traceback" not in out and b"NoMatches" not in out


def test_a_signal_before_the_app_is_mounted_is_handed_to_it(tmp_path, monkeypatch,
                                                            hard_save_text):
    """CI's hang: SIGTERM at the first output of `--resume`, before the app's own
    handlers were in place, raised SystemExit in the middle of Textual's start-up, and
    its input thread (not a daemon) kept the process alive for ever. Before the app
    runs the signal still ends the process; once it runs, the app is told and leaves as
    soon as it is mounted — saved, its lock released, code 0."""
    import asyncio
    from tactical_tui.app import TacticalApp
    from tactical_tui.cli import _Hangup
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    hangup = _Hangup()
    with pytest.raises(SystemExit) as left:
        hangup._leave(15, None)                      # no app yet: leave at once
    assert left.value.code == 0
    save = tmp_path / "hard.json"
    save.write_bytes(hard_save_text)
    app = TacticalApp(lang="en", ai_delay=0.0, resume=str(save))
    app.EXIT_GRACE = 3600.0                          # not this test process's os._exit
    hangup.app = app
    hangup._leave(15, None)                          # the app runs: it is told, no raise

    async def go():
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(50):
                if not app.is_running:
                    break
                await pilot.pause(0.1)
    asyncio.run(go())
    assert app.leaving and app.return_code == 0
    assert save.read_bytes() == hard_save_text       # nothing thought, nothing lost
    GameLock.acquire(save).release()                 # and the lock is free again


@pytest.mark.parametrize("lang, words", [("en", ("3 seats (you, hard, random)", "the draft",
                                                 "open in another window",
                                                 "Clean up: delete 2 unfinished games")),
                                         ("ja", ("3人（あなた、つよい、ランダム）", "装備ドラフト",
                                                 "別のウィンドウで使用中",
                                                 "新しい5件より古い未完了のゲーム2件"))])
def test_the_continue_list_shows_each_game_and_cleans_up_on_request(tmp_path, monkeypatch,
                                                                    lang, words):
    import asyncio
    from tactical_tui.app import TacticalApp
    from tui_app import screen_text
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path))
    seats = (SeatSetup(True), SeatSetup(False, "hard"), SeatSetup(False, "random"))
    made = []
    for seed in range(7):
        path = saves.new_game_path()
        GameTable(Config(players=3), seats, seed, save_path=path).autosave()
        os.utime(path, (1000 + seed, 1000 + seed))
        made.append(path)
    held = GameLock.acquire(made[-1])               # the newest is open "elsewhere"
    seen = {}

    async def go():
        app = TacticalApp(lang=lang, ai_delay=0.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            app.title_choice("continue")
            await pilot.pause(0.2)
            seen["list"] = screen_text(app)
            await pilot.press("end", "enter")
            await pilot.pause(0.2)
            await pilot.press("y")
            await pilot.pause(0.3)
            seen["after"] = screen_text(app)
            await pilot.press("enter")               # the newest one not open elsewhere
            await pilot.pause(0.3)
            seen["table"] = app.table.save_path if app.table else None
    asyncio.run(go())
    held.release()
    for w in words:
        assert w in seen["list"], (w, seen["list"])
    assert words[3] not in seen["after"]
    assert _games(tmp_path) == sorted(made[2:])     # the 2 oldest gone, 5 kept
    assert seen["table"] == made[-2]


def test_a_lock_on_a_full_disk_still_holds_and_leaves_no_file(tmp_path, monkeypatch):
    """Issue 14 point 7/8: with no space for the pid, the game still holds its save (the
    flock), a second window is told it is open elsewhere, and quitting removes the file."""
    save = tmp_path / "g.json"

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(saves.os, "write", full)
    lock = GameLock.acquire(save)
    monkeypatch.undo()
    assert lock.held and saves.lock_path(save).read_text() == ""
    with pytest.raises(SaveLocked) as err:
        GameLock.acquire(save)
    assert err.value.pid is None                    # shown as "process ?"
    assert lock_holder(save) == -1
    lock.release()
    assert not saves.lock_path(save).exists() and lock_holder(save) == 0
