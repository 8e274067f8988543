"""Chance during play: die rolls and chip draws, from the script if one is set, else from
the RNG kept in the state."""

from __future__ import annotations

from . import rng as R
from .state import CHANGE, ChanceScriptError, GameState, evolve


def roll(state: GameState) -> tuple[int, GameState]:
    """One roll of the six-sided die."""
    if state.script.dice:
        value = state.script.dice[0]
        if value not in range(1, 7):
            raise ChanceScriptError(f"scripted die result {value} is not 1..6")
        return value, evolve(state, script=evolve(state.script, dice=state.script.dice[1:]))
    value, rs = R.die(state.rng)
    return value, CHANGE["rng"](state, rs)


def pick_chip(state: GameState, bag: tuple[str, ...]) -> tuple[int, GameState]:
    """The index of the chip drawn from `bag`."""
    if state.script.chips:
        chip = state.script.chips[0]
        if chip not in bag:
            raise ChanceScriptError(f"scripted chip {chip!r} is not in the bag {list(bag)}")
        return bag.index(chip), evolve(
            state, script=evolve(state.script, chips=state.script.chips[1:]))
    i, rs = R.below(state.rng, len(bag))
    return i, CHANGE["rng"](state, rs)
