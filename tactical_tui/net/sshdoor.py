"""The SSH front door of ``tactical host`` (issue 17 point 6): ``ssh -p 2222 NAME@host``
lands in the lobby as player NAME, in the size and language of the player's terminal.

Decision: **one process per SSH session, in a pseudo-terminal** — the way textual-serve
runs one app process per browser — rather than a Textual driver on the SSH channel inside
the host process (as the asyncssh BBS xthulu runs its sessions):

* The child is the very ``tactical join`` a player runs in a local terminal: the same
  Linux driver, the same key handling, the same screens. A driver of our own on the
  channel would be a second terminal layer to keep working with every Textual release.
* Textual expects one app per process (the active app is process-wide, it installs
  signal handlers, it writes to ``sys.__stdout__``); several apps in the host's event loop
  would share one thread, so one busy screen (a long log being laid out) would stall every
  other player and the table server beside them. Separate processes are spread over the
  cores by the operating system, and a crash ends one session, not the host.
* Ending a session is complete and simple: hang up the child's process group, kill it
  after a grace period, reap it. Nothing of a session lives on in the host.
* The cost is a Python process per player: about 47 MB RSS (36 MB PSS), and a few
  seconds from login to the lobby — a table has 3–5 players, and a host that serves many
  is given ``max_sessions``. With ``zygote`` (`tactical host`'s default) the process is
  forked from one that imported the game once (zygote.py): 20 MB PSS a session, and in
  the lobby sooner (docs/SSH.md, "Cost").

How a session runs: the pty is made with the client's size (``TIOCSWINSZ``); the child is
started in a session of its own with the pty as its controlling terminal (a launcher of a
few lines, ``_CTTY``, does ``TIOCSCTTY`` and execs the command, so no Python code runs
between fork and exec in the host), with ``TERM`` from the client's pty request and the
language from the client's environment (``LC_ALL``, ``LC_MESSAGES``, ``LANG`` as the
client sent them — OpenSSH sends ``LANG`` with ``SendEnv LANG`` or ``SetEnv``; ``ja*`` is
Japanese, anything else English). A window change sets the pty's size again; the kernel
then sends ``SIGWINCH`` to the child's foreground process group, as for any terminal.
Keys go to the pty, the screen to the channel, with flow control both ways (a slow client
pauses the child's output; a child that does not read pauses the channel). When the child
exits, the session ends with its exit status; when the client goes away (or ends its
input, or is idle for ``idle`` seconds, or the host stops), the child is hung up
(``SIGHUP``: the app saves and leaves), killed after ``kill_after`` seconds if it is
still there, and reaped.

A session without a pty (``ssh -T``, ``ssh host command``) gets a message in the client's
language and is closed. Authentication: public keys from an ``authorized_keys`` file (read
again when it changes; its options as sshd reads them, and what they mean here: authkeys.py
— ``no-pty``, ``restrict`` and ``command=`` leave a key's sessions without a game, with a
message saying why), or ``open_door`` (a LAN party: anyone, without authentication).
Either way the SSH user name is the player's name, cleaned (``player_name``), and the
child gets a data folder of the player's own (``player_dir``: per key, or per name at an
open door), where ``tactical join`` keeps the player's seat tokens. The host
key is made on first start (Ed25519) and kept, mode 0600, in the user data folder
(``host_dir``; ``TACTICAL_HOST_DIR`` overrides it).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import re
import signal
import struct
import sys
import termios
import time
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import asyncssh
from rich.cells import cell_len

from tactical_tui.text.i18n import break_lines, t
from tactical_tui.text.safe import plain
from tactical_tui.net.authkeys import AuthorizedKeys, Grant

log = logging.getLogger("tactical.ssh")

HOST_KEY_FILE = "ssh_host_ed25519_key"
NAME_CELLS = 24            # the protocol's hello: a name of 1–24 printable characters
GUEST = "guest"            # the name of a user name that has nothing printable in it
IDLE = 30 * 60.0           # seconds without a key before a session is closed
KILL_AFTER = 5.0           # seconds between the hang-up and SIGKILL
CLOSE_WAIT = 2.0          # seconds the clients have to leave by themselves when the door closes
MAX_SESSIONS = 64
DEFAULT_SIZE = (80, 24)    # a client that says its terminal has 0 columns or rows
# Limits before the login and per peer (issue 30), as sshd's MaxStartups,
# PerSourceMaxStartups, LoginGraceTime and MaxSessions; each is an option of
# `tactical host` (docs/SSH.md). A peer is an address; an IPv6 address counts by its /64.
LOGIN_TIMEOUT = 20.0       # seconds from the connection to a game running (login included)
MAX_STARTUPS = 32          # connections without a game running yet, in all
STARTUPS_PER_PEER = 8      # ... from one peer
SESSIONS_PER_CONNECTION = 2
SESSIONS_PER_KEY = 3       # games of one key at once (an open door: of one peer)
MAX_SIZE = (500, 200)      # columns and rows of a terminal at most (a larger one is cut)
MAX_PIXELS = 16384         # pixel sizes above this are nonsense: sent as 0 (unknown)
CHANNELS_PER_CONNECTION = 8    # session channels open at once beyond the sessions' limit
REFUSAL_LOG_EVERY = 60.0   # seconds between two log lines about one peer's refusals

# The launcher of every child: become the controlling process of the pty (the child is a
# session leader: start_new_session), then exec the command. SIGWINCH and the hang-up of
# a closed pty reach the child only through its controlling terminal.
_CTTY = ("import fcntl,os,sys,termios\n"
         "try:\n fcntl.ioctl(0,termios.TIOCSCTTY,0)\nexcept OSError:\n pass\n"
         "try:\n os.execvp(sys.argv[1],sys.argv[1:])\n"
         "except OSError as e:\n sys.stderr.write(sys.argv[1]+': '+str(e.strerror)+'\\r\\n')\n"
         " sys.exit(127)\n")

# Variables of the host's own terminal that must not reach a child drawing on another
# terminal (COLUMNS and LINES would even win over the pty's size in shutil).
_HOST_TERMINAL = ("TERM", "COLORTERM", "COLUMNS", "LINES", "LANG", "LANGUAGE", "TERM_PROGRAM",
                  "TERM_PROGRAM_VERSION", "TMUX", "TMUX_PANE", "STY", "WINDOW", "VTE_VERSION",
                  "KITTY_WINDOW_ID", "WT_SESSION", "SSH_AUTH_SOCK", "SSH_CONNECTION",
                  "SSH_CLIENT", "SSH_TTY", "DISPLAY")
_TERM_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_LOCALE = {"ja": "ja_JP.UTF-8", "en": "en_US.UTF-8"}

# After a child had to be killed: its terminal modes are left on the client's screen.
# Leave the alternate screen, show the cursor, stop mouse reports and bracketed paste.
_RESET = (b"\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l"
          b"\x1b[?1015l\x1b[?2004l\r\n")

CommandFor = Callable[[str, str], Sequence[str]]


class DoorError(Exception):
    """The door cannot open: an i18n key (``ssh.err.*``) and its parameters, for the
    host command to say in the operator's language."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key, params)
        self.key = key
        self.params = params

    def text(self, lang: str) -> str:
        return t(self.key, lang, **{k: plain(str(v)) for k, v in self.params.items()})


