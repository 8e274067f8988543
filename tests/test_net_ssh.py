"""The SSH front door (issue 17 point 6, tactical_tui/net/sshdoor.py), through a real SSH
client (asyncssh's) on loopback: a key login lands in the game in a pty of 80×24 (the
screen read through pyte), keys reach it, a resize reaches the child, the language comes
from the client's LANG, a session without a pty gets a message and is closed, a wrong key
is refused, ``open_door`` lets a guest in, idle sessions are closed, and no child is left
behind when the client disconnects (cleanly or not).

Most tests run tests/ssh_child.py (it reports its argv, TERM, LANG, size and keys); two run
the game itself. Timeouts only bound a failing wait; nothing asserts on time."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

import asyncssh
import pyte
import pytest

from tactical_tui.screens.howto import ORDER as HOWTO_PAGES
from tactical_tui.net import sshdoor
from tactical_tui.net.sshdoor import DoorError, client_lang, player_name

ROOT = Path(__file__).resolve().parent.parent
CHILD = str(Path(__file__).resolve().parent / "ssh_child.py")
WAIT = 60.0           # a bound for a wait that fails, never a measure


@pytest.fixture
def host_dir(tmp_path, monkeypatch):
    folder = tmp_path / "host"
    monkeypatch.setenv("TACTICAL_HOST_DIR", str(folder))
    monkeypatch.setenv("TACTICAL_SAVE_DIR", str(tmp_path / "save"))
    monkeypatch.setenv("TACTICAL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return folder


@pytest.fixture
def client_key(tmp_path):
    """A client key pair and an authorized_keys file holding its public key."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(key.export_public_key())
    return key, keys


def child_command(*extra: str):
    def command_for(name: str, lang: str) -> list[str]:
        return [sys.executable, CHILD, name, lang, *extra]
    return command_for


def game_command(name: str, lang: str) -> list[str]:
    return [sys.executable, "-m", "tactical_tui.cli", "--lang", lang]


class Term:
    """The client's terminal: a pyte screen fed with what the session sends."""

    def __init__(self, proc, cols: int = 80, rows: int = 24) -> None:
        self.proc = proc
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    async def until(self, *wanted: str, gone: str = "") -> str:
        """Read until every string of `wanted` is on the screen (and `gone` is not)."""
        def done() -> bool:
            text = self.text()
            return all(w in text for w in wanted) and not (gone and gone in text)

        async def read() -> None:
            while not done():
                data = await self.proc.stdout.read(65536)
                if not data:
                    raise AssertionError(f"the session ended; the screen:\n{self.text()}")
                self.raw += data
                self.stream.feed(data)
        try:
            await asyncio.wait_for(read(), WAIT)
        except asyncio.TimeoutError:
            raise AssertionError(f"{wanted} never came; the screen:\n{self.text()}") from None
        return self.text()

    async def rest(self) -> str:
        """Everything until the session's end; the screen then."""
        async def read() -> None:
            while data := await self.proc.stdout.read(65536):
                self.raw += data
                self.stream.feed(data)
        await asyncio.wait_for(read(), WAIT)
        return self.text()


async def _gone(pid: int) -> None:
    """Wait until `pid` no longer exists (reaped, not a zombie)."""
    async def poll() -> None:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            await asyncio.sleep(0.05)
    await asyncio.wait_for(poll(), WAIT)


def _pid(text: str) -> int:
    for line in text.splitlines():
        if line.startswith("PID "):
            return int(line.split()[1])
    raise AssertionError(f"no PID line on the screen:\n{text}")


def connect(door, user: str = "alice", key=None, **kw):
    return asyncssh.connect("127.0.0.1", door.port, username=user, known_hosts=None,
                            client_keys=[key] if key is not None else None,
                            agent_path=None, **kw)


async def start(command_for, keys=None, open_door=False, **kw):
    return await sshdoor.serve("127.0.0.1", 0, command_for=command_for,
                               authorized_keys=keys, open_door=open_door, **kw)


