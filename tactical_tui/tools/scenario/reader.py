"""Reading the tables of a scenario file: `Reader` (typed access to one table, with
errors that name the file, the place and the field), `entry_places` (where the n-th
``[[section]]`` entry is, by line) and `read_chance` (the ``[chance]`` table: the scripted
dice and chips, read alike for a start position and a perft expectation)."""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from rules.state import Script

from tactical_tui.tools.scenario.format import CHIPS, ScenarioError, error_at, kind_name, show


def _header_lines(text: str, section: str) -> list[int]:
    """Line numbers of the `[[section]]` headers, to point at the n-th entry."""
    pat = re.compile(r"^\s*\[\[\s*" + re.escape(section) + r"\s*\]\]")
    return [i + 1 for i, line in enumerate(text.splitlines()) if pat.match(line)]


def entry_places(text: str, section: str, count: int) -> list[str]:
    lines = _header_lines(text, section)
    out = []
    for i in range(count):
        where = f" (line {lines[i]})" if len(lines) == count else ""
        out.append(f"[[{section}]] #{i + 1}{where}")
    return out


class Reader:
    """Typed access to one table of the scenario, with errors that name the place."""

    def __init__(self, path: str, place: str, table: Any, allowed: Iterable[str]) -> None:
        if not isinstance(table, dict):
            raise error_at(path, place, "must be a table")
        self.path, self.place, self.table = path, place, table
        self.allowed = tuple(allowed)
        unknown = [k for k in table if k not in self.allowed]
        if unknown:
            raise self.error(f"unknown field {unknown[0]!r} (fields: {', '.join(self.allowed)})")

    def error(self, problem: str, key: Optional[str] = None) -> ScenarioError:
        return error_at(self.path, self.place + (f", {key}" if key else ""), problem)

    def has(self, key: str) -> bool:
        return key in self.table

    def get(self, key: str, kind: type, default: Any = None, lo: Optional[int] = None,
            hi: Optional[int] = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if type(value) is not kind:
            raise self.error(f"must be {kind_name(kind)}, not {show(value)}", key)
        if kind is int and lo is not None and not lo <= value <= (hi if hi is not None else lo):
            raise self.error(f"must be between {lo} and {hi}, not {value}", key)
        return value

    def strings(self, key: str, default: Any = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, list) or not all(type(x) is str for x in value):
            raise self.error(f"must be a list of strings, not {show(value)}", key)
        return tuple(value)

    def ints(self, key: str, lo: int, hi: int, default: Any = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, list) or not all(type(x) is int for x in value):
            raise self.error(f"must be a list of integers, not {show(value)}", key)
        bad = [x for x in value if not lo <= x <= hi]
        if bad:
            raise self.error(f"{bad[0]} is not between {lo} and {hi}", key)
        return tuple(value)


def read_chance(path: str, raw: dict) -> tuple[Script, tuple[Optional[int], ...]]:
    """[chance]: the scripted dice and chips, and for each die the seat it is for
    (None when the file does not say: `dice = [4, { seat = 1, value = 3 }]`)."""
    chance = Reader(path, "[chance]", raw.get("chance", {}), ("dice", "chips"))
    dice_raw = chance.table.get("dice", [])
    if not isinstance(dice_raw, list):
        raise chance.error("must be a list of die results 1–6 (or { seat, value } tables)",
                           "dice")
    dice, seats = [], []
    for k, d in enumerate(dice_raw):
        seat = None
        if isinstance(d, dict):
            dr = Reader(path, f"[chance] dice[{k}]", d, ("seat", "value"))
            if not dr.has("seat") or not dr.has("value"):
                raise dr.error("a die for a seat is { seat = N, value = 1–6 }")
            seat = dr.get("seat", int, None, 0, 4)
            d = dr.get("value", int, None, 1, 6)
        elif type(d) is not int or not 1 <= d <= 6:
            raise chance.error(f"{show(d)} is not a die result 1–6 (or a "
                               "{ seat, value } table)", "dice")
        dice.append(d)
        seats.append(seat)
    chips_raw = chance.table.get("chips", [])
    if not isinstance(chips_raw, list):
        raise chance.error("must be a list of chips", "chips")
    chips = []
    for c in chips_raw:
        c = str(c) if type(c) is int else c
        if c not in CHIPS:
            raise chance.error(f"{show(c)} is not a chip (chips: 0, 1, 2, \"crit\", "
                               "\"miss\")", "chips")
        chips.append(c)
    return Script(dice=tuple(dice), chips=tuple(chips)), tuple(seats)