# ------------------------------------------------------------------ names, language, env

def player_name(user: Optional[str]) -> str:
    """The player's name from an SSH user name: printable characters only (controls,
    bidi overrides and other format characters dropped), runs of spaces made one, at most
    NAME_CELLS terminal cells; ``guest`` when nothing is left, or when what is left is a
    name the table port's `hello` refuses (a leading combining mark, a stack of them:
    protocol.name_ok) — else the player's game would fail at its first message."""
    from tactical_tui.net.protocol import name_ok
    kept = "".join(ch if ch.isprintable() else " " for ch in (user or ""))
    out: list[str] = []
    used = 0
    for ch in " ".join(kept.split()):
        used += cell_len(ch)
        if used > NAME_CELLS:
            break
        out.append(ch)
    name = "".join(out).strip()
    return name if name and name_ok(name) else GUEST


def client_lang(env: Mapping[str, str]) -> str:
    """The language of the client's environment: the first of LC_ALL, LC_MESSAGES, LANG
    it sent decides, ``ja*`` → Japanese, anything else → English (also when none)."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


def given_lang(env: Mapping[str, str]) -> Optional[str]:
    """The language the client's environment names (as client_lang), or None when it
    sends none of LC_ALL, LC_MESSAGES, LANG (nor only C / POSIX): the door then uses the
    language the player had last time (LangMemory)."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value and value.split(".")[0] not in ("C", "POSIX"):
            return "ja" if value.lower().startswith("ja") else "en"
    return None


class LangMemory:
    """The language each player had at the door, by key (or, at an open door, by name),
    kept between sessions and restarts in the host's private folder (`door-langs.json`,
    mode 0600; players only as sha256 tags): a player who once came with
    ``-o SetEnv=LANG=ja_JP.UTF-8`` is in Japanese again with a plain ``ssh`` (issue 31
    point 7). At most `most` players, the ones seen least recently forgotten first; a
    damaged file is read as empty."""

    FILE = "door-langs.json"
    CAP = 512 * 1024

    def __init__(self, folder: Optional[Path] = None, most: int = 4096) -> None:
        self.path = (folder if folder is not None else host_dir()) / self.FILE
        self.most = most
        self.langs: dict[str, str] = self._load()

    @staticmethod
    def tag(key: Optional[str], name: str) -> str:
        import hashlib
        who = f"key {key}" if key is not None else f"name {name}"
        return hashlib.sha256(who.encode("utf-8")).hexdigest()[:24]

    def _load(self) -> dict:
        import json
        from rules.files import FileProblem, read_bounded
        try:
            data = json.loads(read_bounded(self.path, self.CAP).decode("utf-8"))
        except (FileProblem, OSError, ValueError, UnicodeDecodeError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in list(data.items())[-self.most:]
                if isinstance(k, str) and v in ("ja", "en")}

    def get(self, tag: str) -> Optional[str]:
        return self.langs.get(tag)

    def put(self, tag: str, lang: str) -> None:
        """Remember `lang` for `tag` (an admitted session's: the door calls this only once
        a session is let in). The file is written only when what it holds for the player
        changes; being seen again only moves them up in memory (the order is written with
        the next change), so a player switching LANG on every session is what writes."""
        same = self.langs.get(tag) == lang
        self.langs.pop(tag, None)
        self.langs[tag] = lang
        if same:
            return
        while len(self.langs) > self.most:
            del self.langs[next(iter(self.langs))]
        import json
        from tactical_tui.table.savefiles import write_atomic
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomic(self.path, json.dumps(self.langs))
            os.chmod(self.path, 0o600)
        except OSError as exc:
            log.warning("cannot keep the players' languages in %s: %s", self.path, exc)


def client_term(term_type: Optional[str]) -> str:
    """TERM for the child: the client's terminal type if it looks like one."""
    if term_type and _TERM_OK.fullmatch(term_type):
        return term_type
    return "xterm-256color"


