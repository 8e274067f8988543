"""Playing a game out among programs, and what they need against a game that never ends.

The rulebook ends a game only when a seat holds 5 VP (§6 「誰かが勝利点チップを5枚獲得する
まで、ラウンドを繰り返します」, docs/RULINGS.md R19): the rules have no round limit and no
end for want of attack cards, so a game among programs can go on for ever (nobody can
reach anybody, nobody holds an attack card). The simulator, the benches and the tests
stop such a game after `ROUND_CAP` battle rounds and report it as *unfinished* — never
as a win. The cap lives here, outside `rules/`.
"""

from __future__ import annotations

from typing import Any

from rules.state import Phase

# Battle rounds after which a game among programs is given up as unfinished. Shipped-card
# games among the AI levels end in a few rounds (4 seats: 2.5 on average).
ROUND_CAP = 60


def unfinished(state: Any, cap: int = ROUND_CAP) -> bool:
    """Has this game passed the cap without an end? (Round 0 is the round of entries.)"""
    return state.phase != Phase.OVER and state.battle is not None and state.battle.round > cap


def running(state: Any, cap: int = ROUND_CAP) -> bool:
    """Go on playing: not over, and not given up (`unfinished`)."""
    return state.phase != Phase.OVER and not unfinished(state, cap)
