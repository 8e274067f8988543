"""Settings remembered between games: language, AI pause, the default seats and levels
of a new game, first-game mode and the theme — a small TOML file in the user config
folder (platformdirs ``user_config_dir("tactical")``, or ``TACTICAL_CONFIG_DIR`` when
set, the way saves use ``TACTICAL_SAVE_DIR``).

Reading is careful the way `rules.files.read_bounded` is (this module imports nothing
from `rules`, so the title screen starts without the rules): only a regular file is
opened, without blocking (a named pipe swapped in is not waited on), and at most
`MAX_BYTES` are read. A file that cannot be used — not a regular file, too large, not
TOML, a value of the wrong kind — gives a `SettingsProblem` (a sentence in Japanese or
English) and the defaults; a value that is out of range is dropped alone, the others
are kept. Nothing here ever raises on a bad file.

Writing goes through a temporary file and a rename (a crash leaves the old file or the
new one), with a tiny TOML writer: the values are strings, numbers, booleans and lists
of strings.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Optional

MAX_BYTES = 64 * 1024            # a settings file is a few hundred bytes
FILE_NAME = "settings.toml"
LANGS = ("ja", "en")
LEVELS = ("human", "random", "easy", "normal", "hard")   # by strength, as the setup cycles them
THEMES = ("dark", "light")
# Textual's built-in themes behind our two names (app.tcss uses only theme variables).
TEXTUAL_THEME = {"dark": "textual-dark", "light": "textual-light"}


@dataclass
class Settings:
    lang: Optional[str] = None               # None: from the locale
    ai_delay: float = 0.4                    # the AI pause, seconds (0–3): LiveTable
    players: int = 4                         # a new game's seats (3–5)
    seats: list[str] = field(default_factory=lambda: ["human", "normal", "normal",
                                                      "normal", "normal"])
    first_game: bool = True
    theme: str = "dark"

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if out["lang"] is None:
            del out["lang"]
        return out


TEXT = {
    "problem": {"ja": "設定ファイルを使えません（初期設定で続けます）: {path}: {why}",
                "en": "Cannot use the settings file (using the defaults): {path}: {why}"},
    "value": {"ja": "設定ファイルの一部を無視しました: {path}: {names}",
              "en": "Some settings were ignored: {path}: {names}"},
    "write": {"ja": "設定を保存できません: {path}: {why}",
              "en": "Cannot save the settings: {path}: {why}"},
    "not_regular": {"ja": "通常のファイルではありません（{kind}）",
                    "en": "not a regular file ({kind})"},
    "too_large": {"ja": "大きすぎます（{size}バイト以上、上限{cap}バイト）",
                  "en": "too large ({size} bytes or more; at most {cap} bytes)"},
    "not_toml": {"ja": "TOMLとして読めません（{detail}）", "en": "not valid TOML ({detail})"},
    "not_utf8": {"ja": "UTF-8のテキストではありません", "en": "not UTF-8 text"},
    "os_error": {"ja": "{detail}", "en": "{detail}"},
}
_KINDS = {"directory": ("フォルダ", "a folder"), "fifo": ("名前付きパイプ", "a named pipe"),
          "device": ("デバイス", "a device"), "socket": ("ソケット", "a socket"),
          "other": ("データのないファイル", "not a file with data")}


class SettingsProblem(Exception):
    """Why the settings file was (partly) not used: `code` is one of TEXT's keys."""

    def __init__(self, path: object, code: str, **params: Any) -> None:
        self.path, self.code, self.params = str(path), code, params
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        lang = lang if lang in LANGS else "en"
        p = dict(self.params)
        if self.code == "value":
            return TEXT["value"][lang].format(path=self.path, names=", ".join(p["names"]))
        if self.code == "write":
            return TEXT["write"][lang].format(path=self.path, why=_os_text(p["os_error"], lang))
        if "kind" in p:
            p["kind"] = _KINDS[p["kind"]][0 if lang == "ja" else 1]
        if "os_error" in p:
            p["detail"] = _os_text(p["os_error"], lang)
        why = TEXT[self.code][lang].format(**p)
        return TEXT["problem"][lang].format(path=self.path, why=why)


def _os_text(exc: BaseException, lang: str) -> str:
    from tactical_tui.text.catalog import os_error_text          # (catalog.py needs the rules: only on a problem)
    return os_error_text(exc, lang)