def clamp_size(cols: int, rows: int, pw: int = 0, ph: int = 0,
               most: tuple[int, int] = MAX_SIZE) -> tuple[int, int, int, int]:
    """The size a pty is given: columns and rows at most `most` (a client asking for
    65535×65535 made the game lay out, and keep, a screen of four billion cells); 0
    (unknown) stays 0. The pixel sizes are kept only when they are believable (at most
    MAX_PIXELS, and the size was not cut: they would describe another terminal), else 0."""
    cols, rows = max(0, int(cols)), max(0, int(rows))
    cut = cols > most[0] or rows > most[1]
    cols, rows = min(cols, most[0]), min(rows, most[1])
    if cut or not (0 <= pw <= MAX_PIXELS and 0 <= ph <= MAX_PIXELS):
        pw = ph = 0
    return cols, rows, int(pw), int(ph)


def peer_of(addr: Optional[str]) -> str:
    """Whom a connection counts against: its address; an IPv6 one by its /64 (one
    machine or one site usually holds a whole /64), an IPv4-mapped one as IPv4."""
    import ipaddress
    try:
        ip = ipaddress.ip_address(str(addr or "").split("%")[0])
    except ValueError:
        return str(addr or "?")
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class PeerLog:
    """Log lines about one peer's refusals: the first at once, then at most one per
    `every` seconds with the number since (a flood of connections cannot flood the log).
    At most `most` peers are remembered; the others share one count."""

    OTHERS = "(other peers)"

    def __init__(self, every: float = REFUSAL_LOG_EVERY, most: int = 1024,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every, self.most, self.clock = every, most, clock
        self._peers: dict[str, list] = {}        # peer -> [count since, last said]

    def note(self, peer: str) -> Optional[int]:
        """Count one refusal of `peer`: how many to say now (None: not now)."""
        now = self.clock()
        if peer not in self._peers:
            for old in [p for p, (n, last) in self._peers.items() if now - last >= self.every
                        and not n][:16]:
                del self._peers[old]                 # quiet for a while: forgotten
            if len(self._peers) >= self.most:
                peer = self.OTHERS
        entry = self._peers.setdefault(peer, [0, None])
        entry[0] += 1
        if entry[1] is not None and now - entry[1] < self.every:
            return None
        said, entry[0], entry[1] = entry[0], 0, now
        return said


def child_env(term: str, lang: str, client: Mapping[str, str] = {},
              folder: Optional[Path] = None, back: Optional[str] = None) -> dict[str, str]:
    """The child's environment: the host's, without its own terminal's variables, with
    the client's TERM, the language's locale, UTF-8 whatever locales the host has,
    COLORTERM when the client says it has true colour, the player's own data and
    settings folder (`player_dir`), and how the player comes back (`back_command`:
    TACTICAL_SSH_BACK, said by `tactical join` when the player leaves a seat)."""
    env = {k: v for k, v in os.environ.items()
           if k not in _HOST_TERMINAL and not k.startswith("LC_") and k != "TACTICAL_SSH_BACK"}
    env.update(TERM=term, LANG=_LOCALE[lang], PYTHONUTF8="1", PYTHONIOENCODING="utf-8")
    if back:
        env["TACTICAL_SSH_BACK"] = back
    if folder is not None:
        env.update(TACTICAL_SAVE_DIR=str(folder), TACTICAL_CONFIG_DIR=str(folder))
    if client.get("COLORTERM") in ("truecolor", "24bit"):
        env["COLORTERM"] = client["COLORTERM"]
    return env


# The module a session runs, ``python -m SESSION_MODULE … join …`` (the `tactical`
# command): exec'd, or forked from the zygote, which runs it as ``-m`` would.
SESSION_MODULE = "tactical_tui.cli"


def join_command(table_port: int, host: str = "127.0.0.1",
                 unix_path: Optional[str] = None) -> CommandFor:
    """`command_for` of the door beside a table server: ``tactical join`` to it as NAME,
    in LANG; through the server's Unix socket `unix_path` when given (Server.listen_door:
    a path of the door's own, which local connections to the table port cannot fill).
    (``--lang`` is the top-level option, before the sub-command; ``--name=`` is written
    with ``=`` so that a name starting with ``-`` stays a name.)"""
    def command_for(name: str, lang: str) -> list[str]:
        via = [f"--socket={unix_path}"] if unix_path else []
        return [sys.executable, "-m", SESSION_MODULE, f"--lang={lang}", "join",
                f"{host}:{table_port}", *via, f"--name={name}"]
    return command_for


# ------------------------------------------------------------------ host key

def host_dir() -> Path:
    """The host's folder in the user data folder, or TACTICAL_HOST_DIR when set."""
    env = os.environ.get("TACTICAL_HOST_DIR")
    if env:
        return Path(env)
    from tactical_tui.table.savefiles import save_dir
    return save_dir() / "host"


def load_host_key(path: Optional[Path] = None) -> asyncssh.SSHKey:
    """The host key at `path` (default: ``host_dir()/ssh_host_ed25519_key``), made on
    first start: an Ed25519 key written with mode 0600 (by a temporary file linked into
    place, so two hosts starting at once never see half a key). A key file others may
    read is made private again."""
    path = Path(path) if path is not None else host_dir() / HOST_KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="tactical host")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key.export_private_key())
            try:
                os.link(tmp, path)
                log.info("made the SSH host key %s", path)
            except FileExistsError:
                pass                                     # another host made it first
        finally:
            tmp.unlink(missing_ok=True)
    try:
        if path.stat().st_mode & 0o077:
            log.warning("%s could be read by others: made private (0600)", path)
            os.chmod(path, 0o600)
        return asyncssh.read_private_key(path)
    except (OSError, ValueError, asyncssh.KeyImportError) as exc:
        raise DoorError("ssh.err.host_key", path=path, error=_reason(exc)) from exc


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


