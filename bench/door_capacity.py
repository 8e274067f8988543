"""Capacity of the SSH front door (issue 30): N SSH sessions on loopback against a real
`tactical host --ssh-port`, each an asyncssh client with a pty of 80×24 that waits
until the lobby is on its screen (read through pyte, as a terminal would).

For each N it reports, once every session shows the lobby and has settled:

* memory per session: the growth of the host and its children over the host alone —
  RSS (what `ps` shows: shared pages counted in every process) and PSS (shared pages
  split among the processes that share them: what the machine really spends);
* the host's answer time while the sessions are up: p50 / p99 / max of REQUESTS
  `ping` and `list` requests sent one after another on a table-port connection of the
  bench's own;
* the sessions one GB holds: 1 GiB / PSS per session;
* the time from the SSH connection to the lobby on the client's screen (p50 / max).

    python bench/door_capacity.py [--sessions 5 10 20] [--requests 200] [--settle 3]
                                  [--host-arg=--ssh-...]...

The host runs with `--open`, `--workers 0` (no AI processes: only the sessions' cost is
measured) and the door's per-peer limits raised to the largest N (every session comes
from 127.0.0.1). `--host-arg` passes more options to `tactical host` (to compare
designs side by side). The machine it runs on is shared: keep N small.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncssh  # noqa: E402
import pyte  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")
GIB = 1 << 30
WAIT = 120.0


# ------------------------------------------------------------------ memory of a process tree

def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


def memory(pids: list[int]) -> tuple[int, int]:
    """(RSS, PSS) in bytes, summed over `pids` (those gone meanwhile count 0)."""
    rss = pss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            pass
    return rss, pss


# ------------------------------------------------------------------ the host's answer time

async def answer_times(port: int, n: int) -> list[float]:
    """Seconds from sending each of `n` requests (ping and list, in turn) to its answer."""
    from tactical_tui.net import protocol as P
    r, w = await asyncio.open_connection("127.0.0.1", port)
    await P.write_frame(w, {"t": "hello", "id": 1, "v": P.VERSION, "name": "bench", "lang": "en"})
    await asyncio.wait_for(P.read_frame(r, P.MAX_SERVER_FRAME), WAIT)
    times = []
    for i in range(n):
        rid = i + 2
        kind = "ping" if i % 2 == 0 else "list"
        start = time.perf_counter()
        await P.write_frame(w, {"t": kind, "id": rid})
        while True:
            msg = await asyncio.wait_for(P.read_frame(r, P.MAX_SERVER_FRAME), WAIT)
            if msg is None:
                raise RuntimeError("the host closed the bench's connection")
            if msg.get("id") == rid:
                break
        times.append(time.perf_counter() - start)
        await asyncio.sleep(0.02)                    # a client's pace, not a flood
    w.close()
    return times


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


# ------------------------------------------------------------------ the sessions

class Session:
    def __init__(self, conn, proc) -> None:
        self.conn, self.proc = conn, proc
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def until(self, *words: str) -> None:
        async def read() -> None:
            while not all(w in self.text() for w in words):
                data = await self.proc.stdout.read(65536)
                if not data:
                    raise RuntimeError("session ended:\n" + self.text())
                self.stream.feed(data)
        await asyncio.wait_for(read(), WAIT)

    async def drain(self) -> None:
        """Keep reading (a client that stops reading would pause its game)."""
        try:
            while await self.proc.stdout.read(65536):
                pass
        except (asyncssh.Error, OSError):
            pass


async def open_session(port: int, i: int) -> tuple[Session, float]:
    start = time.perf_counter()
    conn = await asyncssh.connect("127.0.0.1", port, username=f"p{i}", known_hosts=None,
                                  client_keys=None, agent_path=None)
    proc = await conn.create_process(term_type="xterm-256color", term_size=(80, 24),
                                     env={"LANG": "en_US.UTF-8"}, encoding=None)
    s = Session(conn, proc)
    await s.until("Lobby", "No tables yet")
    return s, time.perf_counter() - start


async def run_host(args, extra: list[str], folder: Path, most: int):
    env = dict(os.environ, TACTICAL_HOST_DIR=str(folder / "host"), PYTHONPATH=str(ROOT))
    host = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host", "--port", "0",
        "--workers", "0", "--dir", str(folder / "tables"), "--ssh-port", "0", "--open",
        "--ssh-max-sessions", str(most + 4), "--ssh-sessions-per-key", str(most + 4),
        "--ssh-startups-per-peer", str(most + 4), "--ssh-max-startups", str(most + 4),
        *extra, stdout=subprocess.PIPE, stderr=open(folder / "host.log", "wb"), env=env)
    ssh_port = table_port = None
    while ssh_port is None or table_port is None:
        line = (await asyncio.wait_for(host.stdout.readline(), WAIT)).decode()
        if not line:
            raise RuntimeError("the host stopped: " + (folder / "host.log").read_text())
        if m := re.search(r"ssh -p (\d+) ", line):
            ssh_port = int(m.group(1))
        if m := re.search(r"serving on [^ ]+:(\d+) ", line):
            table_port = int(m.group(1))
    return host, ssh_port, table_port


async def measure(args, extra: list[str], label: str) -> list[dict]:
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="door-capacity-"))
    try:
        host, ssh_port, table_port = await run_host(args, extra, folder, max(args.sessions))
        try:
            await asyncio.sleep(args.settle)
            base_pids = tree(host.pid)                    # the host (and its zygote)
            base_rss, base_pss = memory(base_pids)
            base_times = await answer_times(table_port, args.requests)
            rows.append(dict(design=label, n=0, rss=base_rss, pss=base_pss,
                             p50=pct(base_times, .5), p99=pct(base_times, .99),
                             max=max(base_times)))
            for n in args.sessions:
                opened = await asyncio.gather(*(open_session(ssh_port, i) for i in range(n)))
                drains = [asyncio.ensure_future(s.drain()) for s, _ in opened]
                await asyncio.sleep(args.settle)
                pids = tree(host.pid)
                rss, pss = memory(pids)
                times = await answer_times(table_port, args.requests)
                logins = [t for _, t in opened]
                rows.append(dict(design=label, n=n, procs=len(pids) - len(base_pids),
                                 rss=rss, pss=pss,
                                 per_rss=(rss - base_rss) / n, per_pss=(pss - base_pss) / n,
                                 p50=pct(times, .5), p99=pct(times, .99), max=max(times),
                                 login50=statistics.median(logins), login_max=max(logins)))
                for s, _ in opened:
                    s.conn.close()
                for s, _ in opened:
                    await s.conn.wait_closed()
                for d in drains:
                    d.cancel()
                while len(tree(host.pid)) > len(base_pids):   # every session's process gone
                    await asyncio.sleep(0.2)
                await asyncio.sleep(1.0)
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.wait(), WAIT)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def mb(x: float) -> str:
    return f"{x / 2**20:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--host-arg", action="append", default=[],
                    help="another option for tactical host (repeatable)")
    ap.add_argument("--compare", action="append", default=[], metavar="LABEL=ARGS",
                    help="also measure a host run with these space-separated options")
    args = ap.parse_args()
    designs = [("today", args.host_arg)]
    for spec in args.compare:
        label, _, rest = spec.partition("=")
        designs.append((label, args.host_arg + rest.split()))
    rows = []
    for label, extra in designs:
        rows += asyncio.run(measure(args, extra, label))
    print(f"{'design':10} {'N':>3} {'procs':>5} {'RSS MiB':>8} {'PSS MiB':>8} "
          f"{'RSS/sess':>8} {'PSS/sess':>8} {'sess/GiB':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'max ms':>7} {'login p50':>9} {'max s':>6}")
    for r in rows:
        per = r.get("per_pss")
        print(f"{r['design']:10} {r['n']:>3} {r.get('procs', 0):>5} {mb(r['rss']):>8} "
              f"{mb(r['pss']):>8} {mb(r.get('per_rss', 0)):>8} {mb(per or 0):>8} "
              f"{(GIB / per if per else 0):>8.0f} {r['p50'] * 1000:>7.2f} "
              f"{r['p99'] * 1000:>7.2f} {r['max'] * 1000:>7.2f} "
              f"{r.get('login50', 0):>9.2f} {r.get('login_max', 0):>6.2f}")


if __name__ == "__main__":
    main()
