"""TACTICAL's rules: pure functions on immutable state. No Textual, no rich, no I/O except
reading card data. See `engine` for the API:

    new_game(config, cards, seed) -> (state, events)
    pending(state) -> Decision
    legal_actions(state[, seat]) -> [Action]
    apply(state, action) -> (state, events)     # IllegalAction for anything else
    observe(state, seat) -> Observation
"""

from .actions import *  # noqa: F401,F403
from .actions import ACTION_TYPES, Action, IllegalAction
from .cards import CardDataError, CardSet, default_cards, load_cards, parse_cards
from .engine import Decision, apply, explain_illegal, legal_actions, new_game, pending
from .observe import Observation, observe
from .state import Config, GameState, Phase

__all__ = [
    "ACTION_TYPES", "Action", "IllegalAction", "CardDataError", "CardSet", "default_cards",
    "load_cards", "parse_cards", "Decision", "apply", "explain_illegal", "legal_actions",
    "new_game", "pending", "Observation", "observe", "Config", "GameState", "Phase",
]