# ------------------------------------------------------------------ the door

class SSHDoor:
    """The running SSH server: ``port``, ``fingerprint`` (of the host key, for players
    to check), ``close()`` and ``await wait_closed()`` (every session's child hung up and
    reaped, every connection closed)."""

    def __init__(self, *, command_for: CommandFor, authorized_keys: Optional[Path],
                 open_door: bool, host_key: asyncssh.SSHKey, idle: float,
                 kill_after: float, max_sessions: int, login_timeout: float = LOGIN_TIMEOUT,
                 max_startups: int = MAX_STARTUPS, startups_per_peer: int = STARTUPS_PER_PEER,
                 sessions_per_connection: int = SESSIONS_PER_CONNECTION,
                 sessions_per_key: int = SESSIONS_PER_KEY,
                 max_size: tuple[int, int] = MAX_SIZE) -> None:
        self.zygote = None               # zygote.Zygote: sessions forked, not exec'd
        self.command_for = command_for
        self.authorized_keys = authorized_keys
        self.open_door = open_door
        self.host_key = host_key
        self.fingerprint = host_key.get_fingerprint()
        self.idle = idle
        self.kill_after = kill_after
        self.max_sessions = max_sessions
        self.login_timeout = login_timeout
        self.max_startups = max_startups
        self.startups_per_peer = startups_per_peer
        self.sessions_per_connection = sessions_per_connection
        self.sessions_per_key = sessions_per_key
        self.max_size = max_size
        self.refusals = PeerLog()
        self.auth_log = PeerLog()        # refused keys and a broken keys file: once a minute
        self.langs = LangMemory()        # each player's language, kept between sessions
        # connections without a game running (not logged in yet, or logged in and no
        # session started): peer -> its connections, oldest first
        self.waiting: dict[str, list[_Server]] = {}
        self.sessions: set[_Session] = set()
        self._tasks: set[asyncio.Task] = set()
        self._conns: set[asyncssh.SSHServerConnection] = set()
        self._keys: Optional[AuthorizedKeys] = None
        self._keys_stamp: Optional[tuple] = None
        self._acceptor: Optional[asyncssh.SSHAcceptor] = None
        self._host = ""
        self._closing = False

    async def start(self, host: str, port: int) -> None:
        self._host = host
        self._acceptor = await asyncssh.create_server(
            lambda: _Server(self), host, port,
            server_host_keys=[self.host_key], encoding=None, line_editor=False,
            allow_pty=True, agent_forwarding=False, x11_forwarding=False, allow_scp=False,
            keepalive_interval=30, keepalive_count_max=3,
            login_timeout=self.login_timeout or None)

    @property
    def port(self) -> int:
        assert self._acceptor is not None
        return self._acceptor.get_port()

    def listening(self, lang: str) -> str:
        """The line for the host's operator: how players come in, and the host key's
        fingerprint for them to check on their first login."""
        host = self._host if self._host not in ("", "0.0.0.0", "::") else "HOST"
        return t("ssh.listening", lang, port=self.port, host=plain(host),
                 fingerprint=self.fingerprint)

    def authorized(self) -> AuthorizedKeys:
        """The authorized keys, read again when the file has changed (keys added while
        the host runs count at the next login), with what the options of each line allow
        (authkeys.py). A file that is gone, empty of keys, unreadable or not a regular
        file lets nobody in (DoorError) until it is fixed, as with sshd: emptying or
        removing it is how keys are taken back (the last keys read used to go on counting)."""
        from rules.files import FileProblem
        assert self.authorized_keys is not None
        try:
            st = self.authorized_keys.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if stamp != self._keys_stamp or self._keys is None:
                self._keys = None
                self._keys = AuthorizedKeys.read(self.authorized_keys)
                self._keys_stamp = stamp
        except (OSError, ValueError, FileProblem, asyncssh.KeyImportError) as exc:
            self._keys, self._keys_stamp = None, None
            raise DoorError("ssh.err.keys", path=self.authorized_keys,
                            error=_reason(exc)) from exc
        return self._keys

    def waiting_count(self) -> int:
        return sum(len(conns) for conns in self.waiting.values())

    def admit(self, server: "_Server") -> Optional[str]:
        """Whether a new connection of `server.peer` may start its login: None, or why
        not. Over the peer's share: refused. All places taken: the newest connection of
        the peer that holds the most (more than this one's, and at least two) makes room,
        so that a flood from a few addresses cannot keep anyone else out; else refused."""
        mine = len(self.waiting.get(server.peer, ()))
        if mine >= self.startups_per_peer:
            return "per_peer"
        if self.waiting_count() < self.max_startups:
            return None
        most, peer = max((len(conns), p) for p, conns in self.waiting.items())
        if most >= 2 and most > mine + 1:
            victim = self.waiting[peer][-1]
            self.refused(peer, "made room", "startups")
            victim.drop()
            return None
        return "startups"

    def refused(self, peer: str, what: str, why: str) -> None:
        """A log line about a refusal of `peer`'s, at most one a minute for each peer."""
        said = self.refusals.note(peer)
        if said:
            log.warning("SSH %s from %s: %d since the last such line (%s; %d connections "
                        "without a game, %d of them from it; %d sessions)", what, peer, said,
                        why, self.waiting_count(), len(self.waiting.get(peer, ())),
                        len(self.sessions))

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def close(self) -> None:
        """Stop listening, hang up every session's child (they save and leave)."""
        self._closing = True
        if self._acceptor is not None:
            self._acceptor.close()
        for session in list(self.sessions):
            session.end("stopping")

    async def wait_closed(self) -> None:
        if self._acceptor is not None:
            await self._acceptor.wait_closed()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        # each client leaves by itself once its session is closed, having read all of it
        # (the child's last line, the door's "the host has stopped"); closing its
        # connection at once cut that off ("Disconnected by application")
        waits = [asyncio.ensure_future(conn.wait_closed()) for conn in list(self._conns)]
        if waits:
            await asyncio.wait(waits, timeout=CLOSE_WAIT)
        for conn in list(self._conns):
            conn.close()
        for conn in list(self._conns):
            await conn.wait_closed()
        if self.zygote is not None:
            await self.zygote.close()


