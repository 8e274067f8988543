"""Start-up (issue 16 point 1): the title screen loads neither the rules, the AI, the card
data nor the screens of later phases; the card-data cache (tactical_tui/table/cardcache.py,
rules.cards.load_cards) gives exactly a fresh parse, ignores anything damaged or stale,
and never serves an old card file. No test here measures time: bench/startup.py does."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rules.cards as RC
from rules.cards import DEFAULT_CARDS_PATH, CardDataError, fingerprint, load_cards
from tactical_tui.table import cardcache
from tactical_tui.table.cardcache import FolderCache

ROOT = Path(__file__).resolve().parent.parent
TEST_CARDS = Path(__file__).resolve().parent / "data" / "test_cards.toml"

# Modules the first screen must not need (the rules core, the AI, cattrs structuring,
# the game's screens and table, saves, the event log's catalogue).
HEAVY = ("rules", "ai", "cattrs", "tomllib", "tactical_tui.screens.game", "tactical_tui.table.live",
         "tactical_tui.table.saves", "tactical_tui.text.catalog", "tactical_tui.text.cardtext",
         "tactical_tui.tools.scenario", "tactical_tui.tools.simulate")

# Started as `tactical` starts it (the command's module first), stopped at the first
# paint of the title screen; prints the title screen's class and then the modules loaded.
TITLE_RUN = """
import json, sys
import tactical_tui.cli
from tactical_tui.app import TacticalApp
from tactical_tui.screens.menus import TitleScreen
from textual.app import App
painted = []
_display = App._display
def display(self, screen, renderable):
    _display(self, screen, renderable)
    if renderable is not None and isinstance(screen, TitleScreen) and not painted:
        painted.append(type(screen).__name__)
        self.exit()
