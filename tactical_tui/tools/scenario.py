"""Rule scenarios: a position, actions, scripted chance and expectations in one TOML file.

`tactical check PATH...` loads every scenario file given (folders are searched for
``*.toml``), plays its actions through the rules engine and compares the result with its
expectations. The format is described in ``docs/scenarios.md``; in short:

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

Like XMage's strict mode, a scenario fails when an action cannot be applied, when a
scripted die or chip is left unused, and when the engine needs a die roll or a chip draw
the scenario did not script. A malformed file never gives a traceback: `ScenarioError`
names the file, the place in it and the problem.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
import typing
from pathlib import Path
from typing import Any, Iterable, Optional, TextIO

import attrs

from rules import (ACTION_TYPES, CardDataError, Config, IllegalAction, apply, explain_illegal,
                   legal_actions, new_game, pending)
from rules import events as E
from rules.build import available_material, equip_cost, final_stats, hand_slots_used, violations
from rules.cards import STATS, CardSet, Requirements, Stats, default_cards, parse_cards
from rules.engine import copies_of
from rules.files import (DIGIT_LIMIT, NUMBER_LIMIT_TEXT, FileProblem, huge_number_at,
                         is_digit_limit_error, read_bounded)
from rules.state import (BID_ROUNDS, Active, Attack, BattleState, Bid, BiddingState, ChanceScriptError,
                         GameState, Phase, Script, SeatState, Turn)

from tactical_tui.text.safe import SafeStream
from tactical_tui.text.catalog import Describer, refusal_text

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


class ScenarioError(Exception):
    """A malformed scenario file. The message names the file, the place and the problem."""


# =============================================================================== loading

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


def _err(path: object, place: str, problem: str) -> ScenarioError:
    return ScenarioError(f"{path}: {place}: {problem}" if place else f"{path}: {problem}")


def _header_lines(text: str, section: str) -> list[int]:
    """Line numbers of the `[[section]]` headers, to point at the n-th entry."""
    pat = re.compile(r"^\s*\[\[\s*" + re.escape(section) + r"\s*\]\]")
    return [i + 1 for i, line in enumerate(text.splitlines()) if pat.match(line)]


def _places(text: str, section: str, count: int) -> list[str]:
    lines = _header_lines(text, section)
    out = []
    for i in range(count):
        where = f" (line {lines[i]})" if len(lines) == count else ""
        out.append(f"[[{section}]] #{i + 1}{where}")
    return out


class _Reader:
    """Typed access to one table of the scenario, with errors that name the place."""

    def __init__(self, path: str, place: str, table: Any, allowed: Iterable[str]) -> None:
        if not isinstance(table, dict):
            raise _err(path, place, "must be a table")
        self.path, self.place, self.table = path, place, table
        self.allowed = tuple(allowed)
        unknown = [k for k in table if k not in self.allowed]
        if unknown:
            raise self.error(f"unknown field {unknown[0]!r} (fields: {', '.join(self.allowed)})")

    def error(self, problem: str, key: Optional[str] = None) -> ScenarioError:
        return _err(self.path, self.place + (f", {key}" if key else ""), problem)

    def has(self, key: str) -> bool:
        return key in self.table

    def get(self, key: str, kind: type, default: Any = None, lo: Optional[int] = None,
            hi: Optional[int] = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if type(value) is not kind:
            raise self.error(f"must be {_kind_name(kind)}, not {_show(value)}", key)
        if kind is int and lo is not None and not lo <= value <= (hi if hi is not None else lo):
            raise self.error(f"must be between {lo} and {hi}, not {value}", key)
        return value

    def strings(self, key: str, default: Any = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, list) or not all(type(x) is str for x in value):
            raise self.error(f"must be a list of strings, not {_show(value)}", key)
        return tuple(value)

    def ints(self, key: str, lo: int, hi: int, default: Any = None) -> Any:
        if key not in self.table:
            return default
        value = self.table[key]
        if not isinstance(value, list) or not all(type(x) is int for x in value):
            raise self.error(f"must be a list of integers, not {_show(value)}", key)
        bad = [x for x in value if not lo <= x <= hi]
        if bad:
            raise self.error(f"{bad[0]} is not between {lo} and {hi}", key)
        return tuple(value)


def _kind_name(kind: type) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", dict: "a table",
            list: "a list"}.get(kind, kind.__name__)


def load_scenario(path: str | Path) -> Scenario:
    """Read and check one scenario file; the initial state is built here.
    Raises ScenarioError for anything wrong with the file."""
    path = str(path)
    try:
        text = read_bounded(path, MAX_SCENARIO_BYTES).decode("utf-8")
    except FileProblem as exc:
        raise _err(path, "", f"cannot read the file: {exc}") from None
    except UnicodeDecodeError as exc:
        raise _err(path, "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _err(path, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise _err(path, "", "not valid TOML: nested too deeply") from None
    except ValueError as exc:
        if not is_digit_limit_error(exc):
            raise
        raise _err(path, "", f"a number with more than {DIGIT_LIMIT} digits") from None
    huge = huge_number_at(raw)
    if huge is not None:
        raise _err(path, huge, f"the number is too large (the limit is {NUMBER_LIMIT_TEXT})")
    unknown = [k for k in raw if k not in SECTIONS]
    if unknown:
        raise _err(path, "", f"unknown section or key {unknown[0]!r} at the top level "
                             f"(sections: {', '.join(SECTIONS)})")
    for name in ("seat", "action", "expect") + CARD_SECTIONS:
        if name in raw and not isinstance(raw[name], list):
            raise _err(path, f"[[{name}]]", "must be an array of tables ([[" + name + "]])")
    for name in ("seat", "action", "expect") + CARD_SECTIONS:
        for k, entry in enumerate(raw.get(name, [])):
            if not isinstance(entry, dict):
                raise _err(path, _places(text, name, len(raw[name]))[k], "must be a table")
    for name in ("scenario", "bidding", "battle", "table", "position", "chance"):
        if name in raw and not isinstance(raw[name], dict):
            raise _err(path, f"[{name}]", "must be a table")
    if "scenario" not in raw:
        raise _err(path, "", "the [scenario] table is missing")

    setup = ("players", "phase", "seed", "start_seat", "first_game", "reveal_swap")
    head = _Reader(path, "[scenario]", raw["scenario"],
                   ("version", "name", "description", "rule", "cards") + setup)
    version = head.get("version", int, 1)
    if not 1 <= version <= FORMAT_VERSION:
        raise head.error(f"format version {version} is not one this TACTICAL reads (1 to "
                         f"{FORMAT_VERSION})" + (": update TACTICAL" if version > 1 else ""),
                         "version")
    if "position" in raw:
        state, dice_seats = _position_start(path, text, raw, head, setup)
    else:
        state, dice_seats = _v1_start(path, text, raw, head)
    try:
        pending(state)
        legal_actions(state)
    except Exception as exc:  # noqa: BLE001 - a position the rules cannot go on from
        raise _err(path, "", f"the rules cannot go on from this position ({type(exc).__name__}"
                             f"{': ' + str(exc) if str(exc) else ''}); check the bid, "
                             "attack or step it describes") from None
    players = state.players
    for k, seat in enumerate(dice_seats):
        if seat is not None and seat >= players:
            raise _err(path, f"[chance] dice[{k}], seat",
                       f"there is no seat {seat} (seats 0..{players - 1})")
    steps = _steps(path, text, raw.get("action", []), players)
    expects = _expects(path, text, raw.get("expect", []), len(steps), players)
    if not expects and not any(s.illegal for s in steps):
        raise _err(path, "", "no [[expect]] and no action expected to be illegal: "
                             "a scenario must be able to fail")
    return Scenario(path=path, name=head.get("name", str, Path(path).stem),
                    description=head.get("description", str, ""),
                    rule=head.get("rule", str, ""), state=state, steps=steps, expects=expects,
                    dice_seats=dice_seats)


def _position_start(path: str, text: str, raw: dict, head: _Reader,
                    setup: tuple[str, ...]) -> tuple[GameState, tuple]:
    """The start of a file with a whole `[position]` (format v2, e.g. an export)."""
    for name in POSITION_ONLY:
        if name in raw:
            bracket = f"[[{name}]]" if name == "seat" else f"[{name}]"
            raise _err(path, bracket, "not with [position]: the position already gives it")
    for key in setup:
        if head.has(key):
            raise head.error("not with [position]: the position already gives it", key)
    cards = _card_set(path, raw, text, _inline_only(head))
    script, dice_seats = _script(path, raw)
    return position_state(raw["position"], cards, script, path), dice_seats


def _v1_start(path: str, text: str, raw: dict, head: _Reader) -> tuple[GameState, tuple]:
    """The start of a file that describes its position table by table."""
    seats_raw = raw.get("seat", [])
    players = head.get("players", int, max(3, len(seats_raw)), 3, 5)
    if len(seats_raw) > players:
        raise _err(path, "[[seat]]", f"{len(seats_raw)} seats for {players} players")
    phase = head.get("phase", str)
    if phase not in PHASES:
        raise head.error(f"must be one of {', '.join(PHASES)}" +
                         ("" if phase is None else f", not {phase!r}"), "phase")
    if phase not in ("draft", "bidding") and "bidding" in raw:
        raise _err(path, "[bidding]", f"only for phase = \"bidding\" or \"draft\" (this is "
                                      f"{phase!r})")
    if phase != "battle" and "battle" in raw:
        raise _err(path, "[battle]", f"only for phase = \"battle\" (this is {phase!r})")
    cards = _card_set(path, raw, text, _inline_only(head))
    config = Config(players=players, first_game=head.get("first_game", bool, False),
                    reveal_swap=head.get("reveal_swap", bool, False))
    builder = _Builder(path, text, raw, cards, config, phase, head)
    return builder.build()


def _script(path: str, raw: dict) -> tuple[Script, tuple[Optional[int], ...]]:
    """[chance]: the scripted dice and chips, and for each die the seat it is for
    (None when the file does not say: `dice = [4, { seat = 1, value = 3 }]`)."""
    chance = _Reader(path, "[chance]", raw.get("chance", {}), ("dice", "chips"))
    dice_raw = chance.table.get("dice", [])
    if not isinstance(dice_raw, list):
        raise chance.error("must be a list of die results 1–6 (or { seat, value } tables)",
                           "dice")
    dice, seats = [], []
    for k, d in enumerate(dice_raw):
        seat = None
        if isinstance(d, dict):
            dr = _Reader(path, f"[chance] dice[{k}]", d, ("seat", "value"))
            if not dr.has("seat") or not dr.has("value"):
                raise dr.error("a die for a seat is { seat = N, value = 1–6 }")
            seat = dr.get("seat", int, None, 0, 4)
            d = dr.get("value", int, None, 1, 6)
        elif type(d) is not int or not 1 <= d <= 6:
            raise chance.error(f"{_show(d)} is not a die result 1–6 (or a "
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
            raise chance.error(f"{_show(c)} is not a chip (chips: 0, 1, 2, \"crit\", "
                               "\"miss\")", "chips")
        chips.append(c)
    return Script(dice=tuple(dice), chips=tuple(chips)), tuple(seats)


# ------------------------------------------------------------------------------- cards

def _toml(value: Any) -> str:
    """A value as TOML (inline form) — to hand inline cards to `parse_cards`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml(v)}"
                               for k, v in value.items()) + "}"
    return json.dumps(str(value))


