"""Numbers and paths given on the command line: what is outside an option's range is
refused with a message in the player's language before anything starts; `--jobs` never
starts more processes than games or cores; `balance --csv` says a path it cannot write
before the games, and never writes into a pipe or device."""

from __future__ import annotations

import argparse
import os

import pytest

from tactical_tui.tools import simulate as sim
from tactical_tui.cli import RANGES, main


@pytest.mark.parametrize("argv, option", [
    (["--ai-delay", "inf"], "--ai-delay"),        # froze the game at the first AI turn
    (["--ai-delay", "nan"], "--ai-delay"),
    (["--ai-delay", "1e400"], "--ai-delay"),
    (["--ai-delay", "-1"], "--ai-delay"),
    (["--ai-delay", "3.5"], "--ai-delay"),
    (["simulate", "--games", "-1"], "--games"),   # printed a table of nothing
    (["simulate", "--games", "0"], "--games"),
    (["balance", "--games", "99999999999999999999"], "--games"),
    (["simulate", "--jobs", "0"], "--jobs"),
    (["host", "--port", "70000"], "--port"),
    (["host", "--ai-delay", "inf"], "--ai-delay"),
    (["host", "--ssh-idle", "nan"], "--ssh-idle"),
    (["host", "--workers", "-3"], "--workers"),
    (["host", "--max-tables", "0"], "--max-tables"),
])
@pytest.mark.parametrize("lang, words", [("en", "takes a number from"), ("ja", "までの数を指定します")])
def test_numbers_outside_an_options_range_are_refused(argv, option, lang, words, capsys,
                                                      monkeypatch):
    started = []
    monkeypatch.setattr(sim, "simulate", lambda *a, **k: started.append(a) or [])
    assert main(["--lang", lang] + argv) == 2
    err = capsys.readouterr().err
    assert option in err and words in err
    assert not started


def test_every_range_names_an_option_of_the_parser():
    from tactical_tui.cli import _parser
    dests = set()
    parser = _parser()
    for action in parser._actions:
        dests.add(action.dest)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                dests |= {a.dest for a in sub._actions}
    assert set(RANGES) <= dests


def test_jobs_never_exceed_the_games_or_the_cores(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert sim.worker_count(300, 1) == 1          # `--jobs 300` for one game
    assert sim.worker_count(100_000, 50) == 2     # `--jobs 100000`: a fork bomb before
    assert sim.worker_count(1, 50) == 1


def test_balance_says_a_csv_path_it_cannot_write_before_playing(tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr(sim, "simulate", lambda *a, **k: played.append(a) or [])
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path, words in ((pipe, "a named pipe, not a regular file"), (tmp_path, "a folder"),
                        (tmp_path / "no" / "x.csv", "no such file or folder"),
                        (tmp_path / ("a" * 300), "the name is too long")):
        assert main(["--lang", "en", "balance", "--games", "2", "--csv", str(path)]) == 2
        assert words in " ".join(capsys.readouterr().out.split())    # rich wraps it
    assert not played
    assert os.path.exists(pipe) and not os.path.isfile(pipe)


def test_balance_writes_its_csv_whole(tmp_path, capsys):
    out = tmp_path / "figures.csv"
    out.write_text("old", encoding="utf-8")
    assert main(["--lang", "en", "balance", "--games", "2", "--csv", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("kind,id,plays,wins,win_rate,ratio_to_fair")
    assert "race," in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figures.csv"]
