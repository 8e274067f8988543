"""The table server's bounds on what strangers may make it do (docs/PROTOCOL.md "Fair
service", "Bad input"): whom a connection counts against (`peer_key`: an address, an
IPv6 /64, or LOCAL, this machine), token buckets of requests a second (`TokenBucket`,
`bucket`, what a request costs: REQUEST_COST), which refusals a well-behaved client
meets and are not counted against its error budget (FAIR_REFUSALS, `fair`), and a log
that a flood cannot flood: `RateLimited` (one line per interval, with the count),
`PeerLog` (one line per peer per interval, what was held back counted by kind),
`quiet_accept_errors` (accept() out of resources), and `raise_nofile` (the soft limit
of open files raised to the hard one).

(The SSH front door has a `PeerLog` of its own, sshdoor.PeerLog: a count of one
peer's refused connections, not a log of its requests.)
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Optional

log = logging.getLogger("tactical.host")

PEER_LOG_EVERY = 60.0         # seconds between two log lines about one peer's refusals
# What a request costs, by its work for the host: `watch` and `join` encode the whole log
# of the table for the connection, `cards` is the 64 KB card data, `create` deals a game
# and writes two files, `list` is every table's seats. Anything else: 1.
REQUEST_COST = {"watch": 4, "join": 4, "cards": 10, "create": 10, "list": 2,
                "setup": 4, "start": 4}        # (setup may deal anew and write the save)


# Refusals a well-behaved client meets in play (a seat taken a moment before, the AI
# still deciding, the rules' own refusals of an action or an undo: `fair`): answered,
# not counted against the connection. Every other refusal is bad input and counts
# (PROTOCOL.md "Bad input": 20 within a minute end the connection).
FAIR_REFUSALS = frozenset({"ai_playing", "seat_taken", "seat_is_ai", "no_open_seat",
                           "too_many_tables", "already_seated", "no_such_seat", "rate_limited",
                           "chat_busy", "save_failed", "not_started", "started", "not_owner"})


def fair(refusal: dict) -> dict:
    refusal["fair"] = True
    return refusal


# ------------------------------------------------------------------ peers

LOCAL = "this machine"


def peer_key(peer: Any, local: Any = None) -> str:
    """Whom a connection counts against (Server.max_per_peer): its address; an IPv6
    address by its /64 (one machine, or one site, usually holds a whole /64); LOCAL for
    this machine — loopback, or the very address the host listens on (the SSH door's
    children connect to that one when the host is bound to an address of its own)."""
    import ipaddress
    host = peer[0] if isinstance(peer, tuple) and peer else peer
    here = local[0] if isinstance(local, tuple) and local else local
    try:
        ip = ipaddress.ip_address(str(host).split("%")[0])
    except ValueError:
        return str(host)                        # (a Unix socket: one peer)
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or str(host) == str(here):
        return LOCAL
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class RateLimited:
    """Count events; `note()` says how many to log now — the first at once, then at most
    one line per `every` seconds, with the number since the last one (None: not now)."""

    def __init__(self, every: float, clock=time.monotonic) -> None:
        self.every, self.clock = every, clock
        self.count = 0
        self.last: Optional[float] = None

    def note(self) -> Optional[int]:
        now = self.clock()
        self.count += 1
        if self.last is not None and now - self.last < self.every:
            return None
        said, self.count, self.last = self.count, 0, now
        return said


class TokenBucket:
    """`rate` tokens a second, up to `burst`: `take(n)` spends `n` when there are that
    many (True), else nothing (False); `wait(n)` is the seconds until there are. A rate
    of 0 or less: no limit."""

    __slots__ = ("rate", "burst", "tokens", "stamp", "clock")

    def __init__(self, rate: float, burst: float, clock=time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.stamp = clock()

    def _fill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now

    def has(self, n: float = 1.0) -> bool:
        if self.rate <= 0:
            return True
        self._fill()
        return self.tokens >= n

    def take(self, n: float = 1.0) -> bool:
        if not self.has(n):
            return False
        if self.rate > 0:
            self.tokens -= n
        return True

    def wait(self, n: float = 1.0) -> float:
        if self.has(n):
            return 0.0
        return (min(n, self.burst) - self.tokens) / self.rate

    def full(self) -> bool:
        return self.rate <= 0 or (self.has(self.burst))


def bucket(rate: float, clock=time.monotonic, seconds: float = 2.0) -> TokenBucket:
    """A bucket of `rate` a second whose burst is `seconds` of it (and at least the
    dearest request: REQUEST_COST)."""
    return TokenBucket(rate, max(rate * seconds, max(REQUEST_COST.values())), clock)


class PeerLog:
    """Log lines about what one peer does (refusals, wrong join codes, slow readers,
    connections closed): at most one line per `every` seconds per peer — the first at
    once; the ones held back meanwhile are counted, by kind, and said in the peer's next
    line (or when the peer is forgotten). 5 connections' refusals wrote 16 MB in 15 s."""

    KEEP = 4096                   # peers remembered at most

    def __init__(self, every: float = PEER_LOG_EVERY, clock=time.monotonic) -> None:
        self.every, self.clock = every, clock
        self.peers: dict[str, tuple[float, dict]] = {}   # peer -> (last line, held back by kind)

    def say(self, peer: Optional[str], kind: str, level: int, msg: str, *args: Any) -> bool:
        """Log `msg % args` unless `peer` had a line within `every` seconds (then it is
        counted under `kind`). True if it was logged."""
        now = self.clock()
        peer = peer or "?"
        last = self.peers.get(peer)
        if last is not None and now - last[0] < self.every:
            last[1][kind] = last[1].get(kind, 0) + 1
            return False
        held = last[1] if last is not None else {}
        if held:
            msg += " (and since %s's last line: %s)"
            args = (*args, peer, _counts(held))
        log.log(level, msg, *args)
        self.peers.pop(peer, None)
        self.peers[peer] = (now, {})
        if len(self.peers) > self.KEEP:
            self._forget(now)
        return True

    def _forget(self, now: float) -> None:
        for peer, (last, held) in list(self.peers.items()):
            if now - last >= self.every or len(self.peers) > self.KEEP:
                del self.peers[peer]
                if held:
                    log.info("%s: %s", peer, _counts(held))


def _counts(held: dict) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(held.items(), key=lambda kv: -kv[1]))


# ------------------------------------------------------------------ the process's resources

NOFILE_MOST = 1 << 20        # a soft limit of open files above this is not asked for


def raise_nofile() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit (as far as
    NOFILE_MOST), as servers do: the common soft limit of 1,024 was what a flood of
    connections exhausted. Returns (soft before, soft now)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = NOFILE_MOST if hard == resource.RLIM_INFINITY else min(hard, NOFILE_MOST)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the limit of open files from %d to %d: %s", soft, want, exc)
            return soft, soft
        return soft, want
    return soft, soft


ACCEPT_LOG_EVERY = 60.0


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, every: float = ACCEPT_LOG_EVERY) -> None:
    """asyncio logs a traceback for every accept() that fails for want of a resource
    (EMFILE, ENFILE, ENOBUFS, ENOMEM) — up to a hundred each time the socket is ready:
    27 MB of log in 10 s under a flood. Say it in one line instead, at most once per
    `every` seconds, with the count; every other error goes to the handler as before."""
    limiter = RateLimited(every)
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            said = limiter.note()
            if said:
                exc = context.get("exception")
                why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
                log.error("cannot accept connections: %s (%d times since the last line)",
                          why, said)
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)
    loop.set_exception_handler(handler)