def _with_line(message: str, text: str) -> str:
    """Point a card-data message ("… inline cards: attack 'x', field …") at the line of
    that card's id in the scenario file."""
    m = re.search(r"inline cards: (\w+) '([^']*)'", message)
    if m:
        pat = re.compile(r'^\s*id\s*=\s*["\']' + re.escape(m.group(2)) + r'["\']\s*(#.*)?$')
        for i, line in enumerate(text.splitlines()):
            if pat.match(line):
                return message[:m.end()] + f" (line {i + 1})" + message[m.end():]
    return message


def _inline_only(head: "_Reader") -> bool:
    """`[scenario] cards`: "shipped" (the default: the inline cards are merged with the
    shipped set) or "inline" (format v2: the inline cards are the whole card data, as an
    export of a game with other card data writes it)."""
    mode = head.get("cards", str, "shipped")
    if mode not in ("shipped", "inline"):
        raise head.error(f"must be \"shipped\" or \"inline\", not {mode!r}", "cards")
    return mode == "inline"


def _card_set(path: str, raw: dict, text: str = "", inline_only: bool = False) -> CardSet:
    """The shipped cards with the scenario's inline cards merged in: an inline entry with
    the id of a shipped one of the same section replaces it. With `inline_only` the
    inline cards are the whole card data (nothing shipped is added)."""
    base = default_cards()
    inline = {name: raw.get(name, []) for name in CARD_SECTIONS}
    if not any(inline.values()) and not inline_only:
        return base
    ids = {name: {e.get("id") for e in entries if isinstance(e, dict)}
           for name, entries in inline.items()}

    def parse(sections: tuple[str, ...]) -> CardSet:
        lines: list[str] = []
        for name in sections:
            entries = list(inline[name])
            if name in ("family", "series") and not inline_only:   # let inline skills refer to shipped families
                shipped = base.families if name == "family" else base.series
                entries += [{"id": x.id, "name": {"ja": x.name.ja, "en": x.name.en}}
                            for x in shipped if x.id not in ids[name]]
            for entry in entries:
                lines.append(f"[[{name}]]")
                lines.extend(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml(v)}"
                             for k, v in entry.items())
        try:
            return parse_cards("\n".join(lines) + "\n", source=f"{path}: inline cards")
        except CardDataError as exc:
            raise ScenarioError(_with_line(str(exc), text)) from None

    if inline_only:
        return parse(CARD_SECTIONS)

    # Attack cards are parsed apart from defense cards, so that an inline defense card and
    # an inline attack card may share a name (format v2: the same-name rule of §5-4 holds
    # "種類にかかわらず"); ids and skill ids must still be unique across both.
    first = parse(tuple(n for n in CARD_SECTIONS if n != "attack"))
    extra: Any = first
    if inline["attack"]:
        second = parse(("family", "series", "attack"))
        from types import SimpleNamespace
        extra = SimpleNamespace(**{a: getattr(first, a) for a in
                                   ("families", "series", "races", "guilds", "defense")},
                                attack=second.attack)
        skill_of: dict[str, str] = {g.battle_skill.id: g.id for g in first.guilds
                                    if g.battle_skill is not None}
        for c in first.defense + second.attack:
            kind = "attack" if c.is_attack else "defense"
            if any(c.id == x.id for x in (first.races + first.guilds + first.defense
                                          if c.is_attack else ())):
                raise _err(path, f"inline attack {c.id!r}", "the id is also an inline card's; "
                                                            "use another id")
            for sk in c.skills:
                if sk.id in skill_of:
                    raise _err(path, f"inline {kind} {c.id!r}",
                               f"skill id {sk.id!r} is also a skill of {skill_of[sk.id]!r}; "
                               "use another id")
                skill_of[sk.id] = c.id
    groups = {"family": "families", "series": "series", "race": "races", "guild": "guilds",
              "defense": "defense", "attack": "attack"}
    merged = {}
    for name, attr in groups.items():
        mine = tuple(x for x in getattr(extra, attr) if x.id in ids[name])
        kept = tuple(x for x in getattr(base, attr) if x.id not in ids[name])
        merged[attr] = kept + mine
        for x in mine:
            for other, oattr in groups.items():
                if other != name and any(y.id == x.id for y in getattr(base, oattr)):
                    raise _err(path, f"inline {name} {x.id!r}",
                               f"the id is a shipped {other}'s; use another id")
    kept_cards = [c for c in merged["defense"] + merged["attack"]
                  if c.id not in ids["defense"] | ids["attack"]]
    shipped_skills = {sk.id: c.id for c in kept_cards for sk in c.skills}
    shipped_skills.update({g.battle_skill.id: g.id for g in merged["guilds"]
                           if g.id not in ids["guild"] and g.battle_skill is not None})
    for g in extra.guilds:
        sk = g.battle_skill
        if sk is not None and sk.id in shipped_skills:
            raise _err(path, f"inline guild {g.id!r}",
                       f"skill id {sk.id!r} is also a skill of shipped {shipped_skills[sk.id]!r}; "
                       "use another id")
    shipped_names = {(lang, c.name.get(lang)): c.id for c in kept_cards for lang in ("ja", "en")}
    for c in extra.defense + extra.attack:
        kind = "attack" if c.is_attack else "defense"
        for sk in c.skills:
            if sk.id in shipped_skills:
                raise _err(path, f"inline {kind} {c.id!r}",
                           f"skill id {sk.id!r} is also a skill of shipped card "
                           f"{shipped_skills[sk.id]!r}; use another id")
        for lang in ("ja", "en"):
            if (lang, c.name.get(lang)) in shipped_names:
                raise _err(path, f"inline {kind} {c.id!r}",
                           f"name.{lang} {c.name.get(lang)!r} is also shipped card "
                           f"{shipped_names[(lang, c.name.get(lang))]!r}'s")
    return CardSet(source=f"{base.source} + {path}", **merged)


# ---------------------------------------------------------------------------- position

