"""Scenario format v2 (issue 13 point 9, docs/scenarios.md "Format v2"): each new kind of
expectation fails with a diff when it is made wrong, start positions inside steps and
attacks load, scripted dice name their seat, and malformed v2 files give one clear message
naming the file and the field."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tactical_tui.tools.scenario import ScenarioError, check, load_scenario, perft, run_scenario

ROOT = Path(__file__).resolve().parent.parent
V2 = ROOT / "scenarios" / "v2"


def variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of a shipped v2 scenario with `old` replaced by `new` (which must occur)."""
    text = (V2 / name).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {name}"
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def failures(path: Path) -> str:
    result = run_scenario(load_scenario(path))
    assert not result.passed, f"{path.name} should fail"
    return "\n".join(result.failures)


def test_every_v2_scenario_states_its_version():
    files = sorted(V2.glob("*.toml"))
    assert len(files) >= 10
    for f in files:
        assert "\nversion = 2\n" in f.read_text(encoding="utf-8"), f.name


# ----------------------------------------------------------------------- comparisons

@pytest.mark.parametrize("name, old, new, shown", [
    ("start-in-payment-step.toml", '{ any_order = ["t_bid5#1", "short_sword"] }',
     '{ any_order = ["t_bid5#1", "dagger"] }',
     ['expected: {any_order = ["t_bid5#1", "dagger"]}', 'actual:   ["short_sword", "t_bid5#1"]']),
    ("start-in-auction-step.toml", '{ contains = ["short_sword"], not = { contains = ["t_bid5#1"] } }',
     '{ contains = ["dagger"] }', ['expected: {contains = ["dagger"]}']),
    ("start-in-auction-step.toml", '{ contains = ["short_sword"], not = { contains = ["t_bid5#1"] } }',
     '{ not = { contains = ["short_sword"] } }', ['expected: {not = {contains = ["short_sword"]}}']),
    ("start-in-draft.toml", 'picks = { length = 6,', 'picks = { length = 5,',
     ["what seat 2 sees at picks", "expected: {length = 5"]),
    ("game-over-after-all-damage-order.toml", '{ at_most = 4 }', '{ at_most = 3 }',
     ['seats[1].hp', 'expected: {at_most = 3}', 'actual:   4']),
    ("perft-turn-sequences.toml", 'legal_count = { at_least = 4 }', 'legal_count = { at_least = 7 }',
     ["the number of legal actions of seat 1", "expected: {at_least = 7}", "actual:   6"]),
])
def test_a_wrong_comparison_fails_with_the_difference(tmp_path, name, old, new, shown):
    out = failures(variant(tmp_path, name, old, new))
    for s in shown:
        assert s in out, out


# ------------------------------------------------------------------- legal actions

def test_a_wrong_legal_count_fails(tmp_path):
    out = failures(variant(tmp_path, "perft-turn-sequences.toml", "legal_count = 4", "legal_count = 5"))
    assert "the number of legal actions\n    expected: 5\n    actual:   4" in out
    assert "legal now: Move(seat=0, step=1)" in out


def test_a_wrong_legal_set_names_what_is_missing_and_what_is_extra(tmp_path):
    out = failures(variant(tmp_path, "start-in-appraisal-step.toml",
                           '{ type = "Appraise", seat = 1, target = "mace" }',
                           '{ type = "Appraise", seat = 1, target = "club" }'))
    assert "the legal actions (the exact set, any order)" in out
    assert "expected but not legal: Appraise(seat=1, target=\"club\")" in out
    assert "legal but not expected: Appraise(seat=1, target=\"mace\")" in out


def test_a_wrong_perft_fails(tmp_path):
    out = failures(variant(tmp_path, "perft-turn-sequences.toml", "count = 8", "count = 9"))
    assert "perft 3 until TurnEnded (lines of play)\n    expected: 9\n    actual:   8" in out


def test_perft_scripted_chance_changes_the_count(tmp_path):
    """The count depends on the scripted chip: with a 2 scripted where a miss was, 5."""
    out = failures(variant(tmp_path, "perft-draw-scripted-chance.toml",
                           'chips = ["miss"]\ncount = 6', 'chips = ["2"]\ncount = 6'))
    assert "expected: 6\n    actual:   5" in out


def test_perft_counts_by_hand():
    """perft itself on the v2 position: 4 actions, 8 whole turns (see the scenario)."""
    sc = load_scenario(V2 / "perft-turn-sequences.toml")
    assert perft(sc.state, 1) == 4
    assert perft(sc.state, 3, "TurnEnded") == 8
    assert perft(sc.state, 0) == 1


