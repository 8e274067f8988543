"""`tactical join`: what the client says about a server's tables, in words.

The lobby's figures (name width, AI levels, turn clocks, graces, the list's refresh);
a refusal code in the player's language (`words`, `refused`); a seat, a table's rules of
play, a phase, a seat's change of status (`seat_words`, `rules_words`, `phase_words`,
`seat_note`); why the server ended the connection (`bye_words`); why a chat line cannot
be sent (`chat_problem`). No screen here: the lobby's screens (screens/online/lobby.py,
create.py, waiting.py, remote.py) and the banner (screens/online/status.py) use these.

Everything from the server that is shown — player names, table ids, codes, refusal
parameters — is data: it goes through `safe.plain`, never through markup."""

from __future__ import annotations

from typing import Optional

from tactical_tui.net.protocol import CHAT_MAX as CHAT_CELLS   # a chat line: at most 200 cells
from tactical_tui.text.i18n import TUI, clip, t
from tactical_tui.text.safe import plain

NAME_CELLS = 12                  # a player's name in a lobby row
LEVELS = ("random", "easy", "normal", "hard")   # by strength, as in New game (issue 32 point 13)
CLOCKS = (None, 30, 60, 120, 300)
GRACES = (60, 120, 300, 15, 30)  # seconds before the takeover AI plays a dropped seat
REFRESH = 5.0                    # seconds between two table lists while the lobby is up


class _Gaps(dict):
    def __missing__(self, key: str) -> str:
        return "?"                   # a parameter the server did not send


def words(code: str, params: Optional[dict], lang: str) -> str:
    """A server's or the connection's refusal code in `lang` (i18n net.refused.<code>,
    join.refused.<code>; its parameters as data, a missing one as "?"), else the code
    itself (as data)."""
    for key in ("net.refused." + code, "join.refused." + code):
        if key in TUI:
            text = TUI[key].get(lang, TUI[key]["en"])
            return text.format_map(_Gaps({k: plain(v) for k, v in (params or {}).items()}))
    return plain(code)


def refused(app, exc) -> None:
    """A request the server refused (or the connection lost on its way): said."""
    from tactical_tui.net.client import Refusal
    why = words(exc.code, exc.params, app.lang) if isinstance(exc, Refusal) else \
        words(getattr(exc, "code", "connection_lost"), {}, app.lang)
    app.notify(t("join.refused", app.lang, why=why), severity="error", timeout=8)


def short_name(x: object) -> str:
    """A player's name from the server as data, clipped to NAME_CELLS cells."""
    return clip(plain(x), NAME_CELLS)


def rules_words(facts: dict, lang: str) -> str:
    """A table's rules of play in a line: its turn clock, how long a dropped seat waits
    for its player (the grace), and the level of the AI that plays it then."""
    clock, grace, level = facts.get("clock"), facts.get("grace"), facts.get("takeover")
    secs = lambda v: t("join.create.seconds", lang, n=int(v) if float(v).is_integer() else v)
    return t("join.rules", lang,
             clock=t("join.create.clock_off", lang) if clock is None else secs(clock),
             grace="?" if grace is None else secs(grace),
             takeover=t("level." + level, lang) if "level." + str(level) in TUI else "?")


def seat_note(was: dict, now: dict, lang: str) -> Optional[str]:
    """The log's line for a seat's change of status — sat down, lost the connection,
    played by the takeover AI, back — or None."""
    status, before = now.get("status"), was.get("status")
    if isinstance(now.get("seat"), int) and now.get("kind") == "open" and was.get("kind") == "human":
        return t("net.seat.gave_up", lang, seat=t("seat", lang, n=now["seat"] + 1),
                 who=short_name(was.get("name") or "?"))
    if not isinstance(now.get("seat"), int) or now.get("kind") != "human":
        return None
    kw = {"seat": t("seat", lang, n=now["seat"] + 1), "who": short_name(now.get("name") or "?")}
    if now.get("left") and not was.get("left") and status in ("disconnected", "ai_takeover"):
        # on purpose (or after the game's end): not a lost connection (issue 31 point 3)
        return t("net.seat.left" if status == "ai_takeover" else "net.seat.left_over", lang, **kw)
    if status == "disconnected" and before != "disconnected":
        return t("net.seat.dropped", lang, **kw)
    if status == "ai_takeover" and before != "ai_takeover":
        return t("net.seat.takeover", lang, **kw)
    if status == "connected" and before in ("disconnected", "ai_takeover"):
        return t("net.seat.back", lang, **kw)
    if status == "connected" and before == "open":
        return t("net.seat.sat", lang, **kw)
    return None


def bye_words(code: Optional[str], lang: str) -> str:
    """Why the server ended the connection: its `bye` code in `lang`; a code this
    version does not know is said as a disconnection with the code (as data, clipped);
    no code: the connection just ended."""
    if not code:
        return t("net.bye.none", lang)
    if "net.bye." + code in TUI:
        return t("net.bye." + code, lang)
    return t("net.bye.unknown", lang, code=clip(plain(code), 12))


def chat_problem(text: str, lang: str) -> Optional[str]:
    """Why a chat line cannot be sent (control characters, too wide, too many characters
    or combining marks in a row: the server's own check, protocol.chat_problem), or None.
    An empty line is no problem: it is not sent."""
    from tactical_tui.net.protocol import MARKS_MAX
    from tactical_tui.net.protocol import chat_problem as why
    problem = why(text) if text.strip() else None
    if problem == "control":
        return t("join.chat_bad", lang)
    if problem == "marks":
        return t("join.chat_marks", lang, n=MARKS_MAX)
    if problem == "clusters":
        return t("join.chat_clusters", lang, n=CHAT_CELLS)
    if problem == "cells":
        return t("join.chat_long", lang, n=CHAT_CELLS)
    return None


def seat_words(info: dict, lang: str, me: bool = False, number: bool = True) -> str:
    """A seat of the lobby: "2 alice (connected)", "3 AI (normal)", "4 open" (without
    the number: "alice (connected)")."""
    n = info.get("seat", 0) + 1 if isinstance(info.get("seat"), int) else "?"
    if not number:
        return seat_words(info, lang, me)[len(str(n)) + 1:]
    status = str(info.get("status"))
    if status == "disconnected" and info.get("left") is True:
        status = "left"                  # on purpose, or after the game's end: not a drop
    state = t("net.status." + status, lang) if "net.status." + status in TUI else plain(status)
    if info.get("kind") == "ai":
        level = str(info.get("level"))
        lv = t("level." + level, lang) if "level." + level in TUI else plain(level)
        return f"{n} {t('join.ai_level', lang, level=lv)}"
    if info.get("kind") == "open" or status == "open":
        return f"{n} {state}"
    who = short_name(info.get("name") or "?")
    if me:
        who += f"({t('join.you', lang)})"
    return f"{n} {t('join.seat_who', lang, who=who, state=state)}"


def phase_words(info: dict, lang: str) -> str:
    if info.get("over"):
        return t("join.phase_over", lang)
    phase = str(info.get("phase"))
    from tactical_tui.text.catalog import UI
    return UI["phase." + phase].get(lang, UI["phase." + phase]["en"]) if "phase." + phase in UI \
        else plain(phase)