async def stop(door) -> None:
    door.close()
    await asyncio.wait_for(door.wait_closed(), WAIT)


def with_door(body, command_for=None, keys=None, open_door=False, **kw) -> None:
    """Run `await body(door)` against a door on an ephemeral loopback port, stopped after."""
    async def main() -> None:
        door = await start(command_for or child_command(), keys, open_door, **kw)
        try:
            await body(door)
        finally:
            await stop(door)
    asyncio.run(main())


async def pty(conn, env=None, term_type: str = "xterm") -> Term:
    """A session with a pty of 80×24, read through a Term."""
    proc = await conn.create_process(term_type=term_type, term_size=(80, 24), env=env or {},
                                     encoding=None)
    return Term(proc)


async def quit_child(term: Term) -> str:
    """"q" to the test child: it leaves, the session ends; the screen then."""
    term.proc.stdin.write(b"q")
    return await term.rest()


async def until_empty(door) -> None:
    async def poll() -> None:
        while door.sessions:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(poll(), WAIT)


# ------------------------------------------------------------------ the game through the door

@pytest.mark.parametrize("lang, title, after", [
    ("en", "Language / 言語: English", f"How to play 1/{len(HOWTO_PAGES)}"),
    ("ja", "言語 / Language: 日本語", f"遊び方 1/{len(HOWTO_PAGES)}"),
])
def test_key_login_lands_in_the_game_at_80x24_in_the_clients_language(host_dir, client_key,
                                                                        lang, title, after):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "alice", key) as conn:
            env = {"LANG": "ja_JP.UTF-8"} if lang == "ja" else {"LANG": "fr_FR.UTF-8"}
            term = await pty(conn, env, "xterm-256color")
            await term.until(title, "TACTICAL")
            (session,) = door.sessions
            assert (session.name, session.lang) == ("alice", lang)
            pid = session.proc.pid
            term.proc.stdin.write(b"\x1b[B\x1b[B\x1b[B\r")   # down ×3 to How to play, Enter
            assert after in await term.until(after, gone=title)
            term.proc.stdin.write(b"\x1b")                     # Esc: back to the title
            await term.until(title)
        await _gone(pid)                                        # the client left: no child
        await until_empty(door)
    with_door(body, game_command, keys)


def test_through_the_door_to_the_lobby_a_seat_and_back_after_the_client_is_killed(
        host_dir, client_key, tmp_path):
    """The front door beside a table server (issue 17 point 6 and its test): ssh lands in
    the lobby as NAME; a table is made (seat 2 set to an AI) and sat at by keys; a draft
    pick is played by a key; a resize reaches the screens; the client killed, the child
    is gone, and the same key logging in again is back at its seat."""
    server_module = pytest.importorskip("tactical_tui.net.server")   # helpers net and join
    pytest.importorskip("tactical_tui.screens.online.lobby")
    key, keys = client_key

    async def main() -> None:
        server = server_module.Server(tmp_path / "tables", ai_delay=0)
        _, port = await server.start("127.0.0.1", 0)
        door = await start(sshdoor.join_command(port), keys)
        try:
            conn = await connect(door, "alice", key)
            term = await pty(conn, {"LANG": "en_US.UTF-8"})
            await term.until(f"Lobby  alice @ 127.0.0.1:{port}", "No tables yet")
            term.proc.stdin.write(b"c")
            await term.until("Create and sit down")
            down = b"\x1b[B"
            term.proc.stdin.write(down * 2 + b"\x1b[C")        # seat 2: open -> AI
            await term.until("Seat 2: AI")
            term.proc.stdin.write(b"\x1b[A" * 3 + b"\r")      # up past the top: Create and sit
            await term.until("The draft  Seat 1(you)  8 cards left")
            term.proc.stdin.write(b"\r")                       # pick the first card
            await term.until("Seat 1 alice picks", "7 cards left")   # named as on the screens
            term.proc.change_terminal_size(100, 30)
            term.screen.resize(30, 100)
            await term.until("─" * 100)                        # laid out at 100 columns
            (session,) = door.sessions
            pid = session.proc.pid
            conn.abort()                                        # the ssh client is killed
            await _gone(pid)
            async with connect(door, "alice", key) as conn:
                term = await pty(conn, {"LANG": "ja_JP.UTF-8"})
                await term.until("装備ドラフト  席1(あなた)  残り7枚")  # back at the seat
        finally:
            await stop(door)
            await server.stop()
    asyncio.run(main())


