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

FORMAT = 1
MAX_BYTES = 8 * 1024 * 1024        # a save is a few dozen KB; anything huge is not a save
_ACTIONS = {t.__name__: t for t in ACTION_TYPES}
_conv = cattrs.Converter(forbid_extra_keys=True)


class SaveError(Exception):
    """A save file that cannot be used; the message names the file and the problem."""


@frozen
class SeatEntry:
    human: bool
    level: str = "normal"


@frozen
class SaveData:
    format: int
    seed: int
    config: Config
    seats: tuple[SeatEntry, ...]
    actions: tuple[Any, ...]
    lang: str = "en"
    finished: bool = False


def save_dir() -> Path:
    """The user data folder (platformdirs), or TACTICAL_SAVE_DIR when set."""
    env = os.environ.get("TACTICAL_SAVE_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_data_dir("tactical", appauthor=False))


def current_path() -> Path:
    return save_dir() / "current.json"


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
    }
    return json.dumps(raw, ensure_ascii=False, indent=1)


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves either the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
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
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SaveError(f"{source}: not a save file (invalid JSON: {exc})") from None
    if not isinstance(raw, dict):
        raise SaveError(f"{source}: not a save file (expected a JSON object)")
    fmt = raw.get("format")
    if type(fmt) is not int:
        raise SaveError(f"{source}: not a save file (no format version)")
    if fmt > FORMAT:
        raise SaveError(f"{source}: saved by a newer TACTICAL (format {fmt}; this one reads "
                        f"format {FORMAT}) — update TACTICAL to open it")
    if fmt < 1:
        raise SaveError(f"{source}: unknown format version {fmt}")
    try:
        seed = raw["seed"]
        if type(seed) is not int or not 0 <= seed < 2 ** 63:
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
    except KeyError as exc:
        raise SaveError(f"{source}: damaged save file (missing {exc.args[0]!r})") from None
    except Exception as exc:  # noqa: BLE001
        raise SaveError(f"{source}: damaged save file ({_why(exc)})") from None
    return SaveData(fmt, seed, config, seats, tuple(actions), lang, finished)


def _why(exc: BaseException) -> str:
    if isinstance(exc, cattrs.BaseValidationError):
        lines = cattrs.transform_error(exc)
        return lines[0] if lines else str(exc)
    return str(exc) or type(exc).__name__


def read(path: Path) -> SaveData:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SaveError(f"{path}: not a save file (too large: {size} bytes)")
        data = path.read_bytes()
    except SaveError:
        raise
    except OSError as exc:
        raise SaveError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    if not data.strip():
        raise SaveError(f"{path}: the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveError(f"{path}: not a save file (not UTF-8 text)") from None
    return parse(text, str(path))


def replay(data: SaveData, cards: CardSet, source: str, upto: Optional[int] = None):
    """The states of a saved game: (initial state, [(action, state after, events)])."""
    from rules import apply, new_game
    try:
        state, events = new_game(data.config, cards, data.seed)
    except ValueError as exc:
        raise SaveError(f"{source}: cannot start this game ({exc})") from None
    steps = []
    for i, action in enumerate(data.actions[:upto]):
        try:
            state, ev = apply(state, action)
        except IllegalAction as exc:
            raise SaveError(f"{source}: action {i + 1} ({type(action).__name__}) does not "
                            f"apply: {exc.reason}") from None
        steps.append((action, state, ev))
    return events, steps