def config_dir() -> Path:
    """The user config folder (platformdirs), or TACTICAL_CONFIG_DIR when set."""
    env = os.environ.get("TACTICAL_CONFIG_DIR")
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_config_dir("tactical", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


# ------------------------------------------------------------------------- reading

def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


def _read(path: Path) -> Optional[bytes]:
    """The file's bytes; None when there is no file (the defaults, no message)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise SettingsProblem(path, "os_error", os_error=exc if isinstance(exc, OSError)
                              else OSError(errno.EINVAL, str(exc))) from None
    if not stat.S_ISREG(st.st_mode):
        raise SettingsProblem(path, "not_regular", kind=_kind(st.st_mode))
    if st.st_size > MAX_BYTES:
        raise SettingsProblem(path, "too_large", size=st.st_size, cap=MAX_BYTES)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SettingsProblem(path, "os_error", os_error=exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):       # swapped after the first look
            raise SettingsProblem(path, "not_regular", kind=_kind(st.st_mode))
        data = os.read(fd, MAX_BYTES + 1)
    except OSError as exc:
        raise SettingsProblem(path, "os_error", os_error=exc) from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise SettingsProblem(path, "too_large", size=len(data), cap=MAX_BYTES)
    return data


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# name → a check of the value read (after which it is used as it is)
_CHECKS = {
    "lang": lambda v: v in LANGS,
    "ai_delay": lambda v: _number(v) and 0 <= v <= 3,
    "players": lambda v: isinstance(v, int) and not isinstance(v, bool) and 3 <= v <= 5,
    "seats": lambda v: isinstance(v, list) and 3 <= len(v) <= 5 and all(x in LEVELS for x in v),
    "first_game": lambda v: isinstance(v, bool),
    "theme": lambda v: v in THEMES,
}


def load(path: Optional[Path] = None) -> tuple[Settings, Optional[SettingsProblem]]:
    """The settings in the file (the defaults where it says nothing) and the problem, if
    any, to tell the player. Never raises on a bad file."""
    import tomllib
    path = settings_path() if path is None else path
    try:
        data = _read(path)
    except SettingsProblem as exc:
        return Settings(), exc
    if data is None:
        return Settings(), None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Settings(), SettingsProblem(path, "not_utf8")
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        from tactical_tui.text.safe import plain
        detail = plain(str(exc))[:120]
        return Settings(), SettingsProblem(path, "not_toml", detail=detail)
    settings = Settings()
    bad = []
    for key, value in doc.items():
        check = _CHECKS.get(key)
        if check is None or not check(value):
            from tactical_tui.text.safe import plain
            bad.append(plain(key)[:40])
            continue
        if key == "ai_delay":
            value = round(float(value), 1)
        if key == "seats":
            value = list(value) + ["normal"] * (5 - len(value))
        setattr(settings, key, value)
    if "human" not in settings.seats[:settings.players]:   # a game needs one human seat
        settings.seats[0] = "human"
    return settings, (SettingsProblem(path, "value", names=bad) if bad else None)


# ------------------------------------------------------------------------- writing

def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        out = ['"']
        for ch in v:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return "".join(out) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def to_toml(values: dict[str, Any]) -> str:
    """`values` (bare keys; strings, numbers, booleans, lists of them) as TOML."""
    lines = ["# TACTICAL settings (written by the game; see docs/PLAYING.md \"Settings\")"]
    for key, v in values.items():
        lines.append(f"{key} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def save(settings: Settings, path: Optional[Path] = None) -> Optional[SettingsProblem]:
    """Write the settings (atomically); the problem if it could not be written."""
    path = settings_path() if path is None else path
    text = to_toml(settings.to_dict())
    from tactical_tui.table.savefiles import write_atomic        # (no rules: the title screen starts fast)
    try:
        write_atomic(path, text, suffix=".toml")
    except OSError as exc:
        return SettingsProblem(path, "write", os_error=exc)
    return None


class Store:
    """The settings of one run of the app and where they are kept (`path` None: not
    kept — tests, or a run that was told not to)."""

    def __init__(self, settings: Optional[Settings] = None, path: Optional[Path] = None,
                 problem: Optional[SettingsProblem] = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.path = path
        self.problem = problem               # told to the player once the app is up

    @classmethod
    def from_file(cls, path: Optional[Path] = None) -> "Store":
        path = settings_path() if path is None else path
        settings, problem = load(path)
        return cls(settings, path, problem)

    def update(self, **changes: Any) -> Optional[SettingsProblem]:
        """Change some settings and write them (when kept and something changed)."""
        new = replace(self.settings, **changes)
        if new == self.settings:
            return None
        self.settings = new
        if self.path is None:
            return None
        return save(new, self.path)


def remember(app, **changes) -> None:
    """Keep a changed setting (app.store, settings.Store); a write problem is told once."""
    store = getattr(app, "store", None)
    if store is None:
        return
    if "lang" in changes:
        # the locale's own language is kept as "none chosen": switching there and back
        # left `lang = "en"` in the file, and LANG no longer decided (issue 32)
        from tactical_tui.text.langs import default_lang
        if changes["lang"] == default_lang():
            changes["lang"] = None
    problem = store.update(**changes)
    if problem is not None and getattr(app, "settings_warned", None) != problem.code:
        app.settings_warned = problem.code
        app.notify(problem.text(app.lang), severity="warning", timeout=10)