def test_tactical_host_runs_the_door_beside_the_tables_with_its_options(host_dir, tmp_path):
    """`tactical host --ssh-port 0 --open --ssh-idle M`: the host says how to ssh in, and
    a guest is let in and sent off after M minutes without a key (the lobby itself: the
    test above)."""
    import re
    import signal
    import subprocess
    pytest.importorskip("tactical_tui.net.server")

    async def main() -> None:
        host = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tactical_tui.cli", "--lang", "en", "host", "--port", "0",
            "--workers", "0", "--dir", str(tmp_path / "tables"), "--ssh-port", "0", "--open",
            "--ssh-idle", "0.05", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            line = await asyncio.wait_for(host.stdout.readline(), WAIT)
            found = re.search(rb"SSH: ssh -p (\d+) NAME@127\.0\.0\.1 \(host key SHA256:", line)
            assert found, line
            port = int(found.group(1))
            async with asyncssh.connect("127.0.0.1", port, username="ken", known_hosts=None,
                                        client_keys=None, agent_path=None) as conn:
                term = await pty(conn, {"LANG": "en_US.UTF-8"})
                assert "No key for 3 seconds: the session is closed." in await term.rest()
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.wait(), WAIT)
    asyncio.run(main())


# ------------------------------------------------------------------ pty, size, keys, LANG, TERM

def test_child_gets_the_clients_pty_size_term_name_and_keys_and_follows_a_resize(host_dir,
                                                                                client_key):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "bob", key) as conn:
            term = await pty(conn, {"LANG": "ja_JP.UTF-8"}, "vt220")
            text = await term.until("SIZE 80x24")
            assert "ARGS bob ja TERM vt220 LANG ja_JP.UTF-8 CTTY /dev/" in text
            term.proc.stdin.write(b"xy")
            await term.until("GOT b'xy'")
            term.proc.change_terminal_size(100, 30)
            term.screen.resize(30, 100)
            await term.until("SIZE 100x30")                     # SIGWINCH and the new size
            await quit_child(term)                              # the child exits ...
            result = await asyncio.wait_for(term.proc.wait(), WAIT)
            assert result.exit_status == 0                      # ... and the session closes
        assert not door.sessions
    with_door(body, keys=keys)


def test_a_language_other_than_ja_or_en_and_no_lang_at_all_are_english(host_dir, client_key):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "carol", key) as conn:
            for env in ({"LANG": "de_DE.UTF-8"}, {}, {"LC_ALL": "ja_JP.UTF-8", "LANG": "C"}):
                term = await pty(conn, env)
                await term.until(f"ARGS carol {'ja' if 'LC_ALL' in env else 'en'} ")
                await quit_child(term)
    with_door(body, keys=keys)


def test_the_door_remembers_the_language_a_key_came_with(host_dir, client_key):
    """Issue 31 point 7: in Japanese once (LANG sent), in Japanese again when the next
    session sends no language — over a new door too (kept in the host's folder); a
    language sent wins and is remembered in its turn."""
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "dora", key) as conn:
            for env, lang in (({"LANG": "ja_JP.UTF-8"}, "ja"), ({}, "ja"),
                              ({"LANG": "en_US.UTF-8"}, "en"), ({}, "en"),
                              ({"LC_ALL": "ja_JP.UTF-8"}, "ja")):
                term = await pty(conn, env)
                await term.until(f"ARGS dora {lang} ")
                await quit_child(term)

    async def again(door) -> None:
        async with connect(door, "dora", key) as conn:
            term = await pty(conn, {})
            await term.until("ARGS dora ja ")
            await quit_child(term)
    with_door(body, keys=keys)
    with_door(again, keys=keys)
    assert (host_dir / "door-langs.json").exists()


