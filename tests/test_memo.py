"""rules.memo.Memo, and the memos that must not leave work for the cyclic collector
(issue 16: a memo emptied at once, or thousands of solvers in reference cycles, cost the
hard player's search tens of milliseconds past its clock)."""

import gc
import weakref

import pytest

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
