"""The wire form of what a seat is sent (docs/PROTOCOL.md "Update"), and of actions.

JSON values only: an attrs value is an object of its fields; a place that holds one of
several classes (an event, an action) carries the class name under "type"; tuples are
lists. Encoding is done by hand (it follows the values, so an event is written as its
own class, not as the field's declared one); decoding is strict, with the converter the
save files use (`saves._make_strict`: every field exactly its type — no "4" or 4.0 for
4, no 1 for true — no key missing that has no default, no key extra), extended here for
the table's messages. A problem is a `WireError` naming the field.

    update_to_wire(update) -> dict        update_from_wire(obj) -> Update
    action_to_wire(action) -> dict        action_from_wire(obj) -> Action

The codec is the same on both ends: the server encodes only what `LiveTable.subscribe`
gave the connection's seat; the client decodes with the same strictness.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import attrs
from cattrs.gen import make_dict_structure_fn, override

from ai.normal import Reason
from rules import events as E
from rules.actions import Action
from rules.observe import Observation, SeatView
from rules.engine import Decision
from rules.state import Active, BattleState, Config

from tactical_tui.table.saves import FieldProblem, join_path, locate_problem, make_strict_converter, shown_value, action_from_dict, action_to_dict
from tactical_tui.table.live import LogEntry, Refused, Turn, Update

__all__ = ["WireError", "update_to_wire", "update_from_wire", "action_to_wire",
           "action_from_wire", "observation_to_wire", "observation_from_wire",
           "refused_to_wire", "refused_from_wire", "plain_to_wire", "plain_from_wire",
           "EVENT_TYPES"]

# Every event class, by name (the "type" of an event on the wire).
EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in vars(E).values()
    if isinstance(cls, type) and issubclass(cls, E.Event) and cls is not E.Event}

# Fields the rules leave None although annotated otherwise: AttackStarted's skill when the
# range skill is declared after the card (RULINGS R22, rules.actions.StartAttack).
_NULLABLE = {"AttackStarted": ("skill",)}

# Frozen values sent again and again (their encodings are cached, see _encoder).
_CACHED = frozenset({Observation, SeatView, BattleState, Config, Decision, LogEntry}
                    | set(EVENT_TYPES.values()))

# Nesting deeper than this is not a plain value of a refusal or a reason.
_MAX_DEPTH = 8


class WireError(ValueError):
    """A value that is not the wire form it should be. `where`: the field's path
    (``observation.seats[2].hp``), `code` what is wrong (a saves.SAVE_PROBLEMS code:
    wrong_type, unknown_field, missing, not_one_of, unknown_action, bad_field, …);
    `str()` says both, in English (for logs: a client translates the code)."""

    def __init__(self, where: str, code: str, **params: Any) -> None:
        self.where, self.code, self.params = where, code, params
        detail = ""
        if "got" in params and "expected" in params:
            kind, shown = params["got"]
            detail = f": {kind} {shown} is not {params['expected']}".replace("  ", " ")
        elif "name" in params:
            detail = f": {params['name'][1] or params['name'][0]}"
        elif "value" in params:
            detail = f": {params['value']}"
        super().__init__(f"{where or 'the value'}: {code}{detail}")


# ------------------------------------------------------------------------- encoding

_FIELDS: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    got = _FIELDS.get(cls)
    if got is None:
        got = _FIELDS[cls] = tuple(f.name for f in attrs.fields(cls))
    return got


# The encoder of each class, made on first use (no isinstance chain per value), and the
# encodings of the frozen values a table sends again and again (a seat's public facts
# are the same object until that seat changes, a log entry goes to every seat): kept by
# identity, with the value itself, so an id is never reused while cached. The encoded
# values are shared: never change what update_to_wire returns.
_ENC: dict[type, Any] = {}
_CACHE: dict[int, tuple] = {}
_CACHE_MAX = 8192


def _out(value: Any) -> Any:
    """Any value of an Update as JSON values."""
    fn = _ENC.get(type(value))
    return (fn or _encoder(type(value)))(value)


def _same(value: Any) -> Any:
    return value


def _float(value: float) -> float:
    if not math.isfinite(value):
        raise WireError("", "bad_field")
    return value


def _seq(value: Any) -> list:
    return [_out(v) for v in value]


def _encoder(cls: type):
    if cls in (type(None), bool, int, str):
        fn = _same
    elif cls is float:
        fn = _float
    elif cls in (tuple, list):
        fn = _seq
    elif issubclass(cls, Action):
        names, name = _names(cls), cls.__name__

        def fn(value: Any) -> dict:          # as saves.action_to_dict: no unset optional
            d = {n: _out(v) for n in names if (v := getattr(value, n)) is not None}
            d["type"] = name
            return d
    elif issubclass(cls, E.Event):
        names, name = _names(cls), cls.__name__

        def fn(value: Any) -> dict:
            d = {n: _out(getattr(value, n)) for n in names}
            d["type"] = name
            return d
    elif cls is Reason:
        def fn(value: Reason) -> dict:
            return {"key": value.key, "params": [[k, plain_to_wire(v)] for k, v in value.params]}
    elif cls is Refused:
        fn = refused_to_wire
    elif attrs.has(cls):
        names = _names(cls)

        def fn(value: Any) -> dict:
            return {n: _out(getattr(value, n)) for n in names}
    else:
        raise WireError("", "bad_field", value=cls.__name__)
    if cls in _CACHED:
        inner = fn

        def fn(value: Any) -> Any:
            got = _CACHE.get(id(value))
            if got is not None and got[0] is value:
                return got[1]
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            out = inner(value)
            _CACHE[id(value)] = (value, out)
            return out
    _ENC[cls] = fn
    return fn


def plain_to_wire(value: Any, depth: int = 0) -> Any:
    """A plain value (a refusal's or a reason's param): text, number, true/false, null,
    and lists (tuples) and tables (str keys) of them."""
    if depth > _MAX_DEPTH:
        raise WireError("", "bad_field")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float and math.isfinite(value):
        return value
    if isinstance(value, (tuple, list)):
        return [plain_to_wire(v, depth + 1) for v in value]
    if isinstance(value, dict) and all(type(k) is str for k in value):
        return {k: plain_to_wire(v, depth + 1) for k, v in value.items()}
    raise WireError("", "bad_field", value=type(value).__name__)


def update_to_wire(update: Update) -> dict:
    return _out(update)


def observation_to_wire(obs: Observation) -> dict:
    return _out(obs)


def refused_to_wire(refused: Refused) -> dict:
    return {"code": refused.code, "params": plain_to_wire(dict(refused.params))}


def action_to_wire(action: Action) -> dict:
    if not isinstance(action, Action):
        raise WireError("", "bad_field", value=type(action).__name__)
    return action_to_dict(action)


# ------------------------------------------------------------------------- decoding

def plain_from_wire(value: Any, depth: int = 0) -> Any:
    """The inverse of `plain_to_wire` (lists come back as tuples)."""
    if depth > _MAX_DEPTH:
        raise FieldProblem("bad_field")
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is list:
        return tuple(plain_from_wire(v, depth + 1) for v in value)
    if type(value) is dict:
        return {k: plain_from_wire(v, depth + 1) for k, v in value.items()}
    raise FieldProblem("bad_field")


def _table(value: Any, keys: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    if type(value) is not dict:
        raise FieldProblem("wrong_type", expected="table", got=shown_value(value))
    for k in value:
        if k not in keys:
            raise FieldProblem("unknown_field", str(k))
    for k in required:
        if k not in value:
            raise FieldProblem("missing", k)
    return value


def _at(where: str, fn, *args) -> Any:
    """fn(*args), a problem placed under `where`."""
    try:
        return fn(*args)
    except FieldProblem as bad:
        raise FieldProblem(bad.code, join_path(where, bad.where), **bad.params) from None


def _make_converter():
    conv = make_strict_converter()
    def nullable(t):
        return override(struct_hook=lambda v, _t: None if v is None else conv.structure(v, t))

    event_fns = {name: make_dict_structure_fn(
        cls, conv, _cattrs_forbid_extra_keys=True,
        **{n: nullable(f.type) for f in attrs.fields(attrs.resolve_types(cls))
           for n in _NULLABLE.get(name, ()) if f.name == n})
        for name, cls in EVENT_TYPES.items()}

    def event(value: Any, _t: Any = None) -> E.Event:
        if type(value) is not dict:
            raise FieldProblem("wrong_type", expected="table", got=shown_value(value))
        if "type" not in value:
            raise FieldProblem("missing", "type")
        name = value["type"]
        fn = event_fns.get(name) if type(name) is str else None
        if fn is None:
            raise FieldProblem("unknown_event", "type", name=shown_value(name))
        fields = {k: v for k, v in value.items() if k != "type"}
        try:
            return fn(fields, EVENT_TYPES[name])
        except FieldProblem:
            raise
        except Exception as exc:  # noqa: BLE001 - cattrs' error tree: the first problem
            where, bad = locate_problem(exc)
            raise FieldProblem(bad.code, where, **bad.params) from None

    def optional(fn):
        return lambda value, _t=None: None if value is None else fn(value)

    def reason(value: Any, _t: Any = None) -> Reason:
        _table(value, ("key", "params"), ("key",))
        key = value["key"]
        if type(key) is not str:
            raise FieldProblem("wrong_type", "key", expected="str", got=shown_value(key))
        params = value.get("params", [])
        if type(params) is not list:
            raise FieldProblem("wrong_type", "params", expected="list", got=shown_value(params))
        out = []
        for i, p in enumerate(params):
            if type(p) is not list or len(p) != 2 or type(p[0]) is not str:
                raise FieldProblem("wrong_type", f"params[{i}]", expected="list", got=shown_value(p))
            out.append((p[0], _at(f"params[{i}]", plain_from_wire, p[1])))
        return Reason(key, tuple(out))

    def refused(value: Any, _t: Any = None) -> Refused:
        _table(value, ("code", "params"), ("code",))
        code = value["code"]
        if type(code) is not str:
            raise FieldProblem("wrong_type", "code", expected="str", got=shown_value(code))
        params = value.get("params", {})
        if type(params) is not dict:
            raise FieldProblem("wrong_type", "params", expected="table", got=shown_value(params))
        return Refused(code, _at("params", plain_from_wire, params))

    def actions(value: Any, _t: Any = None) -> tuple:
        if type(value) is not list:
            raise FieldProblem("wrong_type", expected="list", got=shown_value(value))
        return tuple(_at(f"[{i}]", action_from_dict, a) for i, a in enumerate(value))

    def active(value: Any, _t: Any = None) -> tuple:
        return conv.structure(value, tuple[Active, ...])

    def seat_or_none(value: Any, _t: Any = None) -> Optional[int]:
        return conv.structure(value, Optional[int])

    def strict_table(cls, **overrides):
        inner = make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True, **overrides)

        def hook(value: Any, t: Any = None) -> Any:
            if type(value) is not dict:
                raise FieldProblem("wrong_type", expected="table", got=shown_value(value))
            return inner(value, cls)
        return hook

    conv.register_structure_hook(Reason, reason)
    conv.register_structure_hook(Refused, refused)
    conv.register_structure_hook(SeatView, strict_table(SeatView, active=override(struct_hook=active)))
    conv.register_structure_hook(Observation, strict_table(
        Observation, seat=override(struct_hook=seat_or_none), legal=override(struct_hook=actions)))
    conv.register_structure_hook(LogEntry, strict_table(
        LogEntry, event=override(struct_hook=optional(event)),
        reason=override(struct_hook=optional(reason))))
    conv.register_structure_hook(Update, strict_table(Update))
    conv.register_structure_hook(Turn, strict_table(Turn))
    return conv


_conv = _make_converter()


def _structure(obj: Any, cls: type) -> Any:
    try:
        return _conv.structure(obj, cls)
    except RecursionError:
        raise WireError("", "too_deep") from None
    except Exception as exc:  # noqa: BLE001 - every problem becomes one WireError
        where, bad = locate_problem(exc)
        raise WireError(where, bad.code, **bad.params) from None


def update_from_wire(obj: Any) -> Update:
    """An Update from its wire form, strictly; raises WireError naming the field."""
    return _structure(obj, Update)


def observation_from_wire(obj: Any) -> Observation:
    return _structure(obj, Observation)


def refused_from_wire(obj: Any) -> Refused:
    return _structure(obj, Refused)


def action_from_wire(obj: Any) -> Action:
    """An action from its wire form (`saves.action_from_dict`'s strictness); WireError."""
    try:
        return action_from_dict(obj)
    except FieldProblem as bad:
        raise WireError(bad.where, bad.code, **bad.params) from None
    except RecursionError:
        raise WireError("", "too_deep") from None
