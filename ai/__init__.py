"""AI players: each chooses one action from one seat's observation (never the full state)."""

from .base import Player, RandomPlayer, make_player

__all__ = ["Player", "RandomPlayer", "make_player"]
