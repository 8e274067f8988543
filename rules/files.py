"""Reading a data file safely: regular files only, at most a bounded number of bytes.

One reader for every file TACTICAL reads from a path a player gives — card data
(`rules.cards.load_cards`), saves and replays (`tactical_tui.saves.read`) and rule
scenarios (`tactical_tui.scenario.load_scenario`):

* the path is checked with `stat` and only a regular file is opened (a folder, a named
  pipe, a device such as ``/dev/zero`` — also through a symlink — or a socket is refused
  without reading a byte);
* it is opened with ``O_NONBLOCK`` (a named pipe swapped in after the check does not
  block the open) and ``O_NOCTTY``, and the opened descriptor is checked again with
  `fstat`: anything that is not a regular file is refused;
* at most ``cap + 1`` bytes are read, whatever `stat` says the size is, so a file that
  grows while it is read, or lies about its size, never costs more memory than the cap.

Numbers of any size: Python refuses to turn a decimal string of more than
`sys.get_int_max_str_digits()` digits into an int (``ValueError: Exceeds the limit …``),
and json / tomllib let that ValueError out. `is_digit_limit_error` recognises it;
`huge_number_at` finds a number too large for any field of a structured file (TOML's
hexadecimal integers have no digit limit).

It lives in `rules/` because the core reads card data; it imports nothing from `ai/` or
`tactical_tui/`.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from typing import Any, Optional

# The kinds of file a path can name, for the messages (tactical_tui translates them).
KINDS = ("directory", "fifo", "device", "socket", "other")

# Any whole number in a data file must be smaller than this in size: seeds are below
# 2**63, every other number is small. Larger ones are refused before structuring, so no
# message ever has to print a number of thousands of digits.
NUMBER_LIMIT = 2 ** 63
NUMBER_LIMIT_TEXT = "2^63"


class FileProblem(Exception):
    """A file that is not read: `code` is ``not_regular`` (param ``kind``, one of KINDS),
    ``too_large`` (params ``size``: at least this many bytes, ``cap``) or ``os_error``
    (param ``os_error``: the OSError). `str()` is an English sentence."""

    def __init__(self, path: object, code: str, **params: Any) -> None:
        self.path, self.code, self.params = str(path), code, params
        super().__init__(self.english())

    def english(self) -> str:
        p = self.params
        if self.code == "not_regular":
            return f"not a regular file ({KIND_NAMES[p['kind']]})"
        if self.code == "too_large":
            return f"too large: {size_text(p['size'])}; at most {cap_text(p['cap'])}"
        exc = p["os_error"]
        return getattr(exc, "strerror", None) or str(exc)


KIND_NAMES = {"directory": "a folder", "fifo": "a named pipe", "device": "a device",
              "socket": "a socket", "other": "not a file with data"}


def size_text(size: int) -> str:
    """A byte count as people read it: ``52,428,800 bytes (50.0 MB)``."""
    if size < 1024 * 1024:
        return f"{size:,} bytes"
    return f"{size:,} bytes ({size / (1024 * 1024):.1f} MB)"


def cap_text(cap: int) -> str:
    """A size limit: ``2 MB`` (a whole number of MiB) or ``1,000 bytes``."""
    if cap >= 1024 * 1024 and cap % (1024 * 1024) == 0:
        return f"{cap // (1024 * 1024)} MB"
    return f"{cap:,} bytes"


def file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


def read_bounded(path: str | Path, cap: int) -> bytes:
    """The bytes of the regular file at `path`, at most `cap` of them. Raises FileProblem
    (never blocks on a pipe, never reads a device, never reads more than cap + 1 bytes)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise FileProblem(path, "os_error", os_error=exc) from None
    except ValueError:                          # a NUL byte in the name
        raise FileProblem(path, "os_error",
                          os_error=OSError(errno.EINVAL, "invalid file name")) from None
    if not stat.S_ISREG(st.st_mode):
        raise FileProblem(path, "not_regular", kind=file_kind(st.st_mode))
    if st.st_size > cap:
        raise FileProblem(path, "too_large", size=st.st_size, cap=cap)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileProblem(path, "os_error", os_error=exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):      # swapped after the first check
            raise FileProblem(path, "not_regular", kind=file_kind(st.st_mode))
        if st.st_size > cap:
            raise FileProblem(path, "too_large", size=st.st_size, cap=cap)
        chunks: list[bytes] = []
        got = 0
        while got <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > cap:
            raise FileProblem(path, "too_large", size=got, cap=cap)
        return b"".join(chunks)
    except OSError as exc:
        raise FileProblem(path, "os_error", os_error=exc) from None
    finally:
        os.close(fd)


def is_digit_limit_error(exc: BaseException) -> bool:
    """Whether a ValueError from json / tomllib is Python's int-string digit limit."""
    return isinstance(exc, ValueError) and "integer string conversion" in str(exc)


DIGIT_LIMIT = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300


def huge_number_at(raw: Any, limit: int = NUMBER_LIMIT) -> Optional[str]:
    """The path (``config.players``, ``actions[3].seat``) of the first whole number in
    parsed JSON/TOML data whose size is `limit` or more; None if there is none."""
    if not _has_huge_number(raw, limit):    # the common case, without building paths
        return None
    todo: list[tuple[str, Any]] = [("", raw)]
    while todo:
        where, value = todo.pop()
        if type(value) is int:
            if not -limit < value < limit:
                return where or "(top level)"
        elif isinstance(value, dict):
            todo.extend((f"{where}.{k}" if where else str(k), v)
                        for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            todo.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


def _has_huge_number(raw: Any, limit: int) -> bool:
    todo = [raw]
    while todo:
        value = todo.pop()
        if type(value) is int:
            if not -limit < value < limit:
                return True
        elif isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
    return False