# ------------------------------------------------------------------ refusals

@pytest.mark.parametrize("lang, words", [
    ("en", "this session has none (no pty)"),
    ("ja", "端末（pty）がありません"),
])
def test_a_session_without_a_pty_gets_a_message_and_is_closed(host_dir, client_key, lang, words):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "dave", key) as conn:
            # ssh -T, ssh host command; with the client's stdin at its end at once
            for command, typed in ((None, None), ("ls -la /", None), (None, ""), ("ls", "")):
                env = {"LANG": "ja_JP.UTF-8"} if lang == "ja" else {}
                result = await asyncio.wait_for(
                    conn.run(command, env=env, encoding="utf-8", input=typed), WAIT)
                assert words in result.stderr.replace("\r\n", "")
                assert result.exit_status == 1
                assert result.stdout == ""                      # nothing was run
        assert not door.sessions
    with_door(body, keys=keys)
    # a refused session's language is not remembered (each one rewrote the file)
    assert not (host_dir / "door-langs.json").exists()


def test_a_key_not_in_the_authorized_keys_file_is_refused(host_dir, client_key):
    _, keys = client_key
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    elsewhere = asyncssh.generate_private_key("ssh-ed25519")    # only from another address
    keys.write_bytes(keys.read_bytes() + b'from="10.9.8.7" ' + elsewhere.export_public_key())

    async def body(door) -> None:
        for login in (dict(key=stranger), dict(key=elsewhere), dict(key=None, password="x")):
            with pytest.raises(asyncssh.PermissionDenied):
                async with connect(door, "eve", **login):
                    pass
        assert not door.sessions
    with_door(body, keys=keys)


def test_a_key_added_to_the_file_while_the_host_runs_counts_at_the_next_login(host_dir,
                                                                              client_key):
    key, keys = client_key
    later = asyncssh.generate_private_key("ssh-ed25519")

    async def body(door) -> None:
        with pytest.raises(asyncssh.PermissionDenied):
            async with connect(door, "frank", later):
                pass
        keys.write_bytes(keys.read_bytes() + later.export_public_key())
        async with connect(door, "frank", later) as conn:
            await (await pty(conn)).until("ARGS frank en")
    with_door(body, keys=keys)


def test_the_open_door_lets_a_guest_in_without_a_key_under_a_clean_name(host_dir):
    async def body(door) -> None:
        async with connect(door, "名前" * 7, None) as conn:     # 28 cells: cut to 24
            text = await (await pty(conn)).until("ARGS ")
            assert f"ARGS {'名前' * 6} en" in text
    with_door(body, open_door=True)


def _folder(raw: bytes) -> str:
    """The child's data folder, from what it wrote (a long path wraps on the screen)."""
    (line,) = [line for line in raw.decode().splitlines() if line.startswith("DIR ")]
    return line[4:].strip()


