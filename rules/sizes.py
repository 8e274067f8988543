"""Sizes of the game by its number of players, read by the state, the engine and the
card data's checks: §5-2 (the defense cards dealt to each player before the draft) and
§5-3 (bid targets per round and bid rounds).

A module of its own below both `state` and `cards` (issue 33): `cards.shortages` needs
them and `state` needs `cards.CardSet`, so neither may hold them without a cycle.
"""

from __future__ import annotations

# §5-3: (targets per round, rounds) by the number of players.
BID_ROUNDS: dict[int, tuple[int, int]] = {3: (4, 3), 4: (3, 4), 5: (3, 5)}
# §5-2: defense cards dealt to each player before the draft.
DRAFT_HAND_SIZE = 8
