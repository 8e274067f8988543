"""The table server's files (docs/PROTOCOL.md "Saves", "Seats, tokens, takeover"): the
host's folder (`host_dir`; `private_folder`: only the host's user may use it,
FolderProblem when it cannot be the host's; `lock_folder`: one host per folder), a
table's save written after every action off the event loop (`NetGame`, its `Saver`: in
a thread, retried while it fails; `fsync_all`: synced with the others every SYNC_EVERY
seconds), its sidecar `<id>.table.json` (`write_sidecar`: seats' names and token
hashes, privacy, grace, takeover level, clock — META_FORMAT), a new table's id that no
file of the folder has (`new_table_id`), and the files of a table that leaves the list
moved to `finished/` or `retired/` (`move_table_files`).

The folder of tables (`host_dir()/tables`) holds per table `<id>.json`, the save format
of a local game (tactical_tui/table/saves.py), and `<id>.table.json`. A restarted
server resumes every unfinished table from them (Server.resume); its players reconnect
with their tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
from pathlib import Path
from typing import Any, Optional

from tactical_tui.table.saves import SaveText
from tactical_tui.table.savefiles import write_atomic
from tactical_tui.table.live import GameTable

log = logging.getLogger("tactical.host")

META_FORMAT = 1


def host_dir() -> Path:
    """The host's folder: TACTICAL_HOST_DIR when set, else `host` in the user data folder
    (platformdirs; TACTICAL_SAVE_DIR moves that). The SSH front door keeps its host key
    here too (sshdoor.host_dir, the same folder)."""
    env = os.environ.get("TACTICAL_HOST_DIR")
    if env:
        return Path(env)
    from tactical_tui.table.savefiles import save_dir
    return save_dir() / "host"


# ------------------------------------------------------------------ the host's folder

class FolderProblem(Exception):
    """The folder of the tables cannot be the host's: an i18n key (``net.host.folder_*``)
    and its parameters, said by host_cli in the operator's language."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key, params)
        self.key, self.params = key, params


def private_folder(folder: Path) -> None:
    """Make sure `folder` holds the host's files only for the host's user, as sshd's
    StrictModes does for ~/.ssh: made with mode 0700 if it is not there; refused
    (FolderProblem) if it is not a folder, belongs to another user, or anyone may write
    in it (o+w: others may have put files there already); one that the group may write
    in or others may read (an older host's, a umask of 002) is made 0700, with a warning
    — the tables' files hold every seat's hidden cards."""
    import stat as st
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.stat()
    except OSError as exc:
        raise FolderProblem("net.host.folder_error", folder=folder,
                            detail=exc.strerror or str(exc)) from exc
    if not st.S_ISDIR(info.st_mode):
        raise FolderProblem("net.host.folder_error", folder=folder, detail="not a folder")
    if info.st_uid != os.geteuid():
        raise FolderProblem("net.host.folder_owner", folder=folder, uid=info.st_uid)
    if info.st_mode & 0o002:
        raise FolderProblem("net.host.folder_open", folder=folder,
                            mode=f"{st.S_IMODE(info.st_mode):o}")
    if info.st_mode & 0o077:
        log.warning("%s could be used by others (mode %o): made private (0700)", folder,
                    st.S_IMODE(info.st_mode))
        os.chmod(folder, 0o700)



# ------------------------------------------------------------------ a table's save

SYNC_EVERY = 2.0              # seconds between the fsyncs of the tables' new saves