def test_each_key_has_its_own_data_folder_whatever_name_it_logs_in_under(host_dir, client_key):
    """tactical join keeps a player's seat tokens in its data folder: another key
    logging in under the same name must not find them."""
    key, keys = client_key
    other = asyncssh.generate_private_key("ssh-ed25519")
    keys.write_bytes(keys.read_bytes() + other.export_public_key())
    seen: dict[str, str] = {}

    async def folder_of(door, user, with_key) -> str:
        async with connect(door, user, with_key) as conn:
            term = await pty(conn)
            await term.until("SIZE 80x24")
            await quit_child(term)
            return _folder(term.raw)

    async def by_key(door) -> None:
        first = seen["key"] = await folder_of(door, "kim", key)
        assert Path(first).is_dir() and Path(first).parent == host_dir / "players"
        assert stat.S_IMODE(Path(first).stat().st_mode) == 0o700
        assert await folder_of(door, "kim", other) != first
        assert await folder_of(door, "someone", key) == first      # the key, not the name

    async def by_name(door) -> None:
        guest = await folder_of(door, "kim", None)
        assert guest != seen["key"]
        assert await folder_of(door, "kim", None) == guest         # a guest: by name
        assert await folder_of(door, "lee", None) != guest
    with_door(by_key, keys=keys)
    with_door(by_name, open_door=True)


def test_the_host_needs_keys_or_the_open_door_and_says_so_of_a_bad_keys_file(host_dir,
                                                                             tmp_path):
    async def main() -> None:
        with pytest.raises(DoorError) as err:
            await start(child_command())
        assert err.value.key == "ssh.err.no_auth"
        assert "--authorized-keys" in err.value.text("en")
        bad = tmp_path / "keys"
        bad.write_text("ssh-ed25519 not-base64!!\n")
        for path in (bad, tmp_path / "missing"):
            with pytest.raises(DoorError) as err:
                await start(child_command(), path)
            assert err.value.key == "ssh.err.keys"
            assert str(path) in err.value.text("ja")
    asyncio.run(main())


def test_a_session_beyond_max_sessions_is_told_the_host_is_full(host_dir, client_key):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "kai", key) as conn:
            first = await pty(conn)
            await first.until("SIZE 80x24")
            second = await pty(conn)
            assert "This host is full (one session at a time)." in await second.rest()
            assert (await asyncio.wait_for(second.proc.wait(), WAIT)).exit_status == 1
            await quit_child(first)                             # the first one goes on
        await until_empty(door)
    with_door(body, keys=keys, max_sessions=1)


# ------------------------------------------------------------------ ends

@pytest.mark.parametrize("extra", [(), ("stubborn",)])
def test_an_abrupt_disconnect_leaves_no_process_even_one_that_ignores_the_hang_up(host_dir,
                                                                                 client_key,
                                                                                 extra):
    key, keys = client_key

    async def body(door) -> None:
        conn = await connect(door, "gina", key)
        pid = _pid(await (await pty(conn)).until("SIZE 80x24"))
        conn.abort()                                            # the TCP connection drops
        await _gone(pid)
        await until_empty(door)
    with_door(body, child_command(*extra), keys, kill_after=0.5)


def test_the_end_of_the_clients_keys_hangs_the_child_up_and_ends_the_session(host_dir,
                                                                             client_key):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "jun", key) as conn:
            term = await pty(conn)
            pid = _pid(await term.until("SIZE 80x24"))
            term.proc.stdin.write_eof()                         # ssh -tt host < /dev/null
            assert "HUP" in await term.rest()                   # its last words still come
            await asyncio.wait_for(term.proc.wait(), WAIT)
            await _gone(pid)
        assert not door.sessions
    with_door(body, keys=keys)


def test_an_idle_session_is_closed_with_a_message_and_its_child_is_gone(host_dir, client_key):
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "hana", key) as conn:
            term = await pty(conn, {"LANG": "ja_JP.UTF-8"})
            pid = _pid(await term.until("SIZE 80x24"))
            text = await term.rest()
            assert "HUP" in text
            assert "2秒間キー入力がなかったので、接続を閉じました。" in text
            await _gone(pid)
    with_door(body, keys=keys, idle=2.0)           # room for the child to start under load


@pytest.mark.parametrize("env, words", [
    ({}, "The host has stopped. Once it runs again, the same ssh takes you back"),
    ({"LANG": "ja_JP.UTF-8"}, "ホストが停止しました。再び動き出したら、同じsshで席に戻れます。")])