SEAT_KEYS = ("guild", "race_candidates", "race", "hand", "picks", "draft_choice", "equipped",
             "materialized",
             "confirmed", "revealed", "material", "hp", "mana", "vp", "unluck", "area",
             "entered", "knocked_out", "low", "auction_used", "trait_used", "active")
BIDDING_KEYS = ("round", "leader", "turn", "current", "upcoming", "bids", "passed", "step",
                "payments", "tied")
BID_STEPS = ("bid", "auction", "payment", "appraisal")
BATTLE_KEYS = ("round", "turn", "order", "attack", "counter_queue", "countered", "blocked")
TABLE_KEYS = ("defense_deck", "attack_deck", "defense_discard", "attack_discard")


class _Builder:
    """Builds the scenario's initial GameState from its tables."""

    def __init__(self, path: str, text: str, raw: dict, cards: CardSet, config: Config,
                 phase: str, head: _Reader) -> None:
        self.path, self.text, self.raw, self.cards = path, text, raw, cards
        self.config, self.phase, self.head = config, phase, head
        self.n = config.players
        self.placed: dict[str, str] = {}      # copy id → where

    # cards -------------------------------------------------------------------------
    def card(self, r: _Reader, key: str, cid: str, where: str, attack: Optional[bool] = None) -> str:
        base, _, copy = cid.partition("#")
        try:
            card = self.cards.card(cid)
        except KeyError:
            raise r.error(f"no card {base!r} in the shipped or inline cards", key) from None
        if attack is not None and card.is_attack != attack:
            raise r.error(f"{cid!r} is {'an attack' if card.is_attack else 'a defense'} card; "
                          f"{'an attack' if attack else 'a defense'} card is needed here", key)
        if card.is_attack:
            if copy:
                raise r.error(f"attack cards are single: write {base!r}, not {cid!r}", key)
        else:
            if not copy.isdigit() or not 1 <= int(copy) <= card.copies:
                raise r.error(f"a defense card is a physical copy \"{base}#n\" with n from 1 "
                              f"to {card.copies}, not {cid!r}", key)
        if cid in self.placed:
            raise r.error(f"card {cid!r} is placed twice (also in {self.placed[cid]})", key)
        self.placed[cid] = where
        return cid

    def cards_at(self, r: _Reader, key: str, where: str, attack: Optional[bool] = None) -> tuple:
        return tuple(self.card(r, key, c, where, attack) for c in r.strings(key, ()))

    # the state ---------------------------------------------------------------------
    def build(self) -> tuple[GameState, tuple]:
        try:
            state, _ = new_game(self.config, self.cards,
                                self.head.get("seed", int, 0, 0, 2 ** 62))
        except ValueError as exc:
            raise _err(self.path, "", str(exc)) from None
        seats = self.seats()
        start = self.head.get("start_seat", int, None, 0, self.n - 1)
        if start is None:
            start = min(range(self.n), key=lambda i: self.cards.guild(seats[i].guild).number)
        bidding = self.bidding(start) if self.phase in ("draft", "bidding") else None
        order: tuple[int, ...] = ()
        battle = None
        if self.phase == "battle":
            order, battle = self.battle(seats)
        table = _Reader(self.path, "[table]", self.raw.get("table", {}), TABLE_KEYS)
        piles = {k: self.cards_at(table, k, f"[table] {k}") for k in TABLE_KEYS}
        defense_all, attack_all = copies_of(self.cards, self.config.first_game)
        for k, everything in (("defense_deck", defense_all), ("attack_deck", attack_all)):
            if not table.has(k):
                piles[k] = tuple(c for c in everything if c not in self.placed)
        # §5-4 (RULINGS R6): a seat's materialized cards lie face up in the defense discard
        piles["defense_discard"] += tuple(c for s in seats for c in s.materialized)
        script, dice_seats = _script(self.path, self.raw)
        if bidding is not None and not bidding.current:
            # the draft: the first round's targets are the top of the attack deck (§5-2)
            per_round, _ = BID_ROUNDS[self.n]
            deck = piles["attack_deck"]
            bidding = attrs.evolve(bidding, current=tuple(deck[:per_round]))
            piles["attack_deck"] = tuple(deck[per_round:])
        if bidding is not None and bidding.upcoming is None:
            # default: the next round's targets are the top of the attack deck (none in the
            # last round), as §5-3 reveals them
            per_round, rounds = BID_ROUNDS[self.n]
            count = per_round if bidding.round < rounds - 1 else 0
            deck = piles["attack_deck"]
            bidding = attrs.evolve(bidding, upcoming=tuple(deck[:count]))
            piles["attack_deck"] = tuple(deck[count:])

        phase = {"draft": Phase.DRAFT, "bidding": Phase.BIDDING, "build": Phase.BUILD,
                 "battle": Phase.BATTLE}[self.phase]
        return attrs.evolve(state, phase=phase, seats=tuple(seats), start_seat=start,
                            bidding=bidding, order=order, battle=battle,
                            script=script, **piles), dice_seats

    def seats(self) -> list[SeatState]:
        raw = self.raw.get("seat", [])
        places = _places(self.text, "seat", len(raw))
        readers = [_Reader(self.path, f"{places[i]} (seat {i})", raw[i], SEAT_KEYS)
                   for i in range(len(raw))]
        readers += [_Reader(self.path, f"seat {i}", {}, SEAT_KEYS) for i in range(len(raw), self.n)]
        guilds: list[Optional[str]] = []
        for r in readers:
            g = r.get("guild", str)
            if g is not None:
                try:
                    self.cards.guild(g)
                except KeyError:
                    raise r.error(f"no guild {g!r}", "guild") from None
                if g in guilds:
                    raise r.error(f"guild {g!r} is already another seat's", "guild")
            guilds.append(g)
        spare = sorted((g for g in self.cards.guilds if g.id not in guilds),
                       key=lambda g: (g.trait.kind != "material", g.number))
        spare_ids = iter(g.id for g in spare)
        guilds = [g if g is not None else next(spare_ids) for g in guilds]
        return [self.seat(i, r, guilds[i]) for i, r in enumerate(readers)]

    def race(self, r: _Reader, key: str, rid: str) -> str:
        try:
            self.cards.race(rid)
        except KeyError:
            raise r.error(f"no race {rid!r}", key) from None
        return rid

    def seat(self, i: int, r: _Reader, guild: str) -> SeatState:
        battle = self.phase == "battle"
        race = r.get("race", str)
        if race is not None:
            self.race(r, "race", race)
        cands = r.strings("race_candidates")
        if cands is not None:
            if len(cands) != 2:
                raise r.error("a seat has 2 race candidates", "race_candidates")
            for c in cands:
                self.race(r, "race_candidates", c)
            if race is not None and race not in cands:
                raise r.error(f"{race!r} is not one of race_candidates", "race")
        else:
            # default candidates: the scenario's inline races first, then the shipped ones
            inline = {e.get("id") for e in self.raw.get("race", [])}
            races = sorted(self.cards.races, key=lambda x: x.id not in inline)
            others = [x.id for x in races if x.id != race]
            cands = (race, others[0]) if race is not None else tuple(others[:2])
        if battle and race is None:
            race = cands[0]
        where = f"seat {i}"
        hand = self.cards_at(r, "hand", f"{where} hand")
        picks = self.cards_at(r, "picks", f"{where} picks", attack=False)
        draft_choice = r.get("draft_choice", str)
        if (picks or draft_choice is not None) and self.phase != "draft":
            raise r.error("only in phase = \"draft\" (after the draft the picks are the hand)",
                          "picks" if picks else "draft_choice")
        if draft_choice is not None and draft_choice not in hand:
            raise r.error(f"{draft_choice!r} is not in this seat's hand", "draft_choice")
        equipped = self.cards_at(r, "equipped", f"{where} equipped")
        materialized = self.cards_at(r, "materialized", f"{where} materialized", attack=False)
        hp = r.get("hp", int, 6, 0, 6)
        knocked_out = r.get("knocked_out", bool, hp == 0 if battle else False)
        area = r.get("area", int, None, 1, 6)
        if knocked_out and area is not None:
            raise r.error("a knocked-out seat is off the field: leave area out", "area")
        entered = r.get("entered", bool, area is not None or knocked_out)
        if battle and self.raw.get("battle", {}).get("round", 1) != 0 \
                and area is None and not knocked_out:
            raise r.error("in a battle round after the entries every seat needs an area "
                          "(or knocked_out = true)", "area")
        default_mana = max(0, final_stats(self.cards, race, equipped)["mana"]) if race else 0
        active = []
        if not isinstance(r.table.get("active", []), list):
            raise r.error("must be a list of {card, skill, until} tables", "active")
        for k, a in enumerate(r.table.get("active", [])):
            ar = _Reader(self.path, f"{r.place}, active[{k}]", a, ("card", "skill", "until"))
            if not ar.has("card") or not ar.has("skill"):
                raise ar.error("give the card and the skill in effect")
            card = ar.get("card", str)
            skill = ar.get("skill", str)
            trait = self.cards.guild(guild).battle_skill if card == guild else None
            if card not in equipped and trait is None:
                raise ar.error(f"{card!r} is not an equipped card of this seat (nor its guild "
                               "with a battle trait)", "card")
            if skill not in ({trait.id} if trait is not None else
                             {s.id for s in self.cards.card(card).skills}):
                raise ar.error(f"{skill!r} is not a skill of {card!r}", "skill")
            until = ar.get("until", str, self.cards.skill(skill).continuous or "turn_end")
            if until not in ("turn_end", "next_turn_start"):
                raise ar.error("must be turn_end or next_turn_start", "until")
            active.append(Active(card, skill, until))
        return SeatState(
            guild=guild, race_candidates=tuple(cands), hand=hand, picks=picks,
            draft_choice=draft_choice, race=race, equipped=equipped,
            materialized=materialized, confirmed=r.get("confirmed", bool, battle),
            revealed=r.get("revealed", bool, battle),
            material=r.get("material", int, available_material(self.cards, guild, materialized), 0, 99),
            hp=hp, mana=r.get("mana", int, default_mana, 0, 99), vp=r.get("vp", int, 0, 0, 9),
            unluck=r.get("unluck", int, 0, 0, 2), area=area, entered=entered,
            knocked_out=knocked_out, low=r.get("low", bool, hp <= 4),
            active=tuple(active), auction_used=r.get("auction_used", bool, False),
            trait_used=r.get("trait_used", bool, False))

    def bidding(self, start: int) -> BiddingState:
        draft = self.phase == "draft"
        r = _Reader(self.path, "[bidding]", self.raw.get("bidding", {}),
                    ("current", "upcoming") if draft else BIDDING_KEYS)
        per_round, rounds = BID_ROUNDS[self.n]
        step = r.get("step", str, "bid")
        if step not in BID_STEPS:
            raise r.error(f"must be one of {', '.join(BID_STEPS)}, not {step!r}", "step")
        rnd = r.get("round", int, 0, 0, rounds - 1)
        leader = r.get("leader", int, (start + rnd) % self.n, 0, self.n - 1)
        turn = r.get("turn", int, leader, 0, self.n - 1)
        current = self.cards_at(r, "current", "[bidding] current", attack=True)
        upcoming = (self.cards_at(r, "upcoming", "[bidding] upcoming", attack=True)
                    if r.has("upcoming") else None)
        if not current and not draft and step != "appraisal":
            raise r.error("list the targets of this bid round", "current")
        bids = []
        raw_bids = r.table.get("bids", [])
        if not isinstance(raw_bids, list):
            raise r.error("must be a list of {seat, target, card} tables", "bids")
        for k, b in enumerate(raw_bids):
            br = _Reader(self.path, f"[bidding] bids[{k}]", b, ("seat", "target", "card", "value"))
            for key in ("seat", "target", "card"):
                if not br.has(key):
                    raise br.error(f"missing field {key!r}")
            seat = br.get("seat", int, None, 0, self.n - 1)
            target = br.get("target", str)
            if target not in current:
                raise br.error(f"{target!r} is not a current target", "target")
            card = self.card(br, "card", br.get("card", str), f"[bidding] bids[{k}]", attack=False)
            value = br.get("value", int, self.cards.card(card).bid, 1, 6)
            bids.append(Bid(seat, target, card, value))
        if step != "bid":
            return self.bid_result(r, step, rnd, rounds, leader, turn, current, upcoming,
                                   tuple(bids))
        passed = set(r.ints("passed", 0, self.n - 1, ()))
        for seat in range(self.n):
            count = sum(1 for b in bids if b.seat == seat)
            if count > 2:
                raise r.error(f"seat {seat} has {count} bids; at most 2 a round", "bids")
            if count == 2:
                passed.add(seat)       # the 2nd bid passes automatically (§5-3)
        if len(passed) == self.n:
            raise r.error("every seat has passed: nothing is left to decide", "passed")
        if turn in passed:
            raise r.error(f"seat {turn} has passed and cannot be the seat to bid", "turn")
        return BiddingState(round=rnd, leader=leader, turn=turn, current=current,
                            upcoming=upcoming, bids=tuple(bids),
                            passed=tuple(i in passed for i in range(self.n)))

    def bid_result(self, r: _Reader, step: str, rnd: int, rounds: int, leader: int, turn: int,
                   current: tuple, upcoming: Optional[tuple], bids: tuple) -> BiddingState:
        """§5-3 入札結果: every seat has passed and the bids are revealed; the position is
        the 《競売》 step (bids as placed), the payment step (bids, `payments` chosen so
        far) or the 《鑑定》 step of the last round (bids resolved: `current` is what is
        left, `tied` the targets left unsold by a tie)."""
        if r.has("passed"):
            raise r.error(f"in step {step!r} every seat has passed", "passed")
        if step in ("auction", "payment") and not bids:
            raise r.error(f"step {step!r} resolves the bids: give them", "bids")
        if step == "appraisal":
            if bids:
                raise r.error("in step 'appraisal' the bids are already resolved: leave "
                              "them out", "bids")
            if rnd != rounds - 1:
                raise r.error(f"《鑑定》 comes after the last bid round ({rounds - 1}), not "
                              f"round {rnd}", "round")
        elif r.has("tied"):
            raise r.error("only in step 'appraisal'", "tied")
        if r.has("payments") and step != "payment":
            raise r.error("only in step 'payment'", "payments")
        payments = []
        raw = r.table.get("payments", [])
        if not isinstance(raw, list):
            raise r.error("must be a list of { target, card } tables", "payments")
        for k, entry in enumerate(raw):
            pr = _Reader(self.path, f"[bidding] payments[{k}]", entry, ("target", "card"))
            target, card = pr.get("target", str), pr.get("card", str)
            if not any(b.target == target and b.card == card for b in bids):
                raise pr.error(f"no bid of {card!r} on {target!r}")
            payments.append((target, card))
        tied = r.strings("tied", ())
        for t in tied:
            if t not in current:
                raise r.error(f"{t!r} is not a current target", "tied")
        return BiddingState(round=rnd, leader=leader, turn=turn, current=current,
                            upcoming=upcoming if upcoming is not None else (), bids=bids,
                            passed=(True,) * self.n, step=step, payments=tuple(payments),
                            tied=tied)

    def battle(self, seats: list[SeatState]) -> tuple[tuple[int, ...], BattleState]:
        r = _Reader(self.path, "[battle]", self.raw.get("battle", {}), BATTLE_KEYS)
        rnd = r.get("round", int, 1, 0, MAX_ROUND)
        order = r.ints("order", 0, self.n - 1, tuple(range(self.n)))
        if sorted(order) != list(range(self.n)):
            raise r.error(f"must list every seat 0..{self.n - 1} once", "order")
        t = r.table.get("turn", order[0])
        if type(t) is int:
            tr = _Reader(self.path, "[battle] turn", {"seat": t}, ("seat",))
        else:
            tr = _Reader(self.path, "[battle] turn", t, ("seat", "moves", "attacked", "rested"))
        seat = tr.get("seat", int, order[0], 0, self.n - 1)
        turn = Turn(seat, moves=tr.get("moves", int, 0, 0, 2),
                    attacked=tr.get("attacked", bool, False), rested=tr.get("rested", bool, False))
        s = seats[seat]
        attack = self.attack(r, seats) if r.has("attack") else None
        in_attack = attack is not None or bool(r.table.get("counter_queue"))
        if (s.knocked_out or s.area is None) and not in_attack:
            raise tr.error(f"seat {seat} is not on the field; start at the end of the turn "
                           "before it (its entry or re-entry happens when its turn begins)")
        queue = r.ints("counter_queue", 0, self.n - 1, ())
        countered = r.get("countered", int, None, 0, self.n - 1)
        if queue and countered is None:
            raise r.error("the counters wait against an attacker: give countered = seat",
                          "countered")
        if queue and (attack is None or attack.stage != "done") and \
                (attack is None or not attack.counter):
            raise r.error("counters come after the attack: give attack = { …, stage = "
                          "\"done\" } (or a counter in progress)", "counter_queue")
        return order, BattleState(round=rnd, turn=turn, attack=attack, counter_queue=queue,
                                  countered=countered, blocked=r.get("blocked", bool, False))

    def attack(self, r: _Reader, seats: list[SeatState]) -> Attack:
        """[battle] attack = { … }: the attack or counter in progress — the fields of
        rules.state.Attack (attacker, counter, card, range_skill, stage, skills, targets,
        defense, bag, drawn, …), structured strictly."""
        raw = r.table["attack"]
        if not isinstance(raw, dict):
            raise r.error("must be a table of the attack's fields (attacker, card, "
                          "range_skill, stage, …)", "attack")
        place = "[battle] attack"
        try:
            atk = _converter().structure(dict(raw), Attack)
        except Exception as exc:  # noqa: BLE001 - the file's problem, with its field
            where, problem = _cattrs_problem(exc)
            raise _err(self.path, f"{place}.{where}" if where else place, problem) from None
        if not 0 <= atk.attacker < self.n:
            raise _err(self.path, place + ", attacker", f"there is no seat {atk.attacker}")
        owner = seats[atk.attacker]
        for k, (card, skill) in enumerate(((atk.card, atk.range_skill),) + atk.skills):
            where = place + (", card" if k == 0 else f", skills[{k - 1}]")
            if card not in owner.equipped:
                raise _err(self.path, where, f"{card!r} is not equipped by seat {atk.attacker}")
            if skill not in {x.id for x in self.cards.card(card).skills}:
                raise _err(self.path, where, f"{skill!r} is not a skill of {card!r}")
        for k, (seat, card, skill) in enumerate(atk.defense):
            where = f"{place}, defense[{k}]"
            if not 0 <= seat < self.n or card not in seats[seat].equipped:
                raise _err(self.path, where, f"{card!r} is not equipped by seat {seat}")
            if skill not in {x.id for x in self.cards.card(card).skills}:
                raise _err(self.path, where, f"{skill!r} is not a skill of {card!r}")
        for k, seat in enumerate(atk.targets + ((atk.defender,) if atk.defender is not None
                                                 else ()) + atk.defenders_done):
            if not 0 <= seat < self.n:
                raise _err(self.path, place, f"there is no seat {seat} (seats 0..{self.n - 1})")
        for key in ("bag", "drawn"):
            bad = [c for c in getattr(atk, key) if c not in CHIPS]
            if bad:
                raise _err(self.path, f"{place}, {key}", f"{bad[0]!r} is not a chip (chips: "
                                                         f"{', '.join(CHIPS)})")
        return atk


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
            meta: tuple[str, ...]) -> tuple[Any, _Reader]:
    """The action an action table describes (type = the class name, then its fields)."""
    if not isinstance(entry, dict):
        raise _err(path, place, "must be a table")
    kind = entry.get("type")
    if kind is None:
        raise _err(path, place, "missing field 'type' (an action class of rules.actions: "
                                f"{', '.join(ACTIONS)})")
    if kind not in ACTIONS:
        raise _err(path, place, f"unknown action type {_show(kind)} "
                                f"(types: {', '.join(ACTIONS)})")
    cls = ACTIONS[kind]
    types = _field_types(cls)
    r = _Reader(path, f"{place} ({kind})", entry, ("type",) + meta + tuple(types))
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
            raise r.error(f"must be {_kind_name(base)}, not {_show(value)}", name)
        if allowed and value not in allowed:
            raise r.error(f"must be one of {', '.join(map(repr, allowed))}", name)
        values[name] = value
    if not 0 <= values["seat"] < players:
        raise r.error(f"there is no seat {values['seat']} (seats 0..{players - 1})", "seat")
    return cls(**values), r


