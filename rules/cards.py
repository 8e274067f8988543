"""Card data: the schema of `cards.toml` and its loader.

`cards.toml` is read with `tomllib` and structured with cattrs into the frozen attrs
classes below (`structure_cards`). Bad data of any kind stops loading with one
`CardDataError` whose message names the file, the card id and the field — never a
traceback. `load_cards` can take a `CardCache` (the app's is in the user cache folder):
it then skips the TOML parsing of a file it has seen byte for byte, never the checks.
tomllib and cattrs are imported, and the converter built, on first use: importing the
rules does not need them.

The rulebook (§2 内容物とカードの見方, §4 セットアップ, §7 カード構成) fixes what a card
shows: defense cards have equip cost, bid value (1..5), material, kind (armor with a part,
shield with hands, accessory) and a number of copies; attack cards (weapons with 1 or 2
hands, magic with none) have five point chips of 0, 1 or 2. Both may have stat modifiers
and skills. The star mark (``star = true``) marks the standard set.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from pathlib import Path
from typing import Any, Optional, Protocol

import attrs
from attrs import frozen

from .files import (DIGIT_LIMIT, NUMBER_LIMIT_TEXT, FileProblem, huge_number_at, is_digit_limit_error,
                    read_bounded)
from .sizes import BID_ROUNDS, DRAFT_HAND_SIZE

STATS: tuple[str, ...] = ("mana", "str", "int", "dex", "def", "agi")
PARTS: tuple[str, ...] = ("head", "body", "arms", "legs")
RANGES: tuple[str, ...] = ("short", "mid", "long")
# §6 アタックとスキルの使用タイミング / 攻撃: attack = アタック時, counter = カウンター時,
# any = both, defend = 被攻撃時 (the target of an attack or of a counter, RULINGS R15),
# countered = 被カウンター時 (the attacker whose attack is countered: the target of the
# counter), turn = in one's own turn (continuous skills, R23).
TIMINGS: tuple[str, ...] = ("attack", "counter", "any", "defend", "countered", "turn")
EFFECT_KINDS: tuple[str, ...] = (
    "range",             # a range skill: short | mid | long            (§6 アタックカードの距離)
    "add_zero_chips",    # defense: add `count` zero chips to the bag   (§6 防御スキル)
    "add_crit_chips",    # add `count` crit chips (on a crit, or in a counter)
    "crit_value",        # a drawn crit chip counts `value` for this target
    "extra_targets",     # choose up to `count` more targets (repeats allowed)
    "multi_area",        # targets in up to `count` areas of the attack area
    "damage_reduction",  # defense: this target takes `amount` less
    "mana_reduction",    # the other skills of this attack/counter cost `amount` less
    "move_then_attack",  # continuous: may attack after moving this turn
    "fixed_draws",       # draw exactly `count` chips, no continuation
    "counter_block",     # the targets of this attack (or those `targets` names) cannot counter
    "cause_crit",        # a crit occurs for targets at distance `value` (any distance if unset)
)
# §6 カウンターの制限 「スキルの効果文に適用するターゲットの指示がある場合は、その指示を優先
# します」: the targets a counter block may name (None: every target of the attack).
BLOCK_TARGETS: tuple[str, ...] = ("crit", "not_crit")
# The repository's top-level cards.toml (a checkout or an editable install); an installed
# wheel carries a copy inside the package (setup.py).
DEFAULT_CARDS_PATH = Path(__file__).resolve().parent.parent / "cards.toml"
if not DEFAULT_CARDS_PATH.exists():
    DEFAULT_CARDS_PATH = Path(__file__).resolve().parent / "cards.toml"


class CardDataError(Exception):
    """Bad card data. The message (English) names the file, the card id and the field.

    `code` says what kind of problem it is, `params` what a translation needs (the app
    shows the file problems and the "cannot make a game" ones in Japanese too):
    ``invalid`` (the schema; the message is the text), ``unreadable`` (os_error),
    ``not_regular`` (kind: rules.files.KINDS), ``too_large`` (size, cap), ``not_utf8``
    (byte), ``huge_number`` (digits), ``empty``, ``short`` (shortages: a tuple of
    `Shortage`). `source` is the file."""

    def __init__(self, message: str, code: str = "invalid", source: str = "",
                 **params: Any) -> None:
        super().__init__(message)
        self.code, self.source, self.params = code, source, params


class FieldProblem(ValueError):
    """A value that breaks a rule of the schema, with the field it is in."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _check(cond: bool, message: str, field: str = "") -> None:
    if not cond:
        raise FieldProblem(field, message)


