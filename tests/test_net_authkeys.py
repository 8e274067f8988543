"""The SSH front door's authorized_keys (tactical_tui/net/authkeys.py): options read as
sshd reads them (man 5 sshd, AUTHORIZED_KEYS FILE FORMAT) and what each one means for a
door that only runs the game in a pty. The logins themselves: tests/test_net_ssh.py."""

from __future__ import annotations

import calendar
import os
import time

import asyncssh
import pytest

from tactical_tui.net.authkeys import AuthorizedKeys, OptionError, expiry_time, parse_options

KEY = asyncssh.generate_private_key("ssh-ed25519")
PUB = KEY.export_public_key().decode().strip()
PUBLIC = KEY.convert_to_public()
HERE = "127.0.0.1"


def grant(options: str, addr: str = HERE, now=None):
    return AuthorizedKeys(f"{options} {PUB} comment").admit(PUBLIC, addr, now)


@pytest.fixture
def tokyo(monkeypatch):
    """The host's local time is JST (UTC+9, no summer time; a POSIX TZ, no tz data)."""
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_options_are_parsed_as_sshd_does_names_in_any_case_values_in_quotes():
    assert parse_options('No-PTY,restrict,PTY,command="say \\"hi\\", then, go",'
                         'FROM="a,b"') == [("pty", False), ("restrict", True), ("pty", True),
                                           ("command", 'say "hi", then, go'),
                                           ("from", "a,b")]
    for bad in ("no-ptyy", "no-restrict", "pty=\"1\"", "command", "command=ls",
                'command="ls', "no-pty,", ",no-pty", "no-pty,,pty", 'from="a"x',
                "subject=\"CN=x\""):
        with pytest.raises(OptionError):
            parse_options(bad)


def test_expiry_time_is_local_time_unless_z_as_sshd_reads_it(tokyo):
    utc = calendar.timegm((2026, 1, 1, 0, 0, 0))
    assert expiry_time("20260101Z") == expiry_time("20260101utc") == utc
    assert expiry_time("20260101") == utc - 9 * 3600                  # midnight in Tokyo
    assert expiry_time("202601010930") == utc + 30 * 60
    assert expiry_time("20260101093015Z") == utc + 9 * 3600 + 30 * 60 + 15
    for bad in ("2026010", "202601011", "20261301", "20260230", "20260101250000",
                "2026-01-01", " 20260101", "20260101Zulu", "19691231Z", "19700101Z", ""):
        with pytest.raises(ValueError):
            expiry_time(bad)


def test_a_key_is_admitted_until_its_expiry_second_and_refused_after(tokyo):
    end = expiry_time("20300101Z")
    assert grant('expiry-time="20300101Z"', now=end) is not None         # sshd: not before
    assert grant('expiry-time="20300101Z"', now=end + 1) is None
    assert grant('expiry-time="20300101"', now=end - 9 * 3600 + 1) is None   # local midnight
    # several: the earliest counts
    assert grant('expiry-time="20400101Z",expiry-time="20300101Z"', now=end + 1) is None


def test_what_a_line_allows_its_key():
    assert (grant("").pty, grant("").command) == (True, False)
    assert grant("no-pty").pty is False
    assert grant("restrict").pty is False
    assert grant("restrict,pty").pty is True
    assert grant("pty,restrict").pty is False                   # in order, as sshd
    assert grant('command="ls"').command is True
    assert grant("no-pty").refusal() == "ssh.key_no_pty"
    assert grant('restrict,pty,command="ls"').refusal() == "ssh.key_command"
    assert grant("restrict,pty").refusal() is None


def test_options_for_what_the_door_never_does_are_harmless():
    harmless = ('no-port-forwarding,port-forwarding,permitopen="host:22",permitlisten="8080",'
                'no-agent-forwarding,agent-forwarding,no-X11-forwarding,X11-forwarding,'
                'no-user-rc,user-rc,environment="A=b",tunnel="1",no-touch-required,'
                'touch-required,no-verify-required')
    found = grant(harmless)
    assert found is not None and found.refusal() is None


def test_lines_the_door_cannot_honour_let_nobody_in():
    for options in ("cert-authority", 'principals="alice"', "verify-required",
                    'environment="novalue"', 'permitopen="no-port"'):
        assert grant(options) is None, options


