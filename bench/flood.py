"""Issue 30 findings 4, 5, 6: the table server tried as an attacker would, on loopback.

    python bench/flood.py list    [--seconds 10] [--flooders 5] [--frames watch|taken]
    python bench/flood.py cards   [--conns 60] [--requests 480]
    python bench/flood.py guess   [--conns 5] [--seconds 10]
    python bench/flood.py creates [--conns 10] [--each 10] [--peer remote|local]
    python bench/flood.py ai      [--tables 20] [--seconds 20]

`--host-args '--rate 1000'` gives `tactical host` more options (list, cards).
`--src DIR` runs another source tree's server (a `git archive` of an older commit, to
compare before and after); by default this one's.

- list: a finished table of 337 actions (its whole log goes out on every `watch`);
  `--flooders` connections send `watch`/`leave` as fast as the host reads them, while
  another client times a `list` round trip every 150 ms (within its own
  connection's rate). Prints the list's p50 / p99 /
  max and the flooders' answers a second. `--frames taken`: the flood is `join`s of a
  seat another player holds (refused `seat_taken`, a refusal not counted as bad input).
- cards: `--conns` connections that never read ask for the 64 KB card data `--requests`
  times each (all written at once). Prints the host's resident set before, its peak
  (VmHWM) and at the end, and how many of the connections the host closed.
- guess: `--conns` connections try random join codes of a private table (connecting
  again when the host closes them). Prints the codes checked a second.
- creates: `--conns` connections each ask for `--each` tables, from one peer — a remote
  address (the server runs in this process, its peer_key made to see 198.51.100.7:
  one machine on loopback cannot be another address) or this machine. Prints the
  tables created.
- ai: `--tables` tables of three hard AIs, and one table where a random player sits
  with two normal AIs; one AI worker. Prints how long each of the played table's AI
  decisions took (waiting for the pool included), p50 / p99 / max.

Each of list, cards and guess prints the size of the host's log after the run. Their
host is `tactical host` in a child process (--workers 1,
--ai-delay 0); creates and ai run the Server in this process. The machine is shared:
keep the runs short.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _frame(obj: dict) -> bytes:
    import json
    body = json.dumps(obj, separators=(",", ":")).encode()
    return struct.pack(">I", len(body)) + body


async def _read(r: asyncio.StreamReader) -> dict:
    import json
    header = await r.readexactly(4)
    return json.loads(await r.readexactly(struct.unpack(">I", header)[0]))


class Client:
    def __init__(self, r, w) -> None:
        self.r, self.w, self.rid = r, w, 0

    @classmethod
    async def open(cls, port: int, name: str, rcvbuf: int = 0) -> "Client":
        if rcvbuf:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            r, w = await asyncio.open_connection(sock=sock)
        else:
            r, w = await asyncio.open_connection("127.0.0.1", port)
        c = cls(r, w)
        await c.ask("hello", v=1, name=name, lang="en")
        return c

    def frame(self, t: str, **fields) -> bytes:
        self.rid += 1
        return _frame({"t": t, "id": self.rid, **fields})

    async def ask(self, t: str, **fields) -> dict:
        self.w.write(self.frame(t, **fields))
        rid = self.rid
        while True:
            msg = await _read(self.r)
            if msg.get("id") == rid:
                return msg


def _host(src: Path, folder: Path, extra: tuple = ()) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, PYTHONPATH=str(src), TACTICAL_HOST_DIR=str(folder.parent),
               TACTICAL_SAVE_DIR=str(folder.parent / "saves"))
    with open(folder.parent / "host.log", "wb") as logfile:      # its log: measured
        proc = subprocess.Popen([sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host",
                                 "--port", "0", "--dir", str(folder), "--workers", "1",
                                 "--ai-delay", "0", *extra], cwd=src, env=env,
                                stdout=subprocess.PIPE, stderr=logfile, text=True,
                                start_new_session=True)
    line = proc.stdout.readline()
    found = re.search(r"127\.0\.0\.1:(\d+)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"the host did not start: {line!r}")
    return proc, int(found.group(1))


def _stop(proc: subprocess.Popen) -> None:
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(30)


def _mem(pid: int) -> dict:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) * 1024
    return out


def _ms(xs: list) -> str:
    xs = sorted(xs)
    p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))] * 1000
    return f"p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {xs[-1] * 1000:.1f} ms ({len(xs)} lists)"


# ------------------------------------------------------------------ list under a watch/leave flood

EVERY = 0.15      # seconds between two timed lists: 13 a second, within one connection's rate

async def _list_flood(port: int, seconds: float, flooders: int, frames: str = "watch") -> None:
    owner = await Client.open(port, "owner")
    tid = (await owner.ask("create", seats=[{"kind": "ai", "level": "random"}] * 3))["table"]
    while True:                                   # its game played to the end: a long log
        tables = (await owner.ask("list"))["tables"]
        if any(t["table"] == tid and t["over"] for t in tables):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(2.0)                 # (its requests so far: the rate's tokens back)
    quiet = []
    for _ in range(20):
        t0 = time.monotonic()
        await owner.ask("list")
        quiet.append(time.monotonic() - t0)
        await asyncio.sleep(EVERY)
    print("list, nobody flooding:", _ms(quiet))
    if frames == "taken":                     # a table whose seat 0 is the owner's
        tid = (await owner.ask("create", seats=[{"kind": "open"}] * 3))["table"]
        await owner.ask("join", table=tid, seat=0)
    # the flooders in a child process: their reading is not the timer's (nor the host's)
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "_flooders", "--port", str(port), "--table", tid,
        "--seconds", str(seconds + 1), "--flooders", str(flooders), "--frames", frames,
        stdout=asyncio.subprocess.PIPE)
    await asyncio.sleep(1.0)
    times = []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        await owner.ask("list")
        times.append(time.monotonic() - t0)
        await asyncio.sleep(EVERY)
    said = (await child.communicate())[0].decode().strip()
    what = "watch/leave" if frames == "watch" else "joins of a taken seat"
    print(f"list, {flooders} connections flooding {what}:", _ms(times))
    print(said)


async def _flooders(port: int, tid: str, seconds: float, flooders: int, frames: str) -> None:
    answered = [0] * flooders
    closed = [0]
    stop = asyncio.Event()

    async def flood(i: int) -> None:
        while not stop.is_set():              # closed by the host: connect again
            try:
                c = await Client.open(port, f"f{i}")
            except (ConnectionError, asyncio.IncompleteReadError):
                await asyncio.sleep(0.01)
                continue

            async def drain() -> None:
                try:
                    while True:               # counted, not decoded
                        header = await c.r.readexactly(4)
                        body = await c.r.readexactly(struct.unpack(">I", header)[0])
                        if body.startswith((b'{"t":"ok"', b'{"t":"refused"')):
                            answered[i] += 1
                except (asyncio.IncompleteReadError, ConnectionError):
                    pass
            reader = asyncio.create_task(drain())
            try:
                while not stop.is_set() and not reader.done():
                    if frames == "watch":
                        c.w.write(c.frame("watch", table=tid) + c.frame("leave", table=tid))
                    else:                     # refused seat_taken: not counted as bad input
                        c.w.write(c.frame("join", table=tid, seat=0))
                    await c.w.drain()
            except ConnectionError:
                pass
            if not stop.is_set():
                closed[0] += 1
            reader.cancel()
            c.w.close()
    tasks = [asyncio.create_task(flood(i)) for i in range(flooders)]
    await asyncio.sleep(seconds)
    stop.set()
    for task in tasks:                  # (one may wait for ever to write: the host reads
        task.cancel()                   # no faster than its rate)
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"flooders' answers: {sum(answered) / seconds:.0f} a second in all; "
          f"closed by the host {closed[0]} times (each time connected again)")


# ------------------------------------------------------------------ cards, never read

async def _cards(port: int, pid: int, conns: int, requests: int) -> None:
    before = _mem(pid)
    clients = []
    for i in range(conns):
        c = await Client.open(port, f"c{i}", rcvbuf=4096)
        clients.append(c)
    for c in clients:
        c.w.write(b"".join(c.frame("cards") for _ in range(requests)))
    peak = 0
    for _ in range(60):                     # 15 s at most, or until the host is quiet
        await asyncio.sleep(0.25)
        m = _mem(pid)
        grew = m["VmRSS"] > peak
        peak = max(peak, m["VmRSS"])
        if not grew and _ > 20:
            break
    end = _mem(pid)
    closed = 0
    for c in clients:                         # read what waits; EOF: the host closed it
        try:
            while True:
                data = await asyncio.wait_for(c.r.read(1 << 20), 2.0)
                if not data:
                    closed += 1
                    break
        except (asyncio.TimeoutError, ConnectionError):
            pass
        c.w.close()
    mib = lambda b: f"{b / 2**20:.0f} MiB"
    print(f"{conns} connections x {requests} cards, never read: host RSS {mib(before['VmRSS'])} "
          f"before, peak {mib(max(end['VmHWM'], peak))}, {mib(end['VmRSS'])} at the end; "
          f"{closed} of {conns} closed by the host")


# ------------------------------------------------------------------ join codes guessed

async def _guess(port: int, seconds: float, conns: int) -> None:
    owner = await Client.open(port, "owner")
    tid = (await owner.ask("create", seats=[{"kind": "open"}] * 3, private=True))["table"]
    counts: dict = {}
    reconnects = [0]
    stop = asyncio.Event()

    async def guesser(i: int) -> None:
        rnd = random.Random(i)
        while not stop.is_set():
            try:
                c = await Client.open(port, f"g{i}")
                while not stop.is_set():
                    a = await c.ask("watch", table=tid, code="".join(rnd.choice("ABCDEFGH") for _ in range(6)))
                    key = a.get("code", "ok")
                    counts[key] = counts.get(key, 0) + 1
                    if key in ("rate_limited", "too_many_guesses"):
                        await asyncio.sleep(0.05)
            except (ConnectionError, asyncio.IncompleteReadError):
                reconnects[0] += 1
    tasks = [asyncio.create_task(guesser(i)) for i in range(conns)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"{conns} connections guessing a join code for {seconds:g} s: "
          f"{counts.get('bad_code', 0) / seconds:.1f} codes checked a second; answers {counts}; "
          f"closed by the host {reconnects[0]} times")


# ------------------------------------------------------------------ creates from one peer

async def _creates(src: Path, conns: int, each: int, peer: str) -> None:
    sys.path.insert(0, str(src))
    from tactical_tui.net import server as S
    if peer == "remote":
        S.peer_key = lambda peer, local=None: "198.51.100.7"
    folder = Path(tempfile.mkdtemp(prefix="flood-creates-"))
    server = S.Server(folder, ai_delay=0)
    _, port = await server.start("127.0.0.1", 0)
    try:
        clients = [await Client.open(port, f"c{i}") for i in range(conns)]
        made, refused = 0, {}
        for c in clients:
            for _ in range(each):
                a = await c.ask("create", seats=[{"kind": "open"}] * 3)
                if a["t"] == "ok":
                    made += 1
                else:
                    refused[a["code"]] = refused.get(a["code"], 0) + 1
        print(f"{conns} connections x {each} creates from a {peer} peer: {made} tables made, "
              f"refused {refused}; the host has {len(server.tables)} tables")
        for c in clients:
            c.w.close()
    finally:
        await server.stop()
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------ the AI pool, shared

async def _ai(src: Path, tables: int, seconds: float) -> None:
    sys.path.insert(0, str(src))
    from tactical_tui.net import server as S
    from tactical_tui.net.aipool import make_executor
    from tactical_tui.net.tables import NetLive
    folder = Path(tempfile.mkdtemp(prefix="flood-ai-"))
    # (this tree's limits on creating tables are lifted here: the tables are the load)
    kw = dict(tables_per_local=1000, rate=0, local_rate=0) if hasattr(S, "TABLES_PER_LOCAL") else {}
    server = S.Server(folder, ai_delay=0, max_tables=tables + 10, **kw)
    server.executor = make_executor(1, None)
    waits: list = []
    played: list = []
    think = NetLive._think

    async def timed(self, seat, obs):
        t0 = time.monotonic()
        out = await think(self, seat, obs)
        if self.hosted.id in played:
            waits.append(time.monotonic() - t0)
        return out
    NetLive._think = timed
    _, port = await server.start("127.0.0.1", 0)
    try:
        hard = [{"kind": "ai", "level": "hard"}] * 3
        makers = [await Client.open(port, f"m{i}") for i in range(tables // 10 + 1)]
        for i in range(tables):
            await makers[i // 10].ask("create", seats=hard)
        player = await Client.open(port, "player")
        tid = (await player.ask("create", seats=[{"kind": "open"}, {"kind": "ai", "level": "normal"},
                                                  {"kind": "ai", "level": "normal"}]))["table"]
        played.append(tid)
        await player.ask("join", table=tid, seat=0)
        rnd = random.Random(1)
        t_end = time.monotonic() + seconds
        latest = None
        while time.monotonic() < t_end:
            try:
                msg = await asyncio.wait_for(_read(player.r), 1.0)
            except asyncio.TimeoutError:
                continue
            if msg.get("t") == "update" and msg["table"] == tid:
                latest = msg["update"]
                if latest["over"]:
                    break
                if 0 in latest["turn"]["seats"] and latest["observation"]["legal"]:
                    action = rnd.choice(latest["observation"]["legal"])
                    player.w.write(player.frame("submit", table=tid, action=action))
        if waits:
            print(f"{tables} all-hard-AI tables, one worker: the played table's AI decisions "
                  f"{_ms(waits).replace('lists', 'decisions')}")
        else:
            print("no AI decision of the played table in time")
    finally:
        await server.stop()
        if server.executor is not None:
            server.executor.shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("list", "cards", "guess", "creates", "ai", "_flooders"))
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--table", default="")
    p.add_argument("--src", default=str(ROOT), help="the source tree whose server runs")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--flooders", type=int, default=5)
    p.add_argument("--frames", choices=("watch", "taken"), default="watch",
                   help="list: the flood is watch/leave, or joins of a taken seat")
    p.add_argument("--conns", type=int, default=None)
    p.add_argument("--requests", type=int, default=480)
    p.add_argument("--each", type=int, default=10)
    p.add_argument("--peer", choices=("remote", "local"), default="remote")
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--host-args", default="", metavar="'--rate 1000 ...'",
                   help="more options of tactical host (list, cards)")
    args = p.parse_args()
    src = Path(args.src).resolve()
    if args.what == "_flooders":
        asyncio.run(_flooders(args.port, args.table, args.seconds, args.flooders, args.frames))
        return 0
    if args.what in ("list", "cards", "guess"):
        folder = Path(tempfile.mkdtemp(prefix="flood-")) / "tables"
        proc, port = _host(src, folder, tuple(args.host_args.split()))
        try:
            if args.what == "list":
                asyncio.run(_list_flood(port, args.seconds, args.flooders, args.frames))
            elif args.what == "guess":
                asyncio.run(_guess(port, args.seconds, args.conns or 5))
            else:
                asyncio.run(_cards(port, proc.pid, args.conns or 60, args.requests))
        finally:
            _stop(proc)
            log = (folder.parent / "host.log").stat().st_size
            print(f"the host's log: {log:,} bytes")
            shutil.rmtree(folder.parent, ignore_errors=True)
    elif args.what == "creates":
        asyncio.run(_creates(src, args.conns or 10, args.each, args.peer))
    else:
        asyncio.run(_ai(src, args.tables, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
