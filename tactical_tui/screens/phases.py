"""Which screen shows each phase of a game (the app's views and a table server's seats
use the same ones): screens.draft, screens.bid, screens.build, screens.battle,
screens.gameover. The phase screens import the rules and the card data: they are
imported when a game needs them, not before the title screen."""

from __future__ import annotations


def phase_screens() -> dict:
    """The screen of each phase."""
    from tactical_tui.screens.battle import BattleScreen
    from tactical_tui.screens.bid import BidScreen
    from tactical_tui.screens.build import BuildScreen
    from tactical_tui.screens.draft import DraftScreen
    from tactical_tui.screens.gameover import GameOverScreen
    return {"draft": DraftScreen, "bidding": BidScreen, "build": BuildScreen,
            "reveal": BuildScreen, "battle": BattleScreen, "over": GameOverScreen}
