"""The SSH front door tried as an attacker would, on loopback (issue 30, findings 1–3):
each attack against a real `tactical host --ssh-port`, with what it cost the host.

* flood: FLOOD silent TCP connections to the SSH port (from one address, then spread over
  ADDRESSES addresses) with the host's open files limited to 1,024 (soft and hard, as
  `ulimit -n 1024`): does a key holder from another address still reach the lobby, what
  does a table client's `list` take meanwhile, how many file descriptors does the host
  hold, how large is its log?
* giant: a pty of 65535×65535 and window changes of 65535×65535 and 10000×10000 to the
  real game: its RSS and its output after SECONDS.
* sessions: one key asks for 70 sessions over one connection, then over 70 connections:
  how many games run, and does another key still play?

    python bench/door_attacks.py [--flood 1100] [--addresses 11] [--seconds 15]

Loopback only; the machine is shared: it runs for a minute or two.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncssh  # noqa: E402
import pyte  # noqa: E402

from door_capacity import answer_times, memory, pct, tree  # noqa: E402

WAIT = 120.0


async def host(folder: Path, keys: Path, *extra: str, nofile: int | None = None):
    env = dict(os.environ, TACTICAL_HOST_DIR=str(folder / "host"), PYTHONPATH=str(ROOT))

    def limit() -> None:
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host", "--port", "0",
        "--workers", "0", "--dir", str(folder / "tables"), "--ssh-port", "0",
        "--authorized-keys", str(keys), *extra, stdout=subprocess.PIPE,
        stderr=open(folder / "host.log", "wb"), env=env, preexec_fn=limit)
    ssh_port = table_port = None
    while ssh_port is None or table_port is None:
        line = (await asyncio.wait_for(proc.stdout.readline(), WAIT)).decode()
        if not line:
            raise RuntimeError((folder / "host.log").read_text())
        if m := re.search(r"ssh -p (\d+) ", line):
            ssh_port = int(m.group(1))
        if m := re.search(r"serving on [^ ]+:(\d+) ", line):
            table_port = int(m.group(1))
    return proc, ssh_port, table_port


async def stop(proc) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        await asyncio.wait_for(proc.wait(), 30)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()


def games(host_pid: int) -> list[int]:
    """The host's game processes: its descendants but the session zygote."""
    from door_capacity import _children
    out = []
    for pid in tree(host_pid)[1:]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                zygote = b"zygote" in f.read()
        except OSError:
            continue
        if not (zygote and pid in _children(host_pid)):   # (its children share its argv)
            out.append(pid)
    return out


def fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


async def lobby(port: int, key, user: str, source: str, size=(80, 24)) -> float:
    """Seconds from connecting to the lobby on the screen (raises if refused)."""
    start = time.perf_counter()
    async with asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None,
                                client_keys=[key], agent_path=None,
                                local_addr=(source, 0)) as conn:
        proc = await conn.create_process(term_type="xterm", term_size=size,
                                         env={"LANG": "en_US.UTF-8"}, encoding=None)
        screen = pyte.Screen(*size)
        stream = pyte.ByteStream(screen)
        while "No tables yet" not in "\n".join(screen.display):
            data = await asyncio.wait_for(proc.stdout.read(65536), WAIT)
            if not data:
                raise RuntimeError("session ended: " + "\n".join(screen.display))
            stream.feed(data)
        took = time.perf_counter() - start
        proc.stdin.write(b"\x03")
        return took


async def flood(args, folder: Path, keys: Path, key, spread: int) -> None:
    proc, ssh_port, table_port = await host(folder, keys, nofile=1024)
    try:
        before_log = (folder / "host.log").stat().st_size
        socks = []
        refused = 0
        t0 = time.perf_counter()
        for i in range(args.flood):
            source = f"127.0.0.{10 + i % spread}"
            s = socket_connect(source, ssh_port)
            if s is None:
                refused += 1
            else:
                socks.append(s)
        opened = time.perf_counter() - t0
        await asyncio.sleep(1.0)
        closed = sum(1 for s in socks if closed_by_peer(s))
        held = fds(proc.pid)
        try:
            took = await lobby(ssh_port, key, "holder", "127.0.0.2")
            holder = f"key holder from 127.0.0.2 in the lobby after {took:.2f} s"
        except Exception as exc:  # noqa: BLE001 - what happened is the result
            holder = f"key holder from 127.0.0.2 NOT in: {type(exc).__name__}: {exc}"
        try:
            await lobby(ssh_port, key, "same", "127.0.0.10")
            same = "a key holder from an attacking address got in"
        except Exception as exc:  # noqa: BLE001
            same = f"a key holder from an attacking address is refused ({type(exc).__name__})"
        times = await answer_times(table_port, 100)
        await asyncio.sleep(max(0.0, args.seconds - (time.perf_counter() - t0)))
        log_bytes = (folder / "host.log").stat().st_size - before_log
        still = sum(1 for s in socks if not closed_by_peer(s))
        for s in socks:
            s.close()
        print(f"flood {args.flood} silent connections from {spread} address(es), host "
              f"NOFILE 1024: opened in {opened:.1f} s ({refused} not even connected); after "
              f"1 s the host had closed {closed}, holds {held} fds; {holder}; {same}; table "
              f"`ping`/`list` p50 {pct(times, .5) * 1000:.2f} ms p99 "
              f"{pct(times, .99) * 1000:.2f} ms max {max(times) * 1000:.2f} ms; after "
              f"{args.seconds:.0f} s {still} still open; host log +{log_bytes} bytes "
              f"({len((folder / 'host.log').read_text().splitlines())} lines in all)")
    finally:
        await stop(proc)
    print("  log:", *[line[:160] for line in (folder / "host.log").read_text().splitlines()
                      if "refused" in line or "accept" in line or "Traceback" in line][:4],
          sep="\n    ")


