"""`tactical ladder` (issue 34): the AI levels rated from seeded games among them.

On a handful of seeded games the ratings put random below the other levels; the same
seed gives the same table (whatever --jobs, and after a run resumed from its --log); the
seats are rotated and the seat counts mixed. No test here measures time.
"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from tactical_tui.tools import ladder
from tactical_tui.cli import main


def _text(summary, levels) -> str:
    con = Console(file=io.StringIO(), width=120)
    for t in ladder.table_lines(summary, levels):
        con.print(t)
    return con.file.getvalue()


LEVELS = ("random", "easy", "normal")


def test_schedule_mixes_seat_counts_and_rotates_the_levels():
    plan = ladder.schedule(30, 7, ("random", "easy", "normal", "hard"), (3, 4, 5))
    assert [len(s) for _, s in plan[:6]] == [3, 4, 5, 3, 4, 5]
    assert [seed for seed, _ in plan] == list(range(7, 37))
    for _, seats in plan:                  # every level once before any level twice
        assert len(set(seats)) == min(len(seats), 4)
    # no level keeps one seat: each level sits in several seats over the games
    for lv in ("random", "easy", "normal", "hard"):
        assert len({s.index(lv) for _, s in plan if lv in s}) >= 3
    assert plan == ladder.schedule(30, 7, ("random", "easy", "normal", "hard"), (3, 4, 5))


def test_random_rated_below_the_others_and_the_same_seed_gives_the_same_table(tmp_path):
    results = ladder.run(12, 300, LEVELS, (3, 4, 5), jobs=1)
    summary = ladder.rate(results, LEVELS)
    order = [r["level"] for r in summary["rows"]]
    assert order[-1] == "random", summary["rows"]
    rows = {r["level"]: r for r in summary["rows"]}
    assert rows["normal"]["mu"] > rows["random"]["mu"] + rows["random"]["sigma"]
    assert summary["rated"] + summary["unfinished"] == 12
    again = ladder.rate(ladder.run(12, 300, LEVELS, (3, 4, 5), jobs=2), LEVELS)
    assert _text(again, LEVELS) == _text(summary, LEVELS)
    # resumed: half the games first, then the whole run from the same log
    log = tmp_path / "ladder.jsonl"
    ladder.run(6, 300, LEVELS, (3, 4, 5), log=log)
    assert len(log.read_text().splitlines()) == 6
    played = []
    resumed = ladder.run(12, 300, LEVELS, (3, 4, 5), log=log, progress=lambda: played.append(1))
    assert len(played) == 12 and len(log.read_text().splitlines()) == 12
    assert _text(ladder.rate(resumed, LEVELS), LEVELS) == _text(summary, LEVELS)
    # another seed is another table
    other = ladder.rate(ladder.run(12, 900, LEVELS, (3, 4, 5)), LEVELS)
    assert _text(other, LEVELS) != _text(summary, LEVELS)


def test_a_game_given_up_unfinished_is_counted_not_rated():
    results = [{"seed": 1, "seats": ["random", "normal", "easy"], "winners": [1]},
               {"seed": 2, "seats": ["random", "normal", "easy"], "winners": []}]
    summary = ladder.rate(results, LEVELS)
    assert summary["rated"] == 1 and summary["unfinished"] == 1
    assert {r["level"]: r["games"] for r in summary["rows"]} == {"random": 1, "normal": 1, "easy": 1}
    assert summary["rows"][0]["level"] == "normal"
    assert summary["matrix"]["normal", "random"] == (1.0, 1)
    assert ("random", "easy") not in summary["matrix"]   # neither of the two won


def test_a_level_twice_in_a_game_moves_by_the_mean_of_its_seats():
    one = ladder.rate([{"seats": ["normal", "random", "random", "easy"], "winners": [0]}], LEVELS)
    rows = {r["level"]: r for r in one["rows"]}
    assert rows["random"]["games"] == 2 and rows["random"]["wins"] == 0
    assert rows["random"]["mu"] < 25 < rows["normal"]["mu"]


def test_the_command_prints_the_ladder_highest_first(capsys, tmp_path):
    log = tmp_path / "l.jsonl"
    assert main(["ladder", "--games", "6", "--levels", "random,normal", "--players", "3",
                 "--seed", "11", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "6 rated games" in out and "head to head" in out
    table = out[out.index("rated games"):out.index("head to head")]
    assert table.index("normal") < table.index("random")
    assert all(json.loads(x)["seats"].count("normal") >= 1 for x in log.read_text().splitlines())


@pytest.mark.parametrize("argv", [["--levels", "random"], ["--levels", "random,ceiling"],
                                  ["--players", "2"], ["--players", "3,6"], ["--sims", "-1"]])
def test_bad_options_are_refused(argv, capsys):
    assert main(["ladder", "--games", "2"] + argv) == 2


def test_other_card_data_is_refused_not_ignored(capsys):
    # the games deal from the shipped card data (worker processes): --cards would be ignored
    assert main(["--cards", "cards.toml", "ladder", "--games", "1"]) == 2
    assert "--cards" in capsys.readouterr().err
