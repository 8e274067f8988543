"""The ``[[action]]`` and ``[[expect]]`` tables: the steps a scenario plays (`read_steps`:
actions of rules.actions, some expected to be refused) and the expectations it checks
(`read_expects`: state paths such as ``seats[1].hp``, events, legal and illegal actions,
and the format-v2 kinds — legal_count, legal_set, perft, event_order, observe), each
checked against the types of the state (or of an observation) when the file is read."""

from __future__ import annotations

import re
import typing
from typing import Any, Optional

import attrs

from rules.cards import STATS
from rules.state import GameState, SeatState

from tactical_tui.tools.scenario.compare import OPS, is_op, value_problem
from tactical_tui.tools.scenario.format import (ACTIONS, DERIVED_SEAT, EVENTS, PERFT_DEPTH,
                                                V2_KINDS, Expect, Step, error_at, kind_name,
                                                show)
from tactical_tui.tools.scenario.reader import Reader, entry_places, read_chance


# ----------------------------------------------------------------------------- actions

def _field_types(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in attrs.fields(cls)}


def _optional_of(tp: Any) -> Any:
    """X for Optional[X] (a field that may be left out, e.g. StartAttack's skill), else None."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) is typing.Union and type(None) in args and len(args) == 2:
        return next(a for a in args if a is not type(None))
    return None


def _action(path: str, place: str, entry: Any, players: int,
            meta: tuple[str, ...]) -> tuple[Any, Reader]:
    """The action an action table describes (type = the class name, then its fields)."""
    if not isinstance(entry, dict):
        raise error_at(path, place, "must be a table")
    kind = entry.get("type")
    if kind is None:
        raise error_at(path, place, "missing field 'type' (an action class of rules.actions: "
                                    f"{', '.join(ACTIONS)})")
    if kind not in ACTIONS:
        raise error_at(path, place, f"unknown action type {show(kind)} "
                                    f"(types: {', '.join(ACTIONS)})")
    cls = ACTIONS[kind]
    types = _field_types(cls)
    r = Reader(path, f"{place} ({kind})", entry, ("type",) + meta + tuple(types))
    missing = [f for f in types if f not in entry and _optional_of(types[f]) is None]
    if missing:
        raise r.error(f"missing field {missing[0]!r} ({kind} takes {', '.join(types)})")
    values = {}
    for name, tp in types.items():
        if name not in entry:           # an optional field left out: its default
            continue
        tp = _optional_of(tp) or tp
        value = entry[name]
        allowed = typing.get_args(tp) if typing.get_origin(tp) is typing.Literal else None
        base = str if allowed else tp
        if type(value) is not base:
            raise r.error(f"must be {kind_name(base)}, not {show(value)}", name)
        if allowed and value not in allowed:
            raise r.error(f"must be one of {', '.join(map(repr, allowed))}", name)
        values[name] = value
    if not 0 <= values["seat"] < players:
        raise r.error(f"there is no seat {values['seat']} (seats 0..{players - 1})", "seat")
    return cls(**values), r


def read_steps(path: str, text: str, raw: list, players: int) -> tuple[Step, ...]:
    places = entry_places(text, "action", len(raw))
    out = []
    for i, entry in enumerate(raw):
        action, r = _action(path, places[i], entry, players, ("illegal", "reason_contains", "code"))
        illegal = r.get("illegal", bool, False)
        reason = r.get("reason_contains", str)
        code = r.get("code", str)
        if (reason is not None or code is not None) and not illegal:
            raise r.error("reason_contains and code are for actions with illegal = true")
        out.append(Step(i + 1, places[i], action, illegal, reason, code))
    return tuple(out)


# ------------------------------------------------------------------------ expectations

def _flatten(table: dict, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and not is_op(v) and not any(x in OPS for x in v):
            out.extend(_flatten(v, key))
        else:
            out.append((key, v))
    return out


def _tokens(path: str) -> tuple:
    out: list = []
    for part in path.split("."):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)?((?:\[\d+\])*)", part)
        if not m or (not m.group(1) and not m.group(2)):
            if part.isdigit():
                out.append(int(part))
                continue
            raise ValueError(f"{path!r} is not a path like seats[1].hp")
        if m.group(1):
            out.append(m.group(1))
        out.extend(int(x) for x in re.findall(r"\[(\d+)\]", m.group(2)))
    return tuple(out)


def show_path(tokens: tuple) -> str:
    s = ""
    for t in tokens:
        s += f"[{t}]" if isinstance(t, int) else (f".{t}" if s else t)
    return s


def _check_path(tokens: tuple, root: type = GameState) -> Optional[str]:
    """Why `tokens` is not a path of the state (or of `root`, e.g. an Observation;
    None: it is)."""
    if root is not GameState:
        return _walk_type(tokens, root)
    if tokens and tokens[0] == "pending":
        if len(tokens) == 1 or (len(tokens) == 2 and tokens[1] in ("kind", "seats", "optional")) \
                or (len(tokens) == 3 and tokens[1] in ("seats", "optional")
                    and isinstance(tokens[2], int)):
            return None
        return "pending has kind, seats and optional"
    if tokens and tokens[0] in ("cards", "rng", "config"):
        return f"{tokens[0]!r} is not part of the position a scenario checks"
    if len(tokens) >= 3 and tokens[0] == "seats" and isinstance(tokens[1], int) \
            and tokens[2] in DERIVED_SEAT:
        rest = tokens[3:]
        if tokens[2] == "final_stats":
            if not rest or (len(rest) == 1 and rest[0] in STATS):
                return None
            return f"final_stats has {', '.join(STATS)}"
        if tokens[2] == "violations" and (not rest or (len(rest) == 1 and isinstance(rest[0], int))):
            return None
        return None if not rest else f"{tokens[2]} is a number"
    return _walk_type(tokens, GameState)


def _walk_type(tokens: tuple, root: type) -> Optional[str]:
    tp: Any = root
    for k, t in enumerate(tokens):
        tp = _unoptional(tp)
        where = show_path(tokens[:k]) or ("the state" if root is GameState else
                                          f"the {root.__name__.lower()}")
        if attrs.has(tp):
            names = [f.name for f in attrs.fields(tp) if f.name != "cards"]
            extra = [] if root is not GameState else (
                ["pending"] if tp is GameState else (list(DERIVED_SEAT) if tp is SeatState else []))
            if not isinstance(t, str) or t not in names:
                return f"{where} has no field {t!r} (fields: {', '.join(names + extra)})"
            tp = _field_types(tp)[t]
        elif typing.get_origin(tp) is tuple:
            if not isinstance(t, int):
                return f"{where} is a list: index it with [n]"
            args = typing.get_args(tp)
            tp = args[0] if len(args) == 2 and args[1] is Ellipsis else (
                args[t] if t < len(args) else Any)
        else:
            return f"{where} has no parts"
    return None


def _unoptional(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType", None)) \
            and len(args) == 1:
        return args[0]
    return tp


def read_expects(path: str, text: str, raw: list, steps: int, players: int) -> tuple[Expect, ...]:
    places = entry_places(text, "expect", len(raw))
    out = []
    for i, entry in enumerate(raw):
        place = places[i]
        if not isinstance(entry, dict):
            raise error_at(path, place, "must be a table")
        at = entry.get("at")
        if at is not None and (type(at) is not int or not 0 <= at <= steps):
            raise error_at(path, place + ", at", f"must be an action number from 0 to {steps} "
                                                f"(0 = before the first action), not {show(at)}")
        body = {k: v for k, v in entry.items() if k != "at"}
        if "illegal" in body:
            extra = [k for k in body if k not in ("illegal", "reason_contains", "code")]
            if extra:
                raise error_at(path, place, f"unknown field {extra[0]!r} (an illegal-action "
                                            "expectation has illegal, reason_contains, code, at)")
            action, _ = _action(path, place + ", illegal", body["illegal"], players, ())
            r = Reader(path, place, body, ("illegal", "reason_contains", "code"))
            out.append(Expect(i + 1, place, "illegal", at, action=action,
                              reason=r.get("reason_contains", str, ""), code=r.get("code", str, "")))
        elif any(k in body for k in V2_KINDS):
            out.append(_expect_v2(path, place, i + 1, at, body, players))
        elif "event" in body:
            name = body.pop("event")
            if name not in EVENTS:
                raise error_at(path, place + ", event", f"unknown event {show(name)} "
                                                        f"(events: {', '.join(sorted(EVENTS))})")
            times = body.pop("times", None)
            if times is not None and (type(times) is not int or times < 0):
                raise error_at(path, place + ", times", "must be a whole number ≥ 0")
            fields = [f.name for f in attrs.fields(EVENTS[name])]
            for k in body:
                if k not in fields:
                    raise error_at(path, place, f"event {name} has no field {k!r} (fields: "
                                                f"{', '.join(fields) or 'none'}; also at, times)")
            out.append(Expect(i + 1, place, "event", at, name=name, fields=body, times=times))
        elif "legal" in body:
            name = body.pop("legal")
            if name not in ACTIONS:
                raise error_at(path, place + ", legal", f"unknown action type {show(name)} "
                                                        f"(types: {', '.join(ACTIONS)})")
            modes = [m for m in ("exactly", "includes", "excludes") if m in body]
            extra = [k for k in body if k not in ("exactly", "includes", "excludes")]
            if extra or len(modes) != 1:
                raise error_at(path, place, "a legal-actions expectation has legal = \"Type\" "
                                            "and one of exactly, includes, excludes (a list of "
                                            "tables)")
            items = body[modes[0]]
            fields = [f.name for f in attrs.fields(ACTIONS[name])]
            if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
                raise error_at(path, place + ", " + modes[0], "must be a list of tables of fields")
            for x in items:
                for k in x:
                    if k not in fields:
                        raise error_at(path, place + ", " + modes[0],
                                       f"{name} has no field {k!r} (fields: {', '.join(fields)})")
            out.append(Expect(i + 1, place, "legal", at, name=name, fields=items, mode=modes[0]))
        else:
            if not body:
                raise error_at(path, place, "expects nothing: give state paths (seats[1].hp = 4), "
                                            "an event, legal or illegal")
            out.append(Expect(i + 1, place, "state", at, paths=_paths(path, place, body)))
    return tuple(out)


def _paths(path: str, place: str, body: dict, root: type = GameState) -> tuple:
    """(written path, tokens, expected value) for each path of an expectation."""
    paths = []
    for key, value in _flatten(body):
        try:
            tokens = _tokens(key)
        except ValueError as exc:
            raise error_at(path, place, str(exc)) from None
        problem = _check_path(tokens, root)
        if problem is None:
            problem = value_problem(value)
        if problem:
            raise error_at(path, place + f", {key}", problem)
        paths.append((key, tokens, value))
    return tuple(paths)


def _event_pattern(path: str, place: str, entry: Any) -> tuple[str, dict]:
    """An `{ event = "Name", field = value, … }` table: the event class and the fields."""
    if not isinstance(entry, dict) or "event" not in entry:
        raise error_at(path, place, "must be a table { event = \"Name\", field = value, … }")
    body = dict(entry)
    name = body.pop("event")
    if name not in EVENTS:
        raise error_at(path, place + ", event", f"unknown event {show(name)} "
                                                f"(events: {', '.join(sorted(EVENTS))})")
    fields = [f.name for f in attrs.fields(EVENTS[name])]
    for k, v in body.items():
        if k not in fields:
            raise error_at(path, place, f"event {name} has no field {k!r} (fields: "
                                        f"{', '.join(fields) or 'none'})")
        problem = value_problem(v)
        if problem:
            raise error_at(path, place + f", {k}", problem)
    return name, body


def _expect_v2(path: str, place: str, number: int, at: Optional[int], body: dict,
               players: int) -> Expect:
    kinds = [k for k in V2_KINDS if k in body]
    if len(kinds) > 1:
        raise error_at(path, place, f"one kind of expectation per [[expect]]: {kinds[0]} or "
                                    f"{kinds[1]}, not both")
    kind = kinds[0]
    if kind == "observe":
        r = Reader(path, place, {"observe": body["observe"]}, ("observe",))
        seat = r.get("observe", int, None, 0, players - 1)
        rest = {k: v for k, v in body.items() if k != "observe"}
        if not rest:
            raise error_at(path, place, "give paths of the observation, e.g. "
                                        "\"seats[1].equipped\" = \"hidden\"")
        from rules.observe import Observation
        return Expect(number, place, "observe", at, seat=seat,
                      paths=_paths(path, place, rest, Observation))
    r = Reader(path, place, body, V2_KINDS[kind])
    if kind == "legal_count":
        value = body["legal_count"]
        problem = _count_problem(value)
        if problem:
            raise r.error(problem, "legal_count")
        return Expect(number, place, kind, at, seat=r.get("seat", int, None, 0, players - 1),
                      value=value)
    if kind == "legal_set":
        items = body["legal_set"]
        if not isinstance(items, list):
            raise r.error("must be a list of action tables ({ type = \"Move\", seat = 0, "
                          "to = 2 }, …)", "legal_set")
        actions = tuple(_action(path, f"{place}, legal_set[{k}]", x, players, ())[0]
                        for k, x in enumerate(items))
        return Expect(number, place, kind, at, seat=r.get("seat", int, None, 0, players - 1),
                      actions=actions)
    if kind == "perft":
        depth = r.get("perft", int, None, 1, PERFT_DEPTH)
        if not r.has("count"):
            raise r.error("give the expected number of lines of play: count = N")
        problem = _count_problem(body["count"])
        if problem:
            raise r.error(problem, "count")
        until = r.get("until", str, "")
        if until and until not in EVENTS:
            raise r.error(f"unknown event {show(until)} (events: {', '.join(sorted(EVENTS))})",
                          "until")
        script = None
        if r.has("dice") or r.has("chips"):
            script, seats = read_chance(path, {"chance": {k: body[k] for k in ("dice", "chips")
                                                                  if k in body}})
            if any(x is not None for x in seats):
                raise r.error("a perft's dice are plain results 1–6 (each line of play "
                              "uses them on its own)", "dice")
        return Expect(number, place, kind, at, depth=depth, until=until, value=body["count"],
                      script=script)
    seq = body["event_order"]
    if not isinstance(seq, list) or not seq:
        raise r.error("must be a list of event tables, first to last", "event_order")
    sequence = tuple(_event_pattern(path, f"{place}, event_order[{k}]", x)
                     for k, x in enumerate(seq))
    then_none = (_event_pattern(path, f"{place}, then_none", body["then_none"])
                 if "then_none" in body else None)
    return Expect(number, place, kind, at, sequence=sequence, then_none=then_none)


def _count_problem(value: Any) -> Optional[str]:
    if type(value) is int and value >= 0:
        return None
    if is_op(value):
        return value_problem(value)
    return f"must be a whole number ≥ 0 or a comparison such as {{ at_least = 2 }}, " \
           f"not {show(value)}"
