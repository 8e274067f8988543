"""Chance whose whole state is one integer kept in `GameState` (splitmix64).

Every function takes the state and returns its result with the next state, so a seed and
the list of actions replay a game exactly, and an old `GameState` stays valid.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in 0..n-1 (rejection sampling, no modulo bias)."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        x, state = next_u64(state)
        if x < limit:
            return x % n, state


def die(state: int) -> tuple[int, int]:
    """One roll of the six-sided die: 1..6."""
    x, state = below(state, 6)
    return x + 1, state


def shuffle(state: int, items: Sequence[T]) -> tuple[tuple[T, ...], int]:
    """Fisher–Yates shuffle; returns a new tuple."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        # j, state = below(state, i + 1), written out (issue 16: ~200 draws a new game)
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
            if x < limit:
                break
        j = x % n
        out[i], out[j] = out[j], out[i]
    return tuple(out), state
