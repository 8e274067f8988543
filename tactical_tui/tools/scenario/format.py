"""What a scenario is: the data model a scenario file is read into (`Scenario`, `Step`,
`Expect`), the words and limits of the format (sections, phases, chips, the v2
expectation kinds, `MAX_SCENARIO_BYTES`, the perft limits), `ScenarioError`, and how a
value is shown the way a scenario file writes it.

A scenario is a position, actions, scripted chance and expectations in one TOML file.
The format is described in ``docs/scenarios.md``; in short:

    [scenario]           name, description, rule, players, phase, seed, start_seat, ...
    [[seat]]             one table per seat (seat 0 first): guild, race, hand, equipped, ...
    [bidding] / [battle] the phase's own position (round, leader, targets, bids / order, turn)
    [table]              decks and discard piles (optional)
    [[family]] [[series]] [[race]] [[guild]] [[defense]] [[attack]]
                         inline cards in the schema of cards.toml, merged with the shipped set
    [chance]             dice = [...], chips = [...]: every die rolled and chip drawn, in order
    [[action]]           type = an action class of rules.actions, its fields; illegal = true
                         with reason_contains = "..." for an action that must be refused
    [[expect]]           state fields by path, an event with fields, or the legal actions

Format v2 (``version = 2``; every v1 file stays valid) adds the draft, the 《競売》 /
payment / 《鑑定》 steps and an attack or counter in progress as start positions, a whole
``[position]`` (any GameState, as `export_position` writes it from a replay), comparisons
(any_order, contains, length, not, at_least, at_most), expectations on the legal actions
(``legal_set``, ``legal_count``, ``perft``), on the order of events (``event_order``) and on
what a seat sees (``observe``), and dice that name their seat.

This module imports no other module of the package.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import attrs

from rules import ACTION_TYPES
from rules import events as E
from rules.state import GameState, Script


PHASES = ("draft", "bidding", "build", "battle")
CHIPS = ("0", "1", "2", "crit", "miss")
CARD_SECTIONS = ("family", "series", "race", "guild", "defense", "attack")
SECTIONS = ("scenario", "seat", "bidding", "battle", "table", "position", "chance", "action",
            "expect") + CARD_SECTIONS
FORMAT_VERSION = 2     # the newest scenario format this runner reads (docs/scenarios.md)
POSITION_ONLY = ("seat", "bidding", "battle", "table")       # what [position] replaces
ACTIONS: dict[str, type] = {cls.__name__: cls for cls in ACTION_TYPES}
EVENTS: dict[str, type] = {name: cls for name, cls in vars(E).items()
                           if isinstance(cls, type) and issubclass(cls, E.Event)
                           and cls is not E.Event}
NONE = "none"          # how a scenario writes Python's None (TOML has no null)
# The largest scenario file read (they are a few KB): README "Files and limits".
MAX_SCENARIO_BYTES = 1024 * 1024

# The largest battle round a scenario may set: the rules have no round limit (§6, RULINGS
# R19); this only bounds a number read from a file.
MAX_ROUND = 10_000

# Values a path may name under seats[n] that the rules derive from the seat (not fields).
DERIVED_SEAT = ("final_stats", "available_material", "equip_cost", "hand_slots", "violations")
EXPECT_META = ("at",)

# The v2 expectation kinds, by the key that names them, with the keys each may have.
V2_KINDS: dict[str, tuple[str, ...]] = {
    "legal_count": ("legal_count", "seat"),
    "legal_set": ("legal_set", "seat"),
    "perft": ("perft", "count", "until", "dice", "chips"),
    "event_order": ("event_order", "then_none"),
    "observe": ("observe",),            # + the observation's paths
}
PERFT_DEPTH = 8                          # a perft deeper than this is refused
PERFT_NODES = 200_000                    # and one that visits more positions fails
PERFT_SCENARIO_NODES = 1_000_000         # the perfts of one scenario visit at most this many
                                         # (a file of 20 maximal perfts took 22 s; a file of
                                         # 1 MB could hold hours of them)

HIDDEN = "hidden"     # observe expectations: the seat sees nothing there


class ScenarioError(Exception):
    """A malformed scenario file. The message names the file, the place and the problem."""


def error_at(path: object, place: str, problem: str) -> ScenarioError:
    """The ScenarioError for `problem` at `place` (e.g. "[battle], round") of
    the file `path`."""
    return ScenarioError(f"{path}: {place}: {problem}" if place else f"{path}: {problem}")


@attrs.frozen
class Step:
    """One scripted action. `illegal`: the engine must refuse it (and the state stays)."""

    number: int
    place: str
    action: Any
    illegal: bool = False
    reason_contains: Optional[str] = None
    code: Optional[str] = None


@attrs.frozen
class Expect:
    """One expectation, checked after action `at` (None = after the last action).
    `kind`: "state" (`paths`: path → value), "event" (`name`, `fields`, `times`), "legal"
    (`name` of an action type, `fields`: the actions, `mode`), "illegal" (`action` must be
    refused, with `reason` in its reason and `code` as its code when given), and from
    format v2 "legal_count" (`value`, `seat`), "legal_set" (`actions`, `seat`), "perft"
    (`depth`, `until`, `value`), "event_order" (`sequence`, `then_none`) and "observe" (`seat`,
    `paths` of `observe(state, seat)`)."""

    number: int
    place: str
    kind: str
    at: Optional[int] = None
    paths: tuple[tuple[str, tuple, Any], ...] = ()     # (written path, tokens, value)
    name: str = ""
    fields: Any = None
    times: Optional[int] = None
    mode: str = ""                                      # legal: exactly | includes | excludes
    action: Any = None
    reason: str = ""
    code: str = ""
    seat: Optional[int] = None          # legal_count / legal_set / observe: whose
    value: Any = None                   # legal_count, perft: the expected number
    actions: tuple = ()                 # legal_set: the exact set
    depth: int = 0                      # perft
    until: str = ""                     # perft: a line of play ends at this event
    sequence: tuple = ()                # order: ((event name, fields), ...)
    then_none: Any = None               # order: (event name, fields) that must not follow
    script: Optional[Script] = None     # perft: the chance every line of play starts with


@attrs.frozen
class Scenario:
    path: str
    name: str
    description: str
    rule: str
    state: GameState = attrs.field(repr=False)
    steps: tuple[Step, ...] = ()
    expects: tuple[Expect, ...] = ()
    dice_seats: tuple[Optional[int], ...] = ()     # [chance] dice: the seat each is for


def show(value: Any) -> str:
    """A value the way a scenario file writes it."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def kind_name(kind: type) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", dict: "a table",
            list: "a list"}.get(kind, kind.__name__)
