"""Issue 14 point 3: numbers of any size and special files give a message.

Every file read from a path a player gives (card data, saves and replays, scenarios) goes
through `rules.files.read_bounded`: only regular files, a non-blocking open, at most a
capped number of bytes whatever `stat` says. A number of more than Python's digit limit
(4,300 digits) or of 2^63 or more is refused by name. Each case runs the real command in a
subprocess under a 1 GiB address-space limit and a timeout, asserts the message and no
traceback, and that the file is untouched.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rules import files as F
from rules.cards import MAX_CARD_BYTES, CardDataError, load_cards, parse_cards
from tactical_tui.table.saves import MAX_BYTES, SaveError, parse, read
from tactical_tui.tools.scenario import MAX_SCENARIO_BYTES, ScenarioError, load_scenario
from tactical_tui.text.catalog import card_error_text

ROOT = Path(__file__).resolve().parent.parent
HUGE = "1" * 5000                       # a 5,000-digit number
GIB = 1 << 30


def _limits() -> None:                  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def run(*args: str, code: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI (or a Python snippet) in a child with 1 GiB of address space and a timeout:
    a hang or a runaway read fails the test instead of the machine."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tactical_tui.cli", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_limits)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


READ_SAVE = ("import sys; from pathlib import Path; from tactical_tui.table.saves import read, SaveError\n"
             "try:\n    read(Path(sys.argv[1]))\nexcept SaveError as e:\n"
             "    print(e.text('ja')); print(e.text('en')); sys.exit(2)\n")


def read_save_in_child(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", READ_SAVE, str(path)], cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True, timeout=60, preexec_fn=_limits)


@pytest.fixture
def special(tmp_path):
    """The special files of the issue: /dev/zero, a symlink to /dev/urandom, a named pipe
    (os.mkfifo) and a directory, by name."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    link = tmp_path / "random.json"
    link.symlink_to("/dev/urandom")
    folder = tmp_path / "folder.json"
    folder.mkdir()
    return {"device": Path("/dev/zero"), "symlink": link, "fifo": fifo, "directory": folder}


KIND = {"device": ("a device", "デバイス"), "symlink": ("a device", "デバイス"),
        "fifo": ("a named pipe", "名前付きパイプ"), "directory": ("a folder", "フォルダ")}


# ------------------------------------------------------------------------- special files

@pytest.mark.parametrize("which", ["device", "symlink", "fifo", "directory"])
def test_special_file_as_a_save_is_refused_at_once(special, which):
    path = special[which]
    proc = read_save_in_child(path)
    en, ja = KIND[which]
    assert proc.returncode == 2, proc.stderr
    assert f"{path}: not a save file ({en}, not a regular file)" in proc.stdout
    assert f"{path}: 保存ファイルではありません（通常のファイルではなく{ja}です）" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    if which == "fifo":
        assert special["fifo"].is_fifo()


@pytest.mark.parametrize("which", ["device", "symlink", "fifo", "directory"])
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_special_file_as_card_data_is_refused_at_once(special, which, lang):
    path = special[which]
    proc = run("--cards", str(path), "--headless", "--lang", lang)
    en, ja = KIND[which]
    assert proc.returncode == 2
    if lang == "en":
        assert proc.stderr.strip() == (f"Cannot load the card data: {path}: cannot read card "
                                       f"data: not a regular file ({en})")
    else:
        assert proc.stderr.strip() == (f"カードデータを読み込めません: {path}: "
                                       f"通常のファイルではなく{ja}です")
    assert proc.stdout == ""


@pytest.mark.parametrize("which", ["device", "symlink", "fifo", "directory"])
def test_special_file_as_a_scenario_is_refused_at_once(special, which, tmp_path):
    path = special[which]
    if which == "directory":                 # a folder is searched for *.toml: put one in
        path = path / "inner.toml"
        os.mkfifo(path)
        which = "fifo"
    proc = run("check", str(path))
    assert proc.returncode == 1
    assert f"{path}: cannot read the file: not a regular file ({KIND[which][0]})" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    with pytest.raises(ScenarioError, match=r"not a regular file \(a folder\)"):
        load_scenario(special["directory"])


