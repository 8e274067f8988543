"""Load on one table server (issue 17): TABLES tables of 4 AI seats each, WATCHERS
watching connections on loopback, for SECONDS.

The server (tactical_tui.net.server.Server, the AI in its process pool, ai_delay 0) runs
in this process; the watchers run in a child process (their reading and decoding is not
the server's work), each a raw protocol client that says hello and watches one table.
Both stamp time with time.monotonic (one clock for every process on Linux), so the
broadcast latency of an action is: the last watcher's receipt of that version minus the
moment the table applied it (after its autosave, as in play). A watcher stamps a frame
when its last byte is read and decodes it after the run: a hundred clients share one
process here, and one's decoding would delay the others' receipts (each would decode
on its own machine). The latency is also split at the moment the host has handed the
update to the last watcher's socket: the host's part, and the rest (the kernel, and the
watchers' process waiting for a core).

Prints: actions per second (all tables), broadcast latency p50 / p99 / max over the
actions every watcher of the table received, and memory per table (resident set growth
over the tables, just after creating them and at the end).

    python bench/host_load.py [--tables 50] [--watchers 100] [--seconds 20] [--level easy]

Runs as long as --seconds says (plus start-up); the machine it runs on is shared: keep it
short.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ------------------------------------------------------------------ the watchers (child)

async def watchers(port: int, tables: list[str], n: int, seconds: float) -> dict:
    from tactical_tui.net import protocol as P
    frames: list = []              # (watcher, table, receipt, body), decoded after the run

    async def one(i: int) -> None:
        tid = tables[i % len(tables)]
        r, w = await asyncio.open_connection("127.0.0.1", port)
        await P.write_frame(w, {"t": "hello", "id": 1, "v": 1, "name": f"w{i}", "lang": "en"})
        await P.write_frame(w, {"t": "watch", "id": 2, "table": tid})
        try:
            while True:
                header = await r.readexactly(4)
                body = await r.readexactly(struct.unpack(">I", header)[0])
                frames.append((i, tid, time.monotonic(), body))
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            w.close()

    tasks = [asyncio.ensure_future(one(i)) for i in range(n)]
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    got: dict = {}                 # "watcher table version" -> first receipt
    for i, tid, now, body in frames:
        msg = json.loads(body)
        if msg.get("t") == "update" and not msg["update"]["reset"]:
            got.setdefault(f"{i} {tid} {msg['update']['version']}", now)
    return got


# ------------------------------------------------------------------ the server (parent)

async def serve(args) -> None:
    from tactical_tui.net import protocol as P
    from tactical_tui.net.aipool import make_executor
    from tactical_tui.net.server import Server
    folder = Path(tempfile.mkdtemp(prefix="host_load."))
    server = Server(folder, ai_delay=0, executor=make_executor(args.workers, None),
                    max_tables=args.tables,
                    max_per_local=args.watchers + 16)   # the watchers all come from here
    host, port = await server.start("127.0.0.1", 0)
    applied: dict = {}
    written: dict = {}                 # (table, version) -> written to the watchers' sockets
    base = rss()
    tables = []
    for i in range(args.tables):
        table, _ = server.create(P.Create(i, (P.SeatSpec("ai", args.level),) * 4))
        game, tid = table.game, table.id

        def stamp(entries, game=game, tid=tid) -> None:
            applied[(tid, len(game.history))] = time.monotonic()
        game.listeners.append(stamp)

        def to_watchers(update, table=table, send=table._to_watchers) -> None:
            send(update)                 # the frame is handed to every watcher's socket here
            if not update.reset:
                written.setdefault((table.id, update.version), time.monotonic())
        table._to_watchers = to_watchers   # before the first watcher: its feed calls this
        tables.append(table)
    created = rss()
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--child", str(port), str(args.watchers), str(args.seconds),
        *[t.id for t in tables], stdout=subprocess.PIPE, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    start = time.monotonic()
    versions0 = sum(t.live.version for t in tables)
    out, _ = await child.communicate()
    elapsed = time.monotonic() - start
    actions = sum(t.live.version for t in tables) - versions0
    end = rss()
    await server.stop()
    server.executor.shutdown(wait=True, cancel_futures=True) if server.executor else None
    shutil.rmtree(folder, ignore_errors=True)          # the tables' saves

    got = json.loads(out)
    per_table: dict = {}
    for key, t in got.items():
        w, tid, v = key.split()
        per_table.setdefault((tid, int(v)), {})[int(w)] = t
    watching = {}
    for i in range(args.watchers):
        watching.setdefault(tables[i % len(tables)].id, set()).add(i)
    whole = [k for k, recv in per_table.items()
             if k in applied and k in written and set(recv) == watching.get(k[0], set())]
    lat = sorted(max(per_table[k].values()) - applied[k] for k in whole)
    host = sorted(written[k] - applied[k] for k in whole)
    wire = sorted(max(per_table[k].values()) - written[k] for k in whole)
    finished = sum(t.game.over for t in tables)
    print(f"{args.tables} tables of 4 {args.level} AI seats, {args.watchers} watchers, "
          f"{elapsed:.1f} s, AI pool of {args.workers or os.cpu_count()} processes, "
          f"{finished} games over")
    print(f"actions per second: {actions / elapsed:.0f} ({actions} actions)")
    if lat:
        def p(values: list, q: float) -> float:
            return values[min(len(values) - 1, int(q * len(values)))] * 1000
        print(f"broadcast latency (apply -> last watcher's receipt), {len(lat)} actions: "
              f"p50 {p(lat, 0.5):.1f} ms, p99 {p(lat, 0.99):.1f} ms, max {lat[-1] * 1000:.1f} ms, "
              f"mean {statistics.mean(lat) * 1000:.1f} ms")
        print(f"  of which in the host (apply -> written to the last watcher's socket): "
              f"p50 {p(host, 0.5):.1f} ms, p99 {p(host, 0.99):.1f} ms; "
              f"then to the receipt: p50 {p(wire, 0.5):.1f} ms, p99 {p(wire, 0.99):.1f} ms")
    print(f"memory per table: {(created - base) / args.tables / 1024:.0f} KiB when created, "
          f"{(end - base) / args.tables / 1024:.0f} KiB at the end (resident set growth / tables)")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        port, n, seconds, tables = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
        print(json.dumps(asyncio.run(watchers(port, tables, n, seconds))))
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--watchers", type=int, default=100)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--level", default="easy", choices=("random", "easy", "normal", "hard"))
    p.add_argument("--workers", type=int, default=None, help="AI processes (default: the cores)")
    asyncio.run(serve(p.parse_args()))


if __name__ == "__main__":
    main()
