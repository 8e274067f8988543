"""§6 バトル — バトルの準備, 登場と初期手番 (and the FAQ on the first seat's initial turn)."""

from __future__ import annotations

import attrs

from rules import legal_actions, pending
from rules import battle as B
from rules.actions import ChooseTarget, EndTurn, Move, Rest, StartAttack
from rules.events import BattleStarted, DieRolled, Entered, TurnStarted
from rules.state import BattleState, Phase

from test_battle_positions import dice, of_type, one, position, run  # noqa: F401


def before_battle(players=3, equip=None, order=None, **seat_fields):
    """The moment the reveal hands over to §6: builds fixed, nobody on the field, HP and
    mana still as they were before the battle (here deliberately wrong)."""
    equip = equip or {}
    state = position(players, {i: {"equip": equip.get(i, ["short_sword"]), **seat_fields}
                               for i in range(players)}, order=order)
    return attrs.evolve(state, battle=None)


def test_6_preparation_hp_6_and_mana_final(dice):
    """§6 魔力メーターの準備 / バトルの目的: 「体力欄でマーカーコマを6に置いてバトルを開始」;
    「最終魔力と同じ数値の欄へ、マーカーコマを置きます」."""
    state = before_battle(3, equip={0: ["short_sword", "mana_ring"], 1: ["spear"],
                                    2: ["bow", "mana_ring", "moon_ring"]},
                          hp=2, mana=0, low=True)
    dice(4)
    events: list = []
    state = B.start_battle(state, events)
    assert [s.hp for s in state.seats] == [6, 6, 6]
    # human 3 mana; Mana Ring +1; Moon Ring +1 (stat modifiers count without the series).
    assert [s.mana for s in state.seats] == [4, 3, 5]
    assert not any(s.low for s in state.seats)
    assert one(events, BattleStarted).order == (0, 1, 2)


def test_6_entries_in_processing_order_each_followed_by_its_initial_turn(dice):
    """§6 登場と初期手番: 「処理順が早いプレイヤーから、次の処理を1人ずつ行います。1. 6面
    サイコロを振ります。2. 出目と同じ番号のエリアへ…置きます。3. 配置後、直ちに通常の手番
    を1回行います。」 — one seat enters, takes its turn, then the next enters."""
    state = before_battle(3, order=(2, 0, 1))
    dice(4)
    events: list = []
    state = B.start_battle(state, events)
    assert state.battle.round == 0
    assert [e.seat for e in of_type(events, DieRolled)] == [2]
    assert of_type(events, Entered) == [Entered(2, 4, False)]
    assert pending(state).kind == "turn" and pending(state).seats == (2,)
    assert state.seats[2].area == 4 and state.seats[2].entered
    assert not state.seats[0].entered and not state.seats[1].entered
    assert state.seats[0].area is None and state.seats[1].area is None

    dice(2)
    state, ev = run(state, EndTurn(2))
    assert of_type(ev, DieRolled) == [DieRolled(0, 2, "enter")]
    assert of_type(ev, Entered) == [Entered(0, 2, False)]
    assert pending(state).seats == (0,) and not state.seats[1].entered

    dice(5)
    state, ev = run(state, EndTurn(0))
    assert of_type(ev, Entered) == [Entered(1, 5, False)]
    assert pending(state).seats == (1,)

    # 「全員が登場して初期手番を終えた後、通常のラウンドを開始」: round 1 starts with the
    # first seat of the processing order, and nobody rolls again.
    state, ev = run(state, EndTurn(1))
    assert state.battle.round == 1
    assert pending(state).seats == (2,)
    assert of_type(ev, DieRolled) == []
    assert [e.seat for e in of_type(ev, TurnStarted)] == [2]


def test_6_same_roll_shares_an_area(dice):
    """§6 登場と初期手番: 「同じ出目のプレイヤーは同じエリアへ配置します。」"""
    state = before_battle(3)
    dice(3)
    state = B.start_battle(state, [])
    dice(3)
    state, _ = run(state, EndTurn(0))
    assert state.seats[0].area == state.seats[1].area == 3


def test_6_first_initial_turn_can_move_but_not_attack(dice):
    """§8 FAQ バトル: 「最初に手番を行うプレイヤーの初期手番では、ほかのプレイヤーがまだ登場して
    いないため、アタックはできません。ただし、移動はできます。」"""
    state = before_battle(3, equip={0: ["short_sword"], 1: ["spear"], 2: ["bow"]})
    dice(1)
    state = B.start_battle(state, [])
    legal = legal_actions(state)
    assert not [a for a in legal if isinstance(a, StartAttack)]
    assert set(legal) == {Move(0, +1), Move(0, -1), Rest(0), EndTurn(0)}


def test_6_seats_not_entered_cannot_be_targeted(dice):
    """§6 登場と初期手番: 「まだ登場していないプレイヤーは、アタックと移動の対象になりません。」
    The second seat, entering beside the first, may attack it — and only it."""
    state = before_battle(3)
    dice(3)
    state = B.start_battle(state, [])
    dice(3)
    state, _ = run(state, EndTurn(0))
    assert StartAttack(1, "short_sword", "short_sword_range") in legal_actions(state)
    state, _ = run(state, StartAttack(1, "short_sword", "short_sword_range"))
    assert legal_actions(state) == [ChooseTarget(1, 0)]


def test_6_battle_state_starts_in_round_0_of_entries(dice):
    """§6 バトルの基本的な流れ 2–3: entries and initial turns first (round 0), then the
    normal rounds; the phase is the battle."""
    state = before_battle(3)
    dice(6)
    state = B.start_battle(state, [])
    assert state.phase == Phase.BATTLE
    assert isinstance(state.battle, BattleState) and state.battle.round == 0
