"""Comparisons: how an expected value from a scenario file matches an actual value of
the game — `plain` (a state value as plain data), `matches` (tables match on the keys
they give, "none" matches None, lists item by item) and the format-v2 comparison tables
(`OPS`: any_order, contains, length, not, at_least, at_most), with `value_problem`, which
says why an expected value is malformed. Read by the loader (to refuse a malformed
value) and by the runner (to compare)."""

from __future__ import annotations

from typing import Any, Optional

import attrs

from rules.cards import CardSet, Stats

from tactical_tui.tools.scenario.format import NONE, show


OPS = ("any_order", "contains", "length", "not", "at_least", "at_most")


def is_op(value: Any) -> bool:
    """A comparison table: every key is a comparison (`{ at_least = 2 }`)."""
    return isinstance(value, dict) and bool(value) and all(k in OPS for k in value)


def value_problem(value: Any) -> Optional[str]:
    """Why an expected value is malformed (None: it is fine). A table that mixes
    comparisons with other keys is refused: it would silently match as a partial table."""
    if isinstance(value, dict):
        ops = [k for k in value if k in OPS]
        if ops and len(ops) != len(value):
            other = next(k for k in value if k not in OPS)
            return (f"a comparison table has only comparisons ({', '.join(OPS)}), "
                    f"not {other!r}")
        for k, v in value.items():
            if k in ("at_least", "at_most") and ops and (type(v) is not int):
                return f"{k} needs a number, not {show(v)}"
            if k == "any_order" and ops and not isinstance(v, list):
                return f"any_order needs a list, not {show(v)}"
            if k == "length" and ops and not (type(v) is int or is_op(v)):
                return f"length needs a number or a comparison, not {show(v)}"
            problem = value_problem(v)
            if problem:
                return problem
    if isinstance(value, list):
        for v in value:
            problem = value_problem(v)
            if problem:
                return problem
    return None


def _same_items(expected: list, actual: list) -> bool:
    """The same items in any order (each expected item matched to its own actual item)."""
    if len(expected) != len(actual):
        return False

    def place(k: int, used: frozenset) -> bool:
        if k == len(expected):
            return True
        return any(j not in used and matches(expected[k], a) and place(k + 1, used | {j})
                   for j, a in enumerate(actual))
    return place(0, frozenset())


def _op_holds(op: str, want: Any, actual: Any) -> bool:
    if op == "not":
        return not matches(want, actual)
    if op == "any_order":
        return isinstance(actual, list) and _same_items(want, actual)
    if op == "length":
        return isinstance(actual, (list, str)) and matches(want, len(actual))
    if op in ("at_least", "at_most"):
        if type(actual) is not int:
            return False
        return actual >= want if op == "at_least" else actual <= want
    # contains: an item of a list (a list of items: each of them), a piece of a string
    if isinstance(actual, str):
        return isinstance(want, str) and want in actual
    if not isinstance(actual, list):
        return False
    wanted = want if isinstance(want, list) and not any(isinstance(a, list) for a in actual) \
        else [want]
    return all(any(matches(w, a) for a in actual) for w in wanted)


def plain(value: Any) -> Any:
    """A state value as plain data (dicts, lists, str, int, bool, None)."""
    if isinstance(value, Stats):
        return dict(value.items())
    if isinstance(value, CardSet):
        return "<cards>"
    if attrs.has(type(value)):
        return {f.name: plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def matches(expected: Any, actual: Any) -> bool:
    """Expected (from TOML) against actual plain data: tables match on the keys they
    give; "none" matches None; lists match item by item."""
    if expected == NONE and actual is None:
        return True
    if is_op(expected):
        return all(_op_holds(op, want, actual) for op, want in expected.items())
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k])
                                                for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and \
            all(matches(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, str) and isinstance(actual, int):
        return False
    return expected == actual