def _steps(path: str, text: str, raw: list, players: int) -> tuple[Step, ...]:
    places = _places(text, "action", len(raw))
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

DERIVED_SEAT = ("final_stats", "available_material", "equip_cost", "hand_slots", "violations")
EXPECT_META = ("at",)


def _flatten(table: dict, prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and not _is_op(v) and not any(x in OPS for x in v):
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


def _expects(path: str, text: str, raw: list, steps: int, players: int) -> tuple[Expect, ...]:
    places = _places(text, "expect", len(raw))
    out = []
    for i, entry in enumerate(raw):
        place = places[i]
        if not isinstance(entry, dict):
            raise _err(path, place, "must be a table")
        at = entry.get("at")
        if at is not None and (type(at) is not int or not 0 <= at <= steps):
            raise _err(path, place + ", at", f"must be an action number from 0 to {steps} "
                                            f"(0 = before the first action), not {_show(at)}")
        body = {k: v for k, v in entry.items() if k != "at"}
        if "illegal" in body:
            extra = [k for k in body if k not in ("illegal", "reason_contains", "code")]
            if extra:
                raise _err(path, place, f"unknown field {extra[0]!r} (an illegal-action "
                                        "expectation has illegal, reason_contains, code, at)")
            action, _ = _action(path, place + ", illegal", body["illegal"], players, ())
            r = _Reader(path, place, body, ("illegal", "reason_contains", "code"))
            out.append(Expect(i + 1, place, "illegal", at, action=action,
                              reason=r.get("reason_contains", str, ""), code=r.get("code", str, "")))
        elif any(k in body for k in V2_KINDS):
            out.append(_expect_v2(path, place, i + 1, at, body, players))
        elif "event" in body:
            name = body.pop("event")
            if name not in EVENTS:
                raise _err(path, place + ", event", f"unknown event {_show(name)} "
                                                    f"(events: {', '.join(sorted(EVENTS))})")
            times = body.pop("times", None)
            if times is not None and (type(times) is not int or times < 0):
                raise _err(path, place + ", times", "must be a whole number ≥ 0")
            fields = [f.name for f in attrs.fields(EVENTS[name])]
            for k in body:
                if k not in fields:
                    raise _err(path, place, f"event {name} has no field {k!r} (fields: "
                                            f"{', '.join(fields) or 'none'}; also at, times)")
            out.append(Expect(i + 1, place, "event", at, name=name, fields=body, times=times))
        elif "legal" in body:
            name = body.pop("legal")
            if name not in ACTIONS:
                raise _err(path, place + ", legal", f"unknown action type {_show(name)} "
                                                    f"(types: {', '.join(ACTIONS)})")
            modes = [m for m in ("exactly", "includes", "excludes") if m in body]
            extra = [k for k in body if k not in ("exactly", "includes", "excludes")]
            if extra or len(modes) != 1:
                raise _err(path, place, "a legal-actions expectation has legal = \"Type\" and one "
                                        "of exactly, includes, excludes (a list of tables)")
            items = body[modes[0]]
            fields = [f.name for f in attrs.fields(ACTIONS[name])]
            if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
                raise _err(path, place + ", " + modes[0], "must be a list of tables of fields")
            for x in items:
                for k in x:
                    if k not in fields:
                        raise _err(path, place + ", " + modes[0],
                                   f"{name} has no field {k!r} (fields: {', '.join(fields)})")
            out.append(Expect(i + 1, place, "legal", at, name=name, fields=items, mode=modes[0]))
        else:
            if not body:
                raise _err(path, place, "expects nothing: give state paths (seats[1].hp = 4), "
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
            raise _err(path, place, str(exc)) from None
        problem = _check_path(tokens, root)
        if problem is None:
            problem = _value_problem(value)
        if problem:
            raise _err(path, place + f", {key}", problem)
        paths.append((key, tokens, value))
    return tuple(paths)


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


def _event_pattern(path: str, place: str, entry: Any) -> tuple[str, dict]:
    """An `{ event = "Name", field = value, … }` table: the event class and the fields."""
    if not isinstance(entry, dict) or "event" not in entry:
        raise _err(path, place, "must be a table { event = \"Name\", field = value, … }")
    body = dict(entry)
    name = body.pop("event")
    if name not in EVENTS:
        raise _err(path, place + ", event", f"unknown event {_show(name)} "
                                            f"(events: {', '.join(sorted(EVENTS))})")
    fields = [f.name for f in attrs.fields(EVENTS[name])]
    for k, v in body.items():
        if k not in fields:
            raise _err(path, place, f"event {name} has no field {k!r} (fields: "
                                    f"{', '.join(fields) or 'none'})")
        problem = _value_problem(v)
        if problem:
            raise _err(path, place + f", {k}", problem)
    return name, body


def _expect_v2(path: str, place: str, number: int, at: Optional[int], body: dict,
               players: int) -> Expect:
    kinds = [k for k in V2_KINDS if k in body]
    if len(kinds) > 1:
        raise _err(path, place, f"one kind of expectation per [[expect]]: {kinds[0]} or "
                                f"{kinds[1]}, not both")
    kind = kinds[0]
    if kind == "observe":
        r = _Reader(path, place, {"observe": body["observe"]}, ("observe",))
        seat = r.get("observe", int, None, 0, players - 1)
        rest = {k: v for k, v in body.items() if k != "observe"}
        if not rest:
            raise _err(path, place, "give paths of the observation, e.g. "
                                    "\"seats[1].equipped\" = \"hidden\"")
        from rules.observe import Observation
        return Expect(number, place, "observe", at, seat=seat,
                      paths=_paths(path, place, rest, Observation))
    r = _Reader(path, place, body, V2_KINDS[kind])
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
            raise r.error(f"unknown event {_show(until)} (events: {', '.join(sorted(EVENTS))})",
                          "until")
        script = None
        if r.has("dice") or r.has("chips"):
            script, seats = _script(path, {"chance": {k: body[k] for k in ("dice", "chips")
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
    if _is_op(value):
        return _value_problem(value)
    return f"must be a whole number ≥ 0 or a comparison such as {{ at_least = 2 }}, " \
           f"not {_show(value)}"


# ------------------------------------------------------------------ comparisons (v2)

OPS = ("any_order", "contains", "length", "not", "at_least", "at_most")


def _is_op(value: Any) -> bool:
    """A comparison table: every key is a comparison (`{ at_least = 2 }`)."""
    return isinstance(value, dict) and bool(value) and all(k in OPS for k in value)


def _value_problem(value: Any) -> Optional[str]:
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
                return f"{k} needs a number, not {_show(v)}"
            if k == "any_order" and ops and not isinstance(v, list):
                return f"any_order needs a list, not {_show(v)}"
            if k == "length" and ops and not (type(v) is int or _is_op(v)):
                return f"length needs a number or a comparison, not {_show(v)}"
            problem = _value_problem(v)
            if problem:
                return problem
    if isinstance(value, list):
        for v in value:
            problem = _value_problem(v)
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


# ================================================================================= running

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
    if _is_op(expected):
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


def _show(value: Any) -> str:
    """A value the way a scenario file writes it."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _resolve(state: GameState, tokens: tuple) -> Any:
    """The plain value at `tokens` (None when the path goes through a None)."""
    if tokens[0] == "pending":
        value: Any = plain(pending(state))
        for t in tokens[1:]:
            value = value[t] if isinstance(value, dict) else (
                value[t] if isinstance(value, list) and t < len(value) else None)
        return value
    if len(tokens) >= 3 and tokens[0] == "seats" and tokens[2] in DERIVED_SEAT:
        if tokens[1] >= state.players:
            return None
        s = state.seats[tokens[1]]
        from rules.engine import available_of
        avail = available_of(state, tokens[1])
        value = {
            "final_stats": lambda: plain(final_stats(state.cards, s.race, s.equipped)),
            "available_material": lambda: avail,
            "equip_cost": lambda: equip_cost(state.cards, s.equipped),
            "hand_slots": lambda: hand_slots_used(state.cards, s.equipped),
            "violations": lambda: [v.code for v in violations(state.cards, s.race, s.equipped, avail)],
        }[tokens[2]]()
        for t in tokens[3:]:
            value = value[t] if isinstance(value, dict) else (
                value[t] if t < len(value) else None)
        return value
    return _walk_value(state, tokens)


def _action_text(action: Any) -> str:
    fields = ", ".join(f"{f.name}={_show(getattr(action, f.name))}"
                       for f in attrs.fields(type(action)))
    return f"{type(action).__name__}({fields})"


@attrs.define
class Result:
    scenario: Optional[Scenario]
    path: str
    failures: list[str] = attrs.Factory(list)
    log: list[str] = attrs.Factory(list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def title(self) -> str:
        if self.scenario is None:
            return ""
        rule = f" ({self.scenario.rule})" if self.scenario.rule else ""
        return self.scenario.name + rule


_EXPLAIN = {
    "step": {"ja": "手順{n}: {action}", "en": "step {n}: {action}"},
    "start": {"ja": "開始局面: {phase}、次は{pending}（ログの席番号は1から、ファイルは0から）",
              "en": "start: {phase}, next {pending} (the log numbers seats from 1, the file from 0)"},
    "next": {"ja": "  → 次: {pending}", "en": "  → next: {pending}"},
    "refused": {"ja": "  ✗ 拒否（想定どおり）: {reason}", "en": "  ✗ refused, as expected: {reason}"},
    "failed": {"ja": "  ✗ 適用できません: {reason}", "en": "  ✗ cannot be applied: {reason}"},
}


def _pending_text(state: GameState, describe: Optional[Describer] = None) -> str:
    """The pending decision; with `describe`, seats are named as players see them (from 1)."""
    d = pending(state)
    name = describe.seat if describe else (lambda s: f"seat {s}")
    return f"{d.kind} ({', '.join(name(s) for s in d.seats) or '-'})"


def run_scenario(sc: Scenario, explain: bool = False, lang: str = "en") -> Result:
    """Play the scenario's actions and check its expectations."""
    res = Result(sc, sc.path)
    describe = Describer(sc.state.cards, lang)
    lang = describe.lang

    def log(key: str, **kw: Any) -> None:
        if explain:
            res.log.append(_EXPLAIN[key][lang].format(**kw))

    state = sc.state
    states: list[GameState] = [state]
    step_events: list[list[E.Event]] = [[]]
    log("start", phase=state.phase, pending=_pending_text(state, describe))
    stopped: Optional[int] = None
    perft_left = [PERFT_SCENARIO_NODES]     # shared by the scenario's perfts
    for step in sc.steps:
        log("step", n=step.number, action=_action_text(step.action))
        what = f"action #{step.number} {_action_text(step.action)} ({step.place})"
        try:
            new, events = apply(state, step.action)
        except IllegalAction as exc:
            if step.illegal:
                problems = []
                if step.reason_contains and step.reason_contains.lower() not in exc.reason.lower():
                    problems.append(f"{what} was refused, but its reason does not contain the "
                                    f"expected text\n    expected reason containing: "
                                    f"{step.reason_contains!r}\n    actual reason: {exc.reason!r}")
                if step.code and step.code != exc.code:
                    problems.append(f"{what} was refused with another code\n"
                                    f"    expected code: {step.code!r}\n    actual code:   {exc.code!r}")
                res.failures.extend(problems)
                log("refused", reason=refusal_text(state.cards, exc.code, exc.params, lang))
                states.append(state)
                step_events.append([])
                continue
            legal = legal_actions(state)
            shown = "; ".join(_action_text(a) for a in legal[:12]) + (" …" if len(legal) > 12 else "")
            res.failures.append(f"{what} cannot be applied: {exc.reason}\n"
                                f"    waiting for: {_pending_text(state)}\n"
                                f"    legal now: {shown or 'nothing'}")
            log("failed", reason=refusal_text(state.cards, exc.code, exc.params, lang))
            stopped = step.number
            break
        except ChanceScriptError as exc:
            res.failures.append(f"{what}: the scripted chance cannot happen: {exc}")
            log("failed", reason=str(exc))
            stopped = step.number
            break
        except Exception as exc:  # noqa: BLE001 - an engine error is a failure, not a crash
            res.failures.append(f"{what}: the engine raised {type(exc).__name__}: {exc}")
            log("failed", reason=f"{type(exc).__name__}: {exc}")
            stopped = step.number
            break
        if step.illegal:
            res.failures.append(f"{what} should have been refused, but it was applied")
            for e in events:
                log_event = describe.describe(e)
                if explain:
                    res.log.append("  " + log_event)
            stopped = step.number
            break
        for e in events:
            if explain:
                res.log.append("  " + describe.describe(e))
        wrong = _dice_seat_problem(sc, state, new, events)
        if wrong:
            res.failures.append(f"{what}: {wrong}")
            stopped = step.number
            states.append(new)
            step_events.append(list(events))
            break
        rolled = sum(1 for e in events if isinstance(e, E.DieRolled))
        drawn = sum(1 for e in events if isinstance(e, E.ChipDrawn))
        dice_used = len(state.script.dice) - len(new.script.dice)
        chips_used = len(state.script.chips) - len(new.script.chips)
        state = new
        states.append(state)
        step_events.append(list(events))
        if rolled > dice_used or drawn > chips_used:
            need = []
            if rolled > dice_used:
                need.append(f"{rolled - dice_used} die roll(s)")
            if drawn > chips_used:
                need.append(f"{drawn - chips_used} chip draw(s)")
            res.failures.append(f"{what} needed {' and '.join(need)} that [chance] does not "
                                "script (add them to [chance] dice / chips)")
            stopped = step.number
            break
        if explain and state.phase != Phase.OVER:
            log("next", pending=_pending_text(state, describe))
    if stopped is None:
        left = []
        if state.script.dice:
            left.append(f"dice {_show(list(state.script.dice))}")
        if state.script.chips:
            left.append(f"chips {_show(list(state.script.chips))}")
        if left:
            res.failures.append("scripted chance left unused: " + ", ".join(left))
    done = len(states) - 1
    for ex in sc.expects:
        at = len(sc.steps) if ex.at is None else ex.at
        when = "at the start" if at == 0 else f"after action #{at}"
        if at > done:
            res.failures.append(f"expect #{ex.number} ({ex.place}) not checked: the scenario "
                                f"stopped at action #{stopped}")
            continue
        st = states[at]
        if ex.kind == "state":
            for key, tokens, value in ex.paths:
                actual = _resolve(st, tokens)
                if not matches(value, actual):
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {show_path(tokens)}\n"
                        f"    expected: {_show(value)}\n    actual:   {_show(actual)}")
        elif ex.kind == "event":
            pool = [e for evs in (step_events[1:] if ex.at is None else [step_events[at]])
                    for e in evs]
            same = [plain(e) for e in pool if type(e).__name__ == ex.name]
            hits = [p for p in same if matches(ex.fields, p)]
            want = f"{ex.name} {_show(ex.fields)}" if ex.fields else ex.name
            scope = "in all actions" if ex.at is None else f"in action #{at}"
            if ex.times is None and not hits:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}): no event {want} {scope}\n"
                    f"    expected: {want}\n"
                    f"    actual {ex.name} events: "
                    + ("none" if not same else "\n      " + "\n      ".join(_show(p) for p in same)))
            elif ex.times is not None and len(hits) != ex.times:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}): event {want} {scope}\n"
                    f"    expected: {ex.times} time(s)\n    actual:   {len(hits)} time(s)"
                    + ("" if not same else "\n    actual " + ex.name + " events:\n      "
                       + "\n      ".join(_show(p) for p in same)))
        elif ex.kind == "illegal":
            action = ex.action
            if action in legal_actions(st):
                res.failures.append(f"expect #{ex.number} ({ex.place}), {when}: "
                                    f"{_action_text(action)} should be refused, but it is legal")
            else:
                code, reason = explain_illegal(st, action)
                if ex.reason and ex.reason.lower() not in reason.lower():
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {_action_text(action)} is "
                        f"refused for another reason\n    expected reason containing: "
                        f"{ex.reason!r}\n    actual reason: {reason!r}")
                if ex.code and ex.code != code:
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {_action_text(action)} is "
                        f"refused with another code\n    expected code: {ex.code!r}\n"
                        f"    actual code:   {code!r}")
        elif ex.kind in V2_KINDS:
            pool = [e for evs in (step_events[1:] if ex.at is None else [step_events[at]])
                    for e in evs]
            res.failures.extend(_check_v2(ex, st, when, pool, ex.at is None, perft_left))
        else:
            actual = [plain(a) for a in legal_actions(st) if type(a).__name__ == ex.name]
            problem = _legal_problem(ex.mode, ex.fields, actual)
            if problem:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}), {when}: legal {ex.name} actions "
                    f"({ex.mode})\n    expected: {_show(ex.fields)}\n"
                    f"    actual:   {_show([{k: v for k, v in a.items()} for a in actual])}"
                    f"\n    {problem}")
    return res


