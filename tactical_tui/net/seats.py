"""A hosted table's seats (issue 17; docs/PROTOCOL.md): `Slot` — who holds a seat (open,
a player's, an AI's), its player's name and token hash, its connection and
subscription, whether the takeover AI plays it, whether its player left, the grace
timer — and the secrets that act for a seat, kept hashed (`hash_secret`,
`secret_matches`): a seat's token, a private table's join code (`new_code`).

Joining an open seat gives a token (32 random bytes, URL-safe base64; only its sha256
is kept, on disk too), the only thing that acts for the seat and takes it back after a
reconnect. A private table has a short join code (kept hashed as well). When a seated
connection drops, the seat is `disconnected`; after the table's grace an AI of its
takeover level plays it (`ai_takeover`); the token hands it back at the seat's next
decision (at once when no takeover decision is being computed, else as soon as that
one is made). With a turn clock, a human decision not made in time is made by the
takeover AI, that one decision (open seats included: no table waits for ever on a
clock).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Optional

from attrs import define

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: Optional[str], digest: Optional[str]) -> bool:
    return secret is not None and digest is not None and hmac.compare_digest(hash_secret(secret), digest)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


@define
class Slot:
    """One seat of a hosted table: who holds it and how it is played."""
    kind: str                               # open | human | ai
    level: Optional[str] = None             # an AI seat's level
    name: Optional[str] = None
    token_hash: Optional[str] = None
    conn: Optional["Connection"] = None
    sub: Any = None
    takeover: bool = False                  # the takeover AI plays it now
    left: bool = False                      # its player left on purpose (not a lost connection)
    reclaim: bool = False                   # its holder is back: hand it back after the AI's move
    grace: Any = None                       # the timer that starts the takeover

    @property
    def status(self) -> str:
        if self.kind == "ai":
            return "ai"
        if self.kind == "open":              # anyone may take it, even while the AI plays it
            return "open"
        if self.takeover:
            return "ai_takeover"
        if self.conn is not None:
            return "connected"
        return "open" if self.kind == "open" else "disconnected"
