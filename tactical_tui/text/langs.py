"""The languages of the interface and the one the locale asks for. A module of its own,
importing nothing: `tactical --help` and the title screen need these and no catalogue
of the event log (text/catalog.py, which imports the rules)."""

from __future__ import annotations

import os

LANGS = ("ja", "en")


def default_lang() -> str:
    """The locale decides: ja* → Japanese, else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"
