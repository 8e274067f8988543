"""The SSH front door on the open internet (issue 30, findings 1, 2, 3 and 10): what a
connection can make the host hold is bounded before the login and per peer — connections
without a game yet (in all and per address), the time to log in, games per connection
and per key, the terminal's size — and the door's sessions reach the tables by a path of
their own, which silent local connections cannot fill.

Loopback only, every limit made small. 127.0.0.2 and 127.0.0.3 are other peers (Linux
routes all of 127/8 to lo). Timeouts only bound a failing wait; nothing asserts on time."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import socket
import subprocess
import sys

import asyncssh
import pytest

from tactical_tui.net import sshdoor
from tactical_tui.net.sshdoor import PeerLog, clamp_size, peer_of

from test_net_ssh import (WAIT, Term, child_command, connect, host_dir, client_key,  # noqa: F401
                          pty, quit_child, start, stop, until_empty, with_door)


async def _silent(port: int, source: str = "127.0.0.1"):
    """A TCP connection to the door that never says anything: (reader, writer)."""
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), WAIT)


async def _greeting(reader) -> bytes:
    """What the door says first: its SSH version line, or b"" if it closed at once."""
    try:
        return await asyncio.wait_for(reader.readline(), WAIT)
    except ConnectionResetError:
        return b""


async def _closed(reader, bound: float = WAIT) -> None:
    """Read until the door closes the connection (a bound for a wait that fails)."""
    async def drain() -> None:
        try:
            while await reader.read(65536):
                pass
        except ConnectionResetError:
            pass
    await asyncio.wait_for(drain(), bound)


async def _plays_from(door, key, user: str, source: str) -> None:
    async with connect(door, user, key, local_addr=(source, 0)) as conn:
        term = await pty(conn)
        await term.until(f"ARGS {user} en")
        await quit_child(term)


# ------------------------------------------------------------------ finding 1: before the login

def test_a_peer_has_a_share_of_the_connections_without_a_game_and_others_still_log_in(
        host_dir, client_key, caplog):
    """Two silent connections from 127.0.0.1 are its share: a third from it is closed
    before a byte of SSH (no version line); a key holder from 127.0.0.2 logs in and
    plays. All places taken, a connection from a new peer takes the place of the
    newest of the peer that holds the most (a flood from a few addresses keeps nobody
    out); when every peer holds one, a new one is refused. The refusals are logged once
    (a line a minute per peer), not once each."""
    key, keys = client_key
    caplog.set_level(logging.INFO, logger="tactical.ssh")

    async def body(door) -> None:
        silent = [await _silent(door.port) for _ in range(2)]
        for reader, _ in silent:
            assert (await _greeting(reader)).startswith(b"SSH-2.0-")
        for _ in range(5):
            reader, writer = await _silent(door.port)
            assert await _greeting(reader) == b""          # refused: its share is taken
            writer.close()
        await _plays_from(door, key, "ana", "127.0.0.2")
        third = await _silent(door.port, "127.0.0.3")      # places: 2 of .1, 1 of .3
        assert (await _greeting(third[0])).startswith(b"SSH-2.0-")
        fourth = await _silent(door.port, "127.0.0.4")     # full: .1's newest makes room
        assert (await _greeting(fourth[0])).startswith(b"SSH-2.0-")
        await _closed(silent[1][0])
        assert door.waiting_count() == 3
        fifth = await _silent(door.port, "127.0.0.5")      # full, one each: nobody makes room
        assert await _greeting(fifth[0]) == b""
        assert door.waiting_count() == 3
        for _, writer in (*silent, third, fourth, fifth):
            writer.close()
    with_door(body, keys=keys, max_startups=3, startups_per_peer=2)
    lines = [r.getMessage() for r in caplog.records if "connection refused from 127.0.0.1" in
             r.getMessage()]
    assert len(lines) == 1 and ": 1 since the last such line (per_peer" in lines[0]


def test_a_connection_has_the_login_timeout_to_log_in_and_start_a_game(host_dir, client_key):
    """A silent connection, and one logged in that opens no session, are closed after
    the login timeout (asyncssh's own is a minute); what they held is given back."""
    key, keys = client_key

    async def body(door) -> None:
        reader, writer = await _silent(door.port)
        assert (await _greeting(reader)).startswith(b"SSH-2.0-")
        await _closed(reader, WAIT / 2)
        writer.close()
        conn = await connect(door, "sam", key)            # logged in, no session
        await asyncio.wait_for(conn.wait_closed(), WAIT / 2)
        assert door.waiting_count() == 0 and not door._conns
        async with connect(door, "sam", key) as conn:     # a game in time: it plays on
            term = await pty(conn)
            await term.until("SIZE 80x24")
            await asyncio.sleep(1.0)                       # past the login timeout
            term.proc.stdin.write(b"z")
            await term.until("GOT b'z'")
            await quit_child(term)
    with_door(body, keys=keys, login_timeout=0.5)


def test_refusals_are_logged_once_a_minute_per_peer_with_their_count():
    now = [0.0]
    log = PeerLog(every=60.0, most=2, clock=lambda: now[0])
    assert log.note("1.2.3.4") == 1
    assert [log.note("1.2.3.4") for _ in range(9)] == [None] * 9
    assert log.note("5.6.7.8") == 1                        # another peer: its own line
    assert log.note("9.9.9.9") == 1                        # past `most`: one shared count
    assert log.note("8.8.8.8") is None
    now[0] = 61.0
    assert log.note("1.2.3.4") == 10


def test_peers_are_addresses_and_ipv6_counts_by_its_64():
    assert peer_of("203.0.113.5") == "203.0.113.5"
    assert peer_of("2001:db8:1:2::10") == peer_of("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert peer_of("2001:db8:1:3::10") != peer_of("2001:db8:1:2::10")
    assert peer_of("::ffff:198.51.100.7") == "198.51.100.7"


def test_a_failed_accept_is_one_log_line_a_minute_without_a_traceback(caplog):
    """asyncio's handler logs a traceback for every accept() out of file descriptors
    (up to a hundred a time): the host says it once a minute, with the count."""
    import errno
    from tactical_tui.net.limits import quiet_accept_errors

    async def main() -> None:
        loop = asyncio.get_running_loop()
        quiet_accept_errors(loop)
        exc = OSError(errno.EMFILE, "Too many open files")
        for _ in range(500):
            loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                         "exception": exc})
        loop.call_exception_handler({"message": "something else", "exception": ValueError("x")})
    caplog.set_level(logging.DEBUG)
    asyncio.run(main())
    accept = [r for r in caplog.records if "accept" in r.getMessage()]
    assert len(accept) == 1 and accept[0].exc_info is None
    assert "Too many open files (1 times" in accept[0].getMessage()
    assert any("something else" in r.getMessage() for r in caplog.records)   # still said


