"""rules.memo.Memo, and the memos that must not leave work for the cyclic collector
(issue 16: a memo emptied at once, or thousands of solvers in reference cycles, cost the
hard player's search tens of milliseconds past its clock)."""

import gc
import weakref

import pytest

from ai.selfplay import running
from ai.chips import Solver
from ai.normal import vp_for
from rules.memo import Memo


def test_a_memo_forgets_its_oldest_entries_one_at_a_time():
    m = Memo(3)
    for k in "abcd":
        assert m.put(k, k.upper()) == k.upper()
    assert list(m) == ["b", "c", "d"]
    assert m.get("a") is None and m.get("d") == "D"
    m.put("e", "E")
    assert list(m) == ["c", "d", "e"] and len(m) == 3
    m.clear()
    assert not m


def test_a_memo_holds_at_least_one_entry():
    with pytest.raises(ValueError):
        Memo(0)


def test_a_solver_is_freed_without_the_cyclic_collector():
    def u(pts, crits):
        return vp_for(6, False, pts + 2 * crits) + 0.08 * min(pts, 6)
    collecting = gc.isenabled()
    gc.disable()
    try:
        s = Solver(u)
        go, stop, draw = s.should_draw(tuple(sorted(["0", "1", "2", "2", "crit", "miss"])), ())
        assert draw > stop >= 0
        ref = weakref.ref(s)
        del s
        assert ref() is None      # freed by its reference count: no cycle through its memo
    finally:
        if collecting:
            gc.enable()


def test_the_rollouts_draw_memo_leaves_nothing_for_the_cyclic_collector():
    """Issue 16: the rollout policy's draw memo (20,000 entries) held the attacks, actions
    and reasons themselves, and every full collection of a long run walked them (0.1-0.2 s
    on whichever decision was running). Its keys and values are now tuples of atomic
    values, which the collector stops tracking once it has seen them (a nested tuple one
    level per collection at worst)."""
    from ai.hard import RolloutPlayer
    from rules import Config, apply, new_game, observe, pending
    from rules.cards import default_cards

    cards = default_cards()
    players = [RolloutPlayer(cards, i) for i in range(4)]
    state, _ = new_game(Config(players=4), cards, 3)
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        state, _ = apply(state, players[seat].choose(obs, obs.legal))
    memo = RolloutPlayer._draws[cards]
    assert len(memo) > 3
    for _ in range(5):
        gc.collect()
    assert not [k for k, v in memo.items() if gc.is_tracked(k) or gc.is_tracked(v)]
