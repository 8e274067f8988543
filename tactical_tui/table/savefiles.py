"""The save folder, the game locks and the clean-up of a killed TACTICAL's temporary
files: the file-system side of saves.py, which needs no rules, cattrs or card data, so
that the app can tidy the folder as it starts without loading them (saves.py re-exports
every name here)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Optional


def save_dir() -> Path:
    """The user data folder (platformdirs), or TACTICAL_SAVE_DIR when set."""
    env = os.environ.get("TACTICAL_SAVE_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("tactical", appauthor=False))


def current_path() -> Path:
    """The single save of TACTICAL before one file per game; still listed and resumed."""
    return save_dir() / "current.json"


def games_dir() -> Path:
    """One file per game: unfinished games are kept side by side here."""
    return save_dir() / "games"


def new_game_path() -> Path:
    """A fresh file name for a new game (its start time and a random tag; never the seed)."""
    import secrets
    import time
    folder = games_dir()
    while True:
        path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.json"
        if not path.exists() and not lock_path(path).exists():
            return path

TEMP_PREFIX = ".tmp-"       # + the writer's pid + "-" + a random part + ".json"


def write_atomic(path: Path, text: str, suffix: str = ".json") -> None:
    """Write `text` to `path` so that a crash leaves either the old or the new file
    (saves, replays, the settings file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=suffix,
                               dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class SaveLocked(Exception):
    """The save is held by another running TACTICAL (`pid`, when it could be read)."""

    def __init__(self, path: Path, pid: Optional[int]) -> None:
        self.path, self.pid = path, pid
        super().__init__(f"{path}: open in another window (process {pid or '?'})")


def lock_path(save: Path) -> Path:
    return save.with_name(save.name[:-5] + ".lock" if save.name.endswith(".json")
                          else save.name + ".lock")


class GameLock:
    """An exclusive hold on one save while a game runs: `fcntl.flock` on `<save>.lock`,
    which holds the pid of the holder. The kernel drops the flock when the process
    ends (also on kill -9), so a lock file left behind is stale and simply taken over."""

    def __init__(self, save: Path, fd: int) -> None:
        self.save, self.path, self._fd = save, lock_path(save), fd

    @classmethod
    def acquire(cls, save: Path) -> "GameLock":
        """Hold `save` or raise SaveLocked (OSError when the folder cannot be written)."""
        path = lock_path(save)
        path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            holder = flock(fd)
            if holder is not None:
                raise SaveLocked(save, holder if holder > 0 else None)
            if not same_file(fd, path):   # its holder removed it between our open and flock
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
            except OSError:     # a full disk: the flock holds all the same (its pid reads as unknown)
                pass
            return cls(save, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def read_pid(fd: int) -> Optional[int]:
    try:
        raw = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


def flock(fd: int) -> Optional[int]:
    """Take the flock of an open lock file: None when taken; else the fd is closed and
    the holder's pid is returned (-1 when it cannot be read)."""
    try:
        if _fcntl is not None:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        pid = read_pid(fd)
        os.close(fd)
        return pid or -1
    except BaseException:
        os.close(fd)
        raise


def same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False


def lock_holder(save: Path) -> int:
    """0 when no running TACTICAL holds `save`; else the holder's pid (-1: unknown).
    A stale lock file (its holder gone) is removed on the way."""
    path = lock_path(save)
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        holder = flock(fd)
    except OSError:
        return 0
    if holder is not None:
        return holder
    if same_file(fd, path):
        try:
            os.unlink(path)
        except OSError:
            pass
    os.close(fd)
    return 0


try:
    import fcntl as _fcntl
except ImportError:                    # pragma: no cover - not POSIX: no locking
    _fcntl = None

def pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                    # (EPERM) someone else's live process
        return True
    return True


OLD_TEMP_AGE = 600                     # seconds: a temp file without a pid, surely abandoned


def clean_temp_files(folders: Optional[list[Path]] = None) -> int:
    """Remove the temporary files of `write_atomic` left by a killed TACTICAL: those
    whose writer (the pid in the name) is gone, and unnamed old ones (from before the
    pid was in the name) older than OLD_TEMP_AGE. A live writer's file is never
    touched. Returns how many were removed."""
    import re
    import time
    folders = folders if folders is not None else \
        [save_dir(), games_dir(), save_dir() / "replays"]
    pattern = re.compile(re.escape(TEMP_PREFIX) + r"(?:(\d{1,9})-)?[A-Za-z0-9_]+\.json")
    now = time.time()
    removed = 0
    try:                               # lock files of games no process holds any more
        for name in os.listdir(games_dir()):
            if name.endswith(".lock") and not name.startswith("."):
                lock_holder(games_dir() / (name[:-5] + ".json"))
    except OSError:
        pass
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            m = pattern.fullmatch(name)
            if not m:
                continue
            path = folder / name
            try:
                st = path.lstat()
                import stat as _stat
                if not _stat.S_ISREG(st.st_mode):
                    continue
                if m.group(1) is not None:
                    if pid_alive(int(m.group(1))):
                        continue
                elif now - st.st_mtime < OLD_TEMP_AGE:
                    continue
                path.unlink()
                removed += 1
            except OSError:
                continue
    return removed