@frozen
class Text:
    """A player-facing text in both languages."""

    ja: str
    en: str

    def __attrs_post_init__(self) -> None:
        _check(bool(self.ja.strip()) and bool(self.en.strip()), "text must not be empty", "ja")

    def get(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en


@frozen
class Stats:
    """The six stats (§2 能力値). Missing stats are 0."""

    values: tuple[int, int, int, int, int, int] = (0, 0, 0, 0, 0, 0)

    def __getitem__(self, name: str) -> int:
        return self.values[STATS.index(name)]

    def __add__(self, other: "Stats") -> "Stats":
        return Stats(tuple(a + b for a, b in zip(self.values, other.values)))  # type: ignore[arg-type]

    def items(self) -> list[tuple[str, int]]:
        return list(zip(STATS, self.values))

    def nonzero(self) -> dict[str, int]:
        return {k: v for k, v in zip(STATS, self.values) if v}

    @classmethod
    def of(cls, **kw: int) -> "Stats":
        kw = {("def" if k == "def_" else k): v for k, v in kw.items()}
        return cls(tuple(kw.get(s, 0) for s in STATS))  # type: ignore[arg-type]


@frozen
class Requirements:
    """§2 スキルの発動条件: the final stats a skill lists, each with the value it needs —
    and nothing else. 「最終能力値が必要値以上であれば、その条件を満たします。」「発動条件が
    記載されていないスキルは、能力値による条件なしで使用できます。」 So a stat the skill does
    not list is no requirement at all (a negative final stat blocks nothing), while a
    listed ``def = 0`` is a requirement like any other (final defense ≥ 0).

    `listed` holds (stat, value) pairs in the order of STATS, each stat at most once."""

    listed: tuple[tuple[str, int], ...] = ()

    def __attrs_post_init__(self) -> None:
        names = [k for k, _ in self.listed]
        _check(all(k in STATS for k in names), f"unknown stat in {names} (stats: {', '.join(STATS)})")
        _check(len(set(names)) == len(names), "a stat is listed twice")
        _check(names == sorted(names, key=STATS.index), "requirements are kept in stat order")

    def met_by(self, stats: Stats) -> bool:
        """§2: every listed stat is at least its value (all of them, 「そのすべてを満たす」)."""
        return all(stats[k] >= need for k, need in self.listed)

    def items(self) -> list[tuple[str, int]]:
        return list(self.listed)

    def as_dict(self) -> dict[str, int]:
        return dict(self.listed)

    def __bool__(self) -> bool:
        return bool(self.listed)

    @classmethod
    def of(cls, **kw: int) -> "Requirements":
        kw = {("def" if k == "def_" else k): v for k, v in kw.items()}
        return cls(tuple((s, kw[s]) for s in STATS if s in kw))


@frozen
class Family:
    """A skill family (スキル系統一覧): one skill per family per attack or counter."""

    id: str
    name: Text
    rule: Optional[Text] = None


@frozen
class Series:
    """A series (シリーズ効果): its cards' skills work only with 2+ of them equipped."""

    id: str
    name: Text


@frozen
class Effect:
    """What a skill does; `kind` is one of EFFECT_KINDS, the other fields its parameters."""

    kind: str
    range: Optional[str] = None
    count: Optional[int] = None
    amount: Optional[int] = None
    value: Optional[int] = None
    targets: Optional[str] = None   # counter_block: "crit" | "not_crit" (None: every target)

    def __attrs_post_init__(self) -> None:
        _check(self.kind in EFFECT_KINDS, f"unknown effect kind {self.kind!r} (kinds: {', '.join(EFFECT_KINDS)})", "kind")
        if self.kind == "range":
            _check(self.range in RANGES, "a range effect needs range = short | mid | long", "range")
        if self.kind in ("add_zero_chips", "add_crit_chips", "extra_targets", "multi_area",
                         "fixed_draws"):
            _check(self.count is not None and 1 <= self.count <= 9,
                   f"{self.kind} needs count between 1 and 9", "count")
        if self.kind in ("damage_reduction", "mana_reduction"):
            _check(self.amount is not None and 1 <= self.amount <= 9,
                   f"{self.kind} needs amount between 1 and 9", "amount")
        if self.kind == "crit_value":
            _check(self.value is not None and 0 <= self.value <= 9,
                   "crit_value needs value between 0 and 9", "value")
        if self.kind == "cause_crit":
            _check(self.value is None or 0 <= self.value <= 3,
                   "cause_crit takes value = a distance between 0 and 3 (or none: any)", "value")
        if self.targets is not None:
            _check(self.kind == "counter_block",
                   "only a counter_block effect names targets", "targets")
            _check(self.targets in BLOCK_TARGETS,
                   f"targets must be one of {', '.join(BLOCK_TARGETS)}", "targets")


@frozen
class Skill:
    """A skill (§6 魔力を消費するスキル): requirements on final stats, a mana cost, a timing."""

    id: str
    name: Text
    family: str
    effect: Effect
    requires: Requirements = Requirements()
    mana: int = 0
    timing: str = "any"
    exclusive: bool = False        # 併用不可
    continuous: Optional[str] = None  # end timing of a continuous skill, e.g. "turn_end"
    # §6 「効果文にほかの同系統のスキルとの併用が明記されている場合は、その記載に従います」:
    # this skill may be declared together with other skills of its family (RULINGS R27)
    combines: bool = False

    def __attrs_post_init__(self) -> None:
        _check(0 <= self.mana <= 9, "mana must be between 0 and 9", "mana")
        _check(not (self.combines and self.effect.kind == "range"),
               "a range skill cannot combine with others (one range per attack)", "combines")
        _check(self.timing in TIMINGS, f"timing must be one of {', '.join(TIMINGS)}", "timing")
        _check(self.continuous in (None, "turn_end", "next_turn_start"),
               "continuous must be turn_end or next_turn_start", "continuous")
        # §6 アタックカードの距離: a range skill is chosen anew for each attack or counter
        _check(not (self.continuous and self.effect.kind == "range"),
               "a range skill cannot be continuous (one range is chosen per attack)",
               "continuous")


@frozen
class Race:
    id: str
    name: Text
    stats: Stats


TRAIT_KINDS: tuple[str, ...] = ("auction", "appraisal", "material", "battle")


@frozen
class Trait:
    """A guild trait: auction 《競売》, appraisal 《鑑定》, extra material for the build, or a
    battle trait — a skill (the schema of card skills: family, requirements, mana, timing,
    effect) that the guild's seat may declare once per game where its timing fits
    (§4 「ギルド特性に「各バトル中1回」と記載されている場合、その使用回数はゲーム中1回です」,
    docs/RULINGS.md R2). A battle trait's skill is no range skill: an attack's range is a
    skill of the attack card it is made with (§6 アタック 2)."""

    kind: str
    name: Text
    amount: int = 0
    skill: Optional[Skill] = None

    def __attrs_post_init__(self) -> None:
        _check(self.kind in TRAIT_KINDS,
               f"unknown trait kind {self.kind!r} (kinds: {', '.join(TRAIT_KINDS)})", "kind")
        if self.kind == "material":
            _check(1 <= self.amount <= 9, "a material trait needs amount between 1 and 9", "amount")
        else:
            _check(self.amount == 0, "only a material trait has an amount", "amount")
        if self.kind == "battle":
            _check(self.skill is not None, "a battle trait needs a skill = { id, name, family, "
                   "effect, ... } (the schema of card skills)", "skill")
            _check(self.skill.effect.kind != "range",
                   "a battle trait's skill cannot be a range skill (range skills belong on "
                   "attack cards)", "skill.effect.kind")
        else:
            _check(self.skill is None, "only a battle trait has a skill", "skill")


@frozen
class Guild:
    id: str
    number: int
    name: Text
    trait: Trait

    def __attrs_post_init__(self) -> None:
        _check(1 <= self.number <= 7, "number must be between 1 and 7", "number")

    @property
    def material_bonus(self) -> int:
        return self.trait.amount if self.trait.kind == "material" else 0

    @property
    def battle_skill(self) -> Optional[Skill]:
        """The skill of a battle trait (None for the other kinds)."""
        return self.trait.skill if self.trait.kind == "battle" else None

    # A battle trait's skill is declared as (guild id, skill id), like a card's; it is no
    # attack card's skill, so any attack or counter may use it (§6, RULINGS R21, R2).
    is_attack = False


@frozen
class DefenseCard:
    """A defense card (§2 ディフェンスカード)."""

    id: str
    name: Text
    type: str
    cost: int
    bid: int
    material: int
    copies: int
    star: bool
    part: Optional[str] = None
    hands: int = 0
    mods: Stats = Stats()
    series: Optional[str] = None
    skills: tuple[Skill, ...] = ()

    def __attrs_post_init__(self) -> None:
        _check(self.type in ("armor", "shield", "accessory"),
               f"unknown type {self.type!r} (types: armor, shield, accessory)", "type")
        _check(1 <= self.bid <= 5, "bid must be between 1 and 5", "bid")
        _check(0 <= self.cost <= 20, "cost must be between 0 and 20", "cost")
        _check(0 <= self.material <= 20, "material must be between 0 and 20", "material")
        _check(1 <= self.copies <= 20, "copies must be between 1 and 20", "copies")
        if self.type == "armor":
            _check(self.part in PARTS, "armor needs part = head | body | arms | legs", "part")
        else:
            _check(self.part is None, "only armor has a part", "part")
        if self.type == "shield":
            _check(self.hands in (1, 2), "a shield needs hands = 1 or 2", "hands")
        else:
            _check(self.hands == 0, "only shields and weapons use hands", "hands")

    is_attack = False


@frozen
class AttackCard:
    """An attack card (§2 アタックカード): a weapon (1 or 2 hands) or magic (no hand slot)."""

    id: str
    name: Text
    type: str
    chips: tuple[int, ...]
    star: bool
    hands: int = 0
    mods: Stats = Stats()
    series: Optional[str] = None
    skills: tuple[Skill, ...] = ()
    # §8 FAQ 「カードやスキルに別の記載がある場合は、その記載に従います」: the distances from
    # which this card counters, instead of its range skill's crit area (RULINGS R30)
    counter_distances: tuple[int, ...] = ()

    def __attrs_post_init__(self) -> None:
        _check(all(0 <= d <= 3 for d in self.counter_distances)
               and len(set(self.counter_distances)) == len(self.counter_distances),
               "counter_distances are different distances between 0 and 3", "counter_distances")
        _check(self.type in ("weapon", "magic"),
               f"unknown type {self.type!r} (types: weapon, magic)", "type")
        _check(len(self.chips) == 5, "an attack card has exactly five point chips", "chips")
        _check(all(c in (0, 1, 2) for c in self.chips), "each point chip is 0, 1 or 2", "chips")
        if self.type == "weapon":
            _check(self.hands in (1, 2), "a weapon needs hands = 1 or 2", "hands")
        else:
            _check(self.hands == 0, "magic uses no hand slot (hands = 0)", "hands")
        _check(any(s.effect.kind == "range" for s in self.skills),
               "an attack card needs at least one range skill", "skills")

    is_attack = True
    cost = 0


Card = DefenseCard | AttackCard


@frozen
class CardSet:
    """Everything in `cards.toml`, with lookups by id."""

    families: tuple[Family, ...]
    series: tuple[Series, ...]
    races: tuple[Race, ...]
    guilds: tuple[Guild, ...]
    defense: tuple[DefenseCard, ...]
    attack: tuple[AttackCard, ...]
    source: str = attrs.field(default="cards.toml", eq=False)
    # sha256 of the parsed card data (parse_cards); see `fingerprint` for a set made in code
    data_hash: str = attrs.field(default="", eq=False, repr=False)
    _index: dict = attrs.field(factory=dict, eq=False, repr=False)
    _skills: dict = attrs.field(factory=dict, eq=False, repr=False)
    _copies: dict = attrs.field(factory=dict, eq=False, repr=False)   # memo of `card`

    def __attrs_post_init__(self) -> None:
        for group in (self.families, self.series, self.races, self.guilds, self.defense,
                      self.attack):
            for item in group:
                self._index[item.id] = item
        for card in self.defense + self.attack:
            for sk in card.skills:
                self._skills[sk.id] = sk
        for g in self.guilds:
            if g.battle_skill is not None:
                self._skills[g.battle_skill.id] = g.battle_skill

    def skill(self, skill_id: str) -> Skill:
        return self._skills[skill_id]

    def card(self, card_id: str) -> Card:
        """The card of an id or of a physical copy id (``"iron_helm#2"``)."""
        got = self._copies.get(card_id) if type(card_id) is str else None   # memo (issue 16)
        if got is None:
            got = self._index[card_id.split("#", 1)[0]]
            if len(self._copies) < 4096:
                self._copies[card_id] = got
        return got

    def race(self, race_id: str) -> Race:
        return self._index[race_id]

    def guild(self, guild_id: str) -> Guild:
        return self._index[guild_id]

    def family(self, family_id: str) -> Family:
        return self._index[family_id]

    __hash__ = object.__hash__  # a card set is used by identity (in C: it keys many memos)


# --------------------------------------------------------------------------- loading

def _strict(kind: type) -> Any:
    def hook(value: Any, _t: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value
    return hook


def _structure_stats(value: Any, _t: Any) -> Stats:
    if not isinstance(value, dict):
        raise TypeError("expected a table of stats")
    unknown = value.keys() - _STAT_SET
    if unknown:
        raise ValueError(f"unknown stat {sorted(unknown)[0]!r} (stats: {', '.join(STATS)})")
    for k, v in value.items():
        if type(v) is not int:
            raise TypeError(f"stat {k} must be an integer")
        if not -9 <= v <= 20:
            raise ValueError(f"stat {k} must be between -9 and 20")
    return Stats(tuple(value.get(s, 0) for s in STATS))  # type: ignore[arg-type]


_STAT_SET = frozenset(STATS)


def _structure_requirements(value: Any, _t: Any) -> Requirements:
    """A skill's `requires` table: only the stats it lists (§2 スキルの発動条件)."""
    listed = _structure_stats(value, _t)
    return Requirements(tuple((s, listed[s]) for s in STATS if s in value))


def _make_converter() -> Any:
    import cattrs
    conv = cattrs.Converter(forbid_extra_keys=True)
    conv.register_structure_hook(int, _strict(int))
    conv.register_structure_hook(str, _strict(str))
    conv.register_structure_hook(bool, _strict(bool))
    conv.register_structure_hook(Stats, _structure_stats)
    conv.register_structure_hook(Requirements, _structure_requirements)
    return conv


_CONVERTER: list = []                # built on first use: importing rules needs no cattrs


def _converter() -> Any:
    if not _CONVERTER:
        _CONVERTER.append(_make_converter())
    return _CONVERTER[0]


def _format(exc: BaseException, type_: Any) -> str:
    import cattrs
    from cattrs.v import format_exception
    if isinstance(exc, FieldProblem):
        return f"{exc}\x00{exc.field}"
    if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, cattrs.BaseValidationError):
        msg = str(exc)
        if msg and "object is not iterable" not in msg:
            return msg
    return format_exception(exc, type_)


_SECTIONS: tuple[tuple[str, type], ...] = (
    ("family", Family), ("series", Series), ("race", Race), ("guild", Guild),
    ("defense", DefenseCard), ("attack", AttackCard),
)


def _first_problem(exc: BaseException) -> tuple[str, str]:
    """(field path, problem) of the first error in a cattrs exception."""
    if isinstance(exc, FieldProblem):
        return exc.field, str(exc)
    import cattrs
    lines = cattrs.transform_error(exc, path="", format_exception=_format)
    line = lines[0] if lines else str(exc)
    problem, _, path = line.rpartition(" @ ")
    if not problem:
        problem, path = line, ""
    problem, _, field = problem.partition("\x00")
    path = path.lstrip(".")
    if field:
        path = f"{path}.{field}" if path else field
    return path, problem


def _unknown_keys(entry: dict, cls: type) -> Optional[tuple[str, str]]:
    """(field, message) for a key the class does not have, with the nearest name."""
    import difflib
    names = [a.name.lstrip("_") for a in attrs.fields(cls)]
    for key in entry:
        if key not in names:
            near = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else f" (fields: {', '.join(names)})"
            return key, f"unknown field {key!r}{hint}"
    return None


def parse_cards(text: str, source: str = "cards.toml") -> CardSet:
    """Parse card data from TOML text. Raises CardDataError with one clear message."""
    return structure_cards(_read_toml(text, source), source)


def _read_toml(text: str, source: str) -> dict:
    import tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{source}: not valid TOML: {exc}", source=source) from None
    except RecursionError:
        raise CardDataError(f"{source}: not valid TOML: nested too deeply",
                            source=source) from None
    except ValueError as exc:
        if not is_digit_limit_error(exc):
            raise
        raise CardDataError(f"{source}: a number with more than {DIGIT_LIMIT} digits",
                            "huge_number", source, digits=DIGIT_LIMIT) from None


def structure_cards(raw: Any, source: str = "cards.toml") -> CardSet:
    """The card set of the tables of a card data file (what `tomllib` makes of its text),
    checked field by field (the schema's types and rules, then `_cross_check`). Raises
    CardDataError with one clear message. The one way card data becomes a CardSet:
    `parse_cards` and the card cache (`load_cards`) both come through here."""
    if not isinstance(raw, dict):
        raise CardDataError(f"{source}: the card data must be a table of sections", source=source)
    huge = huge_number_at(raw)
    if huge is not None:
        raise CardDataError(f"{source}: {huge}: the number is too large (the limit is "
                            f"{NUMBER_LIMIT_TEXT})", source=source)
    unknown = sorted(set(raw) - {name for name, _ in _SECTIONS})
    if unknown:
        raise CardDataError(f"{source}: unknown section [[{unknown[0]}]] "
                            f"(sections: {', '.join(n for n, _ in _SECTIONS)})")
    groups: dict[str, tuple] = {}
    for name, cls in _SECTIONS:
        entries = raw.get(name, [])
        if not isinstance(entries, list):
            raise CardDataError(f"{source}: [[{name}]] must be an array of tables")
        items = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise CardDataError(f"{source}: {name} #{i + 1}: must be a table")
            ident = entry.get("id") if isinstance(entry.get("id"), str) else f"#{i + 1}"
            unknown = _unknown_keys(entry, cls)
            if unknown is None and isinstance(entry.get("skills"), list):
                for k, sk in enumerate(entry["skills"]):
                    if isinstance(sk, dict) and (u := _unknown_keys(sk, Skill)):
                        unknown = (f"skills[{k}].{u[0]}", u[1])
                        break
            trait = entry.get("trait") if name == "guild" else None
            if unknown is None and isinstance(trait, dict):
                if u := _unknown_keys(trait, Trait):
                    unknown = (f"trait.{u[0]}", u[1])
                elif "skill" in trait and not isinstance(trait["skill"], dict):
                    unknown = ("trait.skill", "must be a table (a skill, as on a card)")
                elif isinstance(trait.get("skill"), dict) and (u := _unknown_keys(trait["skill"], Skill)):
                    unknown = (f"trait.skill.{u[0]}", u[1])
            if unknown:
                raise CardDataError(f"{source}: {name} {ident!r}, field {unknown[0]}: {unknown[1]}")
            try:
                items.append(_converter().structure(entry, cls))
            except Exception as exc:  # noqa: BLE001 - every problem becomes one message
                path, problem = _first_problem(exc)
                where = f", field {path}" if path else ""
                raise CardDataError(f"{source}: {name} {ident!r}{where}: {problem}") from None
        groups[name] = tuple(items)
    _cross_check(groups, source)
    return CardSet(families=groups["family"], series=groups["series"], races=groups["race"],
                   guilds=groups["guild"], defense=groups["defense"], attack=groups["attack"],
                   source=source, data_hash=_sha256(raw))


def _sha256(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                           default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def fingerprint(cards: CardSet) -> str:
    """A fingerprint of the card data a game is played with, recorded in saves: the sha256
    of the parsed TOML (keys sorted, so comments, layout and key order do not count; the
    order of the cards does, as it is the order the decks are shuffled from). A card set
    made in code (tests, a scenario's merge) has the sha256 of its structured content."""
    if cards.data_hash:
        return cards.data_hash
    found = _FINGERPRINTS.get(cards)
    if found is None:
        found = _FINGERPRINTS[cards] = _sha256(
            [attrs.asdict(x, recurse=True) for group in (cards.families, cards.series,
             cards.races, cards.guilds, cards.defense, cards.attack) for x in group])
    return found


_FINGERPRINTS: "weakref.WeakKeyDictionary[CardSet, str]" = weakref.WeakKeyDictionary()


def _cross_check(groups: dict[str, tuple], source: str) -> None:
    seen: dict[str, str] = {}
    for name, items in groups.items():
        for item in items:
            if "#" in item.id or not item.id:
                raise CardDataError(f"{source}: {name} {item.id!r}, field id: "
                                    "an id must be non-empty and must not contain '#'")
            if item.id in seen:
                raise CardDataError(f"{source}: {name} {item.id!r}, field id: duplicate id "
                                    f"(already used by a {seen[item.id]})")
            seen[item.id] = name
    names: dict[str, str] = {}
    skill_ids: dict[str, str] = {}
    for name in ("defense", "attack"):
        for card in groups[name]:
            for lang in ("ja", "en"):
                key = f"{lang}:{card.name.get(lang)}"
                if key in names:
                    raise CardDataError(f"{source}: {name} {card.id!r}, field name.{lang}: "
                                        f"the name is also card {names[key]!r}'s")
                names[key] = card.id
            for k, skill in enumerate(card.skills):
                if skill.id in skill_ids:
                    raise CardDataError(f"{source}: {name} {card.id!r}, field skills[{k}].id: "
                                        f"duplicate skill id (also on {skill_ids[skill.id]!r})")
                skill_ids[skill.id] = card.id
    families = {f.id for f in groups["family"]}
    series = {s.id for s in groups["series"]}
    numbers: dict[int, str] = {}
    for g in groups["guild"]:
        if g.number in numbers:
            raise CardDataError(f"{source}: guild {g.id!r}, field number: number {g.number} "
                                f"is also guild {numbers[g.number]!r}")
        numbers[g.number] = g.id
        skill = g.battle_skill
        if skill is not None:
            if skill.id in skill_ids:
                raise CardDataError(f"{source}: guild {g.id!r}, field trait.skill.id: duplicate "
                                    f"skill id (also on {skill_ids[skill.id]!r})")
            skill_ids[skill.id] = g.id
            if skill.family not in families:
                raise CardDataError(f"{source}: guild {g.id!r}, field trait.skill.family: "
                                    f"unknown family {skill.family!r}")
    for name in ("defense", "attack"):
        for card in groups[name]:
            if card.series is not None and card.series not in series:
                raise CardDataError(f"{source}: {name} {card.id!r}, field series: "
                                    f"unknown series {card.series!r}")
            for k, skill in enumerate(card.skills):
                if skill.family not in families:
                    raise CardDataError(f"{source}: {name} {card.id!r}, field skills[{k}].family: "
                                        f"unknown family {skill.family!r}")
                if skill.effect.kind == "range" and name == "defense":
                    raise CardDataError(f"{source}: {name} {card.id!r}, field skills[{k}].effect: "
                                        "range skills belong on attack cards")


# The largest card data file read (the shipped cards.toml is about 64 KB): anything
# larger is refused before it is read, with its size named (README "Files and limits").
MAX_CARD_BYTES = 2 * 1024 * 1024


class CardCache(Protocol):
    """Where `load_cards` keeps what it made of a card data file, between runs: the app's
    lives in the user cache folder (tactical_tui/cardcache.py). rules writes nothing
    itself: it hands the cache bytes to keep and checks every byte it gets back.

    `get` returns the bytes kept under `key` (None: none, or unreadable); `put` keeps
    them (a cache that cannot write simply keeps nothing). Neither raises."""

    def get(self, key: str) -> Optional[bytes]: ...

    def put(self, key: str, data: bytes) -> None: ...


# What a cache entry holds (JSON): {"format": CACHE_FORMAT, "file": the sha256 of the
# card data file's bytes (the key), "data_hash": the CardSet's data_hash, "tables": what
# tomllib made of the file}. Only the TOML parsing is saved: the tables are structured
# and checked by `structure_cards` on every load, like a fresh parse — a change of the
# schema in the code, or of the file, never serves old results.
CACHE_FORMAT = 1
_CACHE_KEYS = {"format", "file", "data_hash", "tables"}


def _from_cache(cache: CardCache, key: str, source: str) -> Optional[CardSet]:
    """The card set kept under `key`, or None when there is none or it is not exactly
    what was kept: anything unreadable, of another format or key, not card tables, not
    passing `structure_cards`, or whose tables hash differently from the recorded
    data_hash (a damaged file) is ignored — the caller parses the file afresh."""
    try:
        blob = cache.get(key)
        if blob is None:
            return None
        doc = json.loads(blob)
        if not isinstance(doc, dict) or set(doc) != _CACHE_KEYS or doc["format"] != CACHE_FORMAT \
                or doc["file"] != key or not isinstance(doc["data_hash"], str):
            return None
        cards = structure_cards(doc["tables"], source)
    except Exception:  # noqa: BLE001 - a cache entry is never trusted: any problem, parse afresh
        return None
    return cards if cards.data_hash == doc["data_hash"] else None


def _to_cache(cache: CardCache, key: str, raw: dict, cards: CardSet) -> None:
    """Keep the tables of a freshly parsed file, if JSON holds them exactly."""
    try:
        text = json.dumps({"format": CACHE_FORMAT, "file": key, "data_hash": cards.data_hash,
                           "tables": raw}, ensure_ascii=False, separators=(",", ":"))
        if json.loads(text)["tables"] != raw:
            return
    except (TypeError, ValueError, RecursionError):
        return
    cache.put(key, text.encode("utf-8"))


def load_cards(path: str | Path | None = None, for_game: bool = True,
               cache: Optional[CardCache] = None) -> CardSet:
    """Load `cards.toml` (the shipped one by default). Raises CardDataError.

    Only a regular file of at most MAX_CARD_BYTES is read (`rules.files.read_bounded`).
    `for_game`: the data must be able to make a game — not empty, and `check_playable`
    (at least a 3-player game with every card); `tactical cards` lists any card data, a
    card set being written included, and passes False.

    `cache`: the file is still read every time, and its sha256 looks up what an earlier
    load made of these very bytes (`_from_cache`): the TOML parsing is skipped, the
    checks are not. A card set from the cache equals a fresh parse (data_hash too)."""
    p = Path(path) if path is not None else DEFAULT_CARDS_PATH
    try:
        data = read_bounded(p, MAX_CARD_BYTES)
    except FileProblem as exc:
        code = "unreadable" if exc.code == "os_error" else exc.code
        raise CardDataError(f"{p}: cannot read card data: {exc}", code, str(p),
                            **exc.params) from None
    key = hashlib.sha256(data).hexdigest()
    cards = _from_cache(cache, key, str(p)) if cache is not None else None
    if cards is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CardDataError(f"{p}: not UTF-8 text (byte {exc.start})", "not_utf8", str(p),
                                byte=exc.start) from None
        raw = _read_toml(text, str(p))
        cards = structure_cards(raw, source=str(p))
        if cache is not None:
            _to_cache(cache, key, raw, cards)
    if not for_game:
        return cards
    if not any((cards.families, cards.series, cards.races, cards.guilds, cards.defense,
                cards.attack)):
        raise CardDataError(f"{p}: the file holds no card data", "empty", str(p))
    check_playable(cards)
    return cards


# --------------------------------------------------------------------- can it make a game

@frozen
class Shortage:
    """Card data too small for a game (§4 セットアップ, §5-1, §5-2, §5-3): `what` is
    ``guilds`` (1 per player), ``races`` (2 per player), ``draft`` (8 defense cards per
    player, copies counted) or ``targets`` (the bid targets of every round: targets per
    round × rounds, by the number of players); `need` and `have` the counts."""

    what: str
    need: int
    have: int
    players: int
    first_game: bool

    @property
    def short(self) -> int:
        return self.need - self.have

    def english(self) -> str:
        n, where = self.players, ("the initial set (cards without the star)"
                                  if self.first_game and self.what in ("draft", "targets")
                                  else "the card data")
        per, rounds = BID_ROUNDS[n]
        what = {"guilds": f"guilds for {n} players: {self.need} needed (1 per player)",
                "races": f"races for {n} players: {self.need} needed (2 per player)",
                "draft": f"defense cards for the draft of {n} players: {self.need} needed "
                         "(8 per player, copies counted)",
                "targets": f"attack cards for the bid targets of {n} players: {self.need} "
                           f"needed ({per} per round × {rounds} rounds)"}[self.what]
        return f"too few {what}, {self.have} in {where} ({self.short} short)"


class NotPlayable(CardDataError, ValueError):
    """Card data that cannot make the game asked for; `params["shortages"]` says what is
    short and by how much. A ValueError too, as `new_game` raised before."""


def shortages(cards: CardSet, players: int, first_game: bool = False) -> list[Shortage]:
    """What the card set lacks for a game of `players` (3..5), in the first-game mode
    (§4: the decks of the initial set only) or with every card. Empty: it can.

    §5-1: a guild per player, two race candidates per player. §5-2: 8 defense cards dealt
    to each player before the draft (the discard pile is empty then, so §7's reshuffle
    cannot help). §5-3: each bid round reveals the players' number of targets from the
    attack deck; won targets leave it, so with fewer than targets × rounds attack cards a
    round could not reveal as many as §5-3 says (docs/RULINGS.md R31)."""
    n = players
    per, rounds = BID_ROUNDS[n]
    defense = sum(c.copies for c in cards.defense if not (first_game and c.star))
    attack = sum(1 for c in cards.attack if not (first_game and c.star))
    out = []
    for what, need, have in (("guilds", n, len(cards.guilds)), ("races", 2 * n, len(cards.races)),
                             ("draft", DRAFT_HAND_SIZE * n, defense),
                             ("targets", per * rounds, attack)):
        if have < need:
            out.append(Shortage(what, need, have, n, first_game))
    return out


def check_playable(cards: CardSet, players: int = 3, first_game: bool = False) -> None:
    """Raise NotPlayable naming every shortage (`shortages`) of the card set for a game of
    `players` in the first-game mode or not. By default: the smallest game, 3 players with
    every card — card data that cannot make that cannot make any game."""
    found = shortages(cards, players, first_game)
    if found:
        text = "; ".join(s.english() for s in found)
        raise NotPlayable(f"{cards.source}: cannot make a game: {text}", "short",
                          cards.source, shortages=tuple(found), players=players,
                          first_game=first_game)


_DEFAULT: list[CardSet] = []


def default_cards(cache: Optional[CardCache] = None) -> CardSet:
    """The shipped card set, loaded once (through `cache` if the first call names one)."""
    if not _DEFAULT:
        _DEFAULT.append(load_cards(cache=cache))
    return _DEFAULT[0]
