"""Save files: format version + seed + configuration + seats + the action list, as JSON
(cattrs, never pickle), written atomically (temporary file, flush, fsync, rename).

Loading replays the actions from the seed, so a save always gives exactly the state the
game had. Any problem with a file gives a `SaveError` naming the file and what is wrong;
the file itself is never touched when reading.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

import attrs
import cattrs
from attrs import frozen
from cattrs.errors import IterableValidationNote

from rules import ACTION_TYPES, Config, IllegalAction
from rules.cards import CardDataError, CardSet
from rules.files import DIGIT_LIMIT, FileProblem, is_digit_limit_error, read_bounded

from tactical_tui.table.savefiles import (OLD_TEMP_AGE, TEMP_PREFIX, GameLock, SaveLocked, write_atomic,  # noqa: F401 - re-exported
                                          flock, pid_alive, read_pid, same_file, clean_temp_files,
                                          current_path, games_dir, lock_holder, lock_path, new_game_path,
                                          save_dir)
from tactical_tui.table.seeds import SEED_LIMIT

FORMAT = 1
# The largest save or replay file read: a save is a few dozen KB; anything larger is not a
# save and is refused before it is read (docs/PLAYING.md "Files and limits").
MAX_BYTES = 8 * 1024 * 1024
_ACTIONS = {t.__name__: t for t in ACTION_TYPES}
_conv = cattrs.Converter(forbid_extra_keys=True)   # writing; reading uses _strict (below)


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
            from tactical_tui.text.catalog import refusal_params
            params.update(refusal_params(cards, {"action": params["action"]}, lang))
        if isinstance(params.get("detail"), CardDataError):   # cannot_start: cards too few
            from tactical_tui.text.catalog import card_error_text
            params["detail"] = card_error_text(params["detail"], lang)  # type: ignore[arg-type]
        if "got" in params:
            kind, shown = params["got"]  # type: ignore[misc]
            params["got"] = _GOT[lang][kind].format(shown)
        if "expected" in params:
            params["expected"] = _EXPECTED[lang][params["expected"]]  # type: ignore[index]
        if "allowed" in params:
            params["allowed"] = _one_of(params["allowed"], lang)  # type: ignore[arg-type]
        if "name" in params:
            params["name"] = params["name"][1] or _GOT[lang][params["name"][0]]  # type: ignore[index]
        if self.code == "bad_action":
            params["note"] = _UNRECORDED[lang] if params.get("unrecorded") else ""
        if "kind" in params:
            from tactical_tui.text.catalog import file_kind_text
            params["kind"] = file_kind_text(params["kind"], lang)  # type: ignore[arg-type]
        if "size" in params:
            from tactical_tui.text.catalog import cap_text, size_text
            params["size"] = size_text(params["size"], lang)  # type: ignore[arg-type]
            params["cap"] = cap_text(params["cap"])  # type: ignore[arg-type]
        if "os_error" in params:
            from tactical_tui.text.catalog import os_error_text
            params["detail"] = os_error_text(params["os_error"], lang)  # type: ignore[arg-type]
        if self.refusal is not None:
            if lang == "en" or cards is None:
                params["reason"] = self.refusal.reason
            else:
                from tactical_tui.text.catalog import refusal_text
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
    "too_large": {"en": "not a save file (too large: {size}; a save is at most {cap})",
                  "ja": "保存ファイルではありません（大きすぎます: {size}。保存ファイルは最大{cap}です）"},
    "not_regular": {"en": "not a save file ({kind}, not a regular file)",
                    "ja": "保存ファイルではありません（通常のファイルではなく{kind}です）"},
    "huge_number": {"en": "not a save file (a number with more than {digits} digits)",
                    "ja": "保存ファイルではありません（{digits}桁を超える数があります）"},
    "unreadable": {"en": "cannot read the file ({detail})",
                   "ja": "ファイルを読めません（{detail}）"},
    "empty": {"en": "the file is empty", "ja": "ファイルが空です"},
    "not_utf8": {"en": "not a save file (not UTF-8 text)",
                 "ja": "保存ファイルではありません（UTF-8のテキストではありません）"},
    "cannot_start": {"en": "cannot start this game ({detail})",
                     "ja": "このゲームを開始できません（{detail}）"},
    "bad_action": {"en": "action {n} ({action}) does not apply: {reason}{note}",
                   "ja": "{n}番目の行動（{action}）を適用できません: {reason}{note}"},
    # a field of the save, strictly structured (`field`: its path, e.g. config.players)
    "wrong_type": {"en": "damaged save file ({field}: {got} is not {expected})",
                   "ja": "壊れた保存ファイルです（{field}: {got}は{expected}ではありません）"},
    "not_one_of": {"en": "damaged save file ({field}: {value} is not {allowed})",
                   "ja": "壊れた保存ファイルです（{field}: {value}は{allowed}のどれでもありません）"},
    "out_of_range": {"en": "damaged save file ({field}: {value} is not between {lo} and {hi})",
                     "ja": "壊れた保存ファイルです（{field}: {value}は{lo}から{hi}までの範囲外です）"},
    "too_big": {"en": "damaged save file ({field}: the number is too large)",
                "ja": "壊れた保存ファイルです（{field}: 数が大きすぎます）"},
    "unknown_field": {"en": "damaged save file ({field}: unknown field)",
                      "ja": "壊れた保存ファイルです（{field}: 不明な項目です）"},
    "unknown_action": {"en": "damaged save file ({field}: {name} is not an action)",
                       "ja": "壊れた保存ファイルです（{field}: {name}は行動の種類ではありません）"},
    "seat_count": {"en": "damaged save file ({field}: {n} seats for {players} players)",
                   "ja": "壊れた保存ファイルです（{field}: {players}人のゲームに{n}席分あります）"},
    "too_many_actions": {"en": "damaged save file ({field}: more than {limit} actions)",
                         "ja": "壊れた保存ファイルです（{field}: 行動が{limit}個を超えています）"},
    "bad_field": {"en": "damaged save file ({field}: a value a save cannot have)",
                  "ja": "壊れた保存ファイルです（{field}: 保存ファイルにありえない値です）"},
    "unexpected": {"en": "damaged save file (content this TACTICAL cannot read)",
                   "ja": "壊れた保存ファイルです（このTACTICALでは読めない内容です）"},
    "other_cards": {"en": "this game was saved with other card data than {cards}",
                    "ja": "このゲームは{cards}とは別のカードデータで保存されています"},
}

# How a field problem names a JSON value and a type, by language.
_GOT = {"en": {"text": "the text {}", "number": "the number {}", "bool": "{}", "null": "null",
               "list": "a list", "table": "a table"},
        "ja": {"text": "文字列{}", "number": "数値{}", "bool": "{}", "null": "null",
               "list": "リスト", "table": "オブジェクト"}}
_EXPECTED = {"en": {"int": "a whole number", "str": "text", "bool": "true or false",
                    "table": "a table", "list": "a list"},
             "ja": {"int": "整数", "str": "文字列", "bool": "trueかfalse",
                    "table": "オブジェクト", "list": "リスト"}}
_UNRECORDED = {"en": " (this save does not record the card data it was played with: it may "
                     "be from other card data)",
               "ja": "（この保存ファイルには対戦時のカードデータの記録がありません。別のカード"
                     "データのゲームかもしれません）"}


def _one_of(values: tuple, lang: str) -> str:
    if lang == "ja":
        return "、".join(values)
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]



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
    # rules.cards.fingerprint of the card data the game was played with; "" in saves
    # written before it was recorded (they load, see `check_card_data`)
    card_data: str = ""
    # how a game ended outside the rules: "agreement" — its players agreed to end it,
    # with no winner (rules RULINGS R19: only 5 VP ends a game in the rules); "" if not
    ended: str = ""


ENDINGS = ("", "agreement")


def action_to_dict(action) -> dict:
    # an optional field left unset (StartAttack's skill, RULINGS R22) is not written: it
    # loads back as its default
    d = {k: v for k, v in _conv.unstructure(action).items() if v is not None}
    d["type"] = type(action).__name__
    return d


def action_from_dict(d: Any):
    """An action from its table in a save, strictly: the type must be an action's name,
    every field the action's type exactly (no "4" or 4.9 for 4, no "no" for false), no
    field missing or extra. Raises FieldProblem naming the field."""
    if not isinstance(d, dict):
        raise FieldProblem("wrong_type", expected="table", got=shown_value(d))
    if "type" not in d:
        raise FieldProblem("missing", "type")
    name = d["type"]
    cls = _ACTIONS.get(name) if type(name) is str else None
    if cls is None:
        raise FieldProblem("unknown_action", "type", name=shown_value(name))
    fields = {k: v for k, v in d.items() if k != "type"}
    try:
        return _strict.structure(fields, cls)
    except Exception as exc:  # noqa: BLE001 - every problem becomes one message
        where, bad = locate_problem(exc)
        raise FieldProblem(bad.code, where, **bad.params) from None


def to_json(data: SaveData) -> str:
    raw = {
        "format": data.format, "seed": data.seed, "lang": data.lang, "finished": data.finished,
        "config": _conv.unstructure(data.config),
        "seats": [_conv.unstructure(s) for s in data.seats],
        "actions": [action_to_dict(a) for a in data.actions],
        "ai": [_note_to_dict(x) for x in data.ai],
        "card_data": data.card_data,
    }
    if data.ended:
        raw["ended"] = data.ended
    return json.dumps(raw, ensure_ascii=False, indent=1)


class SaveText:
    """`to_json`'s save for one game, made again after every action in the time of the
    new actions only (the table server saves 50 tables after every action: `to_json`
    encodes the whole history each time, in pure Python because of its indent — about
    10 ms a save at 150 actions, holding the interpreter while the host's event loop
    waits). Each action's and AI note's JSON is kept with the value itself (the history
    is appended to, or cut back by an undo: a value no longer at its place is encoded
    again from there); the text is the same JSON as `to_json`'s (tests/test_net_server.py
    compares them), one action per line."""

    def __init__(self) -> None:
        self._actions: list[tuple[Any, str]] = []
        self._notes: list[tuple[Any, str]] = []

    @staticmethod
    def _lines(cache: list, values: tuple, encode) -> str:
        same = 0
        for (kept, _), value in zip(cache, values):
            if kept is not value:
                break
            same += 1
        del cache[same:]
        cache.extend((v, json.dumps(encode(v), ensure_ascii=False)) for v in values[same:])
        return ",\n".join(text for _, text in cache)

    def text(self, data: SaveData) -> str:
        head = json.dumps({
            "format": data.format, "seed": data.seed, "lang": data.lang, "finished": data.finished,
            "config": _conv.unstructure(data.config),
            "seats": [_conv.unstructure(s) for s in data.seats]}, ensure_ascii=False)
        return (f'{head[:-1]}, "actions": [\n{self._lines(self._actions, data.actions, action_to_dict)}'
                f'\n], "ai": [\n{self._lines(self._notes, data.ai, _note_to_dict)}'
                f'\n], "card_data": {json.dumps(data.card_data, ensure_ascii=False)}'
                + (f', "ended": {json.dumps(data.ended)}' if data.ended else '') + '}')


def _note_to_dict(note: AINote) -> dict:
    out: dict = {"n": note.n}
    if note.reason is not None:
        out["reason"] = [note.reason[0], [list(p) for p in note.reason[1]]]
    if note.memo:
        out["memo"] = dict(note.memo)
    return out


def plain_values(value: Any) -> Any:
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
            reason = (reason[0], tuple((k, plain_values(v)) for k, v in reason[1]))
        memo = item.get("memo", {})
        if not isinstance(memo, dict):
            raise ValueError(f"AI note of action {n + 1}: memo must be a table")
        out.append(AINote(n, reason, tuple((str(k), plain_values(v)) for k, v in memo.items())))
    return tuple(out)


# ----------------------------------------------------------------- strict structuring
#
# Every value of a save is structured strictly (a cattrs Converter with forbid_extra_keys
# and hooks that accept exactly their type): a problem is a `FieldProblem` with a SAVE_PROBLEMS
# code, and `locate_problem` finds the field it is in through cattrs' error tree, so the message
# names the field (``config.players: 7 is not 3, 4 or 5``) in the player's language and
# never shows Python's own words.

LEVELS = ("random", "easy", "normal", "hard")
LANGS = ("ja", "en")
MAX_ACTIONS = 100_000


class FieldProblem(Exception):
    """A value a save cannot have: a SAVE_PROBLEMS code with its params, at `where` below
    the place being structured ("" = that place)."""

    def __init__(self, code: str, where: str = "", **params: Any) -> None:
        super().__init__(code)
        self.code, self.where, self.params = code, where, params


def shown_value(value: Any) -> tuple[str, str]:
    """(kind, text) of a JSON value for a message: text / number / bool / null / list /
    table, shown short and with control characters escaped."""
    if value is None:
        return "null", "null"
    if type(value) is bool:
        return "bool", "true" if value else "false"
    if type(value) in (int, float):
        text = str(value) if type(value) is int else repr(value)
        return "number", text if len(text) <= 24 else text[:20] + "…"
    if type(value) is str:
        text = json.dumps(value[:40], ensure_ascii=False)
        text = "".join(c if not 0x7f <= ord(c) <= 0x9f else f"\\u{ord(c):04x}" for c in text)
        return "text", text if len(value) <= 40 else text[:-1] + '…"'
    return ("list", "") if isinstance(value, list) else ("table", "")


def join_path(path: str, name: object) -> str:
    name = str(name)
    if not name or name.startswith("["):
        return path + name
    return f"{path}.{name}" if path else name


def locate_problem(exc: BaseException, path: str = "") -> tuple[str, FieldProblem]:
    """The field path and the problem of the first error in a cattrs error tree."""
    while True:
        if isinstance(exc, FieldProblem):
            return join_path(path, exc.where), exc
        if isinstance(exc, cattrs.ForbiddenExtraKeysError):
            return join_path(path, sorted(map(str, exc.extra_fields))[0]), FieldProblem("unknown_field")
        if isinstance(exc, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
            with_notes, without = exc.group_exceptions()
            if without:
                exc = without[0]
                continue
            exc, note = with_notes[0]
            path = join_path(path, f"[{note.index}]" if isinstance(note, IterableValidationNote)
                         else note.name)
            continue
        if isinstance(exc, KeyError):
            return path, FieldProblem("missing")
        return path, FieldProblem("bad_field")


def _exactly(kind: type, expected: str) -> Any:
    def hook(value: Any, _t: Any) -> Any:
        if type(value) is not kind:
            raise FieldProblem("wrong_type", expected=expected, got=shown_value(value))
        if kind is int and not -SEED_LIMIT < value < SEED_LIMIT:
            raise FieldProblem("too_big")
        return value
    return hook


def make_strict_converter() -> cattrs.Converter:
    import typing

    from cattrs.gen import make_dict_structure_fn
    conv = cattrs.Converter(forbid_extra_keys=True)
    conv.register_structure_hook(int, _exactly(int, "int"))
    conv.register_structure_hook(str, _exactly(str, "str"))
    conv.register_structure_hook(bool, _exactly(bool, "bool"))

    def literal(value: Any, t: Any) -> Any:
        allowed = typing.get_args(t)
        if type(value) not in {type(a) for a in allowed} or value not in allowed:
            raise FieldProblem("not_one_of", value=shown_value(value)[1] or shown_value(value)[0],
                       allowed=tuple(shown_value(a)[1] for a in allowed))
        return value
    conv.register_structure_hook_func(lambda t: typing.get_origin(t) is typing.Literal, literal)

    def tables(cl: type) -> Any:               # an attrs class comes from a table only
        inner = make_dict_structure_fn(cl, conv, _cattrs_forbid_extra_keys=True)

        def hook(value: Any, t: Any) -> Any:
            if not isinstance(value, dict):
                raise FieldProblem("wrong_type", expected="table", got=shown_value(value))
            return inner(value, t)
        return hook
    conv.register_structure_hook_factory(attrs.has, tables)

    def sequence(value: Any, t: Any) -> Any:   # a tuple or list comes from a list only
        if type(value) is not list:
            raise FieldProblem("wrong_type", expected="list", got=shown_value(value))
        args = typing.get_args(t)
        if len(args) == 2 and args[1] is Ellipsis or typing.get_origin(t) is list:
            types = [args[0] if args else Any] * len(value)
        else:
            types = list(args)
            if len(value) != len(types):
                raise FieldProblem("wrong_type", expected="list", got=shown_value(value))
        out = []
        for i, (item, tp) in enumerate(zip(value, types)):
            try:
                out.append(item if tp is Any else conv.structure(item, tp))
            except Exception as exc:  # noqa: BLE001
                where, bad = locate_problem(exc, f"[{i}]")
                raise FieldProblem(bad.code, where, **bad.params) from None
        return tuple(out) if typing.get_origin(t) is tuple else out
    conv.register_structure_hook_func(lambda t: typing.get_origin(t) in (tuple, list), sequence)

    config_table, seat_table = tables(Config), tables(SeatEntry)

    def config(value: Any, t: Any) -> Config:
        if isinstance(value, dict) and "players" not in value:   # never a default count
            raise FieldProblem("missing", "players")
        if isinstance(value, dict):
            try:
                players = _exactly(int, "int")(value["players"], int)
            except FieldProblem as bad:
                raise FieldProblem(bad.code, "players", **bad.params) from None
            if players not in (3, 4, 5):
                raise FieldProblem("not_one_of", "players", value=str(players), allowed=("3", "4", "5"))
        return config_table(value, t)
    conv.register_structure_hook(Config, config)

    def seat(value: Any, t: Any) -> SeatEntry:
        entry = seat_table(value, t)
        if entry.level not in LEVELS:
            raise FieldProblem("not_one_of", "level", value=shown_value(entry.level)[1],
                       allowed=tuple(shown_value(x)[1] for x in LEVELS))
        return entry
    conv.register_structure_hook(SeatEntry, seat)
    return conv


def _list(raw: dict, key: str) -> list:
    value = raw[key]
    if type(value) is not list:
        raise FieldProblem("wrong_type", key, expected="list", got=shown_value(value))
    return value


def _field(raw: dict, key: str, tp: Any) -> Any:
    try:
        return _strict.structure(raw[key], tp)
    except KeyError:
        raise
    except Exception as exc:  # noqa: BLE001
        where, bad = locate_problem(exc, key)
        raise FieldProblem(bad.code, where, **bad.params) from None


def parse(text: str, source: str) -> SaveData:
    """Parse a save file's text, strictly (see above). Raises SaveError with the file,
    the field and the problem."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(source, "invalid_json", detail=exc.msg, line=exc.lineno,
                        col=exc.colno) from None
    except RecursionError:
        raise SaveError(source, "too_deep") from None
    except ValueError as exc:       # Python's limit on the digits of a number
        if not is_digit_limit_error(exc):
            raise
        raise SaveError(source, "huge_number", digits=DIGIT_LIMIT) from None
    if not isinstance(raw, dict):
        raise SaveError(source, "not_object")
    fmt = raw.get("format")
    if type(fmt) is not int:
        raise SaveError(source, "no_format")
    if fmt > FORMAT:
        raise SaveError(source, "newer", fmt=fmt, this=FORMAT)
    if fmt < 1:
        raise SaveError(source, "unknown_format", fmt=fmt)
    fields = {f.name: f for f in attrs.fields(attrs.resolve_types(SaveData))}
    try:
        for key in raw:
            if key not in fields:
                raise FieldProblem("unknown_field", str(key))
        for name, f in fields.items():
            if f.default is attrs.NOTHING and name not in raw:
                raise FieldProblem("missing", name)
        seed = _field(raw, "seed", int)
        if not 0 <= seed < SEED_LIMIT:
            raise FieldProblem("out_of_range", "seed", value=str(seed), lo="0", hi=str(SEED_LIMIT - 1))
        config = _field(raw, "config", Config)
        seats_raw = _list(raw, "seats")
        if len(seats_raw) != config.players:
            raise FieldProblem("seat_count", "seats", n=len(seats_raw), players=config.players)
        seats = tuple(_field({f"seats[{i}]": s}, f"seats[{i}]", SeatEntry)
                      for i, s in enumerate(seats_raw))
        actions_raw = _list(raw, "actions")
        if len(actions_raw) > MAX_ACTIONS:
            raise FieldProblem("too_many_actions", "actions", limit=f"{MAX_ACTIONS:,}")
        actions = []
        for i, entry in enumerate(actions_raw):
            try:
                actions.append(action_from_dict(entry))
            except FieldProblem as bad:
                raise FieldProblem(bad.code, join_path(f"actions[{i}]", bad.where), **bad.params) from None
        values = {"format": fmt, "seed": seed, "config": config, "seats": seats,
                  "actions": tuple(actions)}
        if "lang" in raw:
            values["lang"] = _field(raw, "lang", str)
            if values["lang"] not in LANGS:
                raise FieldProblem("not_one_of", "lang", value=shown_value(values["lang"])[1],
                           allowed=tuple(shown_value(x)[1] for x in LANGS))
        if "ai" in raw:                         # the AI seats' notes (reasons, memory)
            try:
                values["ai"] = _notes_from(raw["ai"], len(actions))
            except ValueError:
                raise FieldProblem("bad_field", "ai") from None
        for name, f in fields.items():          # the rest (finished, card_data, …) by type
            if name not in values and name != "lang" and name in raw:
                values[name] = _field(raw, name, f.type)
        if values.get("ended", "") not in ENDINGS:
            raise FieldProblem("not_one_of", "ended", value=shown_value(values["ended"])[1],
                       allowed=tuple(shown_value(x)[1] for x in ENDINGS))
    except FieldProblem as bad:
        if bad.code == "missing":
            raise SaveError(source, "missing", key=bad.where) from None
        raise SaveError(source, bad.code, field=bad.where, **bad.params) from None
    except Exception:  # noqa: BLE001 - nothing above lets one out; never a traceback
        raise SaveError(source, "unexpected") from None
    return SaveData(**values)