def test_the_host_raises_its_open_files_limit_and_logs_no_line_per_connection(tmp_path):
    """`tactical host` started with a soft limit of 256 open files runs with its hard
    limit; 30 TCP connections to its SSH port (20 of them refused, the rest closed by the
    login timeout) leave a few log lines, no traceback and nothing of asyncssh's."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip("the hard limit of open files is 256 or less here")
    want = hard if hard != resource.RLIM_INFINITY else 1 << 20

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    async def main() -> None:
        env = dict(os.environ, TACTICAL_HOST_DIR=str(tmp_path / "host"))
        host = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host", "--port", "0",
            "--workers", "0", "--dir", str(tmp_path / "tables"), "--ssh-port", "0", "--open",
            "--ssh-login-timeout", "1", "--ssh-max-startups", "10",
            "--ssh-startups-per-peer", "10", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=lower, env=env)
        try:
            line = await asyncio.wait_for(host.stdout.readline(), WAIT)
            found = re.search(rb"SSH: ssh -p (\d+) NAME@", line)
            assert found, line
            port = int(found.group(1))
            limits = open(f"/proc/{host.pid}/limits").read()
            (row,) = [r for r in limits.splitlines() if r.startswith("Max open files")]
            assert row.split()[3] == str(min(want, 1 << 20)), row
            conns = [await _silent(port) for _ in range(30)]
            for reader, _ in conns:
                await _closed(reader)
            for _, writer in conns:
                writer.close()
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.wait(), WAIT)
        log = (await host.stderr.read()).decode()
        assert "Traceback" not in log and "asyncssh" not in log, log
        assert len(log.splitlines()) < 10, log
        assert "SSH connection refused from 127.0.0.1: 1 since the last such line" in log
    asyncio.run(main())


# ------------------------------------------------------------------ finding 2: the terminal's size

def test_a_giant_terminal_and_window_changes_are_cut_to_the_maximum(host_dir, client_key):
    """65535×65535 (and its pixels) never reaches TIOCSWINSZ: the child is given the
    door's maximum, at the start and at every window change."""
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "gil", key) as conn:
            proc = await conn.create_process(term_type="xterm",
                                             term_size=(65535, 65535, 65535, 65535),
                                             encoding=None)
            term = Term(proc)

            async def said(size: bytes, times: int) -> None:
                async def read() -> None:
                    while term.raw.count(size) < times:
                        data = await proc.stdout.read(65536)
                        assert data, term.raw
                        term.raw += data
                await asyncio.wait_for(read(), WAIT)
            await said(b"SIZE 120x40", 1)
            proc.change_terminal_size(100, 30)
            await said(b"SIZE 100x30", 1)
            proc.change_terminal_size(10000, 10000, 99999, 99999)
            await said(b"SIZE 120x40", 2)
            proc.change_terminal_size(90, 65535)
            await said(b"SIZE 90x40", 1)
            assert b"65535" not in term.raw and b"10000" not in term.raw
            proc.stdin.write(b"q")
            await asyncio.wait_for(proc.wait(), WAIT)
    with_door(body, keys=keys, max_size=(120, 40))


