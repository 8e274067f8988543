"""A new game's seed: 64 bits from the operating system's random source.

The public opening of a game (guilds, races, revealed targets) is enough to search a small
seed space offline and then predict every later shuffle, die and chip; 64 bits from
`secrets` (the OS source) cannot be searched that way. `--seed N` (0 ≤ N < 2**64) still
gives a reproducible game.
"""

from __future__ import annotations

SEED_BITS = 64
SEED_LIMIT = 1 << SEED_BITS          # seeds are 0 .. 2**64 - 1


def new_seed() -> int:
    """A seed no one can guess (the RNG of `rules.rng` takes any int; saves take < 2**64)."""
    import secrets                   # (hashlib and OpenSSL: not before a game needs a seed)
    return secrets.randbits(SEED_BITS)


def valid_seed(seed: object) -> bool:
    return type(seed) is int and 0 <= seed < SEED_LIMIT