App._display = display
TacticalApp(lang=LANG).run(headless=True, size=(80, 24))
print(json.dumps({"painted": painted, "modules": sorted(sys.modules)}))
"""


def _env(tmp_path: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), TACTICAL_SAVE_DIR=str(tmp_path / "saves"),
                TACTICAL_CACHE_DIR=str(tmp_path / "cache"))


def _loaded(modules: list[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_title_screen_starts_without_rules_ai_cards_or_game_screens(tmp_path, lang):
    out = subprocess.run([sys.executable, "-c", f"LANG = {lang!r}\n" + TITLE_RUN],
                         env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["painted"] == [f"TitleScreen_{lang}"]      # really the title's first paint
    assert "tactical_tui.screens.menus" in got["modules"] and "textual.app" in got["modules"]
    loaded = [name for name in HEAVY if _loaded(got["modules"], name)]
    assert loaded == [], f"the title screen imported {loaded}"
    assert not (tmp_path / "cache").exists()               # no card data read either


def test_tactical_help_needs_neither_rules_nor_textual(tmp_path):
    code = ("import sys\nfrom tactical_tui.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('MODULES', ' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], env=_env(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "--players" in out.stdout
    modules = out.stdout.split("MODULES", 1)[1].split()
    assert [n for n in ("rules", "ai", "textual", "cattrs") if _loaded(modules, n)] == []


def test_importing_rules_builds_no_cattrs_converter(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import sys, rules; "
                          "print('cattrs' in sys.modules, 'tomllib' in sys.modules)"],
                         env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


# ------------------------------------------------------------------------ the card cache

class Spy(FolderCache):
    def __init__(self, folder):
        super().__init__(folder)
        self.gets = self.puts = 0

    def get(self, key):
        self.gets += 1
        return super().get(key)

    def put(self, key, data):
        self.puts += 1
        super().put(key, data)


def _no_toml(monkeypatch):
    """Any TOML parse from now on fails the test: what loads came from the cache."""
    def refuse(text, source):
        raise AssertionError("parsed the TOML file: not served from the cache")
    monkeypatch.setattr(RC, "_read_toml", refuse)


def _entry(folder: Path, path: Path) -> Path:
    import hashlib
    return FolderCache(folder).path(hashlib.sha256(path.read_bytes()).hexdigest())


@pytest.mark.parametrize("source", [DEFAULT_CARDS_PATH, TEST_CARDS], ids=["shipped", "test"])
def test_cache_round_trip_equals_a_fresh_parse(tmp_path, monkeypatch, source):
    fresh = load_cards(source)
    cache = Spy(tmp_path)
    first = load_cards(source, cache=cache)
    assert cache.puts == 1 and _entry(tmp_path, source).is_file()
    _no_toml(monkeypatch)
    again = load_cards(source, cache=cache)
    assert cache.puts == 1                                 # read, not rewritten
    for got in (first, again):
        assert got == fresh
        assert got.data_hash == fresh.data_hash and fingerprint(got) == fingerprint(fresh)
        assert got.source == fresh.source == str(source)
        assert [c.id for c in got.defense] == [c.id for c in fresh.defense]  # deck order
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_cache_is_used_for_game_checks_too(tmp_path, monkeypatch):
    """for_game: a cached card set still goes through the playability check."""
    small = tmp_path / "small.toml"
    text = TEST_CARDS.read_text(encoding="utf-8")
    keep = text.split("[[guild]]")[0] + "[[guild]]" + text.split("[[guild]]")[1]
    small.write_text(keep, encoding="utf-8")
    load_cards(small, for_game=False, cache=FolderCache(tmp_path / "c"))
    _no_toml(monkeypatch)
    with pytest.raises(CardDataError) as exc:
        load_cards(small, cache=FolderCache(tmp_path / "c"))
    assert exc.value.code == "short"


def _damage(kind: str, entry: Path) -> None:
    data = entry.read_bytes()
    entry.unlink()
    if kind == "garbage":
        entry.write_bytes(b"\x00\xffnot json at all" * 50)
    elif kind == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif kind == "empty":
        entry.write_bytes(b"")
    elif kind == "wrong_hash":       # valid JSON, valid card data, a value changed
        doc = json.loads(data)
        doc["tables"]["defense"][0]["bid"] = 6 - doc["tables"]["defense"][0]["bid"]
        entry.write_text(json.dumps(doc), encoding="utf-8")
    elif kind == "other_key":        # another file's entry under this name
        doc = json.loads(data)
        doc["file"] = "0" * 64
        entry.write_text(json.dumps(doc), encoding="utf-8")
    elif kind == "stale_schema":     # tables the code no longer accepts, hash recomputed
        doc = json.loads(data)
        doc["tables"]["defense"][0]["weight"] = 3
        doc["data_hash"] = RC._sha256(doc["tables"])
        entry.write_text(json.dumps(doc), encoding="utf-8")
    elif kind == "null":             # JSON null where TOML has nothing, hash recomputed
        doc = json.loads(data)
        doc["tables"]["defense"][0]["bid"] = None
        doc["data_hash"] = RC._sha256(doc["tables"])
        entry.write_text(json.dumps(doc), encoding="utf-8")
    elif kind == "format":
        doc = json.loads(data)
        doc["format"] = 99
        entry.write_text(json.dumps(doc), encoding="utf-8")
    elif kind == "not_object":
        entry.write_text("[1, 2, 3]", encoding="utf-8")
    elif kind == "deep":
        entry.write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    elif kind == "directory":
        entry.mkdir()
        (entry / "x").write_text("x")
    elif kind == "fifo":
        os.mkfifo(entry)
    else:
        raise AssertionError(kind)


DAMAGE = ["garbage", "truncated", "empty", "wrong_hash", "other_key", "stale_schema", "null",
          "format", "not_object", "deep", "directory", "fifo"]


@pytest.mark.parametrize("kind", DAMAGE)
def test_damaged_cache_entry_is_ignored_and_rewritten(tmp_path, monkeypatch, kind):
    fresh = load_cards(TEST_CARDS)
    load_cards(TEST_CARDS, cache=FolderCache(tmp_path))
    entry = _entry(tmp_path, TEST_CARDS)
    _damage(kind, entry)
    cache = Spy(tmp_path)
    got = load_cards(TEST_CARDS, cache=cache)              # no crash, no hang (fifo)
    assert got == fresh and got.data_hash == fresh.data_hash
    assert cache.gets == 1 and cache.puts == 1
    if kind == "directory":                                # a folder is never removed
        assert entry.is_dir() and (entry / "x").read_text() == "x"
        return
    assert entry.is_file()                                 # rewritten: served next time
    _no_toml(monkeypatch)
    assert load_cards(TEST_CARDS, cache=FolderCache(tmp_path)) == fresh


def test_changed_card_file_is_not_served_from_the_old_entry(tmp_path):
    path = tmp_path / "cards.toml"
    text = TEST_CARDS.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    cache = FolderCache(tmp_path / "cache")
    before = load_cards(path, cache=cache)
    first_bid = before.defense[0].bid
    new_bid = 1 if first_bid != 1 else 2
    head, tail = text.split("[[defense]]", 1)
    assert f"bid = {first_bid}\n" in tail
    changed = head + "[[defense]]" + tail.replace(f"bid = {first_bid}\n", f"bid = {new_bid}\n", 1)
    path.write_text(changed, encoding="utf-8")
    after = load_cards(path, cache=cache)
    assert after.defense[0].bid == new_bid
    assert after == RC.parse_cards(changed, str(path)) and after != before
    assert after.data_hash != before.data_hash
    assert len(list((tmp_path / "cache").glob("cards-*.json"))) == 2


def test_broken_card_file_is_reported_even_with_an_entry_for_it(tmp_path):
    """The cache is keyed by the bytes: a file made invalid is parsed, and its problem
    reported as without a cache."""
    path = tmp_path / "cards.toml"
    path.write_text(TEST_CARDS.read_text(encoding="utf-8"), encoding="utf-8")
    cache = FolderCache(tmp_path / "cache")
    load_cards(path, cache=cache)
    path.write_text(path.read_text(encoding="utf-8") + "\n[[nonsense]]\nid = 1\n", encoding="utf-8")
    with pytest.raises(CardDataError) as with_cache:
        load_cards(path, cache=cache)
    with pytest.raises(CardDataError) as without:
        load_cards(path)
    assert str(with_cache.value) == str(without.value)
    assert "unknown section [[nonsense]]" in str(with_cache.value)


def test_unwritable_cache_folder_is_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    cache = FolderCache(blocker / "cache")
    assert load_cards(TEST_CARDS, cache=cache) == load_cards(TEST_CARDS)
    assert blocker.read_text() == "a file where the cache folder should be"


def test_cache_keeps_at_most_keep_entries(tmp_path):
    text = TEST_CARDS.read_text(encoding="utf-8")
    cache = FolderCache(tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "notes.txt").write_text("not ours")
    for i in range(cardcache.KEEP + 3):
        p = tmp_path / f"c{i}.toml"
        p.write_text(text + f"\n# variant {i}\n", encoding="utf-8")
        load_cards(p, cache=cache)
        last = p
    names = sorted(x.name for x in (tmp_path / "cache").iterdir())
    assert len([n for n in names if n.startswith("cards-")]) == cardcache.KEEP
    assert "notes.txt" in names
    assert _entry(tmp_path / "cache", last).is_file()      # the newest stays


def test_cache_folder_from_environment_or_platformdirs(monkeypatch, tmp_path):
    monkeypatch.setenv("TACTICAL_CACHE_DIR", str(tmp_path / "here"))
    assert cardcache.cache_dir() == tmp_path / "here"
    monkeypatch.delenv("TACTICAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    import platformdirs
    assert cardcache.cache_dir() == Path(platformdirs.user_cache_dir("tactical", appauthor=False))


@pytest.mark.parametrize("kind", ["garbage", "truncated", "wrong_hash", "directory", "fifo"])
def test_game_starts_with_a_damaged_cache(tmp_path, monkeypatch, kind):
    """The app's shipped card set through a damaged cache entry: Quick game deals."""
    from tactical_tui.screens.draft import DraftScreen
    from tui_app import make_app
    folder = tmp_path / "cache"
    monkeypatch.setenv("TACTICAL_CACHE_DIR", str(folder))
    load_cards(DEFAULT_CARDS_PATH, cache=FolderCache(folder))
    _damage(kind, _entry(folder, DEFAULT_CARDS_PATH))
    monkeypatch.setattr(RC, "_DEFAULT", [])                # as in a fresh process

    async def run():
        app = make_app("en", seed=3)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")                     # Quick game
            for _ in range(3000):                          # (a slow, busy machine)
                if isinstance(app.screen, DraftScreen):
                    break
                await pilot.pause(0.01)
            assert isinstance(app.screen, DraftScreen)
            assert app.cards == load_cards(DEFAULT_CARDS_PATH)
    asyncio.run(run())
    if kind != "directory":
        assert _entry(folder, DEFAULT_CARDS_PATH).is_file()
