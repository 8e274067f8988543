"""Writing a position out as a scenario file (the replay viewer's and `tactical simulate
--export`'s export): `scenario_text` (format v2: the whole position in ``[position]``,
the card data when it is not the shipped set, and expectations at the start to edit),
TOML writing (`toml_table`, `card_data_lines`), and the safe file writing
(`write_new_file`, `writable_target`: atomic, never replacing anything but a regular
file) with its messages (`EXPORT_TEXT`, `ExportError`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from rules import legal_actions, pending
from rules.cards import CardSet, Requirements, Stats, default_cards
from rules.state import GameState

from tactical_tui.tools.scenario.compare import plain
from tactical_tui.tools.scenario.format import CARD_SECTIONS
from tactical_tui.tools.scenario.positions import position_data


# ------------------------------------------------------------------ writing TOML

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any) -> str:
    """One TOML value in inline form. Strings are JSON-escaped (valid TOML basic
    strings: no raw newline or control character can reach the file)."""
    if value is None:
        raise ValueError("TOML has no null")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError(f"{value} does not fit a TOML integer")
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(str(k))} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    raise ValueError(f"cannot write {type(value).__name__} as TOML")


def _is_table(v: Any) -> bool:
    return isinstance(v, dict)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def toml_table(name: str, table: dict, array: bool = False) -> list[str]:
    """`table` as TOML lines under the header `[name]` (`[[name]]` for an item of an array
    of tables): plain values first, then sub-tables and arrays of tables."""
    lines = [f"[[{name}]]" if array else f"[{name}]"]
    for k, v in table.items():
        if not (_is_table(v) or _is_table_array(v)):
            lines.append(f"{_toml_key(str(k))} = {_toml_value(v)}")
    for k, v in table.items():
        sub = f"{name}.{_toml_key(str(k))}"
        if _is_table(v):
            lines += [""] + toml_table(sub, v)
        elif _is_table_array(v):
            for item in v:
                lines += [""] + toml_table(sub, item, array=True)
    return lines


# ------------------------------------------------------------------- exporting a position

EXPORT_TEXT: dict[str, dict[str, str]] = {
    "written": {"ja": "局面をシナリオとして書き出しました: {path}",
                "en": "wrote the position as a scenario: {path}"},
    "overwritten": {"ja": "局面をシナリオとして書き出しました（既存のファイルを上書き）: {path}",
                    "en": "wrote the position as a scenario (replaced the existing file): {path}"},
    "exists": {"ja": "書き出せません: {path} はすでにあります（上書きするなら --force）",
               "en": "not written: {path} already exists (add --force to replace it)"},
    "failed": {"ja": "書き出せません: {path}: {detail}", "en": "not written: {path}: {detail}"},
    "not_regular": {"ja": "書き出せません: {path} は通常のファイルではなく{kind}です（置き換えません）",
                    "en": "not written: {path} is {kind}, not a regular file (never replaced)"},
    "step": {"ja": "--step は 0 から {n} まで（{given} は範囲外）",
             "en": "--step must be from 0 to {n} (not {given})"},
}


def export_message(key: str, lang: str, **kw: Any) -> str:
    table = EXPORT_TEXT[key]
    return table[lang if lang in table else "en"].format(**kw)


class ExportError(Exception):
    """A position that could not be written; `key` and `params` make the message."""

    def __init__(self, key: str, **params: Any) -> None:
        self.key, self.params = key, params
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        params = dict(self.params)
        if isinstance(params.get("detail"), OSError):
            from tactical_tui.text.catalog import os_error_text
            params["detail"] = os_error_text(params["detail"], lang)
        if "kind" in params:
            from tactical_tui.text.catalog import file_kind_text
            params["kind"] = file_kind_text(params["kind"], lang)
        return export_message(self.key, lang, **params)


def scenario_text(state: GameState, name: str = "exported position",
                  description: str = "") -> str:
    """A scenario file (format v2) whose start is exactly `state`: the whole position in
    `[position]`, and expectations at the start — the pending decision and the number of
    legal actions — as a starting point to edit. The legal actions are listed in comments,
    ready to become `[[action]]` tables."""
    shipped = state.cards is default_cards() or state.cards == default_cards()
    d = pending(state)
    legal = legal_actions(state)
    head = {"version": 2, "name": name, "description": description, "rule": ""}
    if not shipped:
        head["cards"] = "inline"
    lines = ["# A position exported by TACTICAL (docs/scenarios.md, \"Exported positions\").",
             "# Run it: tactical check THIS_FILE --explain",
             ""]
    lines += toml_table("scenario", head)
    lines += ["", "# The whole position: every seat, the decks in order, the discard piles, the",
              "# bid or battle state and the random generator. Edit with care.", ""]
    lines += toml_table("position", position_data(state))
    if not shipped:
        lines += ["", "# The card data of the game (not the shipped set): the whole of it, as in a",
                  "# cards.toml ([scenario] cards = \"inline\": nothing shipped is added).", ""]
        lines += card_data_lines(state.cards)
    lines += ["", "# Add [[action]] tables here to play on from the position, and [chance] to",
              "# script the dice and chips they need. The legal actions now:"]
    for a in legal[:60]:
        fields = {k: v for k, v in plain(a).items() if v is not None}   # left out = None
        lines.append("#   " + _toml_value({"type": type(a).__name__, **fields}))
    if len(legal) > 60:
        lines.append(f"#   … and {len(legal) - 60} more")
    lines += ["", "[[expect]]", "at = 0", f"\"pending.kind\" = {_toml_value(d.kind)}",
              f"\"pending.seats\" = {_toml_value(list(d.seats))}",
              "", "[[expect]]", "at = 0", f"legal_count = {len(legal)}", ""]
    return "\n".join(lines)


def _card_plain(item: Any) -> Any:
    """Card data (rules/cards.py) as the plain values of its cards.toml schema."""
    if isinstance(item, Stats):
        return item.nonzero()
    if isinstance(item, Requirements):
        return item.as_dict()
    if attrs.has(type(item)):
        return {f.name: _card_plain(getattr(item, f.name)) for f in attrs.fields(type(item))
                if not f.name.startswith("_") and f.name not in ("source", "data_hash")
                and getattr(item, f.name) is not None}
    if isinstance(item, tuple):
        return [_card_plain(x) for x in item]
    return item


def card_data_lines(cards: CardSet) -> list[str]:
    """The whole card set as cards.toml text (array tables, skills as [[…skills]]), read
    back by `rules.cards.parse_cards` as an equal card set."""
    lines: list[str] = []
    for section, attr in zip(CARD_SECTIONS, ("families", "series", "races", "guilds",
                                              "defense", "attack")):
        for item in getattr(cards, attr):
            entry = _card_plain(item)
            skills = entry.pop("skills", None)
            lines.append(f"[[{section}]]")
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in entry.items()]
            for sk in skills or ():
                lines.append(f"[[{section}.skills]]")
                lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in sk.items()]
            lines.append("")
    return lines


def write_new_file(path: str | Path, text: str, overwrite: bool = False) -> bool:
    """Write `text` to `path` atomically (a temporary file in the same folder, flushed
    and synced, then moved into place). An existing file is never replaced unless
    `overwrite`; returns True when one was replaced. ExportError for any problem.

    Only a regular file (or a symbolic link, which is replaced itself, never what it
    points to) is ever replaced: a folder, a named pipe, a device or a socket at `path`
    is refused even with `overwrite` — `--export /dev/null --force`, run as root, made
    /dev/null a regular file."""
    import os
    import tempfile
    target = Path(path)
    existed = _replaceable(path) is not None
    if existed and not overwrite:
        raise ExportError("exists", path=str(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".toml", dir=target.parent or ".")
    except OSError as exc:
        raise ExportError("failed", path=str(target), detail=exc) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)        # a normal file, not mkstemp's private 0600
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if overwrite:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)        # fails if the file appeared meanwhile
            except FileExistsError:
                raise ExportError("exists", path=str(target)) from None
            except OSError:                 # no hard links here: check, then move
                if os.path.lexists(target):
                    raise ExportError("exists", path=str(target)) from None
                os.replace(tmp, target)
    except OSError as exc:
        raise ExportError("failed", path=str(target), detail=exc) from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return existed


def _replaceable(path: str | Path):
    """The lstat of what is at `path` (None: nothing), if `write_new_file` may replace
    it: a regular file or a symbolic link. ExportError for anything else, for a folder's
    name (ending in a slash) and for a name that cannot be looked up (too long, a NUL
    byte, no access)."""
    import errno
    import os
    import stat
    from rules.files import file_kind
    target = Path(path)
    if str(path).endswith(("/", os.sep)) or str(path) in ("", ".", ".."):
        # a folder's name (`--export out/new/`): Path() drops the slash, and a file
        # named `new` was written
        raise ExportError("failed", path=str(path),
                          detail=OSError(errno.EISDIR, "it is a folder, not a file"))
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        if isinstance(exc, ValueError):
            exc = OSError(22, "invalid file name")
        raise ExportError("failed", path=str(target), detail=exc) from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise ExportError("not_regular", path=str(target), kind=file_kind(st.st_mode))
    return st


def writable_target(path: str | Path) -> None:
    """Raise the ExportError that `write_new_file(path, ..., overwrite=True)` would raise
    for what is at `path` or its folder — said before a long run, not after it."""
    import os
    import stat
    target = Path(path)
    _replaceable(path)
    folder = target.parent
    try:
        fst = os.stat(folder)
    except OSError as exc:
        raise ExportError("failed", path=str(target), detail=exc) from None
    if not stat.S_ISDIR(fst.st_mode):
        raise ExportError("failed", path=str(target), detail=OSError(20, "not a folder"))


def export_position(state: GameState, path: str | Path, name: str = "exported position",
                    description: str = "", overwrite: bool = False) -> bool:
    """Write `state` as a scenario file (see `scenario_text`, `write_new_file`)."""
    return write_new_file(path, scenario_text(state, name, description), overwrite)