def test_stopping_the_host_hangs_up_every_session(host_dir, client_key, env, words):
    key, keys = client_key

    async def main() -> None:
        door = await start(child_command(), keys)
        async with connect(door, "ivan", key) as conn:
            term = await pty(conn, env)
            pid = _pid(await term.until("SIZE 80x24"))
            door.close()
            await _gone(pid)
            # after the child's last words (HUP), the player is told why and how to come
            # back, in their language (issue 31 point 4)
            flat = (await term.rest()).replace("\n", " ")
            assert words in flat or words in flat.replace(" ", "")   # (ja: broken anywhere)
            await asyncio.wait_for(door.wait_closed(), WAIT)
            assert not door.sessions
    asyncio.run(main())


# ------------------------------------------------------------------ host key, names, language

def test_the_host_key_is_made_once_private_and_kept(host_dir):
    first = sshdoor.load_host_key()
    path = host_dir / sshdoor.HOST_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sshdoor.load_host_key().get_fingerprint() == first.get_fingerprint()
    os.chmod(path, 0o644)                                       # made readable by someone
    assert sshdoor.load_host_key().get_fingerprint() == first.get_fingerprint()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("not a key")
    with pytest.raises(DoorError) as err:
        sshdoor.load_host_key()
    assert err.value.key == "ssh.err.host_key"


def test_the_host_says_how_to_come_in_and_the_host_keys_fingerprint(host_dir):
    async def body(door) -> None:
        assert door.fingerprint.startswith("SHA256:")
        line = door.listening("en")
        assert f"ssh -p {door.port} NAME@127.0.0.1" in line and door.fingerprint in line
        assert f"ssh -p {door.port} 名前@127.0.0.1" in door.listening("ja")
    with_door(body, open_door=True)


def test_the_idle_message_counts_minutes_or_seconds_in_both_languages():
    from tactical_tui.text.i18n import t
    cases = {30 * 60: ("No key for 30 minutes", "30分間キー入力がなかった"),
             60: ("No key for a minute", "1分間キー入力がなかった"),
             1: ("No key for a second", "1秒間キー入力がなかった"),
             2.0: ("No key for 2 seconds", "2秒間キー入力がなかった")}
    for idle, (en, ja) in cases.items():
        key, n = sshdoor.idle_message(idle)
        assert t(key, "en", n=n).startswith(en)
        assert t(key, "ja", n=n).startswith(ja)


def test_player_names_are_printable_and_at_most_24_cells():
    assert player_name("alice") == "alice"
    assert player_name("  a\x1b[31mb\u202ec\t d  ") == "a [31mb c d"
    assert player_name("\x00\x07") == "guest"
    assert player_name("") == "guest"
    assert player_name("x" * 30) == "x" * 24
    assert player_name("名" * 13) == "名" * 12                  # 26 cells → 24
    # a name the table port's hello would refuse is no name: the player is a guest
    from tactical_tui.net.protocol import name_ok
    for bad in ("\u0301abc", "a" + "\u0301" * 20):
        assert not name_ok(" ".join(bad.split())[:24]) and player_name(bad) == "guest"
    assert name_ok(player_name("é" * 30))


