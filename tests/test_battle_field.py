"""§6 フィールド and 移動: six areas in a ring, distance 0–3 the shorter way round, one
step per move to either neighbour, occupied or not."""

from __future__ import annotations

import pytest

from rules import legal_actions
from rules import battle as B
from rules.actions import Move
from rules.events import Moved

from test_battle_positions import of_type, position, run

# §6 フィールド: 1 ─ 2 ─ 3 ─ 4 ─ 5 ─ 6 ─ 1. Written out by hand, row = from, column = to.
DISTANCE = {
    1: (0, 1, 2, 3, 2, 1),
    2: (1, 0, 1, 2, 3, 2),
    3: (2, 1, 0, 1, 2, 3),
    4: (3, 2, 1, 0, 1, 2),
    5: (2, 3, 2, 1, 0, 1),
    6: (1, 2, 3, 2, 1, 0),
}


@pytest.mark.parametrize("a", range(1, 7))
def test_6_field_distance_table(a):
    """§6 フィールド: 「自分のエリアから対象のエリアまで…0から3の距離で表します。左右のどちら
    からも数えられる場合は、近い方を距離とします。」"""
    assert tuple(B.distance(a, b) for b in range(1, 7)) == DISTANCE[a]


def test_6_field_distance_is_symmetric_and_at_most_3():
    """§6 フィールド: 距離0〜3 only; the same both ways."""
    for a in range(1, 7):
        for b in range(1, 7):
            assert B.distance(a, b) == B.distance(b, a) <= 3


def test_6_move_one_step_either_way_wraps_6_and_1():
    """§6 移動: 「移動アクション1回につき、左右どちらかの隣接エリアへ移動します。」 — the ring
    closes: 6 → 1 and 1 → 6."""
    state = position(3, {0: {"equip": ["short_sword"], "area": 6}, 1: {"area": 3},
                         2: {"area": 3}})
    assert {a for a in legal_actions(state) if isinstance(a, Move)} == {Move(0, 1), Move(0, -1)}
    state, ev = run(state, Move(0, +1))
    assert state.seats[0].area == 1
    assert of_type(ev, Moved) == [Moved(0, 6, 1)]
    state, ev = run(state, Move(0, -1))
    assert of_type(ev, Moved) == [Moved(0, 1, 6)]
    assert state.seats[0].area == 6


@pytest.mark.parametrize("start,step,end", [(1, -1, 6), (3, +1, 4), (3, -1, 2), (5, +1, 6)])
def test_6_move_to_the_adjacent_area(start, step, end):
    """§6 移動: each move reaches an area at distance 1."""
    state = position(3, {0: {"equip": ["short_sword"], "area": start}, 1: {"area": 1},
                         2: {"area": 1}})
    state, _ = run(state, Move(0, step))
    assert state.seats[0].area == end
    assert DISTANCE[start][end - 1] == 1


def test_6_move_into_an_occupied_area():
    """§6 移動: 「ほかのプレイヤーがいるエリアへも移動できます。」 FAQ: 「同じエリアに複数の
    プレイヤーコマを置けます。」"""
    state = position(3, {0: {"equip": ["short_sword"], "area": 2}, 1: {"area": 3},
                         2: {"area": 3}})
    state, _ = run(state, Move(0, +1))
    assert state.seats[0].area == state.seats[1].area == state.seats[2].area == 3
