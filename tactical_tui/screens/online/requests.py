"""`tactical join`: the lobby's requests to the server — sit at a table, watch it,
create one.

`request` sends one at a time (the lobby's menus take no key meanwhile); `join_table`,
`watch_table`, `create_table` put the seat's view on screen once the server answers —
or the waiting room (online/waiting.py) while the table waits for its players. A
refusal is said (`words.refused`); a refused join code is asked again."""

from __future__ import annotations

from typing import Optional

from tactical_tui.screens.online.words import refused, words
from tactical_tui.screens.online.remote import paused_already
from tactical_tui.screens.online.waiting import game_begins, wait_at
from tactical_tui.text.i18n import t
from tactical_tui.text.safe import plain


def request(app, coro) -> None:
    """Send a join, watch or create request (`coro`), one at a time: while it is on its
    way the lobby's menus take no key or choice (`MenuScreen.leaving`) — `Enter Enter`
    on Create made two tables and sat the player at both in turn, leaving a seat of the
    first one empty. A refusal leaves the menu as it was, taking keys again."""
    if app.requesting:
        coro.close()
        return
    app.requesting = True

    async def run() -> None:
        try:
            await coro
        finally:
            app.requesting = False
    app.run_worker(run(), group="join-request")


CODE_REFUSALS = ("bad_code", "too_many_guesses")


def _code_refused(app, table, exc, code, again) -> bool:
    """A join or watch refused for its join code (wrong, or too many wrong ones): the
    code is not kept as the table's, and `again(why)` asks for it anew (True), saying
    why (issue 31 point 2)."""
    from tactical_tui.net.client import Refusal
    if not (code and again is not None and isinstance(exc, Refusal) and exc.code in CODE_REFUSALS):
        return False
    app.session.codes.pop(table, None)
    again(words(exc.code, exc.params, app.lang))
    return True


async def join_table(app, table, seat: Optional[int], code: Optional[str] = None,
                     token: Optional[str] = None, again=None) -> bool:
    """Sit at `seat` of `table` (None: the first open one; with `token`: take our seat
    back): the seat's view comes up with its first update — or, the table waiting for
    its players, the waiting room (`WaitingScreen`) until it starts. The token is kept
    (net.remote.SeatTokens) for a later session. A refused join code is asked again
    (`again(why)`)."""
    from tactical_tui.net.client import ConnectionLost, Refusal
    fields = {"table": table, "seat": seat}
    if code:
        fields["code"] = code
    if token:
        fields["token"] = token
    try:
        answer = await app.session.client.request("join", **fields)
    except (Refusal, ConnectionLost) as exc:
        if token and isinstance(exc, Refusal):
            app.session.unseated(table)
        if not _code_refused(app, table, exc, code, again):
            refused(app, exc)
        return False
    seat = answer.get("seat")
    table = answer.get("table", table)
    if code and table not in app.session.codes:
        app.session.codes[table] = code          # (it was right)
    if isinstance(seat, int) and isinstance(answer.get("token"), str):
        app.session.seated(table, seat, answer["token"])
    remote = app.session.remote(table, seat)
    if answer.get("waiting") is True and not app.session.held.get(table):
        wait_at(app, table, seat)
        return True
    app.seat_views(remote, (seat,))
    if answer.get("waiting") is True:    # it started as we sat down (every seat taken)
        game_begins(app, remote)
    paused_already(app, remote)
    return True


async def watch_table(app, table, code: Optional[str] = None, again=None) -> bool:
    from tactical_tui.net.client import ConnectionLost, Refusal
    fields = {"table": table}
    if code:
        fields["code"] = code
    try:
        answer = await app.session.client.request("watch", **fields)
    except (Refusal, ConnectionLost) as exc:
        if not _code_refused(app, table, exc, code, again):
            refused(app, exc)
        return False
    table = answer.get("table", table)
    if code and table not in app.session.codes:
        app.session.codes[table] = code
    if answer.get("waiting") is True and not app.session.held.get(table):
        app.session.remote(table, None)
        wait_at(app, table, None)
        return True
    remote = app.session.remote(table, None)
    app.seat_views(remote, (None,))
    paused_already(app, remote)
    return True


async def create_table(app, seats: list, first_game: bool, private: bool,
                       clock: Optional[int], grace: float = 60, takeover: str = "normal") -> bool:
    """Create a table and sit at its first open seat (or watch it: no open seat)."""
    from tactical_tui.net.client import ConnectionLost, Refusal
    try:
        answer = await app.session.client.request(
            "create", seats=seats, first_game=first_game, private=private, clock=clock,
            grace=grace, takeover=takeover)
    except (Refusal, ConnectionLost) as exc:
        refused(app, exc)
        return False
    table, code = answer.get("table"), answer.get("code")
    if code:
        app.session.codes[table] = code      # (shown in the waiting room and the lobby row too)
        app.notify(t("join.created", app.lang, table=plain(table), code=plain(code)), timeout=10)
    if any(s.get("kind") == "open" for s in seats):
        return await join_table(app, table, None, code)
    return await watch_table(app, table, code)
