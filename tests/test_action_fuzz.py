"""Issue 14 point 5 — actions are typed. Garbage actions of every type, with fields of the
wrong type (float, bool, str, None, bytes, containers, huge ints, …) and legal actions with
one field swapped for an equal value of another type (`0.0`, `False`, `"0"` …), in
positions of every phase: `apply` raises `IllegalAction` and nothing else, leaves the
state as it was, and its reason reads in Japanese and English. Hundreds of thousands of
actions; an action `apply` accepts is one `legal_actions` lists and survives a save."""

from __future__ import annotations

import math
import random

import attrs
import pytest

from rules import ACTION_TYPES, Config, IllegalAction, apply, legal_actions, new_game, pending
from rules.actions import FIELD_KINDS, field_refusal
from rules.state import Phase
from tactical_tui.table.saves import action_from_dict, action_to_dict
from tactical_tui.text.catalog import refusal_text

TOTAL = 200_000             # garbage actions in all
SAMPLE_TEXTS = 1 / 200      # share of refusals whose ja/en texts are built and checked
TYPED_FROM = 0.95           # the last 5 % of the actions are well typed (random values)


class Odd:
    """Not a number, not text; compares equal to nothing."""


WRONG = [0.0, 1.0, -0.0, 2.0, float("nan"), float("inf"), True, False, None, "", "0", "1",
         "equip", b"0", b"", [], [0], (), (0,), {}, {0: 0}, set(), 10 ** 30, -(10 ** 30),
         1 << 63, -(1 << 63) - 1, 10 ** 5000, Odd(), 1j, range(1), math.pi, "\x1b[2J"]
INTS = [0, 1, 2, 3, 4, 5, 6, -1, 7, 99]


def positions(count_per_game: int = 12) -> list:
    """States from seeded random games: draft, every bidding step, build (with confirmed
    seats), the reveal (first-game swap variant too) and the battle's stages."""
    out = []
    for seed in range(14):
        rnd = random.Random(seed)
        config = Config(players=3 + seed % 3, first_game=seed % 2 == 0, reveal_swap=seed % 3 == 0)
        state, _ = new_game(config, seed=seed)
        seen = []
        steps = 0
        while state.phase != Phase.OVER and steps < 900:
            legal = legal_actions(state)
            if state.phase == Phase.BUILD:
                conf = [a for a in legal if type(a).__name__ == "Confirm"]
                a = conf[0] if conf and rnd.random() < 0.3 else rnd.choice(legal)
            else:
                a = rnd.choice(legal)
            state, _ = apply(state, a)
            steps += 1
            seen.append(state)
        kinds = {}
        for st in seen:
            kinds.setdefault(pending(st).kind, []).append(st)
        picked = [rnd.choice(v) for v in kinds.values()]
        rest = [st for st in seen if st not in picked]
        out += picked + rnd.sample(rest, min(len(rest), max(0, count_per_game - len(picked))))
    return out


def well_typed_values(state, kind, rnd: random.Random):
    if kind is int:
        return rnd.choice(INTS)
    if kind is str:
        pool = [c for s in state.seats for c in s.hand + s.equipped] + ["ring#1", "x", ""]
        if state.bidding is not None:
            pool += list(state.bidding.current)
        return rnd.choice(pool)
    return rnd.choice(list(kind) + ["wear"])


def equal_but_wrong(value, rnd: random.Random):
    """A value of another type that Python may compare equal to `value`."""
    if type(value) is int:
        options = [float(value), str(value), value + 0j]
        if value in (0, 1):
            options.append(bool(value))
        return rnd.choice(options)
    return rnd.choice([None, value.encode(), [value], (value,), Odd()])


def mistyped(value, kind, optional: bool = False) -> bool:
    """The spec of a field's type (restated here, independent of rules.actions); an
    optional field (StartAttack.skill, RULINGS R22) may also be None."""
    if optional and value is None:
        return False
    if kind is int:
        return type(value) is not int or not -(1 << 63) <= value < (1 << 63)
    if kind is str:
        return type(value) is not str
    return type(value) is not str or value not in kind


_WRONG_FOR: dict = {}