def test_a_perft_too_big_fails_clearly(tmp_path):
    path = variant(tmp_path, "perft-turn-sequences.toml", "perft = 3\nuntil = \"TurnEnded\"\ncount = 8",
                   "perft = 8\ncount = 8")
    import tactical_tui.tools.scenario.runner as S
    old = S.PERFT_NODES
    S.PERFT_NODES = 500
    try:
        out = failures(path)
    finally:
        S.PERFT_NODES = old
    assert "perft 8 visits more than 500 positions" in out


def test_the_perfts_of_one_scenario_share_a_budget(tmp_path, monkeypatch):
    """A file of 20 maximal perfts took 22 s (a 1 MB file could hold hours of them): the
    perfts of one scenario visit at most PERFT_SCENARIO_NODES positions in all; the
    others fail at once with a message saying why."""
    import tactical_tui.tools.scenario.runner as S
    many = "perft = 3\nuntil = \"TurnEnded\"\ncount = 8\n" + \
        "".join("\n[[expect]]\nat = 0\nperft = 3\nuntil = \"TurnEnded\"\ncount = 8\n"
                for _ in range(5))
    path = variant(tmp_path, "perft-turn-sequences.toml",
                   "perft = 3\nuntil = \"TurnEnded\"\ncount = 8", many)
    counted = []
    real = S.perft
    monkeypatch.setattr(S, "perft", lambda *a, **k: counted.append(1) or real(*a, **k))
    assert run_scenario(load_scenario(path)).passed           # 6 small perfts fit
    counted.clear()
    # the file's perft 1 visits 5 positions, each perft 3 until TurnEnded 11: with 40 in
    # all, three of the six fit, the fourth is cut off and the last two never run
    monkeypatch.setattr(S, "PERFT_SCENARIO_NODES", 40)
    out = failures(path)
    assert out.count("perft 3 not counted: the scenario's perfts would visit more than 40 "
                     "positions") == 1
    assert out.count("perft 3 not counted: the scenario's perfts have visited 40 positions") == 2
    assert len(counted) == 5


# ------------------------------------------------------------------- event order

def test_events_out_of_order_fail(tmp_path):
    """R26: the game ends after the damage to every target — expecting it before the
    second target's damage fails, and the diff lists the events as they came."""
    out = failures(variant(
        tmp_path, "game-over-after-all-damage-order.toml",
        '    { event = "DamageDealt", target = 2, amount = 2, hp = 4 },\n'
        '    { event = "VictoryPointsGained", target = 2, vp = 6 },\n'
        '    { event = "GameOver", winners = [0], reason = "vp" },\n',
        '    { event = "GameOver", winners = [0], reason = "vp" },\n'
        '    { event = "DamageDealt", target = 2, amount = 2, hp = 4 },\n'))
    assert "the order of events in all actions" in out
    assert "missing from there: DamageDealt" in out
    assert "actual events:" in out and "GameOver" in out


def test_an_event_after_the_sequence_that_must_not_be_there(tmp_path):
    out = failures(variant(tmp_path, "start-in-draft.toml", '    { event = "DraftEnded" },\n]',
                           '    { event = "DraftEnded" },\n]\nthen_none = { event = "PhaseStarted" }'))
    assert "expected no PhaseStarted after DraftEnded, but there is: PhaseStarted" in out


# ------------------------------------------------------------------- what a seat sees

def test_a_visible_value_expected_hidden_fails(tmp_path):
    """After the reveal seat 0's build is public: expecting it hidden shows it."""
    out = failures(variant(tmp_path, "order-tie-dice-for-seats.toml",
                           '"seats[0].race" = "t_fighter"', '"seats[0].race" = "hidden"'))
    assert 'what seat 1 sees at seats[0].race\n    expected: "hidden"\n    actual:   "t_fighter"' in out


def test_a_wrong_observed_value_fails(tmp_path):
    out = failures(variant(tmp_path, "start-in-draft.toml", '"seats[0].hand_size" = 2',
                           '"seats[0].hand_size" = 3'))
    assert "what seat 2 sees at seats[0].hand_size\n    expected: 3\n    actual:   2" in out


def test_a_hidden_value_expected_visible_fails(tmp_path):
    out = failures(variant(tmp_path, "order-tie-dice-for-seats.toml",
                           '"seats[0].equipped" = "hidden"', '"seats[0].equipped" = ["t_sword"]'))
    assert "expected: [\"t_sword\"]\n    actual:   []" in out


# ------------------------------------------------------------------- dice for a seat

def test_a_die_for_another_seat_fails(tmp_path):
    out = failures(variant(tmp_path, "order-tie-dice-for-seats.toml",
                           "{ seat = 0, value = 3 }, { seat = 1, value = 3 }",
                           "{ seat = 1, value = 3 }, { seat = 0, value = 3 }"))
    assert "scripted die #1 (3) is for seat 1, but the engine rolled it for seat 0 (order)" in out