def _dice_seat_problem(sc: Scenario, before: GameState, after: GameState,
                       events: list) -> Optional[str]:
    """A scripted die that names its seat but was rolled for another one. The script is
    used first, so the action's first rolls are the scripted ones."""
    first = len(sc.state.script.dice) - len(before.script.dice)
    used = len(before.script.dice) - len(after.script.dice)
    rolls = [e for e in events if isinstance(e, E.DieRolled)][:used]
    for k, e in enumerate(rolls):
        index = first + k
        want = sc.dice_seats[index] if index < len(sc.dice_seats) else None
        if want is not None and e.seat != want:
            return (f"scripted die #{index + 1} ({e.value}) is for seat {want}, but the "
                    f"engine rolled it for seat {e.seat} ({e.reason})")
    return None


def _check_v2(ex: Expect, st: GameState, when: str, pool: list, everywhere: bool,
              perft_left: Optional[list[int]] = None) -> list[str]:
    """The failures of one format-v2 expectation at state `st` (`pool`: the events it
    may look at; `perft_left`: the positions the scenario's perfts may still visit, one
    number in a list that a perft counts down)."""
    head = f"expect #{ex.number} ({ex.place}), {when}"
    out: list[str] = []
    if ex.kind == "legal_count":
        legal = legal_actions(st, ex.seat)
        if not matches(ex.value, len(legal)):
            whose = "" if ex.seat is None else f" of seat {ex.seat}"
            out.append(f"{head}: the number of legal actions{whose}\n"
                       f"    expected: {_show(ex.value)}\n    actual:   {len(legal)}"
                       + _listing(legal))
    elif ex.kind == "legal_set":
        legal = legal_actions(st, ex.seat)
        missing = [a for a in ex.actions if a not in legal]
        extra = [a for a in legal if a not in ex.actions]
        if missing or extra:
            whose = "" if ex.seat is None else f" of seat {ex.seat}"
            lines = [f"{head}: the legal actions{whose} (the exact set, any order)"]
            if missing:
                lines.append("    expected but not legal: " +
                             "; ".join(_action_text(a) for a in missing))
            if extra:
                lines.append("    legal but not expected: " +
                             "; ".join(_action_text(a) for a in extra))
            lines.append("    actual: " + ("; ".join(_action_text(a) for a in legal)
                                           or "nothing is legal"))
            out.append("\n".join(lines))
    elif ex.kind == "perft":
        left = perft_left if perft_left is not None else [PERFT_SCENARIO_NODES]
        limit = min(PERFT_NODES, left[0])
        if limit <= 0:
            out.append(f"{head}: perft {ex.depth} not counted: the scenario's perfts have "
                       f"visited {PERFT_SCENARIO_NODES} positions, the most one scenario may")
            return out
        visited = [0]
        try:
            start = st if ex.script is None else attrs.evolve(st, script=ex.script)
            count = perft(start, ex.depth, ex.until, limit=limit, visited=visited)
        except PerftTooBig:
            left[0] -= visited[0]
            if limit < PERFT_NODES:
                out.append(f"{head}: perft {ex.depth} not counted: the scenario's perfts "
                           f"would visit more than {PERFT_SCENARIO_NODES} positions, the most "
                           "one scenario may; give smaller depths or `until` events")
            else:
                out.append(f"{head}: perft {ex.depth} visits more than {PERFT_NODES} "
                           "positions; give a smaller depth or an `until` event")
            return out
        except ChanceScriptError as exc:
            left[0] -= visited[0]
            out.append(f"{head}: perft {ex.depth}: the scripted chance cannot happen: {exc}")
            return out
        left[0] -= visited[0]
        if not matches(ex.value, count):
            until = f" until {ex.until}" if ex.until else ""
            out.append(f"{head}: perft {ex.depth}{until} (lines of play)\n"
                       f"    expected: {_show(ex.value)}\n    actual:   {count}")
    elif ex.kind == "event_order":
        problem = _order_problem(ex, pool)
        if problem:
            scope = "in all actions" if everywhere else f"in action #{ex.at}"
            shown = [f"{type(e).__name__} {_show(plain(e))}" for e in pool]
            out.append(f"{head}: the order of events {scope}\n    {problem}\n"
                       "    actual events:" + ("".join("\n      " + x for x in shown[:80])
                                               or " none")
                       + ("\n      …" if len(shown) > 80 else ""))
    else:   # observe
        from rules.observe import observe
        obs = observe(st, ex.seat)
        for key, tokens, value in ex.paths:
            actual = _walk_value(obs, tokens)
            ok = _hidden(actual) if value == HIDDEN else matches(value, actual)
            if not ok:
                out.append(f"{head}: what seat {ex.seat} sees at {show_path(tokens)}\n"
                           f"    expected: {_show(value)}\n    actual:   {_show(actual)}")
    return out


