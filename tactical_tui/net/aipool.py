"""The table server's AI off the event loop: the process pool the AI seats and the
takeover AI think in (`make_executor`: one worker per core, AI_NICE nicer than the
host; `init_worker`: a worker's card data and niceness), what crosses to a worker and
back (`pack`: a player pickled with its card data by reference — `register_cards`;
`decide`: the packed player's action, reason and the player after deciding, from its
seat's observation only; `unpack`), `choose` (the same decision in the host's own
thread), and the pool's turns (`AIQueue`: tables with a human seated first).

Any executor with `submit` and the same semantics can take the pool's place (README
"Play together": Ray's or Dask's): Server.think hands it the packed player and the
observation, never the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import io
import itertools
import os
import pickle
from typing import Any, Optional

from rules.cards import CardSet, default_cards, fingerprint, parse_cards

_CARD_SETS: dict[str, CardSet] = {}


def register_cards(cards: CardSet) -> str:
    """Make `cards` known to this process by its fingerprint (pickled players name it)."""
    fp = fingerprint(cards)
    _CARD_SETS.setdefault(fp, cards)
    return fp


def _cards_for(fp: str) -> CardSet:
    got = _CARD_SETS.get(fp)
    if got is None:
        shipped = default_cards()
        if register_cards(shipped) != fp:
            raise RuntimeError(f"no card data {fp[:12]} in this worker: start it with "
                               "init_worker(the card data's TOML text)")
        got = shipped
    return got


def init_worker(cards_toml: Optional[str], nice: int = 0) -> None:
    """A worker process's initializer: the server's card data (None: the shipped one),
    and `nice` added to the worker's niceness (make_executor: AI_NICE). A worker ignores
    SIGINT: Ctrl+C in the host's terminal reaches its whole process group, and the host
    stops its pool itself (each worker printed a KeyboardInterrupt traceback over the
    host's last lines)."""
    import signal
    with contextlib.suppress(ValueError):        # (not the main thread: not a worker)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        os.nice(nice)
    if cards_toml is not None:
        register_cards(parse_cards(cards_toml, "host"))


def _reduce_cards(cards: CardSet) -> tuple:
    return _cards_for, (register_cards(cards),)     # by reference: a worker has its own


def pack(obj: Any) -> bytes:
    """A player pickled for another process, its card data by fingerprint (a few KB;
    the card set is looked up by the pickler's dispatch table, in C, object by object)."""
    import copyreg
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, CardSet: _reduce_cards}
    pickler.dump(obj)
    return out.getvalue()


def unpack(blob: bytes) -> Any:
    return pickle.loads(blob)


def choose(player: Any, obs: Any) -> tuple:
    """The player's (action, reason) for its seat's observation `obs` (reason None for
    a player that does not explain)."""
    if hasattr(player, "choose_explained"):
        return player.choose_explained(obs, obs.legal)
    return player.choose(obs, obs.legal), None


def decide(blob: bytes, obs: Any) -> tuple:
    """In a worker: the packed player's (action, reason, packed player after deciding),
    from its seat's observation only."""
    player = unpack(blob)
    action, reason = choose(player, obs)
    return action, reason, pack(player)


# The AI pool's workers run this much nicer than the host: a worker searches as long as
# it is let, one per core, while the event loop needs a core for a few milliseconds at a
# time to send an update to every screen of a table — given the same priority the loop
# waited behind them (bench/host_load.py: the host's main thread spent twice as long
# runnable-but-waiting as running). Niced, the workers still use every core the host
# leaves idle (a pool of cores - 1 would leave one idle while the host has nothing to do).
AI_NICE = 10


def make_executor(workers: Optional[int], cards_toml: Optional[str]):
    """The AI pool: `workers` processes (None: one per core of this process; 0: no pool,
    the AI thinks in a thread of the host), AI_NICE nicer than the host."""
    if workers == 0:
        return None
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # spawn: a fork of a process with threads (the host's) may deadlock
    return ProcessPoolExecutor(max_workers=max(1, workers or 1),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=init_worker, initargs=(cards_toml, AI_NICE))



class AIQueue:
    """The AI pool's turns: at most `slots` decisions in the executor at once; the others
    wait, those of tables with a human seated (connected) first, then in the order they
    came. 90 all-AI tables made another table's normal AI wait 1.1 s a decision."""

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self.busy = 0
        self.waiting: list = []              # (priority, arrival, future)
        self._arrival = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.busy < self.slots:           # (then nobody waits: release hands turns over)
            self.busy += 1
            return
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (priority, next(self._arrival), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()               # handed a turn it will not use
            raise

    def release(self) -> None:
        while self.waiting:
            _, _, fut = heapq.heappop(self.waiting)
            if not fut.done():
                fut.set_result(None)         # the turn goes to it (busy stays)
                return
        self.busy -= 1