def test_plain_dice_still_work_beside_seat_dice(tmp_path):
    path = variant(tmp_path, "order-tie-dice-for-seats.toml", "{ seat = 2, value = 6 }", "6")
    assert run_scenario(load_scenario(path)).passed


# ------------------------------------------------------------------- malformed v2 files

def head(phase: str = "battle") -> str:
    return f'[scenario]\nversion = 2\nplayers = 3\nphase = "{phase}"\n'


SEATS = '[[seat]]\nequipped = ["short_sword"]\narea = 1\n[[seat]]\narea = 2\n[[seat]]\narea = 4\n'
OK = '\n[[expect]]\nphase = "battle"\n'

MALFORMED = {
    "version": ('[scenario]\nversion = 3\nphase = "build"\n' + OK,
                ["[scenario], version", "format version 3", "update TACTICAL"]),
    "mixed-comparison": (head() + SEATS + '[[expect]]\n"seats[0].hp" = { at_least = 2, hp = 3 }\n',
                         ["[[expect]] #1 (line 12), seats[0].hp", "only comparisons", "'hp'"]),
    "at-least-text": (head() + SEATS + '[[expect]]\n"seats[0].hp" = { at_least = "2" }\n',
                      ["seats[0].hp", "at_least needs a number"]),
    "legal-count-text": (head() + SEATS + '[[expect]]\nlegal_count = "4"\n',
                         ["[[expect]] #1 (line 12), legal_count", "whole number"]),
    "legal-count-extra": (head() + SEATS + '[[expect]]\nlegal_count = 4\n"seats[0].hp" = 6\n',
                          ["[[expect]] #1 (line 12)", "unknown field 'seats[0].hp'"]),
    "legal-set-action": (head() + SEATS + '[[expect]]\nlegal_set = [{ type = "Mvoe", seat = 0 }]\n',
                         ["legal_set[0]", 'unknown action type "Mvoe"']),
    "perft-deep": (head() + SEATS + '[[expect]]\nperft = 12\ncount = 1\n',
                   ["[[expect]] #1 (line 12), perft", "between 1 and 8"]),
    "perft-no-count": (head() + SEATS + '[[expect]]\nperft = 2\n', ["count = N"]),
    "perft-until": (head() + SEATS + '[[expect]]\nperft = 2\ncount = 1\nuntil = "TurnOver"\n',
                    ["until", 'unknown event "TurnOver"']),
    "perft-seat-die": (head() + SEATS + '[[expect]]\nperft = 2\ncount = 1\n'
                       'dice = [{ seat = 0, value = 3 }]\n', ["dice", "plain results"]),
    "order-event": (head() + SEATS + '[[expect]]\nevent_order = [{ event = "GameOvr" }]\n',
                    ["event_order[0], event", 'unknown event "GameOvr"']),
    "order-field": (head() + SEATS + '[[expect]]\nevent_order = [{ event = "GameOver", who = 1 }]\n',
                    ["event_order[0]", "event GameOver has no field 'who'"]),
    "order-empty": (head() + SEATS + '[[expect]]\nevent_order = []\n', ["event_order", "list of event tables"]),
    "then-none": (head() + SEATS + '[[expect]]\nevent_order = [{ event = "GameOver" }]\n'
                  'then_none = "GameOver"\n', ["then_none", "must be a table"]),
    "observe-path": (head() + SEATS + '[[expect]]\nobserve = 1\n"seats[0].hand" = "hidden"\n',
                     ["seats[0].hand", "seats[0] has no field 'hand'", "hand_size"]),
    "observe-seat": (head() + SEATS + '[[expect]]\nobserve = 3\nphase = "battle"\n',
                     ["[[expect]] #1 (line 12), observe", "between 0 and 2"]),
    "observe-nothing": (head() + SEATS + '[[expect]]\nobserve = 1\n', ["give paths of the observation"]),
    "two-kinds": (head() + SEATS + '[[expect]]\nlegal_count = 1\nperft = 1\ncount = 1\n',
                  ["one kind of expectation per [[expect]]"]),
    "die-table": (head() + SEATS + '[chance]\ndice = [{ seat = 0 }]\n' + OK,
                  ["[chance] dice[0]", "{ seat = N, value = 1–6 }"]),
    "die-seat": (head() + SEATS + '[chance]\ndice = [{ seat = 4, value = 2 }]\n' + OK,
                 ["[chance] dice[0], seat", "there is no seat 4"]),
    "die-value": (head() + SEATS + '[chance]\ndice = [{ seat = 1, value = 7 }]\n' + OK,
                  ["[chance] dice[0], value", "between 1 and 6"]),
    "bid-step": (head("bidding") + '[bidding]\nstep = "payday"\ncurrent = ["dagger"]\n' + OK,
                 ["[bidding], step", "must be one of bid, auction, payment, appraisal"]),
    "auction-no-bids": (head("bidding") + '[bidding]\nstep = "auction"\ncurrent = ["dagger"]\n' + OK,
                        ["[bidding], bids", "give them"]),
    "payment-not-a-bid": (head("bidding") + '[[seat]]\n[[seat]]\n[[seat]]\n[bidding]\nstep = "payment"\n'
                          'current = ["dagger"]\nbids = [{ seat = 0, target = "dagger", card = "buckler#1" }]\n'
                          'payments = [{ target = "dagger", card = "buckler#2" }]\n' + OK,
                          ["[bidding] payments[0]", "no bid of 'buckler#2' on 'dagger'"]),
    "appraisal-round": (head("bidding") + '[bidding]\nround = 0\nstep = "appraisal"\ncurrent = ["dagger"]\n' + OK,
                        ["[bidding], round", "after the last bid round (2)"]),
    "tied-outside-appraisal": (head("bidding") + '[bidding]\nstep = "auction"\ncurrent = ["dagger"]\n'
                               'bids = [{ seat = 0, target = "dagger", card = "buckler#1" }]\n'
                               'tied = ["dagger"]\n' + OK, ["[bidding], tied", "only in step 'appraisal'"]),
    "draft-picks-later": (head("build") + '[[seat]]\npicks = ["buckler#1"]\n' + OK,
                          ["[[seat]] #1 (line 5) (seat 0), picks", 'only in phase = "draft"']),
    "draft-choice": (head("draft") + '[[seat]]\nhand = ["buckler#1"]\ndraft_choice = "buckler#2"\n' + OK,
                     ["draft_choice", "'buckler#2' is not in this seat's hand"]),
    "attack-field": (head() + SEATS + '[battle]\nattack = { attacker = 0, counter = false, card = '
                     '"short_sword", range_skill = "x", colour = 1 }\n' + OK,
                     ["[battle] attack", "unknown field(s) 'colour'"]),
    "attack-type": (head() + SEATS + '[battle]\nattack = { attacker = 0, counter = "no", card = '
                    '"short_sword", range_skill = "x" }\n' + OK,
                    ["[battle] attack.counter", "must be true or false"]),
    "attack-not-equipped": (head() + SEATS + '[battle]\nattack = { attacker = 1, counter = false, '
                            'card = "short_sword", range_skill = "x" }\n' + OK,
                            ["[battle] attack, card", "not equipped by seat 1"]),
    "attack-chip": (head() + SEATS.replace('equipped = ["short_sword"]', 'equipped = ["t_s"]') +
                    '[battle]\nattack = { attacker = 0, counter = false, card = "t_s", '
                    'range_skill = "t_s_r", stage = "draw", bag = ["7"] }\n'
                    '[[attack]]\nid = "t_s"\nname = { ja = "剣", en = "S" }\ntype = "weapon"\n'
                    'hands = 1\nchips = [0, 1, 1, 2, 2]\nstar = false\n[[attack.skills]]\n'
                    'id = "t_s_r"\nname = { ja = "近", en = "R" }\nfamily = "range"\n'
                    'effect = { kind = "range", range = "short" }\n' + OK,
                    ["[battle] attack, bag", "'7' is not a chip"]),
    "queue-without-attack": (head() + SEATS + '[battle]\ncounter_queue = [1]\ncountered = 0\n' + OK,
                             ["[battle], counter_queue", "counters come after the attack"]),
    "position-and-phase": ('[scenario]\nversion = 2\nphase = "battle"\n[position]\nrng = "0x1"\n' + OK,
                           ["[scenario], phase", "not with [position]"]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_v2_file_gives_a_clear_message(tmp_path, name):
    text, fragments = MALFORMED[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: "), msg
    for f in fragments:
        assert f in msg, msg
    out = io.StringIO()
    assert check([str(path)], out=out) == 1
    assert "Traceback" not in out.getvalue() and "malformed scenario" in out.getvalue()


def test_a_position_the_rules_cannot_go_on_from(tmp_path):
    """A payment step where nobody has to choose: the loader says so instead of crashing."""
    path = tmp_path / "stuck.toml"
    path.write_text(head("bidding") + '[bidding]\nstep = "payment"\ncurrent = ["dagger"]\n'
                    'bids = [{ seat = 0, target = "dagger", card = "buckler#1" }]\n' + OK,
                    encoding="utf-8")
    with pytest.raises(ScenarioError, match="the rules cannot go on from this position"):
        load_scenario(path)


def test_v1_files_still_load_without_a_version():
    sc = load_scenario(ROOT / "scenarios" / "bidding" / "5-3-example-short-sword.toml")
    assert sc.steps and run_scenario(sc).passed