def test_the_first_line_of_a_key_that_lets_it_in_counts_from_honoured():
    keys = AuthorizedKeys(f'expiry-time="20000101" {PUB}\n'
                          f'from="10.0.0.0/8" {PUB}\n'
                          f'no-pty {PUB}\n'
                          f'{PUB}\n')
    assert keys.admit(PUBLIC, HERE).line == 3
    assert keys.admit(PUBLIC, "10.1.2.3").line == 2
    other = asyncssh.generate_private_key("ssh-ed25519").convert_to_public()
    assert keys.admit(other, HERE) is None


def test_a_file_without_a_key_is_an_error_and_lines_without_one_are_skipped():
    with pytest.raises(ValueError):
        AuthorizedKeys("# nothing\n\nssh-ed25519 not-base64!!\n")
    keys = AuthorizedKeys(f'garbage line\ncommand="unterminated {PUB}\n  {PUB}  \n')
    assert [line.number for line in keys.lines] == [3]


def test_lines_end_at_newline_only_as_sshd_reads_them():
    """str.splitlines broke lines at \\r, \\x0b, \\x1c, \\u2028…: a commented-out key came
    back, a from= or restrict was cut off from its key."""
    for sep in ("\x1c", "\u2028", "\x0b", "\r"):
        with pytest.raises(ValueError):                          # a comment, whole
            AuthorizedKeys(f"#disabled{sep}{PUB}\n")
    keys = AuthorizedKeys(f'from="10.0.0.0/8"\r{PUB}\n{PUB} other\n')
    grant = keys.admit(PUBLIC, "203.0.113.5")
    assert grant is not None and grant.line == 2                 # line 1 lets nobody in
    with pytest.raises(ValueError):                              # not a blank: no key
        AuthorizedKeys(f"restrict\x0b{PUB}\n")
    crlf = AuthorizedKeys(f"# keys\r\n{PUB} alice\r\n").admit(PUBLIC, HERE)   # a CRLF file
    assert crlf is not None and crlf.pty and crlf.line == 2


def test_expiry_digits_are_ascii_only():
    assert grant('expiry-time="٢٠٩٩٠١٠١"') is None                # Arabic-Indic digits, 2099
    assert grant('expiry-time="20990101"') is not None


def test_the_file_is_read_bounded_and_never_from_a_pipe(tmp_path):
    import os
    import threading

    from rules.files import FileProblem
    fifo = tmp_path / "ak"
    os.mkfifo(fifo)
    done = []
    worker = threading.Thread(target=lambda: done.append(
        pytest.raises(FileProblem, AuthorizedKeys.read, fifo)), daemon=True)
    worker.start()
    worker.join(5)
    assert done, "reading a named pipe blocked"
    big = tmp_path / "big"
    big.write_bytes(b"#" * (AuthorizedKeys.MAX_BYTES + 1))
    with pytest.raises(FileProblem):
        AuthorizedKeys.read(big)


def test_emptying_or_removing_the_file_takes_every_key_back(tmp_path):
    """The door kept the last keys read when the file was emptied, held only comments or
    was removed: taking keys back did not work. Now nobody is let in until it is fixed."""
    from tactical_tui.net.sshdoor import DoorError, SSHDoor
    ak = tmp_path / "ak"
    ak.write_text(PUB + "\n", encoding="utf-8")
    door = SSHDoor(command_for=lambda *a: None, authorized_keys=ak, open_door=False,
                   host_key=KEY, idle=0, kill_after=1, max_sessions=4)
    assert door.authorized().admit(PUBLIC, HERE) is not None
    def replace(text):
        ak.unlink()
        ak.write_text(text, encoding="utf-8")

    for take_back in (lambda: replace(""), lambda: replace("# all revoked\n"), ak.unlink,
                      lambda: (ak.unlink(), os.mkfifo(ak))):
        if os.path.lexists(ak):
            ak.unlink()
        ak.write_text(PUB + "\n", encoding="utf-8")
        assert door.authorized().admit(PUBLIC, HERE) is not None
        take_back()
        with pytest.raises(DoorError):
            door.authorized()
        with pytest.raises(DoorError):                           # and stays so
            door.authorized()
