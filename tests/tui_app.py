"""Builds the app for Pilot and snapshot tests: fixed seed, no AI pause, no cursor blink."""

from __future__ import annotations

from tactical_tui.app import TacticalApp


def make_app(lang: str = "en", seed: int = 7, quick: bool = False) -> TacticalApp:
    app = TacticalApp(lang=lang, ai_delay=0.0, quick=quick, seed=seed)
    return app
