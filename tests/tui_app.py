"""Builds the app for Pilot and snapshot tests: fixed seed, no AI pause, no cursor blink."""

from __future__ import annotations

from tactical_tui.app import TacticalApp


def make_app(lang: str = "en", seed: int = 7, quick: bool = False) -> TacticalApp:
    app = TacticalApp(lang=lang, ai_delay=0.0, quick=quick, seed=seed)
    return app


def screen_text(app) -> str:
    """The screen as plain text, one line per terminal row (for snapshots)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips) + "\n"