def _write_unsynced(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (a temporary file renamed over it), without
    waiting for the disk: a killed host loses nothing written (the server fsyncs the
    saves every SYNC_EVERY seconds, off the event loop: `fsync_all`)."""
    import tempfile

    from tactical_tui.table.savefiles import TEMP_PREFIX
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".json",
                               dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def fsync_all(paths: list, folder: Path) -> list:
    """fsync each file, then the folder; the files that could not be synced (their
    saves are written again: Server.sync)."""
    failed = []
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):     # (archived meanwhile)
                log.error("cannot sync %s: %s", path, exc)
                failed.append(path)
            continue
        try:
            os.fsync(fd)
        except OSError as exc:
            log.error("cannot sync %s: %s", path, exc)
            failed.append(path)
        finally:
            os.close(fd)
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return failed


SAVE_RETRY_FIRST = 1.0        # seconds before a failed save is tried again, doubled each time
SAVE_RETRY_MOST = 30.0        # ... up to this


class Saver:
    """A table's autosave off the event loop: the save after the latest action is written
    (and renamed over the old one) in a thread, one write at a time, the newest position
    only if several actions came meanwhile. Every action of the table waits for the save
    of the one before it (`saved`, `settled`: the AI seats', the takeover AI's, the
    players'), so a host killed at any moment loses at most the action being applied.

    A save that fails (a full disk, no file descriptor left, a permission taken away) is
    no silent log line: the table is paused (`on_failed`: HostedTable.save_failed — no
    action is taken, its players are told) and the write is tried again after 1, 2, 4 …
    (at most 30) seconds until it works (`on_works`: the table goes on, its players are
    told)."""

    def __init__(self, game: "NetGame", unsynced: Optional[set], on_failed=None,
                 on_works=None) -> None:
        self.game, self.unsynced = game, unsynced
        self.on_failed, self.on_works = on_failed, on_works
        self.failing: Optional[OSError] = None     # the last write failed: paused, retrying
        self.retry_first, self.retry_most = SAVE_RETRY_FIRST, SAVE_RETRY_MOST
        self._latest = None
        self._task: Optional[asyncio.Task] = None
        self._clean = asyncio.Event()              # nothing waits to be written, all written
        self._clean.set()
        self._settled = asyncio.Event()            # ... or the last write failed
        self._settled.set()

    def request(self, data) -> None:
        self._latest = data
        self._clean.clear()
        if self.failing is None:
            self._settled.clear()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        game = self.game
        delay = self.retry_first
        try:
            while self._latest is not None:
                data = self._latest
                try:
                    # the text here (the new actions' JSON only: SaveText), the writing
                    # in a thread (it waits for the file system, not the interpreter)
                    text = game.save_text.text(data)
                    await asyncio.to_thread(_write_unsynced, game.save_path, text)
                except OSError as exc:
                    first = self.failing is None
                    self.failing = game.save_error = exc
                    game.save_problem = f"{game.save_path}: {exc}"
                    self._settled.set()
                    if self.on_failed is not None:
                        self.on_failed(exc, first)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self.retry_most)
                    continue
                if self._latest is data:
                    self._latest = None
                game.save_problem = game.save_error = None
                if self.unsynced is not None:
                    self.unsynced.add(game.save_path)
                delay = self.retry_first
                if self.failing is not None:
                    self.failing = None
                    if self.on_works is not None:
                        self.on_works()
        finally:
            self._task = None
            if self._latest is None and self.failing is None:
                self._clean.set()
                self._settled.set()

    async def saved(self) -> None:
        """Until the latest action is written (while saves fail: until one works)."""
        await self._clean.wait()

    async def settled(self) -> None:
        """Until the write under way is done: written, or failed (then `failing`)."""
        await self._settled.wait()

    def stop(self) -> None:
        """No more tries (the table is closed; what is not written is lost)."""
        if self._task is not None:
            self._task.cancel()


class NetGame(GameTable):
    """A GameTable whose autosave after every action does not hold up the event loop
    (every table of the host): written by its `Saver` in a thread, without waiting for
    the disk (a killed host loses nothing written), and synced (fsync) with the others
    within SYNC_EVERY seconds. Without a running loop (resuming) it saves at once."""

    saver: Optional[Saver] = None
    save_text: Optional[SaveText] = None

    def autosave(self) -> None:
        if self.save_path is None:
            return
        if self.save_text is None:
            self.save_text = SaveText()
        if self.saver is not None:
            self.saver.request(self.save_data())
            return
        try:
            _write_unsynced(self.save_path, self.save_text.text(self.save_data()))
        except OSError as exc:
            self.save_error = exc
            self.save_problem = f"{self.save_path}: {exc}"
            log.error("cannot save %s", self.save_problem)


# ------------------------------------------------------------------ a table's sidecar, its files

def write_sidecar(table: Any) -> None:
    """The sidecar of `table` (a HostedTable), `<id>.table.json`: its own facts beside
    its save — privacy, the join code's hash, grace, takeover level, clock, when and by
    whom it was made, waiting, its owner, and per seat its kind, level, name, token hash
    and whether its player left. Written atomically and synced (OSError if not)."""
    meta = {"format": META_FORMAT, "table": table.id, "private": table.private,
            "code_hash": table.code_hash, "grace": table.grace, "takeover": table.takeover_level,
            "clock": table.clock, "created": table.created, "peer": table.peer,
            "waiting": table.waiting, "owner": table.owner,
            "seats": [{"kind": s.kind, "level": s.level, "name": s.name,
                       "token_hash": s.token_hash, "left": s.left} for s in table.slots]}
    write_atomic(table.meta_path, json.dumps(meta, ensure_ascii=False, indent=1))


def new_table_id(folder: Path, taken: Any) -> str:
    """A new table's id: in none of `taken` (the tables served) and no file's of
    `folder` (nor a table skipped at start)."""
    while True:
        tid = secrets.token_hex(4)
        if tid not in taken and not any(
                os.path.lexists(folder / f"{tid}{end}") for end in (".json", ".table.json")):
            return tid


def move_table_files(folder: Path, tid: str, into: str = "finished") -> None:
    """The save and sidecar of table `tid` moved from `folder` to its sub-folder `into`."""
    done = folder / into
    done.mkdir(exist_ok=True)
    for name in (f"{tid}.json", f"{tid}.table.json"):
        if (folder / name).exists():
            os.replace(folder / name, done / name)


def lock_folder(folder: Path):
    """One host per folder of tables (RuntimeError naming the folder otherwise), a
    folder only the host's user can use (FolderProblem otherwise: private_folder),
    locked through ``host.lock``, mode 0600 (one another user could open, they could
    lock, and keep the host from starting). Returns the lock's open file: the folder is
    the host's until it is closed."""
    import fcntl
    private_folder(folder)
    try:
        fd = os.open(folder / "host.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:                    # a symbolic link, a folder, …
        raise FolderProblem("net.host.folder_error", folder=folder / "host.lock",
                            detail=exc.strerror or str(exc)) from exc
    f = os.fdopen(fd, "a+")
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise RuntimeError(f"another tactical host serves {folder}") from None
    return f
