"""Save files: format version + seed + configuration + seats + the action list, as JSON
(cattrs, never pickle), written atomically (temporary file, flush, fsync, rename).

Loading replays the actions from the seed, so a save always gives exactly the state the
game had. Any problem with a file gives a `SaveError` naming the file and what is wrong;
the file itself is never touched when reading.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Optional

import cattrs
from attrs import frozen

from rules import ACTION_TYPES, Config, IllegalAction
from rules.cards import CardSet

from .seeds import valid_seed

FORMAT = 1
MAX_BYTES = 8 * 1024 * 1024        # a save is a few dozen KB; anything huge is not a save
_ACTIONS = {t.__name__: t for t in ACTION_TYPES}
_conv = cattrs.Converter(forbid_extra_keys=True)


class SaveError(Exception):
    """A save file that cannot be used; the message names the file and the problem.

    `str(err)` is the English message; `err.text(lang, cards)` the same in Japanese or
    English, from `code` and `params` (`SAVE_PROBLEMS`)."""

    def __init__(self, source: object, code: str, refusal: Optional[IllegalAction] = None,
                 **params: object) -> None:
        self.source, self.code, self.params, self.refusal = str(source), code, params, refusal
        super().__init__(self.text("en"))

    def text(self, lang: str, cards: Optional[CardSet] = None) -> str:
        table = SAVE_PROBLEMS[self.code]
        lang = lang if lang in table else "en"
        params = dict(self.params)
        if self.code == "bad_action" and lang != "en":
            from .text import refusal_params
            params.update(refusal_params(cards, {"action": params["action"]}, lang))
        if "os_error" in params:
            from .text import os_error_text
            params["detail"] = os_error_text(params["os_error"], lang)  # type: ignore[arg-type]
        if self.refusal is not None:
            if lang == "en" or cards is None:
                params["reason"] = self.refusal.reason
            else:
                from .text import refusal_text
                params["reason"] = refusal_text(cards, self.refusal.code,
                                                self.refusal.params, lang)
        return f"{self.source}: " + table[lang].format(**params)


# Every problem a save file can have, in Japanese and English. `detail` is the parser's
# own words (English: what a converter rejected and where); the JSON position is shown in
# both languages.
SAVE_PROBLEMS: dict[str, dict[str, str]] = {
    "invalid_json": {"en": "not a save file (invalid JSON: {detail}: line {line} column {col})",
                     "ja": "保存ファイルではありません（JSONとして読めません: {line}行{col}列目）"},
    "too_deep": {"en": "not a save file (nested too deeply)",
                 "ja": "保存ファイルではありません（入れ子が深すぎます）"},
    "not_object": {"en": "not a save file (expected a JSON object)",
                   "ja": "保存ファイルではありません（JSONのオブジェクトではありません）"},
    "no_format": {"en": "not a save file (no format version)",
                  "ja": "保存ファイルではありません（形式の版がありません）"},
    "newer": {"en": "saved by a newer TACTICAL (format {fmt}; this one reads format {this}) "
                    "— update TACTICAL to open it",
              "ja": "新しいTACTICALで保存されています（形式{fmt}、このTACTICALが読めるのは形式"
                    "{this}まで）。開くにはTACTICALを更新してください"},
    "unknown_format": {"en": "unknown format version {fmt}", "ja": "不明な形式の版です: {fmt}"},
    "missing": {"en": "damaged save file (missing {key!r})",
                "ja": "壊れた保存ファイルです（{key}がありません）"},
    "damaged": {"en": "damaged save file ({detail})", "ja": "壊れた保存ファイルです（{detail}）"},
    "too_large": {"en": "not a save file (too large: {size} bytes)",
                  "ja": "保存ファイルではありません（大きすぎます: {size}バイト）"},
    "unreadable": {"en": "cannot read the file ({detail})",
                   "ja": "ファイルを読めません（{detail}）"},
    "empty": {"en": "the file is empty", "ja": "ファイルが空です"},
    "not_utf8": {"en": "not a save file (not UTF-8 text)",
                 "ja": "保存ファイルではありません（UTF-8のテキストではありません）"},
    "cannot_start": {"en": "cannot start this game ({detail})",
                     "ja": "このゲームを開始できません（{detail}）"},
    "bad_action": {"en": "action {n} ({action}) does not apply: {reason}",
                   "ja": "{n}番目の行動（{action}）を適用できません: {reason}"},
}


@frozen
class SeatEntry:
    human: bool
    level: str = "normal"


@frozen
class AINote:
    """What an AI seat left with one of its actions (`n`: its index in `actions`): the
    reason the log showed (key and params of ai.normal.Reason, or None) and the
    player's memory for its next decision (ai.base.Player.memory). Resuming reads
    these instead of asking the AI again."""
    n: int
    reason: Optional[tuple[str, tuple[tuple[str, Any], ...]]] = None
    memo: tuple[tuple[str, Any], ...] = ()


@frozen
class SaveData:
    format: int
    seed: int
    config: Config
    seats: tuple[SeatEntry, ...]
    actions: tuple[Any, ...]
    lang: str = "en"
    finished: bool = False
    ai: tuple[AINote, ...] = ()


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


def action_to_dict(action) -> dict:
    d = _conv.unstructure(action)
    d["type"] = type(action).__name__
    return d


def action_from_dict(d: dict):
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        raise ValueError("an action must be a table with a type")
    cls = _ACTIONS.get(d["type"])
    if cls is None:
        raise ValueError(f"unknown action type {d['type']!r}")
    fields = {k: v for k, v in d.items() if k != "type"}
    for v in fields.values():
        if type(v) not in (int, str):
            raise ValueError(f"{d['type']}: fields must be numbers or text")
    return _conv.structure(fields, cls)


def to_json(data: SaveData) -> str:
    raw = {
        "format": data.format, "seed": data.seed, "lang": data.lang, "finished": data.finished,
        "config": _conv.unstructure(data.config),
        "seats": [_conv.unstructure(s) for s in data.seats],
        "actions": [action_to_dict(a) for a in data.actions],
        "ai": [_note_to_dict(x) for x in data.ai],
    }
    return json.dumps(raw, ensure_ascii=False, indent=1)


TEMP_PREFIX = ".tmp-"       # + the writer's pid + "-" + a random part + ".json"


def _note_to_dict(note: AINote) -> dict:
    out: dict = {"n": note.n}
    if note.reason is not None:
        out["reason"] = [note.reason[0], [list(p) for p in note.reason[1]]]
    if note.memo:
        out["memo"] = dict(note.memo)
    return out


def _plain(value: Any) -> Any:
    """A reason or memo value as saved: text, a small number, true/false or null."""
    if value is None or type(value) in (str, bool):
        return value
    if type(value) is int and abs(value) < 2 ** 53:
        return value
    if type(value) is float and value == value and abs(value) < 1e300:
        return value
    raise ValueError("an AI note holds only text, numbers, true/false or null")


def _notes_from(raw: Any, actions: int) -> tuple[AINote, ...]:
    if not isinstance(raw, list):
        raise ValueError("ai must be a list")
    out, last = [], -1
    for item in raw:
        if not isinstance(item, dict) or set(item) - {"n", "reason", "memo"}:
            raise ValueError("an AI note is a table of n, reason and memo")
        n = item.get("n")
        if type(n) is not int or not last < n < actions:
            raise ValueError("an AI note's n names a later action of the list")
        last = n
        reason = item.get("reason")
        if reason is not None:
            if not (isinstance(reason, list) and len(reason) == 2 and type(reason[0]) is str
                    and isinstance(reason[1], list)
                    and all(isinstance(p, list) and len(p) == 2 and type(p[0]) is str
                            for p in reason[1])):
                raise ValueError(f"AI note of action {n + 1}: a reason is [key, [[name, value], ...]]")
            reason = (reason[0], tuple((k, _plain(v)) for k, v in reason[1]))
        memo = item.get("memo", {})
        if not isinstance(memo, dict):
            raise ValueError(f"AI note of action {n + 1}: memo must be a table")
        out.append(AINote(n, reason, tuple((str(k), _plain(v)) for k, v in memo.items())))
    return tuple(out)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves either the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".json",
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


def parse(text: str, source: str) -> SaveData:
    """Parse a save file's text. Raises SaveError with the file and the problem."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(source, "invalid_json", detail=exc.msg, line=exc.lineno,
                        col=exc.colno) from None
    except RecursionError:
        raise SaveError(source, "too_deep") from None
    if not isinstance(raw, dict):
        raise SaveError(source, "not_object")
    fmt = raw.get("format")
    if type(fmt) is not int:
        raise SaveError(source, "no_format")
    if fmt > FORMAT:
        raise SaveError(source, "newer", fmt=fmt, this=FORMAT)
    if fmt < 1:
        raise SaveError(source, "unknown_format", fmt=fmt)
    try:
        seed = raw["seed"]
        if not valid_seed(seed):                    # 0 .. 2**64-1 (tactical_tui.seeds)
            raise ValueError("seed must be a whole number")
        config = _conv.structure(raw["config"], Config)
        seats = tuple(_conv.structure(s, SeatEntry) for s in raw["seats"])
        if len(seats) != config.players:
            raise ValueError("one seat entry per player")
        if not isinstance(raw["actions"], list):
            raise ValueError("actions must be a list")
        if len(raw["actions"]) > 100_000:
            raise ValueError("too many actions")
        actions = []
        for i, a in enumerate(raw["actions"]):
            try:
                actions.append(action_from_dict(a))
            except Exception as exc:  # noqa: BLE001
                raise ValueError(f"action {i + 1}: {_why(exc)}") from None
        lang = raw.get("lang", "en")
        if lang not in ("ja", "en"):
            lang = "en"
        finished = bool(raw.get("finished", False))
        notes = _notes_from(raw.get("ai", []), len(actions))
    except KeyError as exc:
        raise SaveError(source, "missing", key=exc.args[0]) from None
    except Exception as exc:  # noqa: BLE001
        raise SaveError(source, "damaged", detail=_why(exc)) from None
    return SaveData(fmt, seed, config, seats, tuple(actions), lang, finished, notes)