def test_the_language_is_ja_only_for_a_ja_locale():
    assert client_lang({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert client_lang({"LANG": "en_GB.UTF-8"}) == "en"
    assert client_lang({"LANG": "fr_FR.UTF-8"}) == "en"
    assert client_lang({}) == "en"
    assert client_lang({"LC_ALL": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"}) == "en"


def test_the_join_command_passes_name_and_language_as_single_arguments():
    command = sshdoor.join_command(7411)("-x y", "ja")
    assert command[:3] == [sys.executable, "-m", "tactical_tui.cli"]
    assert command[3:] == ["--lang=ja", "join", "127.0.0.1:7411", "--name=-x y"]


def test_the_child_is_told_how_its_player_comes_back(host_dir, client_key):
    """The session's child gets TACTICAL_SSH_BACK, the ssh command that brings this
    player back (the port and address the client reached, the name it logged in
    under): `tactical join` says it when the player leaves a seat or the host stops."""
    key, keys = client_key

    async def body(door) -> None:
        async with connect(door, "kim", key) as conn:
            term = await pty(conn)
            text = await term.until("SIZE 80x24")
            assert f"BACK ssh -p {door.port} kim@127.0.0.1" in text
            await quit_child(term)
    with_door(body, keys=keys)


# ------------------------------------------------------------------ authorized_keys options

def _keys_file(tmp_path, *lines: tuple[str, object]) -> Path:
    """An authorized_keys file of (options, key) lines."""
    path = tmp_path / "authorized_keys"
    path.write_bytes(b"".join((options.encode() + b" " if options else b"")
                              + key.export_public_key() for options, key in lines))
    return path


async def _refused(door, key, user: str = "eve") -> None:
    with pytest.raises(asyncssh.PermissionDenied):
        async with connect(door, user, key):
            pass


async def _plays(door, key, user: str) -> None:
    """`key` logs in as `user` and its pty session runs the (test) game."""
    async with connect(door, user, key) as conn:
        term = await pty(conn)
        await term.until(f"ARGS {user} en")
        await quit_child(term)


def _new_keys(n: int):
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(n)]


def test_a_key_past_its_expiry_time_is_refused_and_one_before_it_plays(host_dir, tmp_path,
                                                                       caplog):
    """expiry-time="YYYYMMDD[HHMM[SS]][Z]" (man 5 sshd): local time unless Z; the name
    in any case. A refusal is logged with the key's fingerprint."""
    past, past_z, future, future_z = _new_keys(4)
    keys = _keys_file(tmp_path, ('expiry-time="20000101"', past),
                      ('expiry-time="200001011230Z"', past_z),
                      ('expiry-time="29991231"', future),
                      ('Expiry-Time="29991231235959Z"', future_z))

    async def body(door) -> None:
        for key in (past, past_z):
            await _refused(door, key)
        assert not door.sessions
        await _plays(door, future, "fay")
        await _plays(door, future_z, "gus")
    with_door(body, keys=keys)
    for line, key in ((1, past), (2, past_z)):
        assert f"key {key.get_fingerprint()} refused by {keys} line {line}: expired at" \
            in caplog.text


@pytest.mark.parametrize("options", [
    'expiry-time="20991301"',          # month 13
    'expiry-time="20990230"',          # 30 February
    'expiry-time="2099-01-01"',
    'expiry-time="2099010112"',        # 10 digits
    'expiry-time=20990101',            # sshd wants the value in double quotes
    'expiry-time="20990101",no-ptyy',  # a typo: an unknown option refuses its line
])
def test_a_malformed_expiry_time_or_an_unknown_option_refuses_the_key(host_dir, tmp_path,
                                                                      caplog, options):
    key, good = _new_keys(2)
    keys = _keys_file(tmp_path, (options, key), ("", good))

    async def body(door) -> None:
        await _refused(door, key)
        assert not door.sessions
    with_door(body, keys=keys)
    # said at start (line and key named) and at the login
    assert f"{keys} line 1 (key {key.get_fingerprint()}): " in caplog.text
    assert f"key {key.get_fingerprint()} refused by {keys} line 1: " in caplog.text


@pytest.mark.parametrize("lang, words", [
    ("en", "may not have a terminal (pty) at this host"),
    ("ja", "このホストでは端末（pty）が許されていません"),
])
def test_a_key_whose_line_allows_no_terminal_gets_no_game_and_restrict_pty_does(
        host_dir, tmp_path, lang, words):
    """no-pty, and restrict without a pty after it: the login is let in (as sshd does),
    its pty refused, and every session is told why (in the player's language) and closed;
    no game starts. restrict,pty plays."""
    no_pty, upper, restrict, pty_restrict, restrict_pty = _new_keys(5)
    keys = _keys_file(tmp_path, ("no-pty", no_pty), ("NO-PTY", upper), ("restrict", restrict),
                      ("pty,restrict", pty_restrict), ("restrict,pty", restrict_pty))
    env = {"LANG": "ja_JP.UTF-8"} if lang == "ja" else {}

    async def body(door) -> None:
        for key in (no_pty, upper, restrict, pty_restrict):
            async with connect(door, "hal", key) as conn:
                with pytest.raises(asyncssh.ChannelOpenError):
                    await conn.create_process(term_type="xterm", term_size=(80, 24))
                for command in (None, "ls"):                # ssh -T; ssh host command
                    result = await asyncio.wait_for(
                        conn.run(command, env=env, encoding="utf-8"), WAIT)
                    said = result.stderr.replace("\r\n", "" if lang == "ja" else " ")
                    assert words in said and key.get_fingerprint() in said
                    assert result.exit_status == 1 and result.stdout == ""
            assert not door.sessions
        await _plays(door, restrict_pty, "ivy")
    with_door(body, keys=keys)


def test_a_key_limited_to_a_command_gets_no_game_and_no_command_is_run(host_dir, tmp_path):
    """command="…": the door runs no commands, so the key has no game: with or without
    a pty, each session is told so and closed, and neither the game nor the command (nor
    anything of the key file) reaches the player."""
    plain_command, restricted = _new_keys(2)
    keys = _keys_file(tmp_path, ('command="printf \'\\033[2J\\\\"owned\\\\"\'"', plain_command),
                      ('restrict,pty,command="ls -la /"', restricted))

    async def body(door) -> None:
        for key in (plain_command, restricted):
            async with connect(door, "jo", key) as conn:
                for command, term_type in ((None, "xterm"), (None, None), ("ls", "xterm")):
                    result = await asyncio.wait_for(
                        conn.run(command, term_type=term_type, term_size=(80, 24),
                                 env={"LANG": "ja_JP.UTF-8"}, encoding="utf-8"), WAIT)
                    said = result.stderr.replace("\r\n", "")
                    assert "決められたコマンドにしか使えません" in said
                    assert key.get_fingerprint() in said
                    assert result.exit_status == 1 and result.stdout == ""
                    assert "\x1b" not in said and "owned" not in said and "-la" not in said
            assert not door.sessions
    with_door(body, keys=keys)


def test_from_is_still_honoured_beside_the_other_options(host_dir, tmp_path):
    elsewhere, here, here_expired = _new_keys(3)
    keys = _keys_file(tmp_path, ('from="10.9.8.7",expiry-time="29990101"', elsewhere),
                      ('expiry-time="29990101",from="10.9.8.7,127.0.0.1"', here),
                      ('from="127.0.0.1",expiry-time="20000101"', here_expired))

    async def body(door) -> None:
        await _refused(door, elsewhere)
        await _refused(door, here_expired)
        await _plays(door, here, "kit")
    with_door(body, keys=keys)


def test_a_certificate_login_is_refused_and_a_cert_authority_key_lets_nobody_in(host_dir,
                                                                                tmp_path):
    """The door takes no certificates (it does no CA validation): a user certificate
    signed by a cert-authority of the file is refused, and the CA key itself does not log
    in (sshd: "Key is CA, but not cert")."""
    ca, user = _new_keys(2)
    cert = ca.generate_user_certificate(user, "lee", principals=["lee"])
    keys = _keys_file(tmp_path, ("cert-authority", ca))

    async def body(door) -> None:
        await _refused(door, ca)
        with pytest.raises(asyncssh.PermissionDenied):
            async with asyncssh.connect("127.0.0.1", door.port, username="lee",
                                        known_hosts=None, client_keys=[(user, cert)],
                                        agent_path=None):
                pass
    with_door(body, keys=keys)
