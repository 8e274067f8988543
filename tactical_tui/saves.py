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
    # an optional field left unset (StartAttack's skill, RULINGS R22) is not written: it
    # loads back as its default
    d = {k: v for k, v in _conv.unstructure(action).items() if v is not None}
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
        raise SaveError(source, "missing", key=exc.args[0]) from None
    except Exception as exc:  # noqa: BLE001
        raise SaveError(source, "damaged", detail=_why(exc)) from None
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