def test_sizes_are_clamped_and_nonsense_pixels_dropped():
    assert clamp_size(65535, 65535, 65535, 65535) == (500, 200, 0, 0)
    assert clamp_size(100, 30, 900, 600) == (100, 30, 900, 600)
    assert clamp_size(100, 30, 70000, 600) == (100, 30, 0, 0)
    assert clamp_size(501, 30, 900, 600) == (500, 30, 0, 0)   # pixels of another size
    assert clamp_size(0, 0) == (0, 0, 0, 0)                    # unknown stays unknown
    assert clamp_size(-5, 40, most=(80, 24)) == (0, 24, 0, 0)


# ------------------------------------------------------------------ finding 3: games per key

@pytest.mark.parametrize("lang, conn_words, key_words", [
    ("en", "This connection already runs a game", "This key already runs 2 games"),
    ("ja", "この接続ではすでにゲームが動いています", "この鍵ではすでに2つのゲームが動いています"),
])
def test_one_connection_and_one_key_run_a_few_games_and_others_still_play(
        host_dir, client_key, lang, conn_words, key_words):
    """One game per connection, two per key (max_sessions far above): a second session
    on one connection and a third of the key on another are told why (in the player's
    language) and closed with status 1; another key still plays."""
    key, keys = client_key
    other = asyncssh.generate_private_key("ssh-ed25519")
    keys.write_bytes(keys.read_bytes() + other.export_public_key())
    env = {"LANG": "ja_JP.UTF-8"} if lang == "ja" else {}

    async def refused(conn, words: str) -> None:
        term = await pty(conn, env)
        text = (await term.rest()).replace("\n", "")
        assert words in text, text
        assert (await asyncio.wait_for(term.proc.wait(), WAIT)).exit_status == 1

    async def body(door) -> None:
        async with connect(door, "kay", key) as first, connect(door, "kay", key) as second, \
                connect(door, "kay", key) as third:
            a = await pty(first)
            await a.until("SIZE 80x24")
            await refused(first, conn_words)
            b = await pty(second)
            await b.until("SIZE 80x24")
            await refused(third, key_words)
            assert len(door.sessions) == 2
            await _plays_from(door, other, "lou", "127.0.0.1")
            await quit_child(a)
            await quit_child(b)
        await until_empty(door)
    with_door(body, keys=keys, sessions_per_connection=1, sessions_per_key=2, max_sessions=50)