HIDDEN = "hidden"     # observe expectations: the seat sees nothing there


def _hidden(value: Any) -> bool:
    """Nothing to see: none, or an empty list."""
    return value is None or value == []


def _walk_value(value: Any, tokens: tuple) -> Any:
    """The plain value at `tokens` of a state or an observation (None through a None)."""
    for t in tokens:
        if value is None:
            return None
        if isinstance(t, int):
            value = value[t] if t < len(value) else None
        else:
            value = getattr(value, t)
    return plain(value)


def _listing(legal: list) -> str:
    if not legal:
        return ""
    shown = "; ".join(_action_text(a) for a in legal[:12]) + (" …" if len(legal) > 12 else "")
    return f"\n    legal now: {shown}"


def _order_problem(ex: Expect, pool: list) -> Optional[str]:
    """Why the events do not show `ex.sequence` in order (then none of `ex.then_none`)."""
    def hit(pattern: tuple[str, dict], e: Any) -> bool:
        return type(e).__name__ == pattern[0] and matches(pattern[1], plain(e))

    def name(pattern: tuple[str, dict]) -> str:
        return f"{pattern[0]} {_show(pattern[1])}" if pattern[1] else pattern[0]

    k = 0
    last = -1
    for i, e in enumerate(pool):
        if k < len(ex.sequence) and hit(ex.sequence[k], e):
            k += 1
            last = i
    if k < len(ex.sequence):
        got = " → ".join(name(p) for p in ex.sequence[:k]) or "nothing"
        return (f"expected in this order: {' → '.join(name(p) for p in ex.sequence)}\n"
                f"    found in order only: {got}; missing from there: {name(ex.sequence[k])}")
    if ex.then_none is not None:
        after = [e for e in pool[last + 1:] if hit(ex.then_none, e)]
        if after:
            return (f"expected no {name(ex.then_none)} after {name(ex.sequence[-1])}, "
                    f"but there is: {type(after[0]).__name__} {_show(plain(after[0]))}")
    return None