def wrong_for(kind) -> list:
    if kind not in _WRONG_FOR:
        _WRONG_FOR[kind] = [v for v in WRONG if mistyped(v, kind)] + (
            ["wear", "Equip", "equip "] if isinstance(kind, tuple) else [])
    return _WRONG_FOR[kind]


def garbage(state, legal: list, rnd: random.Random):
    """One garbage action and whether a field is of the wrong type: a legal action with one
    field swapped for an equal-looking value of another type, or an action of any type
    whose fields are random, at least one of the wrong type — or, now and then, a
    well-typed random action (usually illegal, sometimes legal)."""
    roll = rnd.random()
    if roll < 0.45 and legal:
        a = rnd.choice(legal)
        name, kind, optional = rnd.choice(FIELD_KINDS[type(a)])
        if getattr(a, name) is None:                # an optional field left out
            value = rnd.choice(wrong_for(kind))
        else:
            value = equal_but_wrong(getattr(a, name), rnd)
        return attrs.evolve(a, **{name: value}), mistyped(value, kind, optional)
    cls = rnd.choice(ACTION_TYPES)
    kinds = FIELD_KINDS[cls]
    values = {n: well_typed_values(state, k, rnd) for n, k, _ in kinds}
    if roll < TYPED_FROM:
        for n, k, _ in rnd.sample(kinds, rnd.randint(1, len(kinds))):
            values[n] = rnd.choice(wrong_for(k))
    return cls(**values), any(mistyped(values[n], k, opt) for n, k, opt in kinds)


@pytest.fixture(scope="module")
def states():
    return positions()


def test_positions_cover_every_phase(states):
    kinds = {pending(s).kind for s in states}
    assert {"draft_pick", "bid", "build", "reveal_fix", "turn", "skills", "targets", "draw"} <= kinds
    assert any(pending(s).optional for s in states)        # a confirmed seat in the build


def test_garbage_actions_are_refused_with_illegal_action_only(states):
    rnd = random.Random(5)
    per_state = TOTAL // len(states) + 1
    refused = accepted = 0
    codes: set[str] = set()
    for state in states:
        snapshot = hash(state)
        legal = legal_actions(state)
        for _ in range(per_state):
            action, wrong = garbage(state, legal, rnd)
            try:
                new, events = apply(state, action)
            except IllegalAction as exc:
                refused += 1
                codes.add(exc.code)
                assert exc.reason and isinstance(exc.reason, str)
                if rnd.random() < SAMPLE_TEXTS:
                    for lang in ("ja", "en"):
                        assert refusal_text(state.cards, exc.code, exc.params, lang)
                continue
            # accepted: well typed, listed, and it survives a save
            accepted += 1
            assert not wrong and field_refusal(action) is None, action
            assert action in legal
            assert action_from_dict(action_to_dict(action)) == action
        assert hash(state) == snapshot, "apply changed the state it was given"
    assert refused + accepted >= TOTAL
    assert accepted > 0 and refused > 0.9 * TOTAL
    assert {"bad_field", "number_out_of_range", "bad_zone"} <= codes


@pytest.mark.parametrize("action", [
    "Pick(0.0, c)", "Pick(False, c)", "Pass(False)", "Pass(0.0)", "Pick('0', c)", "Pick(0, None)",
])
def test_equal_but_mistyped_actions_are_refused_before_the_legal_list(action):
    """The issue's reproductions: 0.0 and False compare equal to 0, so these matched a legal
    action and then crashed inside `apply` or wrote a save that no longer loads."""
    from rules.actions import Pass, Pick  # noqa: F401 (used by eval)
    state, _ = new_game(Config(players=3), seed=1)
    c = state.seats[0].hand[0]
    a = eval(action)
    legal = legal_actions(state)
    if "None" not in action and "'0'" not in action:
        assert a in legal or type(a).__name__ == "Pass"          # equal to a listed action
    with pytest.raises(IllegalAction) as info:
        apply(state, a)
    assert info.value.code == "bad_field"
    assert "must be" in info.value.reason


def test_not_an_action_at_all():
    state, _ = new_game(Config(players=3), seed=1)
    for thing in (None, 0, "Pick", object(), Config()):
        with pytest.raises(IllegalAction) as info:
            apply(state, thing)
        assert info.value.code == "not_an_action"