def test_at_an_open_door_one_address_runs_a_few_games(host_dir):
    async def body(door) -> None:
        async with connect(door, "x", None) as one, connect(door, "y", None) as two:
            term = await pty(one)
            await term.until("SIZE 80x24")
            refused = await pty(two)
            assert "Your address already runs a game" in (await refused.rest()).replace("\n", "")
            async with connect(door, "z", None, local_addr=("127.0.0.2", 0)) as elsewhere:
                other = await pty(elsewhere)
                await other.until("ARGS z en")
                await quit_child(other)
            await quit_child(term)
    with_door(body, open_door=True, sessions_per_key=1)


# ------------------------------------------------------------------ finding 10: the door's own path

def test_silent_local_connections_to_the_table_port_do_not_lock_the_doors_players_out(
        host_dir, client_key, tmp_path):
    """The local share of the table port (3 here) filled by silent loopback connections:
    a player who comes in through the door still reaches the lobby — its `tactical join`
    connects through the host's Unix socket (mode 0600, in the host's 0700 folder), which
    counts apart — and the lobby still names the server by its address."""
    import stat
    from tactical_tui.net import server as S
    key, keys = client_key

    async def main() -> None:
        server = S.Server(tmp_path / "tables", ai_delay=0, max_per_local=3)
        _, port = await server.start("127.0.0.1", 0)
        path = await server.listen_door()
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
        door = await start(sshdoor.join_command(port, "127.0.0.1", path), keys)
        silent = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        try:
            async def filled() -> None:
                while server.peers.get(S.LOCAL, 0) < 3:
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(filled(), WAIT)
            async with connect(door, "alice", key) as conn:
                term = await pty(conn, {"LANG": "en_US.UTF-8"})
                await term.until(f"Lobby  alice @ 127.0.0.1:{port}", "No tables yet")
                assert server.peers.get(S.DOOR) == 1 and server.peers[S.LOCAL] == 3
        finally:
            for _, writer in silent:
                writer.close()
            await stop(door)
            await server.stop()
        assert not os.path.exists(path)
    asyncio.run(main())


# ------------------------------------------------------------------ the host's folder and host.lock

def test_the_hosts_folder_is_private_and_host_lock_is_0600(tmp_path, monkeypatch):
    """Made 0700; an older host's 0755 folder and 0644 host.lock made private; a folder
    anyone may write in, or another user's, is refused; a host.lock that is a symbolic
    link is not followed."""
    import stat
    from tactical_tui.net import server as S

    def mode(path) -> int:
        return stat.S_IMODE(os.stat(path).st_mode)

    new = tmp_path / "new" / "tables"
    server = S.Server(new)
    server.lock_folder()
    assert mode(new) == 0o700 and mode(new / "host.lock") == 0o600
    server._lock.close()

    old = tmp_path / "old"
    old.mkdir()
    (old / "host.lock").touch()
    os.chmod(old, 0o755)
    os.chmod(old / "host.lock", 0o644)
    server = S.Server(old)
    server.lock_folder()
    assert mode(old) == 0o700 and mode(old / "host.lock") == 0o600
    server._lock.close()

    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    os.chmod(open_to_all, 0o777)
    with pytest.raises(S.FolderProblem) as err:
        S.Server(open_to_all).lock_folder()
    assert err.value.key == "net.host.folder_open"
    assert not (open_to_all / "host.lock").exists()

    linked = tmp_path / "linked"
    linked.mkdir(mode=0o700)
    (linked / "host.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(S.FolderProblem):
        S.Server(linked).lock_folder()
    assert not (tmp_path / "elsewhere").exists()

    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 1)
    with pytest.raises(S.FolderProblem) as err:
        S.Server(theirs).lock_folder()
    assert err.value.key == "net.host.folder_owner"


