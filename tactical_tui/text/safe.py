"""Data is never markup or terminal control.

Everything the game shows that comes from outside the program's own catalogues — card
and skill names (a player may load any card file with ``--cards``), file paths, the
contents of a save or a scenario, operating-system messages — goes through this module
before it reaches Rich, Textual or the terminal:

* ``plain(s)`` shows every control character visibly as an escape (``\\x1b``, ``\\x07``,
  ``\\n``, ``\\u202e``): C0 and C1 controls, DEL, the bidirectional overrides and isolates, line
  and paragraph separators and lone surrogates (which cannot even be encoded for the
  terminal). A newline is shown as ``\\n`` too, unless ``lines=True`` (text of several
  lines); a tab is kept only with ``lines=True``.
* ``as_text(s)`` / ``lines_text(lines)`` build a ``rich.text.Text``, which neither Rich
  nor Textual parses as markup, so ``[/]``, ``[bold red]`` or ``[link=…]`` in a name is
  shown as written. The interface passes a ``Text`` (never a ``str``, which Textual and
  Rich would parse as markup) to every widget, table cell, log and notification.
* ``SafeStream(stream)`` does the same for plain ``print`` output (``--headless``,
  ``tactical check``, error messages on stderr).

Catalogue text (``text/catalog.py``, ``text/i18n.py``, ``screens/help.py``) holds no markup: square brackets
there (``[n]=attack area``, ``[Round 2]``) are meant literally, so it goes through the
same path.
"""

from __future__ import annotations

from typing import Iterable, TextIO

from rich.text import Text

# Format characters that reorder or hide text: bidi embeddings, overrides, isolates and
# marks (a file name can be made to read backwards with U+202E).
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _shown(cp: int) -> str:
    if cp in _NAMED:
        return _NAMED[cp]
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


# Every character that is never drawn as itself: C0 and C1 controls and DEL (category
# Cc), line and paragraph separators, lone surrogates, and the bidi controls above.
_UNSAFE = sorted({*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
                  *range(0xD800, 0xE000), *_BIDI})
_TABLES: list[dict[int, str]] = []   # (one line, lines): built when first needed (start-up)


def _tables() -> list[dict[int, str]]:
    if not _TABLES:
        one_line = {cp: _shown(cp) for cp in _UNSAFE}
        _TABLES.extend((one_line, {cp: v for cp, v in one_line.items() if cp not in (0x0A, 0x09)}))
    return _TABLES


def plain(s: object, lines: bool = False) -> str:
    """`s` as a string with every control character shown as an escape (``\\x1b``);
    newlines (and tabs) are kept only when `lines` is true."""
    s = s if isinstance(s, str) else str(s)
    if s.isprintable() or (lines and s.replace("\n", "").replace("\t", "").isprintable()):
        return s      # (the common case: nothing to do; `isprintable` is false for Cc/Zl/Zp/Cs)
    return s.translate(_tables()[1 if lines else 0])


def as_text(s: object, style: str = "", lines: bool = False) -> Text:
    """`s` as a `Text` (never parsed as markup), its control characters made visible."""
    return Text(plain(s, lines=lines), style=style)


def lines_text(lines: Iterable[object], style: str = "") -> Text:
    """Several lines as one `Text`; each line is one line (a newline inside it is shown
    as ``\\n``)."""
    return Text("\n".join(plain(x) for x in lines), style=style)


class SafeStream:
    """A text stream that writes `plain(s, lines=True)`: for `print(..., file=...)`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        return self._stream.write(plain(s, lines=True))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
