"""§6 バトルの終了: the game ends the moment a seat holds 5 VP, even in the middle of a
counter sequence; and the safety rule of docs/RULINGS.md R19 (`rules.battle.ROUND_LIMIT`,
"no_attacks") so that no game can run forever."""

from __future__ import annotations

import attrs
import pytest

from rules import legal_actions, pending
from rules import battle as B
from rules.actions import EndTurn, Move, Rest, StartCounter, Stop
from rules.events import GameOver
from rules.state import Phase

from test_battle_positions import attack, chips, dice, finish_draw, position, run  # noqa: F401


def assert_over(state, winners, reason):
    assert state.phase == Phase.OVER
    assert state.winners == winners and state.end_reason == reason
    assert pending(state).kind == "over"
    assert legal_actions(state) == []


def test_6_five_vp_ends_the_game_at_once(chips):
    """§6 バトルの終了: 「アタックまたはカウンターによって勝利点チップを合計5枚獲得したプレイヤー
    がゲームに勝利し、その時点でバトルとゲームを終了します。」 — no counter follows (seat 1
    could have countered from area 2)."""
    state = position(3, {0: {"equip": ["spear"], "area": 1, "vp": 4},
                         1: {"equip": ["short_sword"], "area": 2}})
    chips("2")
    state, ev = attack(state, 0, "spear", "spear_range", 1)
    state, ev2 = finish_draw(state)
    assert state.seats[0].vp == 5
    assert GameOver((0,), "vp") in ev + ev2
    assert_over(state, (0,), "vp")


def test_6_five_vp_by_a_counter_ends_the_counter_sequence(chips):
    """§6 アタック 12 / バトルの終了: the first counterer reaches 5 VP; the second never
    counters (RULINGS R26)."""
    state = position(3, {0: {"equip": ["twin_blade"], "area": 1},
                         1: {"equip": ["short_sword"], "area": 2, "vp": 4},
                         2: {"equip": ["short_sword"], "area": 2}})
    chips("miss")
    state, _ = attack(state, 0, "twin_blade", "twin_blade_range", 1, 2,
                      declare=[("twin_blade", "twin_blade_sweep")])
    assert pending(state).kind == "counter" and pending(state).seats == (1,)
    chips("2")
    state, ev = run(state, StartCounter(1, "short_sword", "short_sword_range"), Stop(1))
    assert state.seats[1].vp == 5
    assert_over(state, (1,), "vp")


def test_6_more_than_five_vp_at_once_also_ends_it(chips):
    """§6 バトルの終了: 3 VP on top of 3 is 6 — still the end (5 or more)."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 1, "vp": 3},
                         1: {"area": 2}})
    chips("2", "2", "crit")
    state, _ = attack(state, 0, "short_sword", "short_sword_range", 1)
    state, _ = finish_draw(state, draws=2)
    assert state.seats[0].vp == 6
    assert_over(state, (0,), "vp")


def last_turn_of_round(round, vps):
    n = len(vps)
    return position(n, {i: {"equip": ["short_sword"], "area": i + 1, "vp": v}
                        for i, v in enumerate(vps)},
                    order=tuple(range(n)), turn=n - 1, round=round)


@pytest.mark.parametrize("vps,winners", [
    ((2, 3, 3), (1, 2)),        # the seats with the most VP win together
    ((1, 0, 0), (0,)),
    ((0, 0, 0), ()),            # nobody scored: no winner
])
def test_6_safety_rule_round_limit(vps, winners):
    """RULINGS R19 (b): 「at the end of battle round 60 (`rules.battle.ROUND_LIMIT`) the game
    ends; the seats with the most VP win together, or nobody if no VP was scored」."""
    state = last_turn_of_round(B.ROUND_LIMIT, vps)
    assert pending(state).seats == (2,)
    state, ev = run(state, EndTurn(2))
    assert GameOver(winners, "round_limit") in ev
    assert_over(state, winners, "round_limit")


def test_6_safety_rule_round_limit_is_played_to_its_end():
    """RULINGS R19 (b): the game ends 「at the end of battle round 60」 — the round before it
    ends normally and round ROUND_LIMIT (BattleState.round, 0 = entries) is played."""
    state = last_turn_of_round(B.ROUND_LIMIT - 1, (0, 1, 0))
    state, _ = run(state, EndTurn(2))
    assert state.phase == Phase.BATTLE
    assert state.battle.round == B.ROUND_LIMIT
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


def test_6_safety_rule_not_earlier():
    """RULINGS R19 (b): two rounds before the limit the battle simply goes on."""
    state = last_turn_of_round(B.ROUND_LIMIT - 2, (0, 1, 0))
    state, _ = run(state, EndTurn(2))
    assert state.phase == Phase.BATTLE
    assert state.battle.round == B.ROUND_LIMIT - 1
    assert pending(state).kind == "turn" and pending(state).seats == (0,)


@pytest.mark.parametrize("ending", ["rest", "moves"])
def test_6_safety_rule_whatever_ends_the_last_turn(ending):
    """RULINGS R19 (b): the round ends with its last turn however that turn ends."""
    state = last_turn_of_round(B.ROUND_LIMIT, (0, 2, 1))
    actions = [Rest(2)] if ending == "rest" else [Move(2, 1), Move(2, 1)]
    state, _ = run(state, *actions)
    assert_over(state, (1,), "round_limit")


def test_6_safety_rule_no_attack_cards_at_all(dice):
    """RULINGS R19 (a): 「if no seat has an attack card equipped when the battle starts, the
    game ends at once with no winner」."""
    state = position(3, {0: {"equip": ["plate_mail"]}, 1: {"equip": ["barrier_shield"]},
                         2: {}})
    state = attrs.evolve(state, battle=None)
    events: list = []
    state = B.start_battle(state, events)
    assert GameOver((), "no_attacks") in events
    assert_over(state, (), "no_attacks")


def test_6_one_attack_card_is_enough_to_play(dice):
    """RULINGS R19 (a) applies only when nobody has an attack card."""
    state = position(3, {0: {"equip": ["plate_mail"]}, 1: {"equip": ["fire_bolt"]}, 2: {}})
    state = attrs.evolve(state, battle=None)
    dice(1, 2)
    state = B.start_battle(state, [])
    assert state.phase == Phase.BATTLE
    assert pending(state).kind == "turn" and pending(state).seats == (1,)