class PerftTooBig(Exception):
    pass


def perft(state: GameState, depth: int, until: str = "", limit: Optional[int] = None,
          visited: Optional[list[int]] = None) -> int:
    """The number of lines of play of `depth` actions from `state` (perft): every legal
    action is taken in turn. A line also ends when the game is over, when no action is
    legal, or after an action that produced an `until` event (e.g. "TurnEnded": whole
    turn sequences). Each line uses the scripted chance `state` carries, on its own;
    where a line needs more, the state's seeded generator decides (so the count is
    always the same). Raises PerftTooBig past `limit` positions; ChanceScriptError when
    a scripted chip is not in the bag. `visited`: a one-number list that ends up holding
    the positions visited (also when it raises)."""
    seen = visited if visited is not None else [0]
    limit = PERFT_NODES if limit is None else limit

    def count(st: GameState, d: int) -> int:
        seen[0] += 1
        if seen[0] > limit:
            raise PerftTooBig()
        if d == 0:
            return 1
        legal = legal_actions(st)
        if not legal:
            return 1
        total = 0
        for a in legal:
            nxt, events = apply(st, a)
            if until and any(type(e).__name__ == until for e in events):
                seen[0] += 1
                total += 1
            else:
                total += count(nxt, d - 1)
        return total

    return count(state, depth)


