"""The battle's plumbing, no rule of its own (§6 is in the modules above it): the
events list every step appends to, the hot `changer`s of the battle state (issue 16),
the one `Done` / `Decline` action object per seat, the memo of legal lists, and the
legal lists primed for the state an `apply` returns.
"""

from __future__ import annotations

from ..actions import Decline, Done
from ..events import Event
from ..memo import Memo
from ..state import CHANGE, Attack, BattleState, Changers, GameState, SeatState, Turn, changer

Events = list[Event]

# Actions are values: one object per seat (Config: at most 5 seats) serves every list.
DONE, DECLINE = (tuple(cls(seat) for seat in range(5)) for cls in (Done, Decline))

# Hot updates of the battle (issue 16): `changer`s, each written on first use.
CH = Changers(attack=(BattleState, ("attack",)), turn=(BattleState, ("turn",)),
              next_turn=(BattleState, ("round", "attack", "turn")),
              queue=(BattleState, ("counter_queue",)),
              queue_attack=(BattleState, ("counter_queue", "attack")),
              after=(BattleState, ("attack", "countered", "blocked")),
              resolved=(BattleState, ("attack", "counter_queue", "countered", "blocked")),
              moves=(Turn, ("moves",)), rested=(Turn, ("rested",)),
              attacked=(Turn, ("attacked",)), area=(SeatState, ("area",)),
              stage=(Attack, ("stage",)),
              knocked_out=(SeatState, ("hp", "low", "knocked_out", "area")),
              hurt=(SeatState, ("hp", "low")), vp=(SeatState, ("vp",)),
              drawn=(Attack, ("bag", "drawn")))


def memo_list(memo: Memo, key: tuple, make, *args) -> list:
    """`make(*args)`, a list, memoised in `memo` by `key` — the values it depends on
    (issue 16; at most 20,000 entries, the oldest forgotten first)."""
    got = memo.get(key)
    if got is None:
        got = memo.put(key, tuple(make(*args)))
    return list(got)


def set_attack(state: GameState, **changes) -> GameState:
    b = state.battle
    key = tuple(changes)                # a `changer` per set of fields changed
    change = _ATTACK_CHANGERS.get(key)
    if change is None:
        change = _ATTACK_CHANGERS[key] = changer(Attack, key)
    return CHANGE["battle"](state, CH["attack"](b, change(b.attack, *changes.values())))


_ATTACK_CHANGERS: dict[tuple[str, ...], object] = {}


# Legal lists worked out for the very state an `apply` returns (issue 16): the engine's
# memo of that state takes them instead of working them out again. Keyed by identity; an
# entry holds its state, and the engine checks the decision's kind and seat.
PRIMED: dict[int, tuple[GameState, str, int, list]] = {}


def prime(state: GameState, kind: str, seat: int, legal: list) -> None:
    if len(PRIMED) >= 64:
        PRIMED.clear()
    PRIMED[id(state)] = (state, kind, seat, legal)
