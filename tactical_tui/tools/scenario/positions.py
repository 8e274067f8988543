"""Full positions (format v2): the ``[position]`` table of a scenario file, the whole
GameState as data — `position_data` writes it (for an export), `position_state` reads it
back and refuses what the rules cannot play from — and the one strict cattrs converter
(`strict_converter`, `cattrs_problem`) that also structures a v1 ``[battle] attack``.

A `[position]` table is the attrs classes of rules/state.py unstructured by cattrs
(fields equal to their default left out), and structured back strictly (exact types, no
unknown keys). Nothing here lists the state's fields, so a field or class added to the
state flows through unchanged. The card set is the shipped one with the file's inline
cards; the scripted chance comes from [chance]. cattrs is imported on first use."""

from __future__ import annotations

import re
from typing import Any, Optional

import attrs

from rules.cards import CardSet
from rules.state import GameState, Script

from tactical_tui.tools.scenario.format import error_at, kind_name, show


POSITION_SKIP = ("cards", "script")
_RNG_TEXT = re.compile(r"0x[0-9a-f]{1,16}")


_CONVERTER: list = []


def strict_converter() -> Any:
    """One strict converter, made on first use (cattrs generates and caches its code)."""
    if _CONVERTER:
        return _CONVERTER[0]
    import cattrs
    conv = cattrs.Converter(forbid_extra_keys=True, omit_if_default=True)

    def strict(kind: type) -> Any:
        def hook(value: Any, _tp: Any) -> Any:
            if type(value) is not kind:
                raise ValueError(f"must be {kind_name(kind)}, not {show(value)}")
            return value
        return hook

    for kind in (int, str, bool):
        conv.register_structure_hook(kind, strict(kind))
    conv.register_unstructure_hook(CardSet, lambda _c: None)
    conv.register_structure_hook(CardSet, lambda _v, _tp: None)   # set after structuring
    _CONVERTER.append(conv)
    return conv


def position_data(state: GameState) -> dict:
    """The whole position as plain data for `[position]` (no card set, no script; the
    RNG state as a hex string, since TOML integers stop at 2**63 - 1)."""
    data = strict_converter().unstructure(state)
    for key in POSITION_SKIP:
        data.pop(key, None)
    data["rng"] = f"{state.rng:#x}"
    return data


def cattrs_problem(exc: BaseException) -> tuple[str, str]:
    """(path, problem) of the first thing cattrs rejected."""
    import cattrs
    if isinstance(exc, cattrs.BaseValidationError):
        def fmt(e: BaseException, _tp: Any) -> str:
            if isinstance(e, KeyError):
                return "missing field"
            if isinstance(e, cattrs.ForbiddenExtraKeysError):
                return f"unknown field(s) {', '.join(sorted(map(repr, e.extra_fields)))}"
            return str(e) or type(e).__name__
        lines = cattrs.transform_error(exc, path="", format_exception=fmt)
        if lines:
            problem, _, where = lines[0].rpartition(" @ ")
            return (where.lstrip("."), problem) if problem else ("", lines[0])
    return "", str(exc) or type(exc).__name__


def position_state(data: Any, cards: CardSet, script: Script = Script(),
                   path: str = "", place: str = "[position]") -> GameState:
    """A GameState from `[position]` data; ScenarioError (naming `path`, `place` and the
    field) for anything that is not a position of this card set."""
    if not isinstance(data, dict):
        raise error_at(path, place, "must be a table")
    data = dict(data)
    for key in POSITION_SKIP:
        if key in data:
            raise error_at(path, f"{place}, {key}", "is not part of a position (cards come from "
                                                    "the shipped set and the inline cards, "
                                                    "chance from [chance])")
    rng = data.get("rng")
    if rng is None:
        raise error_at(path, f"{place}, rng", "missing field (the RNG state, e.g. \"0x1f\")")
    if type(rng) is not str or not _RNG_TEXT.fullmatch(rng):
        raise error_at(path, f"{place}, rng", f"must be a hex string like \"0x1f\" (up to 64 "
                                              f"bits), not {show(rng)}")
    data["rng"] = int(rng, 16)
    data["cards"] = None
    try:
        state = strict_converter().structure(data, GameState)
    except Exception as exc:  # noqa: BLE001 - every structuring problem is the file's
        where, problem = cattrs_problem(exc)
        raise error_at(path, f"{place}, {where}" if where else place, problem) from None
    state = attrs.evolve(state, cards=cards, script=script)
    problem = _position_problem(state)
    if problem:
        raise error_at(path, f"{place}, {problem[0]}", problem[1])
    return state


