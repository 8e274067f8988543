"""Rule scenarios (`tactical check`, docs/scenarios.md): every shipped scenario passes; a
wrong expectation, unused or missing chance, or an action that cannot be applied fails
with a readable diff; a malformed file gives one clear message, never a traceback."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from tactical_tui.cli import main
from tactical_tui.tools.scenario import ScenarioError, check, load_scenario, run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
FILES = sorted(SCENARIOS.rglob("*.toml"))
EXAMPLE = SCENARIOS / "bidding" / "5-3-example-short-sword.toml"
STOP = SCENARIOS / "battle" / "faq-stop-any-time.toml"


def rel(p: Path) -> str:
    return str(p.relative_to(SCENARIOS))


def run_check(*paths, explain: bool = False, lang: str = "en") -> tuple[int, str]:
    out = io.StringIO()
    code = check([str(p) for p in paths], explain=explain, lang=lang, out=out)
    return code, out.getvalue()


# ------------------------------------------------------------------- the shipped scenarios

def test_there_are_at_least_40_scenarios():
    assert len(FILES) >= 40


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_scenario_passes(path):
    result = run_scenario(load_scenario(path))
    assert result.passed, "\n".join(result.failures)


def test_check_scenarios_folder_passes():
    code, out = run_check(SCENARIOS)
    lines = out.strip().splitlines()
    assert code == 0, out
    assert lines[-1] == f"{len(FILES)} passed, 0 failed"
    assert sum(1 for line in lines if line.startswith("pass  ")) == len(FILES)


def test_the_rulebook_examples_and_faq_are_there():
    """The rulebook's worked examples and every §8 FAQ area have a scenario."""
    names = {p.stem for p in FILES}
    for stem in ("5-3-example-short-sword", "faq-pass-is-final", "faq-one-card-per-bid",
                 "faq-tie-next-or-unsold", "faq-winner-extra-bid-returns",
                 "faq-several-targets-one-round", "faq-same-name-twice",
                 "faq-accessories-no-limit", "faq-magic-no-hand-slot", "faq-leftover-material",
                 "faq-no-change-after-confirm", "faq-first-turn-no-targets",
                 "faq-move-into-occupied-area", "faq-no-attack-after-move",
                 "faq-knockout-reentry", "faq-counter-after-zero-damage",
                 "faq-counter-crit-area-only", "counter-basic", "faq-zero-mana-skill-not-automatic",
                 "faq-same-family-one-skill", "faq-stop-any-time", "draw-third-point-draws-on",
                 "draw-miss-loses-all", "crit-per-target", "defense-zero-chips-largest",
                 "multi-target-same-seat-twice", "final-stats-example", "skill-requirements-example"):
        assert stem in names, stem


def test_docs_list_every_scenario():
    docs = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    missing = [rel(p) for p in FILES if f"`{p.name}`" not in docs]
    assert not missing, f"docs/scenarios.md does not list {missing}"


# ------------------------------------------------------------------------ failures show a diff

def _mutations(sc):
    """Every expectation of `sc` made wrong in turn (one scenario each)."""
    for i, ex in enumerate(sc.expects):
        if ex.kind == "state":
            for j, (key, tokens, value) in enumerate(ex.paths):
                paths = list(ex.paths)
                paths[j] = (key, tokens, "__wrong__")
                yield i, attrs.evolve(ex, paths=tuple(paths)), '"__wrong__"'
        elif ex.kind == "event":
            wrong = 7 if ex.times != 7 else 8
            yield i, attrs.evolve(ex, times=wrong), f"{wrong} time(s)"
        elif ex.kind == "observe":
            for j, (key, tokens, value) in enumerate(ex.paths):
                paths = list(ex.paths)
                paths[j] = (key, tokens, "__wrong__")
                yield i, attrs.evolve(ex, paths=tuple(paths)), '"__wrong__"'
        elif ex.kind in ("legal_count", "perft"):
            yield i, attrs.evolve(ex, value=999_999), "expected: 999999"
        elif ex.kind == "legal_set":
            from rules.actions import Rest
            yield i, attrs.evolve(ex, actions=ex.actions + (Rest(seat=2),)), \
                "expected but not legal: Rest(seat=2)"
        elif ex.kind == "event_order":
            yield i, attrs.evolve(ex, sequence=ex.sequence + (("KnockedOut", {"seat": 4}),)), \
                "missing from there: KnockedOut {seat = 4}"
        elif ex.kind == "illegal":
            yield i, attrs.evolve(ex, reason="zzz no such reason"), "zzz no such reason"
        elif ex.mode == "excludes":
            yield i, attrs.evolve(ex, mode="includes"), "missing"
        else:
            yield i, attrs.evolve(ex, fields=list(ex.fields) + [{"seat": 77}], mode="includes"), \
                "seat = 77"


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_a_wrong_expectation_fails_with_the_difference(path):
    sc = load_scenario(path)
    count = 0
    for i, wrong, shown in _mutations(sc):
        expects = list(sc.expects)
        expects[i] = wrong
        result = run_scenario(attrs.evolve(sc, expects=tuple(expects)))
        assert not result.passed, f"expect #{i + 1} made wrong still passes"
        text = "\n".join(result.failures)
        assert shown in text and "expected" in text and "actual" in text, text
        count += 1
    assert count >= 1


