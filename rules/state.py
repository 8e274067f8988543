"""The game state: frozen attrs values all the way down (DESIGN.md "State is a value").

A physical card is named by its copy id, ``"<card id>#<n>"`` (n from 1); the card's data
is `CardSet.card(copy_id)`. Every physical card in play is in exactly one place: a deck,
a discard pile, a seat's hand, picks, face-down bids, the build's equipped cards, or the
bid targets on the table.
"""

from __future__ import annotations

from typing import Optional

import attrs
from attrs import frozen

from .cards import CardSet
# §5-3 / §5-2 sizes: they live in `sizes` (below `cards`) and are read from here too
from .sizes import BID_ROUNDS, DRAFT_HAND_SIZE  # noqa: F401


class _Value:
    """The base of the state classes below: it holds their weak-reference slot, so that a
    plain class with the same field slots (`_draft_of`) has the same memory layout and a
    copy made in it can become an instance by `__class__` assignment (issue 16: `evolve`)."""

    __slots__ = ("__weakref__",)


class Phase:
    DRAFT = "draft"
    BIDDING = "bidding"
    BUILD = "build"
    REVEAL = "reveal"
    BATTLE = "battle"
    OVER = "over"


@frozen
class Config:
    """How a game is set up. `first_game`: only the initial set (§4). `reveal_swap`: the
    optional first-game variant of §5-4 公開確認 (swap in unused cards)."""

    players: int = 4
    first_game: bool = False
    reveal_swap: bool = False

    def __attrs_post_init__(self) -> None:
        if self.players not in (3, 4, 5):
            raise ValueError("TACTICAL is played by 3, 4 or 5 players")



@frozen
class SeatState(_Value):
    guild: str
    race_candidates: tuple[str, ...]
    hand: tuple[str, ...] = ()          # draft: the hand being passed; later: owned cards
    picks: tuple[str, ...] = ()         # draft picks, face down
    draft_choice: Optional[str] = None  # this pick step's choice, hidden until all chose
    race: Optional[str] = None          # build: chosen race
    equipped: tuple[str, ...] = ()      # build: equipped (hidden until the reveal)
    # build: the cards it materialized — a public record; the cards lie face up in the
    # defense discard from the moment they were materialized (§5-4, RULINGS R6)
    materialized: tuple[str, ...] = ()
    confirmed: bool = False
    revealed: bool = False
    material: int = 0                   # available material, fixed at the reveal
    # §6 battle
    hp: int = 6
    mana: int = 0                       # current mana
    vp: int = 0
    unluck: int = 0
    area: Optional[int] = None          # 1..6 on the field; None before entry / knocked out
    entered: bool = False
    knocked_out: bool = False
    low: bool = False                   # HP has been 4 or less since it was last set to 6
    active: tuple["Active", ...] = ()   # continuous skills in effect (cards turned sideways)
    auction_used: bool = False
    # §4 「各バトル中1回」 = once per game (RULINGS R2): the guild's battle trait is used
    trait_used: bool = False


@frozen
class Active(_Value):
    """A continuous skill in effect (§6 継続スキル) and when it ends."""

    card: str
    skill: str
    until: str                          # "turn_end" | "next_turn_start"


@frozen
class Bid(_Value):
    seat: int
    target: str
    card: str
    value: int


@frozen
class BiddingState(_Value):
    """§5-3 one bid round. `step`: "bid" (seats bid or pass in turn), "auction" (the
    《競売》 owner may boost a tied bid), "payment" (a winner chooses which equal card to
    pay), "appraisal" (last round: the 《鑑定》 owner may take an untouched target)."""

    round: int                          # 0-based
    leader: int
    turn: int
    current: tuple[str, ...]
    upcoming: tuple[str, ...]
    bids: tuple[Bid, ...] = ()
    passed: tuple[bool, ...] = ()
    step: str = "bid"
    payments: tuple[tuple[str, str], ...] = ()   # (target, card) chosen so far
    tied: tuple[str, ...] = ()          # after resolution: targets unsold by a tie


@frozen
class Attack(_Value):
    """§6 アタック / カウンター in progress. `stage`: skills (the attacker declares other
    skills) → targets → defense (targets declare in processing order) → unluck → draw."""

    attacker: int
    counter: bool
    card: str
    range_skill: Optional[str] = None                  # None until declared (RULINGS R22)
    stage: str = "skills"
    skills: tuple[tuple[str, str], ...] = ()           # (card, skill) declared, in order
    targets: tuple[int, ...] = ()                      # seats, repeated when chosen again
    areas: tuple[int, ...] = ()                        # multi-area attacks: chosen areas
    defense: tuple[tuple[int, str, str], ...] = ()     # (seat, card, skill) declared
    defender: Optional[int] = None                     # who is declaring defense now
    defenders_done: tuple[int, ...] = ()
    unluck_used: bool = False
    bag: tuple[str, ...] = ()                          # chips left: "0" "1" "2" "crit" "miss"
    drawn: tuple[str, ...] = ()