def _position_problem(state: GameState) -> Optional[tuple[str, str]]:
    """(field, problem) for a position the rules cannot play from: unknown ids, a
    physical card in two places, a seat number out of range. The rest of the engine's
    invariants are the author's business, as in a v1 position."""
    from rules.state import Phase as P
    phases = [v for k, v in vars(P).items() if k.isupper()]
    if state.phase not in phases:
        return "phase", f"must be one of {', '.join(phases)}, not {show(state.phase)}"
    if len(state.seats) != state.config.players:
        return "seats", f"{len(state.seats)} seats for config.players = {state.config.players}"
    n = state.players
    seat_refs = [("start_seat", state.start_seat), ("reveal_seat", state.reveal_seat)]
    seat_refs += [(f"order[{k}]", s) for k, s in enumerate(state.order)]
    seat_refs += [(f"winners[{k}]", s) for k, s in enumerate(state.winners)]
    if state.bidding is not None:
        b = state.bidding
        seat_refs += [("bidding.leader", b.leader), ("bidding.turn", b.turn)]
        seat_refs += [(f"bidding.bids[{k}].seat", x.seat) for k, x in enumerate(b.bids)]
        if len(b.passed) != n:
            return "bidding.passed", f"needs one entry per seat ({n})"
    if state.battle is not None:
        seat_refs.append(("battle.turn.seat", state.battle.turn.seat))
        if state.battle.attack is not None:
            seat_refs.append(("battle.attack.attacker", state.battle.attack.attacker))
    for where, s in seat_refs:
        if s is not None and not 0 <= s < n:
            return where, f"there is no seat {s} (seats 0..{n - 1})"
    placed: dict[str, str] = {}

    def place(where: str, cid: str) -> Optional[tuple[str, str]]:
        try:
            state.cards.card(cid)
        except KeyError:
            return where, f"no card {cid!r} in the shipped or inline cards"
        if cid in placed:
            return where, f"card {cid!r} is placed twice (also in {placed[cid]})"
        placed[cid] = where
        return None

    piles = [(k, getattr(state, k)) for k in ("defense_deck", "attack_deck", "defense_discard",
                                               "attack_discard")]
    for i, s in enumerate(state.seats):
        try:
            state.cards.guild(s.guild)
        except KeyError:
            return f"seats[{i}].guild", f"no guild {s.guild!r}"
        for r in s.race_candidates + ((s.race,) if s.race else ()):
            try:
                state.cards.race(r)
            except KeyError:
                return f"seats[{i}].race", f"no race {r!r}"
        piles += [(f"seats[{i}].{k}", getattr(s, k)) for k in ("hand", "picks", "equipped")]
        for c in s.materialized:        # a record: the card lies in the discard (R6)
            if c not in state.defense_discard:
                return (f"seats[{i}].materialized",
                        f"{c!r} is materialized, so it must be in defense_discard (§5-4)")
    if state.bidding is not None:
        piles += [("bidding.current", state.bidding.current),
                  ("bidding.upcoming", state.bidding.upcoming),
                  ("bidding.bids", tuple(x.card for x in state.bidding.bids))]
    for where, cids in piles:
        for cid in cids:
            problem = place(where, cid)
            if problem:
                return problem
    return None