def _why(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError):
        lines = cattrs.transform_error(exc)
        return lines[0] if lines else str(exc)
    return str(exc) or type(exc).__name__


def read(path: Path) -> SaveData:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SaveError(path, "too_large", size=size)
        data = path.read_bytes()
    except SaveError:
        raise
    except OSError as exc:
        raise SaveError(path, "unreadable", detail=exc.strerror or exc, os_error=exc) from None
    if not data.strip():
        raise SaveError(path, "empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveError(path, "not_utf8") from None
    return parse(text, str(path))


def replay(data: SaveData, cards: CardSet, source: str, upto: Optional[int] = None):
    """The states of a saved game: (initial state, [(action, state after, events)])."""
    from rules import apply, new_game
    try:
        state, events = new_game(data.config, cards, data.seed)
    except ValueError as exc:
        raise SaveError(source, "cannot_start", detail=exc) from None
    steps = []
    for i, action in enumerate(data.actions[:upto]):
        try:
            state, ev = apply(state, action)
        except IllegalAction as exc:
            raise SaveError(source, "bad_action", exc, n=i + 1,
                            action=type(action).__name__) from None
        steps.append((action, state, ev))
    return events, steps


# --------------------------------------------------------------------- locks, games, clean-up

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
            holder = _flock(fd)
            if holder is not None:
                raise SaveLocked(save, holder if holder > 0 else None)
            if not _same_file(fd, path):   # its holder removed it between our open and flock
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
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


def _read_pid(fd: int) -> Optional[int]:
    try:
        raw = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


def _flock(fd: int) -> Optional[int]:
    """Take the flock of an open lock file: None when taken; else the fd is closed and
    the holder's pid is returned (-1 when it cannot be read)."""
    try:
        if _fcntl is not None:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        pid = _read_pid(fd)
        os.close(fd)
        return pid or -1
    except BaseException:
        os.close(fd)
        raise


def _same_file(fd: int, path: Path) -> bool:
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
        holder = _flock(fd)
    except OSError:
        return 0
    if holder is not None:
        return holder
    if _same_file(fd, path):
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


@frozen
class GameEntry:
    """One unfinished game for the Continue list."""

    path: Path
    mtime: float
    seats: tuple[SeatEntry, ...] = ()
    phase: str = ""                   # rules phase of the saved position ("" if unknown)
    round: int = 0                    # battle round (as the battle screen shows it)
    holder: int = 0                   # pid of another TACTICAL that has it open, or 0
    problem: Optional[SaveError] = None


def game_files() -> list[Path]:
    """Every save of a game: the files of the games folder and an old `current.json`."""
    out = []
    try:
        out = [p for p in games_dir().iterdir()
               if p.suffix == ".json" and not p.name.startswith(".")]
    except OSError:
        pass
    if current_path().is_file():
        out.append(current_path())
    return out


def list_games(cards: CardSet, include_finished: bool = False) -> list[GameEntry]:
    """The saved unfinished games, newest first, each with its seats and phase (the
    actions replayed by the rules, no AI asked). A file that cannot be read is listed
    with its problem."""
    out = []
    for path in game_files():
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        holder = lock_holder(path)
        try:
            data = read(path)
        except SaveError as exc:
            out.append(GameEntry(path, mtime, holder=holder, problem=exc))
            continue
        if data.finished and not include_finished:
            continue
        phase, rnd = "", 0
        try:
            events, steps = replay(data, cards, str(path))
            state = steps[-1][1] if steps else None
            if state is None:
                from rules import new_game
                state = new_game(data.config, cards, data.seed)[0]
            phase = str(state.phase)
            if state.battle is not None:
                rnd = state.battle.round
        except SaveError as exc:
            out.append(GameEntry(path, mtime, data.seats, holder=holder, problem=exc))
            continue
        out.append(GameEntry(path, mtime, data.seats, phase, rnd, holder))
    out.sort(key=lambda g: -g.mtime)
    return out


def remove_game(path: Path) -> bool:
    """Delete one save (not one another TACTICAL has open). True when it is gone."""
    try:
        lock = GameLock.acquire(path)
    except (SaveLocked, OSError):
        return False
    try:
        path.unlink(missing_ok=True)
        return True
    except OSError:
        return False
    finally:
        lock.release()


KEEP_GAMES = 5


def old_games(games: list[GameEntry], keep: int = KEEP_GAMES) -> list[GameEntry]:
    """Of `list_games(..., include_finished=True)`, newest first: the finished games and
    the unfinished (or unreadable) ones beyond the `keep` newest, not those open elsewhere."""
    out, unfinished = [], 0
    for g in games:
        if g.problem is not None or g.phase != "over":
            unfinished += 1
            if unfinished <= keep:
                continue
        if g.holder == 0:
            out.append(g)
    return out


def clean_old_games(cards: CardSet, keep: int = KEEP_GAMES) -> int:
    """On request (the Continue list): remove the `old_games`. Returns how many."""
    return sum(remove_game(g.path) for g in old_games(list_games(cards, include_finished=True), keep))


def _pid_alive(pid: int) -> bool:
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
                    if _pid_alive(int(m.group(1))):
                        continue
                elif now - st.st_mtime < OLD_TEMP_AGE:
                    continue
                path.unlink()
                removed += 1
            except OSError:
                continue
    return removed