def test_wrong_value_in_a_copy_shows_both_values(tmp_path):
    copy = tmp_path / "copy.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert 'defense_discard = ["t_bid3#1"]' in text
    copy.write_text(text.replace('defense_discard = ["t_bid3#1"]',
                                 'defense_discard = ["t_bid5#1"]'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert f"FAIL  {copy}" in out
    assert "defense_discard" in out
    assert 'expected: ["t_bid5#1"]' in out
    assert 'actual:   ["t_bid3#1"]' in out
    assert out.strip().splitlines()[-1] == "0 passed, 1 failed"


def test_wrong_number_in_a_copy_shows_both_values(tmp_path):
    copy = tmp_path / "stop.toml"
    text = STOP.read_text(encoding="utf-8")
    assert '"seats[0].vp" = 1' in text
    copy.write_text(text.replace('"seats[0].vp" = 1', '"seats[0].vp" = 2'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "seats[0].vp" in out and "expected: 2" in out and "actual:   1" in out


def test_wrong_event_in_a_copy_lists_the_actual_events(tmp_path):
    copy = tmp_path / "example.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    copy.write_text(text.replace('value = 3\npaid = "t_bid3#1"', 'value = 5\npaid = "t_bid3#1"'),
                    encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "no event TargetWon" in out
    assert "value = 5" in out and "value = 3" in out     # expected and actual


# --------------------------------------------------------------------- strict scripting

def test_unused_chance_fails(tmp_path):
    copy = tmp_path / "extra-chip.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('chips = ["2"]', 'chips = ["2", "1"]'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert 'scripted chance left unused: chips ["1"]' in out


def test_unused_die_fails(tmp_path):
    copy = tmp_path / "extra-die.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('[chance]\n', '[chance]\ndice = [3]\n'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1 and "left unused: dice [3]" in out


def test_unscripted_chance_fails(tmp_path):
    copy = tmp_path / "no-chips.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('chips = ["2"]', 'chips = []'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "chip draw(s) that [chance] does not script" in out


def test_impossible_scripted_chip_fails(tmp_path):
    copy = tmp_path / "bad-chip.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('chips = ["2"]', 'chips = ["crit"]'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "scripted chance cannot happen" in out and "'crit' is not in the bag" in out


def test_an_action_that_cannot_be_applied_fails(tmp_path):
    copy = tmp_path / "refused.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('type = "Stop"\nseat = 0', 'type = "Stop"\nseat = 1'),
                    encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "cannot be applied: seat 1 cannot act now" in out
    assert "legal now: Draw(seat=0); Stop(seat=0)" in out
    assert "not checked: the scenario stopped at action #3" in out


def test_an_action_expected_illegal_but_legal_fails(tmp_path):
    copy = tmp_path / "legal.toml"
    text = STOP.read_text(encoding="utf-8")
    copy.write_text(text.replace('type = "Stop"\nseat = 0',
                                 'type = "Stop"\nseat = 0\nillegal = true'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1 and "should have been refused, but it was applied" in out


def test_an_illegal_expectation_that_is_legal_fails(tmp_path):
    copy = tmp_path / "legal-after-all.toml"
    copy.write_text(STOP.read_text(encoding="utf-8") + '\n[[expect]]\nat = 0\nillegal = '
                    '{ type = "StartAttack", seat = 0, card = "t_sword", skill = "t_sword_short" }\n',
                    encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert 'StartAttack(seat=0, card="t_sword", skill="t_sword_short") should be refused, ' \
           'but it is legal' in out


def test_a_refusal_for_another_reason_fails(tmp_path):
    src = SCENARIOS / "bidding" / "faq-pass-is-final.toml"
    copy = tmp_path / "reason.toml"
    text = src.read_text(encoding="utf-8")
    copy.write_text(text.replace('reason_contains = "cannot act now"',
                                 'reason_contains = "no such reason"'), encoding="utf-8")
    code, out = run_check(copy)
    assert code == 1
    assert "expected reason containing: 'no such reason'" in out
    assert "actual reason: 'seat 0 cannot act now" in out


# -------------------------------------------------------------------------- malformed files

BATTLE = """[scenario]
players = 3
phase = "battle"
[[seat]]
equipped = ["short_sword"]
area = 1
[[seat]]
area = 1
[[seat]]
area = 4
"""
EXPECT = '\n[[expect]]\nphase = "battle"\n'

MALFORMED = {
    "bad-toml": ('[scenario]\nplayers = 3\n[[seat]\n', ["not valid TOML", "line 3"]),
    "no-scenario": ('[[seat]]\narea = 1\n', ["the [scenario] table is missing"]),
    "unknown-section": (BATTLE + "[weather]\nsun = true\n" + EXPECT,
                        ["unknown section or key 'weather'"]),
    "unknown-action": (BATTLE + '[[action]]\ntype = "Atack"\nseat = 0\n' + EXPECT,
                       ["[[action]] #1 (line 11)", 'unknown action type "Atack"', "StartAttack"]),
    "unknown-action-field": (BATTLE + '[[action]]\ntype = "Move"\nseat = 0\nstep = 1\nside = 2\n'
                             + EXPECT, ["(Move)", "unknown field 'side'"]),
    "missing-action-field": (BATTLE + '[[action]]\ntype = "Move"\nseat = 0\n' + EXPECT,
                             ["missing field 'step'"]),
    "wrong-type": (BATTLE + '[[action]]\ntype = "Move"\nseat = 0\nstep = "left"\n' + EXPECT,
                   ["step: must be an integer"]),
    "no-such-seat": (BATTLE + '[[action]]\ntype = "Rest"\nseat = 4\n' + EXPECT,
                     ["there is no seat 4"]),
    "unknown-seat-field": (BATTLE.replace("area = 4", "area = 4\nhat = 1") + EXPECT,
                           ["[[seat]] #3 (line 9) (seat 2)", "unknown field 'hat'"]),
    "unknown-card": (BATTLE.replace('"short_sword"', '"no_such_card"') + EXPECT,
                     ["equipped", "no card 'no_such_card'"]),
    "defense-copy": (BATTLE.replace('"short_sword"', '"leather_cap"') + EXPECT,
                     ['a defense card is a physical copy "leather_cap#n"']),
    "placed-twice": (BATTLE.replace("area = 4", 'area = 4\nequipped = ["short_sword"]') + EXPECT,
                     ["'short_sword' is placed twice"]),
    "bad-inline-card": (BATTLE + '[[attack]]\nid = "t_x"\nname = { ja = "x", en = "X" }\n'
                        'type = "weapon"\nhands = 1\nchips = [0, 1, 3, 1, 1]\nstar = false\n'
                        '[[attack.skills]]\nid = "t_x_s"\nname = { ja = "近", en = "S" }\n'
                        'family = "range"\neffect = { kind = "range", range = "short" }\n' + EXPECT,
                        ["inline cards: attack 't_x' (line 12)", "chips", "0, 1 or 2"]),
    "inline-id-clash": (BATTLE + '[[race]]\nid = "short_sword"\nname = { ja = "x", en = "X" }\n'
                        'stats = { agi = 1 }\n' + EXPECT, ["the id is a shipped attack's"]),
    "bad-chip": (BATTLE + '[chance]\nchips = ["3"]\n' + EXPECT, ['"3" is not a chip']),
    "bad-path": (BATTLE + '[[expect]]\n"seats[1].hpp" = 4\n', ["seats[1] has no field 'hpp'"]),
    "bad-event": (BATTLE + '[[expect]]\nevent = "Damage"\n', ['unknown event "Damage"']),
    "bad-event-field": (BATTLE + '[[expect]]\nevent = "DamageDealt"\ndamage = 2\n',
                        ["event DamageDealt has no field 'damage'"]),
    "bad-at": (BATTLE + '[[expect]]\nat = 3\nphase = "over"\n', ["at: must be an action number"]),
    "no-expectations": (BATTLE, ["a scenario must be able to fail"]),
    "bad-phase": ('[scenario]\nphase = "reveal"\n' + EXPECT, ["phase: must be one of"]),
    "bad-players": ('[scenario]\nphase = "build"\nplayers = 7\n' + EXPECT,
                    ["players: must be between 3 and 5"]),
    "no-area": (BATTLE.replace("area = 4", "hp = 6") + EXPECT, ["needs an area"]),
    "illegal-expect-field": (BATTLE + '[[expect]]\nillegal = { type = "Rest", seat = 0 }\n'
                             'because = "x"\n', ["unknown field 'because'"]),
    "illegal-expect-action": (BATTLE + '[[expect]]\nillegal = { type = "Rest" }\n',
                              ["[[expect]] #1 (line 11), illegal (Rest)", "missing field 'seat'"]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_file_gives_a_clear_message(tmp_path, name):
    text, fragments = MALFORMED[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    for fragment in fragments:
        assert fragment in message, message
    code, out = run_check(path)
    assert code == 1
    assert f"FAIL  {path}: malformed scenario" in out and message in out
    assert "Traceback" not in out


def test_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScenarioError, match="not UTF-8"):
        load_scenario(path)


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "tactical_tui.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_never_prints_a_traceback(tmp_path):
    for name in ("bad-toml", "unknown-action", "bad-inline-card"):
        (tmp_path / f"{name}.toml").write_text(MALFORMED[name][0], encoding="utf-8")
    proc = _cli("check", str(tmp_path))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "0 passed, 3 failed"


# ------------------------------------------------------------------------------ the command

def test_cli_exit_codes(tmp_path, capsys):
    assert main(["check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"pass  {EXAMPLE}") and out.strip().endswith("1 passed, 0 failed")

    wrong = tmp_path / "wrong.toml"
    wrong.write_text(EXAMPLE.read_text(encoding="utf-8").replace("value = 3", "value = 4"),
                     encoding="utf-8")
    assert main(["check", str(wrong)]) == 1
    assert main(["check", str(EXAMPLE), str(wrong)]) == 1
    assert capsys.readouterr().out.strip().endswith("1 passed, 1 failed")

    assert main(["check", str(tmp_path / "missing.toml")]) == 1
    assert "no such file or folder" in capsys.readouterr().out

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check", str(empty)]) == 1
    assert "no scenario files" in capsys.readouterr().out


def test_check_names_why_a_path_cannot_be_looked_up(tmp_path, capsys):
    """A loop of links said "no such file or folder"; a name too long was a traceback."""
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    assert main(["check", str(tmp_path / "loop1"), "a" * 300, str(EXAMPLE)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {tmp_path / 'loop1'}: Too many levels of symbolic links" in out
    assert "the name is too long" in out
    assert out.strip().endswith("1 passed, 2 failed")


def test_cli_exit_code_from_a_process(tmp_path):
    proc = _cli("check", str(EXAMPLE), str(STOP))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "2 passed, 0 failed"
    bad = tmp_path / "bad.toml"
    bad.write_text("[scenario\n", encoding="utf-8")
    proc = _cli("check", str(bad))
    assert proc.returncode == 1


def test_a_folder_copy_is_checked_recursively(tmp_path):
    copy = tmp_path / "scenarios"
    shutil.copytree(SCENARIOS / "bidding", copy / "bidding")
    code, out = run_check(copy)
    count = len(list((SCENARIOS / "bidding").glob("*.toml")))
    assert code == 0 and out.strip().endswith(f"{count} passed, 0 failed")


@pytest.mark.parametrize("lang, words", [("en", ["step 1: PlaceBid", "the log numbers seats from 1",
                                                 "Seat 1", "Bid Token 3"]),
                                         ("ja", ["手順1: PlaceBid", "ログの席番号は1から",
                                                 "席1", "入札札3"])])
def test_explain_prints_the_event_log(lang, words, capsys):
    assert main(["check", "--explain", "--lang", lang, str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    for w in words:
        assert w in out, out


@pytest.mark.parametrize("lang, line", [
    ("en", "refused, as expected: Seat 1 cannot act now: waiting for Seat 3 (bidding)"),
    ("ja", "拒否（想定どおり）: 席1は今は行動できません（席3の入札を待っています）")])
def test_explain_shows_refusals(lang, line, capsys):
    """--explain shows why an action is refused in the chosen language, seats numbered
    from 1 as in the rest of the log (the engine's English reason says "seat 0")."""
    path = SCENARIOS / "bidding" / "faq-pass-is-final.toml"
    assert main(["check", "--explain", "--lang", lang, str(path)]) == 0
    assert line in capsys.readouterr().out


def test_explain_shows_battle_refusals_with_card_names(capsys):
    path = SCENARIOS / "battle" / "skill-exclusive.toml"
    assert main(["check", "--explain", "--lang", "ja", str(path)]) == 0
    out = capsys.readouterr().out
    assert "拒否（想定どおり）: 《" in out and "は同時に使えません（併用不可）" in out, out
