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
from rules.battle import ROUND_LIMIT
from rules.build import available_material, equip_cost, final_stats, hand_slots_used, violations
from rules.cards import STATS, CardSet, Stats, default_cards, parse_cards
from rules.engine import copies_of
from rules.state import (BID_ROUNDS, Active, BattleState, Bid, BiddingState, ChanceScriptError,
                         GameState, Phase, Script, SeatState, Turn)

from .text import Describer, refusal_text

PHASES = ("bidding", "build", "battle")
CHIPS = ("0", "1", "2", "crit", "miss")
CARD_SECTIONS = ("family", "series", "race", "guild", "defense", "attack")
SECTIONS = ("scenario", "seat", "bidding", "battle", "table", "chance", "action", "expect") \
    + CARD_SECTIONS
ACTIONS: dict[str, type] = {cls.__name__: cls for cls in ACTION_TYPES}
EVENTS: dict[str, type] = {name: cls for name, cls in vars(E).items()
                           if isinstance(cls, type) and issubclass(cls, E.Event)
                           and cls is not E.Event}
NONE = "none"          # how a scenario writes Python's None (TOML has no null)


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
    (`name` of an action type, `fields`: the actions, `mode`) or "illegal" (`action` must be
    refused, with `reason` in its reason and `code` as its code when given)."""

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


@attrs.frozen
class Scenario:
    path: str
    name: str
    description: str
    rule: str
    state: GameState = attrs.field(repr=False)
    steps: tuple[Step, ...] = ()
    expects: tuple[Expect, ...] = ()


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
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise _err(path, "", f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise _err(path, "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _err(path, "", f"not valid TOML: {exc}") from None
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
    for name in ("scenario", "bidding", "battle", "table", "chance"):
        if name in raw and not isinstance(raw[name], dict):
            raise _err(path, f"[{name}]", "must be a table")
    if "scenario" not in raw:
        raise _err(path, "", "the [scenario] table is missing")

    head = _Reader(path, "[scenario]", raw["scenario"],
                   ("name", "description", "rule", "players", "phase", "seed", "start_seat",
                    "first_game", "reveal_swap"))
    seats_raw = raw.get("seat", [])
    players = head.get("players", int, max(3, len(seats_raw)), 3, 5)
    if len(seats_raw) > players:
        raise _err(path, "[[seat]]", f"{len(seats_raw)} seats for {players} players")
    phase = head.get("phase", str)
    if phase not in PHASES:
        raise head.error(f"must be one of {', '.join(PHASES)}" +
                         ("" if phase is None else f", not {phase!r}"), "phase")
    if phase != "bidding" and "bidding" in raw:
        raise _err(path, "[bidding]", f"only for phase = \"bidding\" (this is {phase!r})")
    if phase != "battle" and "battle" in raw:
        raise _err(path, "[battle]", f"only for phase = \"battle\" (this is {phase!r})")
    cards = _card_set(path, raw, text)
    config = Config(players=players, first_game=head.get("first_game", bool, False),
                    reveal_swap=head.get("reveal_swap", bool, False))
    builder = _Builder(path, text, raw, cards, config, phase, head)
    state = builder.build()
    steps = _steps(path, text, raw.get("action", []), players)
    expects = _expects(path, text, raw.get("expect", []), len(steps), players)
    if not expects and not any(s.illegal for s in steps):
        raise _err(path, "", "no [[expect]] and no action expected to be illegal: "
                             "a scenario must be able to fail")
    return Scenario(path=path, name=head.get("name", str, Path(path).stem),
                    description=head.get("description", str, ""),
                    rule=head.get("rule", str, ""), state=state, steps=steps, expects=expects)


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


def _card_set(path: str, raw: dict, text: str = "") -> CardSet:
    """The shipped cards with the scenario's inline cards merged in: an inline entry with
    the id of a shipped one of the same section replaces it."""
    base = default_cards()
    inline = {name: raw.get(name, []) for name in CARD_SECTIONS}
    if not any(inline.values()):
        return base
    ids = {name: {e.get("id") for e in entries if isinstance(e, dict)}
           for name, entries in inline.items()}
    lines: list[str] = []
    for name in CARD_SECTIONS:
        entries = list(inline[name])
        if name in ("family", "series"):   # let inline skills refer to shipped families
            shipped = base.families if name == "family" else base.series
            entries += [{"id": x.id, "name": {"ja": x.name.ja, "en": x.name.en}}
                        for x in shipped if x.id not in ids[name]]
        for entry in entries:
            lines.append(f"[[{name}]]")
            lines.extend(f"{json.dumps(str(k), ensure_ascii=False)} = {_toml(v)}"
                         for k, v in entry.items())
    try:
        extra = parse_cards("\n".join(lines) + "\n", source=f"{path}: inline cards")
    except CardDataError as exc:
        raise ScenarioError(_with_line(str(exc), text)) from None
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

SEAT_KEYS = ("guild", "race_candidates", "race", "hand", "equipped", "materialized",
             "confirmed", "revealed", "material", "hp", "mana", "vp", "unluck", "area",
             "entered", "knocked_out", "low", "auction_used", "active")
BIDDING_KEYS = ("round", "leader", "turn", "current", "upcoming", "bids", "passed")
BATTLE_KEYS = ("round", "turn", "order")
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
    def build(self) -> GameState:
        try:
            state, _ = new_game(self.config, self.cards,
                                self.head.get("seed", int, 0, 0, 2 ** 62))
        except ValueError as exc:
            raise _err(self.path, "", str(exc)) from None
        seats = self.seats()
        start = self.head.get("start_seat", int, None, 0, self.n - 1)
        if start is None:
            start = min(range(self.n), key=lambda i: self.cards.guild(seats[i].guild).number)
        bidding = self.bidding(start) if self.phase == "bidding" else None
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
        chance = _Reader(self.path, "[chance]", self.raw.get("chance", {}), ("dice", "chips"))
        dice = chance.ints("dice", 1, 6, ())
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
        if bidding is not None and bidding.upcoming is None:
            # default: the next round's targets are the top of the attack deck (none in the
            # last round), as §5-3 reveals them
            per_round, rounds = BID_ROUNDS[self.n]
            count = per_round if bidding.round < rounds - 1 else 0
            deck = piles["attack_deck"]
            bidding = attrs.evolve(bidding, upcoming=tuple(deck[:count]))
            piles["attack_deck"] = tuple(deck[count:])
        phase = {"bidding": Phase.BIDDING, "build": Phase.BUILD, "battle": Phase.BATTLE}[self.phase]
        return attrs.evolve(state, phase=phase, seats=tuple(seats), start_seat=start,
                            bidding=bidding, order=order, battle=battle,
                            script=Script(dice=dice, chips=tuple(chips)), **piles)

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
            if card not in equipped:
                raise ar.error(f"{card!r} is not an equipped card of this seat", "card")
            if skill not in {s.id for s in self.cards.card(card).skills}:
                raise ar.error(f"{skill!r} is not a skill of {card!r}", "skill")
            until = ar.get("until", str, self.cards.skill(skill).continuous or "turn_end")
            if until not in ("turn_end", "next_turn_start"):
                raise ar.error("must be turn_end or next_turn_start", "until")
            active.append(Active(card, skill, until))
        return SeatState(
            guild=guild, race_candidates=tuple(cands), hand=hand, race=race, equipped=equipped,
            materialized=materialized, confirmed=r.get("confirmed", bool, battle),
            revealed=r.get("revealed", bool, battle),
            material=r.get("material", int, available_material(self.cards, guild, materialized), 0, 99),
            hp=hp, mana=r.get("mana", int, default_mana, 0, 99), vp=r.get("vp", int, 0, 0, 9),
            unluck=r.get("unluck", int, 0, 0, 2), area=area, entered=entered,
            knocked_out=knocked_out, low=r.get("low", bool, hp <= 4),
            active=tuple(active), auction_used=r.get("auction_used", bool, False))

    def bidding(self, start: int) -> BiddingState:
        r = _Reader(self.path, "[bidding]", self.raw.get("bidding", {}), BIDDING_KEYS)
        per_round, rounds = BID_ROUNDS[self.n]
        rnd = r.get("round", int, 0, 0, rounds - 1)
        leader = r.get("leader", int, (start + rnd) % self.n, 0, self.n - 1)
        turn = r.get("turn", int, leader, 0, self.n - 1)
        current = self.cards_at(r, "current", "[bidding] current", attack=True)
        upcoming = (self.cards_at(r, "upcoming", "[bidding] upcoming", attack=True)
                    if r.has("upcoming") else None)
        if not current:
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

    def battle(self, seats: list[SeatState]) -> tuple[tuple[int, ...], BattleState]:
        r = _Reader(self.path, "[battle]", self.raw.get("battle", {}), BATTLE_KEYS)
        rnd = r.get("round", int, 1, 0, ROUND_LIMIT)
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
        if s.knocked_out or s.area is None:
            raise tr.error(f"seat {seat} is not on the field; start at the end of the turn "
                           "before it (its entry or re-entry happens when its turn begins)")
        return order, BattleState(round=rnd, turn=turn)


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
        if isinstance(v, dict):
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


def _check_path(tokens: tuple) -> Optional[str]:
    """Why `tokens` is not a path of the state (None: it is)."""
    if tokens and tokens[0] == "pending":
        if len(tokens) == 1 or (len(tokens) == 2 and tokens[1] in ("kind", "seats")) or \
                (len(tokens) == 3 and tokens[1] == "seats" and isinstance(tokens[2], int)):
            return None
        return "pending has kind and seats"
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
    tp: Any = GameState
    for k, t in enumerate(tokens):
        tp = _unoptional(tp)
        where = show_path(tokens[:k]) or "the state"
        if attrs.has(tp):
            names = [f.name for f in attrs.fields(tp) if f.name != "cards"]
            extra = ["pending"] if tp is GameState else (list(DERIVED_SEAT) if tp is SeatState else [])
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
            paths = []
            for key, value in _flatten(body):
                try:
                    tokens = _tokens(key)
                except ValueError as exc:
                    raise _err(path, place, str(exc)) from None
                problem = _check_path(tokens)
                if problem:
                    raise _err(path, place + f", {key}", problem)
                paths.append((key, tokens, value))
            out.append(Expect(i + 1, place, "state", at, paths=tuple(paths)))
    return tuple(out)


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
    value = state
    for t in tokens:
        if value is None:
            return None
        if isinstance(t, int):
            value = value[t] if t < len(value) else None
        else:
            value = getattr(value, t)
    return plain(value)


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


# =========================================================================== the command

def scenario_files(paths: Iterable[str]) -> list[tuple[str, Optional[str]]]:
    """(file, problem) for every scenario file under `paths`, folders searched for
    ``*.toml`` in name order. A path that does not exist is returned with its problem."""
    out: list[tuple[str, Optional[str]]] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob("*.toml"))
            if not found:
                out.append((p, "no scenario files (*.toml) in this folder"))
            out.extend((str(f), None) for f in found)
        elif path.is_file():
            out.append((p, None))
        else:
            out.append((p, "no such file or folder"))
    return out


def check(paths: Iterable[str], explain: bool = False, lang: str = "en",
          out: Optional[TextIO] = None) -> int:
    """`tactical check`: one line per scenario, a diff for each failure, then
    `N passed, M failed`. Returns the exit code: 0 if all passed, else 1."""
    out = out if out is not None else sys.stdout
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