def _legal_problem(mode: str, wanted: list[dict], actual: list[dict]) -> Optional[str]:
    missing = [w for w in wanted if not any(matches(w, a) for a in actual)]
    if mode == "excludes":
        present = [w for w in wanted if any(matches(w, a) for a in actual)]
        return f"legal but expected not to be: {_show(present)}" if present else None
    if missing:
        return f"missing: {_show(missing)}"
    if mode == "exactly":
        extra = [a for a in actual if not any(matches(w, a) for w in wanted)]
        if extra:
            return f"not expected: {_show(extra)}"
    return None


# ========================================================== full positions (format v2)
#
# A `[position]` table is the whole GameState as data: the attrs classes of rules/state.py
# unstructured by cattrs (fields equal to their default left out), and structured back
# strictly (exact types, no unknown keys). Nothing here lists the state's fields, so a
# field or class added to the state flows through unchanged. The card set is the shipped
# one with the file's inline cards; the scripted chance comes from [chance].

POSITION_SKIP = ("cards", "script")
_RNG_TEXT = re.compile(r"0x[0-9a-f]{1,16}")


_CONVERTER: list = []


def _converter() -> Any:
    """One strict converter, made on first use (cattrs generates and caches its code)."""
    if _CONVERTER:
        return _CONVERTER[0]
    import cattrs
    conv = cattrs.Converter(forbid_extra_keys=True, omit_if_default=True)

    def strict(kind: type) -> Any:
        def hook(value: Any, _tp: Any) -> Any:
            if type(value) is not kind:
                raise ValueError(f"must be {_kind_name(kind)}, not {_show(value)}")
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
    data = _converter().unstructure(state)
    for key in POSITION_SKIP:
        data.pop(key, None)
    data["rng"] = f"{state.rng:#x}"
    return data


def _cattrs_problem(exc: BaseException) -> tuple[str, str]:
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
        raise _err(path, place, "must be a table")
    data = dict(data)
    for key in POSITION_SKIP:
        if key in data:
            raise _err(path, f"{place}, {key}", "is not part of a position (cards come from "
                                                "the shipped set and the inline cards, "
                                                "chance from [chance])")
    rng = data.get("rng")
    if rng is None:
        raise _err(path, f"{place}, rng", "missing field (the RNG state, e.g. \"0x1f\")")
    if type(rng) is not str or not _RNG_TEXT.fullmatch(rng):
        raise _err(path, f"{place}, rng", f"must be a hex string like \"0x1f\" (up to 64 "
                                          f"bits), not {_show(rng)}")
    data["rng"] = int(rng, 16)
    data["cards"] = None
    try:
        state = _converter().structure(data, GameState)
    except Exception as exc:  # noqa: BLE001 - every structuring problem is the file's
        where, problem = _cattrs_problem(exc)
        raise _err(path, f"{place}, {where}" if where else place, problem) from None
    state = attrs.evolve(state, cards=cards, script=script)
    problem = _position_problem(state)
    if problem:
        raise _err(path, f"{place}, {problem[0]}", problem[1])
    return state


def _position_problem(state: GameState) -> Optional[tuple[str, str]]:
    """(field, problem) for a position the rules cannot play from: unknown ids, a
    physical card in two places, a seat number out of range. The rest of the engine's
    invariants are the author's business, as in a v1 position."""
    from rules.state import Phase as P
    phases = [v for k, v in vars(P).items() if k.isupper()]
    if state.phase not in phases:
        return "phase", f"must be one of {', '.join(phases)}, not {_show(state.phase)}"
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


# =========================================================================== the command

def scenario_files(paths: Iterable[str]) -> list[tuple[str, Optional[str]]]:
    """(file, problem) for every scenario file under `paths`, folders searched for
    ``*.toml`` in name order. A path that does not exist is returned with its problem."""
    import os
    import stat
    from tactical_tui.text.catalog import os_error_text
    out: list[tuple[str, Optional[str]]] = []
    for p in paths:
        path = Path(p)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            out.append((p, "no such file or folder"))
            continue
        except (OSError, ValueError) as exc:    # a loop of links, a name too long, a NUL
            if isinstance(exc, ValueError):
                exc = OSError(22, "invalid file name")
            out.append((p, os_error_text(exc, "en")))
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                found = sorted(path.rglob("*.toml"))
            except OSError as exc:
                out.append((p, os_error_text(exc, "en")))
                continue
            if not found:
                out.append((p, "no scenario files (*.toml) in this folder"))
            out.extend((str(f), None) for f in found)
        else:                          # a pipe or device: load_scenario says what it is
            out.append((p, None))
    return out


def check(paths: Iterable[str], explain: bool = False, lang: str = "en",
          out: Optional[TextIO] = None) -> int:
    """`tactical check`: one line per scenario, a diff for each failure, then
    `N passed, M failed`. Returns the exit code: 0 if all passed, else 1."""
    out = SafeStream(out if out is not None else sys.stdout)   # data is never terminal control
    passed = failed = 0
    for path, problem in scenario_files(paths):
        if problem is not None:
            print(f"FAIL  {path}: {problem}", file=out)
            failed += 1
            continue
        try:
            sc = load_scenario(path)
        except ScenarioError as exc:
            print(f"FAIL  {path}: malformed scenario\n      {exc}", file=out)
            failed += 1
            continue
        except Exception as exc:  # noqa: BLE001 - never a traceback for a scenario file
            print(f"FAIL  {path}: malformed scenario\n      {path}: cannot be read as a "
                  f"scenario ({type(exc).__name__}: {exc})", file=out)
            failed += 1
            continue
        try:
            res = run_scenario(sc, explain=explain, lang=lang)
        except Exception as exc:  # noqa: BLE001
            res = Result(sc, path, [f"the scenario could not be run: {type(exc).__name__}: {exc}"])
        mark = "pass" if res.passed else "FAIL"
        print(f"{mark}  {path}  {res.title}", file=out)
        if explain:
            if sc.description:
                print("      " + sc.description.strip().replace("\n", "\n      "), file=out)
            for line in res.log:
                print(f"      {line}", file=out)
        for f in res.failures:
            print("      " + f.replace("\n", "\n      "), file=out)
        if res.passed:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 else 1