@frozen
class Turn(_Value):
    """§6 手番: at most 2 actions — moves ≤ 2, attack ≤ 1, rest ≤ 1 (alone)."""

    seat: int
    moves: int = 0
    attacked: bool = False
    rested: bool = False

    @property
    def actions(self) -> int:
        return self.moves + int(self.attacked) + int(self.rested)


@frozen
class BattleState(_Value):
    round: int                          # 0 = the round of entries and initial turns
    turn: Turn
    attack: Optional[Attack] = None
    counter_queue: tuple[int, ...] = () # targets still to decide whether to counter
    countered: Optional[int] = None     # the attacker being countered
    blocked: bool = False               # the attack had a counter-blocking skill


@frozen
class Script(_Value):
    """Scripted chance for scenarios and tests: die results and the chips drawn, used
    before the RNG (DESIGN.md: tests and scenarios may script chance outcomes)."""

    dice: tuple[int, ...] = ()
    chips: tuple[str, ...] = ()


class ChanceScriptError(Exception):
    """A scripted chance outcome that cannot happen (e.g. a chip not in the bag)."""


@frozen
class GameState(_Value):
    config: Config
    cards: CardSet = attrs.field(repr=False)
    rng: int
    phase: str
    seats: tuple[SeatState, ...]
    start_seat: int
    defense_deck: tuple[str, ...] = ()
    attack_deck: tuple[str, ...] = ()
    defense_discard: tuple[str, ...] = ()
    attack_discard: tuple[str, ...] = ()
    bidding: Optional[BiddingState] = None
    reveal_seat: Optional[int] = None   # §5-4 公開確認: whose build is being checked
    order: tuple[int, ...] = ()         # §5-4 処理順: seats, first to act first
    battle: Optional["BattleState"] = None
    winners: tuple[int, ...] = ()
    end_reason: Optional[str] = None    # "vp": the only end of the rules (RULINGS R19)
    script: Script = Script()

    @property
    def players(self) -> int:
        return len(self.seats)

    def seat(self, i: int) -> SeatState:
        return self.seats[i]

    def with_seat(self, i: int, **changes) -> "GameState":
        seats = list(self.seats)
        seat = seats[i]
        change = _EVOLVERS.get((SeatState, *changes))     # `evolve`, inlined
        if change is None:
            change = _evolver(SeatState, tuple(changes))
        seats[i] = change(seat, *changes.values())
        return CHANGE["seats"](self, tuple(seats))


# --------------------------------------------------------------------- fast evolve (issue 16)

def evolve(inst, **changes):
    """`attrs.evolve(inst, **changes)` — a copy with some fields changed — but for the
    classes of this module by a function written for the class and the set of fields
    changed (a `changer`; issue 34: it copies the other fields without testing each for a
    change), several times faster than attrs.evolve's walk over the fields and the
    class's `__init__`. Other values go to attrs.evolve."""
    change = _EVOLVERS.get((type(inst), *changes))
    if change is None:
        change = _evolver(type(inst), tuple(changes))
    return change(inst, *changes.values())


def _evolver(cls: type, names: tuple[str, ...]):
    """(inst, *values) -> `evolve(inst, **dict(zip(names, values)))`: a `changer` of those
    fields, kept per class and names, for the fast classes when every name is a field;
    else the class's replace function (`_make_replace`, or attrs.evolve), which raises
    TypeError for a name that is not a field as attrs.evolve does."""
    if cls in _FAST and set(names) <= set(cls.__slots__) and _plain(cls):
        change = changer(cls, names)
        if len(_EVOLVERS) < 1024:
            _EVOLVERS[(cls, *names)] = change
        return change
    replace = _REPLACE.get(cls) or _replacer(cls)
    return lambda inst, *values: replace(inst, **dict(zip(names, values)))


_EVOLVERS: dict[tuple, object] = {}
_REPLACE: dict[type, object] = {}
_UNSET = object()


def _replacer(cls: type):
    """The replace function of `cls`, written on first use (nothing is done at import)."""
    if cls not in _FAST:
        return lambda inst, **changes: attrs.evolve(inst, **changes)
    replace = _REPLACE[cls] = _make_replace(cls)
    return replace


