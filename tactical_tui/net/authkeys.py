"""The ``--authorized-keys`` file of the SSH front door, read as OpenSSH's sshd reads an
``authorized_keys`` file (``man 5 sshd``, AUTHORIZED_KEYS FILE FORMAT), and what each
option of a line means for a door that only ever runs the game, in a pty.

asyncssh reads such a file too (``asyncssh.read_authorized_keys``), and its server
enforces some options (``no-pty``, ``command``, ``permitopen``, the ``no-*-forwarding``
ones) — but only for keys it validates itself, from ``authorized_client_keys``. The door
validates keys itself (``validate_public_key``: it must know which key logged in, and
it reads the file again when it changes), so asyncssh's enforcement never applies to it;
and asyncssh knows neither ``expiry-time`` nor ``restrict``. Here is the door's reading:

* Lines in order, the first line of the key that lets it in counts (as sshd: a line
  that refuses the key — expired, another address — goes on to the next line).
* Options as sshd parses them: names in any case, values in double quotes (``\\"`` in
  one); an unknown option, a value without quotes, a malformed value refuse the line,
  as they make sshd refuse it.
* ``from="…"``: honoured (asyncssh's patterns: ``!`` negation, ``*`` / ``?``, CIDR).
* ``expiry-time="YYYYMMDD[HHMM[SS]][Z|UTC]"``: the key is refused after that time (local
  time unless ``Z``/``UTC``; at that very second still admitted, as sshd compares); the
  earliest of several counts; a date that does not exist refuses the line.
* ``no-pty``, ``restrict`` without a later ``pty``: the key may have no terminal. Its
  login is let in (as sshd does) but its pty is refused, and every session of it is told
  why and closed: there is no game without a terminal.
* ``command="…"``: the key may only run that command; the door runs none, so each of
  its sessions is told so and closed (no game, nothing run).
* ``cert-authority``: a CA key for user certificates. The door takes no certificates,
  and the CA key does not log in by itself (as sshd: "Key is CA, but not cert"): the line
  lets nobody in. ``principals`` is for such lines; on a plain key sshd refuses the line,
  and so does the door.
* ``verify-required``: asks for a security key's user verification (a PIN), which
  asyncssh does not check: the line is refused rather than the key let in unverified.
  ``no-touch-required`` is not honoured: the door always requires the touch (stricter).
* Harmless, accepted: what the door never does anyway — ``no-port-forwarding`` /
  ``port-forwarding``, ``permitopen``, ``permitlisten``, ``no-agent-forwarding`` /
  ``agent-forwarding``, ``no-X11-forwarding`` / ``X11-forwarding``, ``no-user-rc`` /
  ``user-rc``, ``environment``, ``tunnel`` (asyncssh's defaults refuse every forwarding;
  the door runs no rc file and passes no environment of a key to its child).
"""

from __future__ import annotations

import datetime
import logging
import re
import time
from pathlib import Path
from typing import Callable, Optional

import asyncssh
import attrs

from tactical_tui.text.safe import plain

log = logging.getLogger("tactical.ssh")

# sshd's flag options (auth-options.c, sshauthopt_parse): name -> "no-" may negate it
_FLAGS = {"restrict": False, "cert-authority": False, "port-forwarding": True,
          "agent-forwarding": True, "x11-forwarding": True, "touch-required": True,
          "verify-required": True, "pty": True, "user-rc": True}
# sshd's options with a value (always in double quotes)
_VALUED = frozenset({"command", "principals", "from", "expiry-time", "environment",
                     "permitopen", "permitlisten", "tunnel"})
_EXPIRY = re.compile(r"([0-9]{8}|[0-9]{12}|[0-9]{14})(z|utc)?", re.IGNORECASE)   # ASCII digits only
_NAME_END = re.compile(r"[=, \t]")


class OptionError(ValueError):
    """The options of a line, as sshd would refuse them (the reason, for the log)."""