async def serve(host: str, port: int, *, command_for: CommandFor,
                authorized_keys: Optional[os.PathLike | str] = None, open_door: bool = False,
                host_key_path: Optional[os.PathLike | str] = None, idle: float = IDLE,
                kill_after: float = KILL_AFTER, max_sessions: int = MAX_SESSIONS,
                login_timeout: float = LOGIN_TIMEOUT, max_startups: int = MAX_STARTUPS,
                startups_per_peer: int = STARTUPS_PER_PEER,
                sessions_per_connection: int = SESSIONS_PER_CONNECTION,
                sessions_per_key: int = SESSIONS_PER_KEY,
                max_size: tuple[int, int] = MAX_SIZE, zygote: bool = False) -> SSHDoor:
    """Start the SSH front door on host:port (port 0: any free port, see ``door.port``).

    Every session runs ``command_for(name, lang)`` in a pty of its own (see the module's
    docstring); `idle` seconds without a key close it (0: never), `kill_after` seconds
    after its hang-up a child still there is killed, and at most `max_sessions` run at
    once. Before the login and per peer (an address, an IPv6 /64): a connection has
    `login_timeout` seconds to log in and start its game (0: no limit); at most
    `max_startups` connections wait so, `startups_per_peer` of one peer; one connection
    runs at most `sessions_per_connection` games, one key (an open door: one peer)
    `sessions_per_key`; a terminal is at most `max_size` (columns, rows). With `zygote`,
    a session's ``python -m SESSION_MODULE`` is forked from a process that imported what
    it needs once (zygote.py: lighter, and sooner in the lobby); any other command is
    exec'd. Logins need a key of `authorized_keys` (an OpenSSH authorized_keys file),
    or nothing at all with `open_door`; one of the two is required. Raises DoorError
    (with an i18n key) when the keys or the host key cannot be read."""
    if authorized_keys is None and not open_door:
        raise DoorError("ssh.err.no_auth")
    door = SSHDoor(command_for=command_for,
                   authorized_keys=Path(authorized_keys) if authorized_keys is not None else None,
                   open_door=open_door,
                   host_key=load_host_key(Path(host_key_path) if host_key_path else None),
                   idle=idle, kill_after=kill_after, max_sessions=max_sessions,
                   login_timeout=login_timeout, max_startups=max_startups,
                   startups_per_peer=startups_per_peer,
                   sessions_per_connection=sessions_per_connection,
                   sessions_per_key=sessions_per_key, max_size=max_size)
    if not open_door:
        door.authorized()                  # a missing or broken file is said at start
    await door.start(host, port)
    if zygote:
        from tactical_tui.net.zygote import Zygote
        door.zygote = Zygote()
        try:
            await door.zygote.start(child_env("xterm-256color", "en"))
        except OSError as exc:
            log.warning("no session zygote (%s): every session starts a new Python", exc)
            door.zygote = None
    log.info("SSH front door on %s:%d (%s), host key %s", host, door.port,
             "open" if open_door else f"keys of {authorized_keys}", door.fingerprint)
    return door