def _plain(cls: type) -> bool:
    """Is `cls` a frozen attrs class whose `__init__` only stores its arguments (no
    validator, converter, factory default or post-init; every field an `__init__`
    argument of its own name, in the slots of a `_Value`)? Only then may a copy be made
    without calling it."""
    fields = attrs.fields(cls)
    return (issubclass(cls, _Value) and cls.__slots__ == tuple(f.name for f in fields)
            and not hasattr(cls, "__attrs_post_init__")
            and all(f.init and f.alias == f.name and not f.kw_only and f.validator is None
                    and f.converter is None and not isinstance(f.default, attrs.Factory)
                    for f in fields))


def _draft_of(cls: type) -> type:
    """A plain mutable class with the slots of `cls` (so the same layout): a copy is
    written into one of its instances, then made a `cls` by `__class__` assignment — from
    then on frozen like any other. No instance of it ever leaves this module."""
    draft = _DRAFTS.get(cls)
    if draft is None:
        draft = _DRAFTS[cls] = type(f"_{cls.__name__}Draft", (_Value,),
                                    {"__slots__": cls.__slots__})
    return draft


_DRAFTS: dict[type, type] = {}


def _make_replace(cls: type):
    """def replace(inst, *, a=UNSET, b=UNSET, ...): a copy of `inst` with the fields given
    changed — each field by its `__init__` name, so a wrong name is a TypeError as with
    attrs.evolve. For a `_plain` class, the copy is made slot by slot in a `_draft_of`
    instance; else by the class's own `__init__` (so its checks run)."""
    fields = [f for f in attrs.fields(cls) if f.init]
    if any(f.alias != f.name or f.kw_only for f in fields) or len(fields) != len(attrs.fields(cls)):
        return lambda inst, **changes: attrs.evolve(inst, **changes)
    names = [f.name for f in fields]
    head = f"def replace(inst, *, {', '.join(f'{n}=_UNSET' for n in names)}):\n"
    if _plain(cls):
        src = head + "    o = _new(_Draft)\n" + "".join(
            f"    o.{n} = inst.{n} if {n} is _UNSET else {n}\n" for n in names) + \
            "    o.__class__ = cls\n    return o\n"
    else:
        src = head + f"    return cls({', '.join(f'inst.{n} if {n} is _UNSET else {n}' for n in names)})\n"
    namespace = {"_UNSET": _UNSET, "cls": cls, "_new": object.__new__}
    if _plain(cls):
        namespace["_Draft"] = _draft_of(cls)
    exec(src, namespace)                      # noqa: S102 - code made from field names only
    return namespace["replace"]


def changer(cls: type, changed: tuple[str, ...]):
    """A function (inst, *values) -> a copy of `inst` (a `cls`) with the fields `changed`
    set to `values`, in that order: `evolve` for one hot update, without its keyword
    handling (issue 16). Written once per call site."""
    assert cls in _FAST and _plain(cls) and set(changed) <= set(cls.__slots__)
    names = cls.__slots__
    args = [f"v{k}" for k in range(len(changed))]
    src = f"def change(inst, {', '.join(args)}):\n    o = _new(_Draft)\n" + "".join(
        f"    o.{n} = {args[changed.index(n)] if n in changed else 'inst.' + n}\n"
        for n in names) + "    o.__class__ = cls\n    return o\n"
    namespace = {"cls": cls, "_new": object.__new__, "_Draft": _draft_of(cls)}
    exec(src, namespace)                      # noqa: S102 - code made from field names only
    return namespace["change"]


class Changers(dict):
    """name -> `changer(cls, fields)`, each written on first use (nothing at import):

        CHANGE = Changers(battle=(GameState, ("battle",)))
        CHANGE["battle"](state, new_battle)
    """

    def __init__(self, **specs: tuple[type, tuple[str, ...]]) -> None:
        super().__init__()
        self.specs = specs

    def __missing__(self, name: str):
        made = self[name] = changer(*self.specs[name])
        return made


CHANGE = Changers(seats=(GameState, ("seats",)), battle=(GameState, ("battle",)),
                  rng=(GameState, ("rng",)), bidding=(GameState, ("bidding",)),
                  seats_battle=(GameState, ("seats", "battle")),
                  seats_bidding=(GameState, ("seats", "bidding")),
                  rng_battle=(GameState, ("rng", "battle")))


_FAST = (SeatState, Active, Bid, BiddingState, Attack, Turn, BattleState, Script, GameState)