def parse_options(text: str) -> list[tuple[str, object]]:
    """The options at the head of an authorized_keys line, in order, as sshd parses them:
    ``(name, True/False)`` for a flag (``no-x`` is ``("x", False)``), ``(name, value)``
    for an option with a value; names in lower case. `text` is the options part alone
    (up to the key). Raises OptionError where sshd refuses the line."""
    out: list[tuple[str, object]] = []
    i = 0
    while True:
        end = _NAME_END.search(text, i)
        j = end.start() if end else len(text)
        name = text[i:j].lower()
        if j < len(text) and text[j] == "=":
            if name not in _VALUED:
                raise OptionError(f"unknown option {plain(text[i:j])}=")
            if not text.startswith('"', j + 1):
                raise OptionError(f"{name}= without its value in double quotes")
            value, j = _dequote(text, j + 2, name)
            out.append((name, value))
        elif name in _FLAGS:
            out.append((name, True))
        elif name.startswith("no-") and _FLAGS.get(name[3:]):
            out.append((name[3:], False))
        else:
            raise OptionError(f"unknown option {plain(text[i:j])!r}" if name else "empty option")
        if j == len(text):
            return out
        if text[j] != ",":
            raise OptionError(f"{plain(text[j:j + 1])!r} after {name}")
        i = j + 1


def _dequote(text: str, i: int, name: str) -> tuple[str, int]:
    """The value of a quoted option from just after its opening quote: up to the next
    quote, ``\\"`` standing for a quote (sshd's opt_dequote); and the index after it."""
    value: list[str] = []
    while i < len(text) and text[i] != '"':
        if text[i] == "\\" and text.startswith('"', i + 1):
            i += 1
        value.append(text[i])
        i += 1
    if i == len(text):
        raise OptionError(f"{name}= without its closing quote")
    return "".join(value), i + 1


def expiry_time(value: str) -> int:
    """The time (seconds since the epoch) of an ``expiry-time`` value, as sshd's
    parse_absolute_time reads it: YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in UTC with a
    ``Z`` (or ``UTC``) after it, else in the host's local time. ValueError for anything
    else, a date or time that does not exist, or one before 1970."""
    found = _EXPIRY.fullmatch(value)
    if not found:
        raise ValueError(value)
    digits, utc = found.groups()
    fields = [int(digits[k:k + 2]) for k in range(4, len(digits), 2)]
    moment = datetime.datetime(int(digits[:4]), *fields)       # ValueError: no such time
    if utc:
        seconds = moment.replace(tzinfo=datetime.timezone.utc).timestamp()
    else:
        seconds = time.mktime(moment.timetuple())             # local, summer time or not
    if seconds <= 0:
        raise ValueError(value)
    return int(seconds)


@attrs.frozen
class Grant:
    """What the line that let a key in allows it: a terminal (``pty``), or only a
    forced command (``command``). ``fingerprint`` names the key, ``line`` the line."""

    fingerprint: str
    line: int = 0
    pty: bool = True
    command: bool = False

    def refusal(self) -> Optional[str]:
        """The i18n key of what each session of this login is told instead of a game:
        ``ssh.key_command`` (only a command), ``ssh.key_no_pty`` (no terminal), or None
        (the game)."""
        if self.command:
            return "ssh.key_command"
        if not self.pty:
            return "ssh.key_no_pty"
        return None


class _Line:
    """One key line of the file: its key, what its options allow, and asyncssh's reading
    of it (the key and its ``from=`` patterns), or why it lets nobody in."""

    def __init__(self, number: int, text: str, key: asyncssh.SSHKey, options_text: str) -> None:
        self.number = number
        self.key = key
        self.fingerprint = key.get_fingerprint()
        self.refused: Optional[str] = None   # why the line lets nobody in, whenever
        self.expires: Optional[int] = None
        self.expiry_text = ""
        self.pty = True
        self.command = False
        self.entry: Optional[asyncssh.SSHAuthorizedKeys] = None
        try:
            self._read(text, options_text)
        except (OptionError, ValueError, asyncssh.KeyImportError) as exc:
            self.refused = str(exc) or type(exc).__name__

    def _read(self, text: str, options_text: str) -> None:
        options = parse_options(options_text) if options_text else []
        names = [name for name, _ in options]
        for name, value in options:
            if name == "restrict":
                self.pty = False
            elif name == "pty":
                self.pty = bool(value)
            elif name == "command":
                self.command = True
            elif name == "expiry-time":
                assert isinstance(value, str)
                try:
                    when = expiry_time(value)
                except ValueError:
                    raise OptionError(f'expiry-time="{plain(value)}" is no date '
                                      "(YYYYMMDD[HHMM[SS]][Z])") from None
                if self.expires is None or when < self.expires:
                    self.expires, self.expiry_text = when, value
            elif name == "verify-required" and value:
                raise OptionError("verify-required: the door cannot check a security "
                                  "key's user verification")
        if "cert-authority" in names:
            raise OptionError("cert-authority: a CA key, for certificates, which the door "
                              "does not take")
        if "principals" in names:
            raise OptionError("principals= on a key that is no cert-authority")
        # asyncssh's own reading of the line: its key and from= (bad patterns, a bad
        # permitopen or environment raise ValueError here)
        self.entry = asyncssh.import_authorized_keys(text)

    def admits(self, key: asyncssh.SSHKey, addr: str, now: int) -> Optional[str]:
        """None when this line lets `key` in from `addr` at `now`, else why not."""
        if self.refused is not None:
            return self.refused
        if self.expires is not None and now > self.expires:
            when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(self.expires))
            return f'expired at {when} (expiry-time="{plain(self.expiry_text)}")'
        assert self.entry is not None
        if self.entry.validate(key, addr, addr) is None:
            return f"not from {plain(addr)} (from=)"
        return None