def socket_connect(source: str, port: int):
    import socket
    s = socket.socket()
    s.setblocking(False)
    try:
        s.bind((source, 0))
        s.connect_ex(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    return s


def closed_by_peer(s) -> bool:
    try:
        data = s.recv(65536, 0)
        if data == b"":
            return True
        return closed_by_peer(s)
    except BlockingIOError:
        return False
    except OSError:
        return True


async def giant(args, folder: Path, keys: Path, key) -> None:
    proc, ssh_port, _ = await host(folder, keys,
                                   *(["--no-ssh-zygote"] if args.no_zygote else []))
    try:
        async with asyncssh.connect("127.0.0.1", ssh_port, username="big", known_hosts=None,
                                    client_keys=[key], agent_path=None) as conn:
            p = await conn.create_process(term_type="xterm",
                                          term_size=(65535, 65535, 65535, 65535),
                                          env={"LANG": "en_US.UTF-8"}, encoding=None)
            out = 0
            t0 = time.perf_counter()
            peak = 0
            changes = [(10000, 10000), (65535, 65535), (80, 24), (65535, 65535)]
            while time.perf_counter() - t0 < args.seconds:
                try:
                    data = await asyncio.wait_for(p.stdout.read(1 << 20), 1.0)
                    out += len(data)
                except asyncio.TimeoutError:
                    pass
                if changes and time.perf_counter() - t0 > 3 * (5 - len(changes)):
                    p.change_terminal_size(*changes.pop(0), 99999, 99999)
                kids = games(proc.pid)
                peak = max(peak, memory(kids)[0])
            kids = games(proc.pid)
            rss = memory(kids)[0]
            size = ""
            for kid in kids:
                try:
                    size = subprocess.run(["stty", "-F", f"/proc/{kid}/fd/0", "size"],
                                          capture_output=True, text=True).stdout.strip()
                except OSError:
                    pass
            print(f"giant ({'--no-ssh-zygote' if args.no_zygote else 'zygote'}): pty 65535x65535 and window changes to 10000x10000 / 65535x65535: "
                  f"the game's pty is {size or '?'} (rows cols); its RSS {rss / 2**20:.0f} MiB "
                  f"(peak {peak / 2**20:.0f} MiB) and {out / 1e6:.1f} MB of output after "
                  f"{args.seconds:.0f} s")
    finally:
        await stop(proc)


async def sessions(args, folder: Path, keys: Path, key, other) -> None:
    proc, ssh_port, _ = await host(folder, keys)
    try:
        async def count(conn, n) -> list:
            async def one():
                try:
                    p = await conn.create_process(term_type="xterm", term_size=(80, 24),
                                                  encoding=None)
                    data = await asyncio.wait_for(p.stdout.read(65536), WAIT)
                    return "refused" if b"already runs" in data else "game"
                except asyncssh.Error as exc:
                    return f"channel refused ({type(exc).__name__})"
            return await asyncio.gather(*(one() for _ in range(n)))
        async with asyncssh.connect("127.0.0.1", ssh_port, username="one", known_hosts=None,
                                    client_keys=[key], agent_path=None) as conn:
            got = await count(conn, 70)
            await asyncio.sleep(2)
            kids = games(proc.pid)
            print(f"sessions: 70 over one connection: {got.count('game')} games, "
                  f"{got.count('refused')} told why, "
                  f"{sum(1 for g in got if g.startswith('channel'))} channels refused; "
                  f"{len(kids)} game processes, {memory(kids)[0] / 2**20:.0f} MiB")
        await asyncio.sleep(2)
        conns = []
        results = []
        for i in range(70):
            try:
                c = await asyncssh.connect("127.0.0.1", ssh_port, username=f"k{i}",
                                           known_hosts=None, client_keys=[key], agent_path=None,
                                           local_addr=(f"127.0.0.{20 + i % 8}", 0))
                conns.append(c)
                results += await count(c, 1)
            except (OSError, asyncssh.Error) as exc:
                results.append(f"connection refused ({type(exc).__name__})")
        await asyncio.sleep(2)
        kids = games(proc.pid)
        try:
            took = await lobby(ssh_port, other, "other", "127.0.0.3")
            other_in = f"another key in the lobby after {took:.2f} s"
        except Exception as exc:  # noqa: BLE001
            other_in = f"another key NOT in: {exc}"
        print(f"sessions: 70 over 70 connections (8 addresses): {results.count('game')} games, "
              f"{results.count('refused')} told why, "
              f"{sum(1 for r in results if 'refused (' in r)} refused outright; "
              f"{len(kids)} game processes, {memory(kids)[0] / 2**20:.0f} MiB; {other_in}")
        for c in conns:
            c.close()
    finally:
        await stop(proc)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flood", type=int, default=1100)
    ap.add_argument("--addresses", type=int, default=11)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--only", choices=("flood", "giant", "sessions"), action="append")
    ap.add_argument("--no-zygote", action="store_true",
                    help="the giant terminal with a new Python for the session")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    key, other = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    only = args.only or ["flood", "giant", "sessions"]
    for what in only:
        folder = Path(tempfile.mkdtemp(prefix="door-attack-"))
        try:
            keys = folder / "authorized_keys"
            keys.write_bytes(key.export_public_key() + other.export_public_key())
            if what == "flood":
                await flood(args, folder, keys, key, 1)
                shutil.rmtree(folder / "tables", ignore_errors=True)
                await flood(args, folder, keys, key, args.addresses)
            elif what == "giant":
                await giant(args, folder, keys, key)
            else:
                await sessions(args, folder, keys, key, other)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