@pytest.mark.parametrize("lang, words", [("en", "Anyone may write in"), ("ja", "誰でも書き込めます")])
def test_tactical_host_refuses_a_folder_anyone_may_write_in_and_says_why(tmp_path, lang, words):
    folder = tmp_path / "shared\x1b[31m"
    folder.mkdir()
    os.chmod(folder, 0o777)
    done = subprocess.run([sys.executable, "-m", "tactical_tui.cli", "--lang", lang, "host",
                           "--port", "0", "--workers", "0", "--dir", str(folder)],
                          capture_output=True, text=True, timeout=WAIT,
                          env=dict(os.environ, TACTICAL_HOST_DIR=str(tmp_path / "host")))
    assert done.returncode == 2
    assert words in done.stderr and "chmod 700" in done.stderr
    assert "\x1b" not in done.stderr and "Traceback" not in done.stderr


# ------------------------------------------------------------------ the zygote (capacity)

def test_a_forked_session_plays_like_an_execd_one_and_leaves_nothing_behind(
        host_dir, client_key, tmp_path):
    """With the zygote, a session's `tactical join` is forked from the process that
    imported it (not a new Python): it reaches the lobby in the client's size and
    language, follows a resize, and when the client is killed it is hung up and gone."""
    from tactical_tui.net import server as S
    from tactical_tui.net.zygote import Child
    key, keys = client_key

    async def main() -> None:
        server = S.Server(tmp_path / "tables", ai_delay=0)
        _, port = await server.start("127.0.0.1", 0)
        path = await server.listen_door()
        door = await start(sshdoor.join_command(port, "127.0.0.1", path), keys, zygote=True)
        try:
            assert door.zygote is not None and door.zygote.alive
            conn = await connect(door, "mia", key)
            term = await pty(conn, {"LANG": "ja_JP.UTF-8"})
            await term.until(f"mia @ 127.0.0.1:{port}")
            (session,) = door.sessions
            assert isinstance(session.proc, Child)
            pid = session.proc.pid
            with open(f"/proc/{pid}/stat") as f:             # the zygote's child
                assert int(f.read().rsplit(")", 1)[1].split()[1]) == door.zygote.proc.pid
            term.proc.change_terminal_size(100, 30)
            term.screen.resize(30, 100)
            await term.until("┏" + "━" * 98 + "┓")               # laid out at 100 columns
            conn.abort()
            from test_net_ssh import _gone
            await _gone(pid)
            await until_empty(door)
        finally:
            await stop(door)
            await server.stop()
        assert door.zygote.proc.returncode is not None       # the zygote left with the door
    asyncio.run(main())


# ------------------------------------------------------------------ log lines of refused logins

def test_a_refused_key_offered_again_and_again_is_one_log_line_a_minute(host_dir, tmp_path,
                                                                        caplog):
    """A public key is no secret: anyone may offer an expired one of the file, and a
    broken keys file refuses every login. Each is said once, then once a minute with
    its count, per address (and per key line) — not once a login."""
    from test_net_ssh import _keys_file, _refused
    expired = asyncssh.generate_private_key("ssh-ed25519")
    keys = _keys_file(tmp_path, ('expiry-time="20000101"', expired))
    caplog.set_level(logging.INFO, logger="tactical.ssh")

    async def body(door) -> None:
        for _ in range(6):
            await _refused(door, expired)
        keys.write_text("# all revoked\n")
        for _ in range(6):
            await _refused(door, expired)
    with_door(body, keys=keys)
    said = [r.getMessage() for r in caplog.records]
    assert len([m for m in said if "refused by" in m and "expired at" in m]) == 1
    assert len([m for m in said if "nobody is let in until it is fixed" in m]) == 1