def test_the_reader_never_blocks_on_a_pipe_swapped_in_after_the_check(tmp_path, monkeypatch):
    """The open is non-blocking and fstat checks the opened descriptor: a pipe that
    replaces a regular file between the check and the open is refused, not waited on."""
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    regular = os.stat(ROOT / "cards.toml")
    real_stat = os.stat
    monkeypatch.setattr(F.os, "stat", lambda p, *a, **k: regular if str(p) == str(fifo)
                        else real_stat(p, *a, **k))
    def hung(*_):
        raise TimeoutError("read_bounded blocked on a named pipe")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)                          # the timeout guard: a blocking open fails
    try:
        with pytest.raises(F.FileProblem) as info:
            F.read_bounded(fifo, 1 << 20)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert info.value.code == "not_regular" and info.value.params == {"kind": "fifo"}


def test_the_reader_reads_at_most_the_cap_whatever_stat_says(tmp_path, monkeypatch):
    """A file that says it is small (stat / fstat lie, or it grows) is still read only up
    to cap + 1 bytes, then refused as too large."""
    big = tmp_path / "big"
    big.write_bytes(b"x" * 10_000)
    small = os.stat_result((0o100644, 0, 0, 1, 0, 0, 10, 0, 0, 0))
    monkeypatch.setattr(F.os, "stat", lambda *a, **k: small)
    monkeypatch.setattr(F.os, "fstat", lambda *a, **k: small)
    reads: list[int] = []
    real_read = os.read
    monkeypatch.setattr(F.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    with pytest.raises(F.FileProblem) as info:
        F.read_bounded(big, 100)
    assert info.value.code == "too_large" and info.value.params == {"size": 101, "cap": 100}
    assert sum(reads) <= 101
    assert F.read_bounded(big, 10_000) == b"x" * 10_000


def test_a_50_mb_card_file_is_refused_fast_with_its_size(tmp_path):
    path = tmp_path / "cards.toml"
    with path.open("wb") as f:
        f.write(b"# " + b"x" * (50 * 1024 * 1024 - 3) + b"\n")
    before = digest(path)
    for lang, expected in (("en", "too large: 52,428,800 bytes (50.0 MB); at most 2 MB"),
                           ("ja", "カードデータが大きすぎます: 52,428,800バイト（50.0 MB）。最大2 MBです")):
        proc = run("--cards", str(path), "cards", "--lang", lang)
        assert proc.returncode == 2 and expected in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert digest(path) == before
    with pytest.raises(CardDataError) as info:
        load_cards(path)
    assert info.value.code == "too_large" and info.value.params["size"] == 50 * 1024 * 1024


def test_a_save_and_a_scenario_over_their_caps(tmp_path):
    save = tmp_path / "save.json"
    save.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(SaveError) as info:
        read(save)
    assert info.value.code == "too_large"
    assert "too large: 8,388,609 bytes (8.0 MB); a save is at most 8 MB" in str(info.value)
    assert "大きすぎます: 8,388,609バイト（8.0 MB）。保存ファイルは最大8 MBです" in info.value.text("ja")
    scenario = tmp_path / "big.toml"
    scenario.write_bytes(b"#" * (MAX_SCENARIO_BYTES + 1))
    with pytest.raises(ScenarioError, match=r"too large: 1,048,577 bytes \(1.0 MB\); at most 1 MB"):
        load_scenario(scenario)
    assert MAX_CARD_BYTES == 2 * 1024 * 1024


def test_the_caps_are_in_the_docs():
    readme = (ROOT / "docs" / "PLAYING.md").read_text(encoding="utf-8")    # "Files and limits" (issue 33: moved from the README)
    for line in ("| card data (`rules.cards.MAX_CARD_BYTES`) | 2 MB |",
                 "| save or replay (`tactical_tui.table.saves.MAX_BYTES`) | 8 MB |",
                 "| scenario (`tactical_tui.tools.scenario.MAX_SCENARIO_BYTES`) | 1 MB |"):
        assert line in readme
    assert (MAX_CARD_BYTES, MAX_BYTES, MAX_SCENARIO_BYTES) == (2 << 20, 8 << 20, 1 << 20)


# -------------------------------------------------------------------------- huge numbers

def test_a_save_with_a_5000_digit_number(tmp_path):
    path = tmp_path / "save.json"
    path.write_text('{"format": 1, "seed": ' + HUGE + ', "config": {"players": 3}}')
    before = digest(path)
    proc = read_save_in_child(path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stdout.splitlines() == [
        f"{path}: 保存ファイルではありません（4300桁を超える数があります）",
        f"{path}: not a save file (a number with more than 4300 digits)"]
    assert digest(path) == before


def test_a_scenario_with_a_5000_digit_number(tmp_path):
    path = tmp_path / "huge.toml"
    path.write_text('[scenario]\nphase = "build"\nseed = ' + HUGE + '\n')
    before = digest(path)
    proc = run("check", str(path))
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    assert f"{path}: a number with more than 4300 digits" in proc.stdout
    assert digest(path) == before
    hexa = tmp_path / "hex.toml"                 # TOML hexadecimal has no digit limit
    hexa.write_text('[scenario]\nphase = "build"\nseed = 0x' + "f" * 5000 + "\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(hexa)
    assert str(info.value) == f"{hexa}: scenario.seed: the number is too large (the limit is 2^63)"


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_card_data_with_a_5000_digit_number(tmp_path, lang):
    text = (ROOT / "tests" / "data" / "test_cards.toml").read_text(encoding="utf-8")
    path = tmp_path / "cards.toml"
    path.write_text(text.replace("bid = 2", "bid = " + HUGE, 1), encoding="utf-8")
    before = digest(path)
    proc = run("--cards", str(path), "--headless", "--lang", lang)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    expected = {"en": f"Cannot load the card data: {path}: a number with more than 4300 digits",
                "ja": f"カードデータを読み込めません: {path}: 4300桁を超える数があります"}[lang]
    assert proc.stderr.strip() == expected
    assert digest(path) == before
    with pytest.raises(CardDataError) as info:   # hexadecimal: no digit limit, still named
        parse_cards(text.replace("bid = 2", "bid = 0x" + "f" * 5000, 1), "hex.toml")
    assert "the number is too large (the limit is 2^63)" in str(info.value)
    assert card_error_text(info.value, "ja") == str(info.value)


def test_a_name_with_a_nul_byte_is_refused_not_raised():
    with pytest.raises(F.FileProblem) as info:
        F.read_bounded("a\0b", 100)
    assert info.value.code == "os_error" and str(info.value) == "invalid file name"


def test_huge_number_at_names_the_place():
    assert F.huge_number_at({"a": [1, {"b": 2 ** 63}]}) == "a[1].b"
    assert F.huge_number_at({"a": [1, -(2 ** 63) + 1, 2 ** 63 - 1]}) is None
    assert F.huge_number_at(10 ** 30) == "(top level)"
    assert F.huge_number_at({"x": True, "y": 1.5e300}) is None


def test_parse_names_a_huge_number_without_printing_it():
    with pytest.raises(SaveError) as info:
        parse('{"format": 1, "seed": 1, "x": ' + HUGE + "}", "s.json")
    assert info.value.code == "huge_number" and HUGE[:50] not in str(info.value)


def test_fuzzed_scenarios_never_crash(tmp_path):
    """The shipped scenarios mutated with huge numbers (decimal and hexadecimal), control
    characters and wrong-typed values: each loads or gives one ScenarioError naming the
    file, never a traceback."""
    import random
    import re
    files = sorted((ROOT / "scenarios").rglob("*.toml"))
    rnd = random.Random(14)
    number = re.compile(rb"(?<=[=\[,] )-?\d+\b")
    string = re.compile(rb'"[a-z_#0-9]+"')
    checked = 0
    for i in range(150):
        raw = rnd.choice(files).read_bytes()
        kind = rnd.randrange(4)
        spots = list((number if kind in (0, 1, 3) else string).finditer(raw))
        if not spots:
            continue
        m = rnd.choice(spots)
        new = {0: lambda: HUGE.encode(), 1: lambda: b"0x" + b"f" * rnd.choice([17, 5000]),
               2: lambda: rnd.choice([b'"\\u001b[2J\\u001b]0;x\\u0007"', b'"a\\u0000b"',
                                      b'"\\u009b31m"', b'"[/]"']),
               3: lambda: rnd.choice([b'"4"', b"4.9", b"true", b'"no"', b"[]", b"{}", b"nan"])}[kind]()
        path = tmp_path / f"s{i}.toml"
        path.write_bytes(raw[:m.start()] + new + raw[m.end():])
        try:
            load_scenario(path)
        except ScenarioError as exc:
            assert str(exc).startswith(str(path)), exc
            assert "Exceeds the limit" not in str(exc) and "Traceback" not in str(exc)
        checked += 1
    assert checked > 100
