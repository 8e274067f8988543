"""Several windows on one save folder, interruptions, resume without re-thinking
(issue 14 points 7–9)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules import Config
from tactical_tui import saves
from tactical_tui.saves import GameLock, SaveLocked, list_games, lock_holder, read
from tactical_tui.table import GameTable, SeatSetup

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


def _drive(table: GameTable, steps: int | None = None) -> None:
    """Play the table as the app does: AI seats by their players, humans by the hint."""
    n = 0
    while not table.over and (steps is None or n < steps):
        ai, human = table.ai_to_act(), table.human_to_act()
        if ai is not None and (human is None or table.state.phase in ("draft", "build")):
            action, reason = table.ai_decide(ai)
            table.submit_ai(ai, action, reason)
        else:
            table.submit(table.hint(human)[0])
        n += 1


def _games(save_dir: Path) -> list[Path]:
    """The game files of a save folder (not the temporary files of a write)."""
    return sorted(p for p in (save_dir / "games").glob("*.json") if not p.name.startswith("."))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------- point 7: two windows

@posix
@pytest.mark.parametrize("lang, words", [("en", "open in another window"),
                                         ("ja", "別のウィンドウで開かれています")])
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
