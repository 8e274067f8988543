"""The player interface: given a seat's observation and its legal actions, return one."""

from __future__ import annotations

import random
from typing import Optional, Protocol, Sequence

from rules import Observation


class Player(Protocol):
    level: str

    def choose(self, observation: Observation, legal: Sequence[object]) -> object:
        """One of `legal` (never empty)."""

    # Optional, for resuming a saved game without thinking again (tactical_tui.table.live):
    # `memory()` -> a small dict of JSON values, what the player carries from one
    # decision to the next, saved with each of its actions; `remember(obs, legal,
    # action, memo)` -> the player's own state moves on as if it had chosen `action`
    # here, with `memo` (its `memory()` right after that decision, or None), without
    # searching.


class RandomPlayer:
    """`random`: a uniformly random legal action (the baseline)."""

    level = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal: Sequence[object]) -> object:
        if not legal:
            raise ValueError("no legal action to choose from")
        return legal[self._rng.randrange(len(legal))]

    def memory(self) -> dict:
        return {}

    def remember(self, observation: Observation, legal: Sequence[object], action: object,
                 memo: Optional[dict]) -> None:
        self._rng.randrange(len(legal))          # the draw `choose` made


LEVELS = ("random", "easy", "normal", "hard")


def make_player(level: str, seed: int = 0, cards=None, budget: Optional[float] = None) -> Player:
    """A player of the given level: random | easy | normal | hard. `budget`: the hard
    player's seconds per battle decision (default 0.5)."""
    if level == "random":
        return RandomPlayer(seed)
    if level == "hard":
        from .hard import HardPlayer
        return HardPlayer(cards, seed, 0.5 if budget is None else budget)
    from .normal import EasyPlayer, NormalPlayer
    if level == "normal":
        return NormalPlayer(cards, seed)
    if level == "easy":
        return EasyPlayer(cards, seed)
    raise ValueError(f"unknown AI level {level!r} (levels: {', '.join(LEVELS)})")
