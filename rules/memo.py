"""A bounded memo that forgets its oldest entries one at a time.

The engine's and the AI's memos used to be plain dicts emptied at once when full. Emptying
20,000 entries frees their whole object graph in one go — about 70 ms here, inside
whatever step filled the memo: a step of the hard player's search, which then overran its
clock (issue 16). `Memo` drops only the oldest entry per insertion beyond its limit, so
that cost is spread over the insertions. Values are pure results of their keys, so what
is forgotten only costs a recomputation, never a different result.
"""

from __future__ import annotations

from collections import OrderedDict


class Memo(OrderedDict):
    """A dict of at most `limit` entries (lookups as a dict's): `put` inserts and, beyond
    the limit, forgets the oldest entry."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a memo holds at least one entry")
        super().__init__()
        self.limit = limit

    def put(self, key, value):
        """Remember `value` for `key` and return it."""
        self[key] = value
        if len(self) > self.limit:
            self.popitem(last=False)
        return value