class _Server(asyncssh.SSHServer):
    """One SSH connection: authentication, then one game session per session channel.

    Until a game runs on it, the connection *waits* (door.waiting: counted against the
    startups, in all and of its peer) and has `login_timeout` seconds to log in and start
    one; the same again once its last game has ended."""

    def __init__(self, door: SSHDoor) -> None:
        self._door = door
        self._conn: Optional[asyncssh.SSHServerConnection] = None
        self._keys: Optional[AuthorizedKeys] = None
        self._grant: Optional[Grant] = None      # the login's key, and what it may do
        self.peer = "?"
        self.addr = "?"
        self.admitted = False
        self.closed = False
        self.authenticated = False
        self.running = 0                         # its games running now
        self.channels = 0                        # its session channels open now
        self._timer: Optional[asyncio.TimerHandle] = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self.addr = str(peer[0]) if peer else "?"
        self.peer = peer_of(self.addr)
        why = self._door.admit(self)
        if why is not None:                      # closed before a byte of SSH is spent
            self._door.refused(self.peer, "connection refused", why)
            conn.abort()
            return
        self.admitted = True
        self._door._conns.add(conn)
        log.debug("SSH connection from %s", self.addr)
        self._wait()

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if not self.admitted or self.closed:
            return
        self.closed = True
        self._unwait()
        if self._conn is not None:
            self._door._conns.discard(self._conn)
        log.debug("SSH connection from %s closed%s", self.addr,
                  f": {exc}" if exc is not None else "")

    def auth_completed(self) -> None:
        self.authenticated = True

    # -- waiting for a game
    def _wait(self) -> None:
        if self.closed or self in self._door.waiting.get(self.peer, ()):
            return
        self._door.waiting.setdefault(self.peer, []).append(self)
        if self._door.login_timeout > 0:
            self._timer = asyncio.get_running_loop().call_later(self._door.login_timeout,
                                                                self._too_long)

    def _unwait(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        conns = self._door.waiting.get(self.peer)
        if conns and self in conns:
            conns.remove(self)
            if not conns:
                del self._door.waiting[self.peer]

    def _too_long(self) -> None:
        self._timer = None
        log.debug("SSH connection from %s: no game within %g s, closed", self.addr,
                  self._door.login_timeout)
        self.drop()

    def drop(self) -> None:
        """Close this connection (a login or a game that did not come in time, or room
        made for another peer's); what it counted is given back at once."""
        self._unwait()
        if self._conn is None:
            return
        if self.authenticated:
            self._conn.disconnect(asyncssh.DISC_BY_APPLICATION, "no game started in time")
        else:
            self._conn.abort()

    def game_started(self) -> None:
        self.running += 1
        self._unwait()

    def game_ended(self) -> None:
        self.running -= 1
        if not self.running:
            self._wait()

    def begin_auth(self, username: str) -> bool:
        if self._door.open_door:
            return False                                # anyone, as a guest
        try:
            self._keys = self._door.authorized()
        except DoorError as exc:
            said = self._door.auth_log.note("the keys file")
            if said:
                log.error("%s: nobody is let in until it is fixed (%d logins refused "
                          "since the last such line)", exc.text("en"), said)
            self._keys = None
        return True

    def public_key_auth_supported(self) -> bool:
        return not self._door.open_door

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """A key of the authorized keys, as its first line that lets it in from this
        address now allows it (authkeys.py: ``from=``, ``expiry-time``, ``no-pty``,
        ``restrict``, ``command=``, …; asyncssh enforces none of them for a key validated
        here). The last key found good is the one the login is made with: asyncssh checks
        the signature of a key only after this has accepted that key."""
        assert self._conn is not None
        peer = self._conn.get_extra_info("peername")
        addr = peer[0] if peer else ""
        def say(line: int, text: str) -> None:
            said = self._door.auth_log.note(f"{self.peer} {key.get_fingerprint()} {line}")
            if said:
                log.warning("%s (from %s; %d since the last such line)", text, self.peer, said)
        grant = self._keys.admit(key, addr, say=say) if self._keys is not None else None
        if grant is None:
            return False
        self._grant = grant
        return True

    def session_requested(self):
        """A session channel: refused outright (no message) when the connection already
        holds many more than its games' share; else the session says any refusal."""
        assert self._conn is not None
        if self._door._closing:
            return False
        if self.channels >= self._door.sessions_per_connection + CHANNELS_PER_CONNECTION:
            self._door.refused(self.peer, "session channel refused", "channels")
            return False
        name = player_name(self._conn.get_extra_info("username"))
        grant = self._grant
        self.channels += 1
        return _Session(self._door, name, self.addr,
                        player_dir(grant.fingerprint if grant else None, name),
                        back_command(name, self._conn.get_extra_info("sockname")), grant,
                        server=self)

    @property
    def owner(self) -> str:
        """Whose games these are, for SESSIONS_PER_KEY: the key; at an open door, the peer."""
        return f"key {self._grant.fingerprint}" if self._grant is not None else f"peer {self.peer}"


def back_command(name: str, sockname) -> Optional[str]:
    """How this player comes back: ``ssh -p PORT NAME@ADDRESS``, the address and port
    the client reached (the child says it when the player leaves, or the host stops:
    TACTICAL_SSH_BACK)."""
    import shlex
    if not sockname:
        return None
    return f"ssh -p {sockname[1]} {shlex.quote(name)}@{sockname[0]}"


def player_dir(key: Optional[str], name: str) -> Path:
    """The data folder of a player's child (TACTICAL_SAVE_DIR and TACTICAL_CONFIG_DIR):
    per key with authorized keys, per name at an open door. Every session runs as the
    host's user, and ``tactical join`` keeps its seat tokens in its data folder: without
    a folder per player, anyone let in could take another's seat by logging in under
    their name. A player who comes back with the same key (or, at an open door, the same
    name) finds their seats, and their settings, again."""
    import hashlib
    who = f"key {key}" if key is not None else f"name {name}"
    tag = hashlib.sha256(who.encode("utf-8")).hexdigest()[:24]
    return host_dir() / "players" / (tag if key is not None else f"guest-{tag}")


def idle_message(idle: float) -> tuple[str, int]:
    """The i18n key and count of the message of a session closed after `idle` seconds
    without a key: in minutes from a minute on, else in seconds."""
    if idle >= 60:
        return "ssh.idle", round(idle / 60)
    return "ssh.idle_s", max(1, round(idle))


def _status(returncode: Optional[int]) -> int:
    if returncode is None or returncode == 0:
        return 0
    return returncode if returncode > 0 else 128 - returncode


class _Session(asyncssh.SSHServerSession):
    """One SSH session: one child in one pty, from session start to the child's reaping."""

    def __init__(self, door: SSHDoor, name: str, peer: str, folder: Path,
                 back: Optional[str] = None, grant: Optional[Grant] = None,
                 server: Optional[_Server] = None) -> None:
        self._door = door
        self.server = server             # the connection's (its limits, its key)
        self._counted = False            # the channel is counted in server.channels
        self.grant = grant               # None at an open door: anyone, the game
        self.name = name
        self.back = back
        self._peer = peer
        self.folder = folder
        self._chan: Optional[asyncssh.SSHServerChannel] = None
        self._loop = asyncio.get_running_loop()
        self.proc: Optional[asyncio.subprocess.Process] = None
        self._master: Optional[int] = None
        self._reading = False            # the master is watched for the child's output
        self._paused = False             # the channel's write buffer is full
        self._pending = bytearray()      # keys not yet taken by the pty
        self._gone = False               # the channel is closed (client gone)
        self._eof = False                # the client sends no more keys
        self._ending: Optional[str] = None
        self._killed = False
        self._last_key = self._loop.time()
        self._idle_timer: Optional[asyncio.TimerHandle] = None
        self._kill_timer: Optional[asyncio.TimerHandle] = None
        self.lang = "en"

    # -- asyncssh callbacks
    def connection_made(self, chan) -> None:
        self._chan = chan
        self._counted = self.server is not None

    def pty_requested(self, term_type, term_size, term_modes) -> bool:
        """Refused to a key whose line allows it no terminal (``no-pty``, ``restrict``),
        as sshd does; the session then says why."""
        if self.grant is not None and not self.grant.pty:
            log.info("pty of %s (%s) refused: key %s, line %d allows no terminal",
                     self.name, self._peer, self.grant.fingerprint, self.grant.line)
            return False
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return True      # accepted so that the client reads why nothing but the game runs

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def session_started(self) -> None:
        """A refusal is said here, at once (before any EOF or close of the client's can
        be processed); a session with a pty starts its child."""
        chan = self._chan
        assert chan is not None
        env = chan.get_environment()
        # the language the client names; else the one this player had last time (by key,
        # or name at an open door); what is used is remembered for next time
        tag = LangMemory.tag(self.grant.fingerprint if self.grant is not None else None, self.name)
        given = given_lang(env)
        self.lang = given or self._door.langs.get(tag) or client_lang(env)
        refusal = self.grant.refusal() if self.grant is not None else None
        if refusal is not None:
            assert self.grant is not None
            log.info("session of %s (%s) refused: key %s, line %d allows %s", self.name,
                     self._peer, self.grant.fingerprint, self.grant.line,
                     "only a command" if self.grant.command else "no terminal")
            self._say(refusal, stderr=True, fingerprint=self.grant.fingerprint)
            return self._exit(1)
        if chan.get_terminal_type() is None:
            log.info("session of %s (%s) without a pty: refused", self.name, self._peer)
            self._say("ssh.no_pty", stderr=True)
            return self._exit(1)
        door, server = self._door, self.server
        if server is not None:
            on_conn = sum(1 for s in door.sessions if s.server is server)
            if on_conn >= door.sessions_per_connection:
                door.refused(server.peer, "session refused", "sessions of one connection")
                self._say("ssh.conn_full", n=door.sessions_per_connection)
                return self._exit(1)
            owner = server.owner
            of_owner = sum(1 for s in door.sessions
                           if s.server is not None and s.server.owner == owner)
            if of_owner >= door.sessions_per_key:
                door.refused(server.peer, "session refused", f"sessions of one {owner}")
                self._say("ssh.key_full" if self.grant is not None else "ssh.peer_full",
                          n=door.sessions_per_key)
                return self._exit(1)
        if len(door.sessions) >= door.max_sessions:
            door.refused(server.peer if server is not None else self._peer,
                         "session refused", f"the host is full, {len(door.sessions)} sessions")
            self._say("ssh.full", n=door.max_sessions)
            return self._exit(1)
        door.sessions.add(self)
        if given is not None:           # remembered for an admitted session only (review)
            door.langs.put(tag, given)
        if server is not None:
            server.game_started()
        door.spawn(self._run(chan, env))

    def data_received(self, data: bytes, datatype) -> None:
        self._last_key = self._loop.time()
        self._pending += data
        self._flush_keys()

    def eof_received(self) -> bool:
        """The client will send no more keys (its stdin ended: ``ssh -tt host < file``).
        The channel stays open the other way, for what the session still has to say; a
        running child is hung up, as no key can reach it any more."""
        self._eof = True
        if self.proc is not None:
            self.end("eof")
        return True

    def pause_writing(self) -> None:
        self._paused = True
        self._watch_output()

    def resume_writing(self) -> None:
        self._paused = False
        self._watch_output()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int,
                              pixheight: int) -> None:
        if self._master is not None:
            _set_size(self._master, *self._size(width, height, pixwidth, pixheight))

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self._gone = True
        if self._counted:
            self._counted = False
            self.server.channels -= 1
        self.end("gone")

    def _size(self, cols: int, rows: int, pw: int = 0, ph: int = 0) -> tuple[int, int, int, int]:
        return clamp_size(cols, rows, pw, ph, self._door.max_size)

    # -- the session
    def end(self, why: str) -> None:
        """Hang the child up (it saves and leaves); SIGKILL after kill_after seconds."""
        if self._ending is not None:
            return
        self._ending = why
        log.info("session of %s (%s) ends: %s", self.name, self._peer, why)
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self.proc is not None and self.proc.returncode is None:
            self._signal(signal.SIGHUP)
            self._kill_timer = self._loop.call_later(self._door.kill_after, self._kill)

    def _kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self._killed = True
            self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, sig)         # the child leads a process group
        except (ProcessLookupError, PermissionError):
            pass

    async def _run(self, chan, env: Mapping[str, str]) -> None:
        try:
            await self._play(chan, env)
        finally:
            self._door.sessions.discard(self)
            if self.server is not None:
                self.server.game_ended()

    async def _play(self, chan, env: Mapping[str, str]) -> None:
        cols, rows, pw, ph = self._size(*chan.get_terminal_size())
        if cols <= 0 or rows <= 0:
            cols, rows = DEFAULT_SIZE
        try:
            master, slave = os.openpty()
        except OSError as exc:                   # no pty left, no file descriptor left
            log.error("session of %s: no pty: %s", self.name, exc)
            self._say("ssh.start_failed", error=plain(_reason(exc)))
            return self._exit(1)
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            _set_size(slave, cols, rows, pw, ph)
            command = list(self._door.command_for(self.name, self.lang))
            child = child_env(client_term(chan.get_terminal_type()), self.lang, env,
                              self.folder, self.back)
            zygote = self._door.zygote
            if (zygote is not None and zygote.alive
                    and command[:3] == [sys.executable, "-m", SESSION_MODULE]):
                try:
                    self.proc = await zygote.spawn(SESSION_MODULE, command[3:], child, slave)
                except OSError as exc:
                    log.warning("session of %s: not forked (%s): started anew", self.name, exc)
            if self.proc is None:
                self.proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-I", "-S", "-c", _CTTY, *command,
                    stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                    env=child)
        except OSError as exc:
            os.close(master)
            log.error("session of %s: the game could not start: %s", self.name, exc)
            self._say("ssh.start_failed", error=plain(_reason(exc)))
            return self._exit(1)
        finally:
            os.close(slave)
        log.info("session of %s (%s): pid %d, %dx%d, %s, TERM=%s", self.name, self._peer,
                 self.proc.pid, cols, rows, self.lang, chan.get_terminal_type())
        self._master = master
        os.set_blocking(master, False)
        _set_size(master, *self._size(*chan.get_terminal_size()))   # a resize meanwhile
        self._reading = True
        self._watch_output()
        self._flush_keys()
        if self._ending is not None:             # the client left while it started
            why, self._ending = self._ending, None
            self.end(why)
        elif self._eof:
            self.end("eof")
        elif self._door.idle > 0:
            self._idle_timer = self._loop.call_later(self._door.idle, self._idle_check)
        try:
            returncode = await self.proc.wait()
        finally:
            self._close_pty()
        if self._gone:
            return
        if self._killed:
            self._send(_RESET)
        if self._ending == "idle":
            self._say(*idle_message(self._door.idle))
        elif self._ending == "stopping":         # after the child's line (the seat is kept)
            self._say("ssh.stopping")
        self._exit(_status(returncode))

    def _close_pty(self) -> None:
        """After the child's exit: what it wrote last to the client, the rest of its
        process group killed, the pty closed, the timers stopped."""
        master = self._master
        if self._kill_timer is not None:
            self._kill_timer.cancel()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if master is None:
            return
        self._reading = False
        self._watch_output()
        try:
            while not self._gone:
                data = os.read(master, 65536)
                if not data:
                    break
                self._send(data)
        except OSError:                          # EAGAIN: all read; EIO: no writer left
            pass
        self._signal(signal.SIGKILL)             # anything the child left in its group
        self._loop.remove_writer(master)
        self._master = None
        os.close(master)

    def _watch_output(self) -> None:
        if self._master is None:
            return
        if self._reading and not self._paused and not self._gone:
            self._loop.add_reader(self._master, self._output)
        else:
            self._loop.remove_reader(self._master)

    def _output(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except BlockingIOError:
            return
        except OSError:                          # EIO: the child closed the pty
            data = b""
        if not data:
            self._reading = False
            self._watch_output()
            self.end("closed")                   # wait() follows; hang up any straggler
            return
        self._send(data)

    def _send(self, data: bytes) -> None:
        if self._gone:
            return
        try:
            self._chan.write(data)
        except OSError:                          # closing: connection_lost follows
            self._gone = True
            self._reading = False
            self._watch_output()

    def _flush_keys(self) -> None:
        """Give the pty what it takes of the pending keys; pause the channel while some
        are left (a child that does not read stops the client, not the host's memory)."""
        if self._gone:
            self._pending.clear()
            return
        if self._master is None:
            if self._pending and self._chan is not None:
                self._chan.pause_reading()
            return
        try:
            while self._pending:
                n = os.write(self._master, self._pending)
                del self._pending[:n]
        except BlockingIOError:
            pass
        except OSError:                          # the child is gone
            self._pending.clear()
        if self._pending:
            self._chan.pause_reading()
            self._loop.add_writer(self._master, self._flush_keys)
        else:
            self._loop.remove_writer(self._master)
            self._chan.resume_reading()

    def _idle_check(self) -> None:
        left = self._last_key + self._door.idle - self._loop.time()
        if left > 0:
            self._idle_timer = self._loop.call_later(left, self._idle_check)
        else:
            self.end("idle")

    def _say(self, key: str, n: Optional[int] = None, stderr: bool = False,
             **kw: object) -> None:
        """A message of the door's own in the client's language, broken to its width."""
        assert self._chan is not None
        cols = self._size(*self._chan.get_terminal_size())[0] or DEFAULT_SIZE[0]
        if n is not None:
            kw["n"] = n
        lines = break_lines(t(key, self.lang, **kw), max(20, cols - 1))
        data = ("\r\n".join(lines) + "\r\n").encode("utf-8")
        if not stderr:
            self._send(data)
        elif not self._gone:
            try:
                self._chan.write_stderr(data)
            except OSError:
                self._gone = True

    def _exit(self, status: int) -> None:
        try:
            self._chan.exit(status)
        except OSError:
            pass


def _set_size(fd: int, cols: int, rows: int, pw: int = 0, ph: int = 0) -> None:
    """TIOCSWINSZ: the kernel sends SIGWINCH to the pty's foreground process group (when
    the size is another than before). A size of 0 (unknown) is left as it is. The size
    comes clamped (clamp_size): nothing of the client's reaches the ioctl unchecked."""
    if cols <= 0 or rows <= 0:
        return
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, pw, ph))
    except (OSError, struct.error):
        pass