def check_card_data(data: SaveData, cards: CardSet, source: str) -> None:
    """A save played with other card data is refused before any action is replayed
    (a different deck order would give another position, or a refusal deep in the
    action list). A save written before the fingerprint was recorded (card_data "")
    is replayed as it is: if its actions do not fit this card data, the refusal of the
    first one that does not apply says so (`SaveError` "bad_action", with a note)."""
    from rules.cards import fingerprint
    now = fingerprint(cards)
    if data.card_data and data.card_data != now:
        raise SaveError(source, "other_cards", cards=cards.source,
                        saved=data.card_data[:19], now=now[:19])


def read(path: Path) -> SaveData:
    """Read and parse a save (or replay) file: only a regular file of at most MAX_BYTES
    (`rules.files.read_bounded`: no folder, pipe or device is ever read)."""
    try:
        data = read_bounded(path, MAX_BYTES)
    except FileProblem as exc:
        if exc.code == "os_error":
            err = exc.params["os_error"]
            raise SaveError(path, "unreadable", detail=err.strerror or err, os_error=err) from None
        raise SaveError(path, exc.code, **exc.params) from None
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
    check_card_data(data, cards, source)
    try:
        state, events = new_game(data.config, cards, data.seed)
    except ValueError as exc:
        raise SaveError(source, "cannot_start", detail=exc) from None
    steps = []
    for i, action in enumerate(data.actions[:upto]):
        try:
            state, ev = apply(state, action)
        except IllegalAction as exc:
            raise SaveError(source, "bad_action", exc, n=i + 1, action=type(action).__name__,
                            unrecorded=not data.card_data) from None
        steps.append((action, state, ev))
    return events, steps


# --------------------------------------------------------------------- locks, games, clean-up

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
            # a game ended by its players' agreement is finished in any phase
            phase = "over" if data.finished else str(state.phase)
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


_strict = make_strict_converter()
