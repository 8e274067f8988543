"""The card-data cache of the app: what `rules.cards.load_cards` made of a card data file,
kept in the user cache folder so that the next start skips the TOML parsing.

One JSON file per card data file, named by the sha256 of that file's bytes
(``cards-<sha256>.json``), in `cache_dir()`: ``platformdirs.user_cache_dir("tactical")``,
or TACTICAL_CACHE_DIR when set (tests). Never pickle: rules.cards checks every entry it
reads (format, key, the tables through the same strict structuring as a fresh parse, and
their hash against the one recorded) and parses the file afresh when anything is off; a
damaged, foreign or unreadable entry — garbage, cut short, a folder or a named pipe in
its place — is ignored and, where it can be, replaced. Entries are written atomically
(a temporary file in the same folder, then `os.replace`); a folder that cannot be
written leaves the game without a cache, nothing more. At most KEEP entries are kept.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from rules.cards import CardSet

KEEP = 8                         # entries kept (the shipped card set and a few --cards files)
MAX_ENTRY_BYTES = 8 * 1024 * 1024   # a 2 MB card file (the most read) makes less than this
_KEY = re.compile(r"[0-9a-f]{64}")
_NAME = re.compile(r"cards-[0-9a-f]{64}\.json")
TEMP_PREFIX = ".tmp-cards-"


def cache_dir() -> Path:
    """The user cache folder (platformdirs), or TACTICAL_CACHE_DIR when set."""
    env = os.environ.get("TACTICAL_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_cache_dir("tactical", appauthor=False))


class FolderCache:
    """A `rules.cards.CardCache` in a folder (by default `cache_dir()`)."""

    def __init__(self, folder: Optional[Path] = None) -> None:
        self.folder = Path(folder) if folder is not None else cache_dir()

    def path(self, key: str) -> Path:
        if not _KEY.fullmatch(key):
            raise ValueError(f"not a sha256 key: {key!r}")
        return self.folder / f"cards-{key}.json"

    def get(self, key: str) -> Optional[bytes]:
        """The entry's bytes; None when there is none or it cannot be read as a regular
        file of at most MAX_ENTRY_BYTES (a folder, a pipe or a device is never opened
        for reading: rules.files.read_bounded)."""
        from rules.files import FileProblem, read_bounded
        try:
            return read_bounded(self.path(key), MAX_ENTRY_BYTES)
        except (FileProblem, OSError, ValueError):
            return None

    def put(self, key: str, data: bytes) -> None:
        """Write the entry atomically; any failure leaves no entry (and no temporary
        file) behind and is not an error: the game goes on without a cache."""
        tmp = None
        try:
            target = self.path(key)
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".json", dir=self.folder)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)      # a folder in its place: IsADirectoryError, kept
            tmp = None
            self.prune(keep=KEEP, spare=target)
        except (OSError, ValueError):
            pass
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    def prune(self, keep: int = KEEP, spare: Optional[Path] = None) -> None:
        """Remove the oldest entries beyond `keep` (`spare`, just written, stays) and the
        temporary files of a writer killed more than ten minutes ago. Only regular files
        of the cache's own names are ever removed."""
        import stat
        import time
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        entries, now = [], time.time()
        for n in names:
            entry, temp = _NAME.fullmatch(n), n.startswith(TEMP_PREFIX)
            if not (entry or temp):
                continue
            p = self.folder / n
            try:
                st = p.lstat()
                if not stat.S_ISREG(st.st_mode) or p == spare:
                    continue
                if temp:
                    if now - st.st_mtime > 600:
                        p.unlink()
                    continue
            except OSError:
                continue
            entries.append((st.st_mtime, p))
        entries.sort()
        room = keep - 1 if spare is not None else keep
        for _, p in entries[:max(0, len(entries) - room)]:
            try:
                p.unlink()
            except OSError:
                pass


def load_cards(path: str | Path | None = None, for_game: bool = True) -> "CardSet":
    """rules.cards.load_cards through the user's card cache."""
    from rules.cards import load_cards as load
    return load(path, for_game=for_game, cache=FolderCache())


def default_cards() -> "CardSet":
    """The shipped card set (rules.cards.default_cards), loaded once, through the cache."""
    from rules.cards import default_cards as shipped
    return shipped(cache=FolderCache())
