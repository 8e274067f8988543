"""Test helper: the same game state with everything one seat cannot see changed."""

from __future__ import annotations

import attrs


def hide_differently(state, seat, rnd):
    """The same position with everything `seat` cannot see changed: the other seats'
    unused hands (shuffled among them), both decks' order and the RNG state."""
    others = [i for i in range(state.players) if i != seat]
    pool = [c for i in others for c in state.seats[i].hand]
    rnd.shuffle(pool)
    changed = state
    k = 0
    for i in others:
        n = len(state.seats[i].hand)
        changed = changed.with_seat(i, hand=tuple(pool[k:k + n]))
        k += n
    deck = list(state.defense_deck)
    rnd.shuffle(deck)
    return attrs.evolve(changed, defense_deck=tuple(deck),
                        attack_deck=tuple(reversed(state.attack_deck)),
                        rng=state.rng ^ 0x5DEECE66D1234567)
