"""What a seat's view has received from the table (tactical_tui.table.live.LiveTable): the
latest update, the log as that seat may see it, and what happened to the seat since its
last decision (the recap shown when its next decision comes)."""

from __future__ import annotations

from typing import Optional

from tactical_tui.text.i18n import t


class SeatFeed:
    """One subscribed seat's updates, kept by the app for that seat's view."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.latest = None                  # table.Update
        self.log: list = []                 # table.LogEntry, as this seat may see them
        self.epoch = 0                      # +1 whenever the log was rewritten (undo)
        self.since: list = []               # events since the last recap
        self.recapped: Optional[int] = None  # asked_at of the question last recapped
        self.book = None                    # logview.LogBook: the log screen's lines (the app's)
        self.reveal: Optional[list] = None  # a bid or build reveal being collected …
        self.results: list[list] = []       # … and those collected, not yet shown

    def take(self, update) -> None:
        self.latest = update
        if update.reset:
            self.log = list(update.entries)
            self.epoch += 1
            self.since = []
        else:
            self.log.extend(update.entries)
            self.since.extend(e.event for e in update.entries if e.event is not None)

    def collect(self, update, kinds: tuple, watch: bool = True) -> None:
        """A reveal (an event of `kinds`) and its resolution, as this seat received it,
        up to the next bid or out of the bidding and reveal phases; then it waits in
        `results` for the seat's view. An undo (`reset`) drops one being collected."""
        if update.reset:
            self.reveal = None
            return
        if self.reveal is None and watch and any(isinstance(e.event, kinds) for e in update.entries):
            self.reveal = []
        if self.reveal is not None:
            self.reveal.extend(update.entries)
            obs = update.observation
            if obs.phase not in ("bidding", "reveal") or \
                    (obs.phase == "bidding" and update.turn.kind == "bid"):
                self.results.append(self.reveal)
                self.reveal = None

    def asked(self) -> bool:
        """This seat (a human) must decide now."""
        u = self.latest
        return u is not None and self.seat in u.turn.seats and u.seats[self.seat] == "human"

    def take_recap(self, lang: str, names: Optional[dict] = None) -> Optional[str]:
        """The recap for the seat's new decision (once per decision), or None; `names`:
        the players' names (shared_names)."""
        u = self.latest
        if not self.asked() or u.asked_at == self.recapped:
            return None
        self.recapped = u.asked_at
        events, self.since = self.since, []
        return recap_text(events, self.seat, lang, names)


def shared_names(live) -> dict[int, str]:
    """seat -> its player's name as every view of the seat shows it — the phase screens'
    seats ("Seat 3 carol"), the log lines, the recaps: the names the table shares with
    every seat (a server's table: its SeatInfo, net.remote.RemoteTable.player_names; a
    local game has none), each plain text clipped to 8 cells."""
    from tactical_tui.text.i18n import clip
    from tactical_tui.text.safe import plain
    names = getattr(live, "player_names", None) or {}
    return {i: clip(plain(who), 8) for i, who in names.items() if isinstance(i, int) and who}


def seat_named(i: int, lang: str, names: Optional[dict] = None) -> str:
    """"Seat 3", or "Seat 3 carol" when `names` (shared_names) has seat 3's name."""
    who = (names or {}).get(i)
    return t("seat", lang, n=i + 1) + (" " + who if who else "")


def recap_text(events, seat: int, lang: str, names: Optional[dict] = None) -> Optional[str]:
    """What happened to `seat` in `events`: damage taken and from whom, knocked out,
    re-entered at area n, VP gained by others — one line, or None if nothing did."""
    from rules import events as E
    parts = []
    name = lambda s: seat_named(s, lang, names)
    for e in events:
        if isinstance(e, E.DamageDealt) and e.target == seat and e.amount:
            parts.append(t("recap.damage", lang, seat=name(e.seat), n=e.amount, hp=e.hp))
        elif isinstance(e, E.KnockedOut) and e.seat == seat:
            parts.append(t("recap.knocked_out", lang, seat=name(e.by)))
        elif isinstance(e, E.Entered) and e.seat == seat and e.reenter:
            parts.append(t("recap.reentered", lang, area=e.area))
        elif isinstance(e, E.VictoryPointsGained) and e.seat != seat:
            parts.append(t("recap.vp", lang, seat=name(e.seat), n=e.amount, vp=e.vp))
    if not parts:
        return None
    return t("recap", lang, what=("、" if lang == "ja" else "; ").join(parts))