def _key_at(text: str) -> tuple[asyncssh.SSHKey, int]:
    """The public key of a line and where it starts, as sshd finds it: the whole line is
    a key, or options come first, up to the first blank outside double quotes (``\\"``
    quotes nothing), and then the key. KeyImportError when there is none."""
    try:
        return asyncssh.import_public_key(text), 0
    except (asyncssh.KeyImportError, ValueError):
        pass
    i, quoted = 0, False
    while i < len(text) and (quoted or text[i] not in " \t"):
        if text[i] == "\\" and text.startswith('"', i + 1):
            i += 1
        elif text[i] == '"':
            quoted = not quoted
        i += 1
    start = len(text) - len(text[i:].lstrip(" \t"))
    if quoted or start == len(text):
        raise asyncssh.KeyImportError("no public key")
    try:
        return asyncssh.import_public_key(text[start:]), start
    except ValueError as exc:              # KeyImportError is one
        raise asyncssh.KeyImportError(str(exc)) from None


class AuthorizedKeys:
    """The keys of an authorized_keys file, each line with what it allows."""

    def __init__(self, text: str, name: str = "authorized_keys") -> None:
        self.name = name
        self.lines: list[_Line] = []
        # lines end at "\n" only, as sshd reads them (str.splitlines also breaks at "\r",
        # "\x0b", "\x1c", "\u2028"…: `#off\x1c<key>` became a key, `from="…"\r<key>` a key
        # without its from=); a CRLF file's "\r" is taken off the end
        for number, raw in enumerate(text.split("\n"), 1):
            line = raw.removesuffix("\r").strip(" \t")
            if not line or line.startswith("#"):
                continue
            try:
                key, start = _key_at(line)
            except asyncssh.KeyImportError:
                log.warning("%s line %d: no public key (certificates are not taken): "
                            "skipped", plain(name), number)
                continue
            entry = _Line(number, line, key, line[:start].strip())
            if entry.refused is not None:
                log.warning("%s line %d (key %s): %s; this line lets nobody in",
                            plain(name), number, entry.fingerprint, entry.refused)
            self.lines.append(entry)
        if not self.lines:
            raise ValueError("no public key in the file")

    MAX_BYTES = 1024 * 1024     # far more than any real file: ~10,000 keys

    @classmethod
    def read(cls, path: Path) -> "AuthorizedKeys":
        """The regular file at `path`, at most MAX_BYTES (rules.files.FileProblem when it
        is not a regular file, too large or unreadable — a named pipe in its place froze
        the host's event loop; ValueError when it holds no key)."""
        from rules.files import read_bounded
        return cls(read_bounded(path, cls.MAX_BYTES).decode("utf-8", errors="replace"),
                   str(path))

    def admit(self, key: asyncssh.SSHKey, addr: str, now: Optional[float] = None,
              say: Optional[Callable[[int, str], None]] = None) -> Optional[Grant]:
        """The grant of the first line of `key` that lets it in from `addr` now; None
        (and a line in the log for each of its lines that refused) when none does. The
        log line goes through `say(line number, text)` when given (the door's, which says
        each at most once a minute per address: a public key is no secret, and anyone
        offering an expired one could otherwise fill the log)."""
        moment = int(time.time() if now is None else now)
        for line in self.lines:
            if line.key != key:
                continue
            why = line.admits(key, addr, moment)
            if why is None:
                return Grant(line.fingerprint, line.number, line.pty, line.command)
            text = (f"key {line.fingerprint} refused by {plain(self.name)} line "
                    f"{line.number}: {why}")
            if say is not None:
                say(line.number, text)
            else:
                log.warning("%s", text)
        return None
