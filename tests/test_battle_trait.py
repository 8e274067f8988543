"""A guild's battle trait (§4 セットアップ 「ギルド特性に「各バトル中1回」と記載されている場合、
その使用回数はゲーム中1回です。」; §6 魔力を消費するスキル; docs/RULINGS.md R2).

The rulebook's seven guilds have no battle trait, so these tests use custom card data:
the battle test cards (`tests/data/battle_cards.toml`) with three guilds given one —

- Black Stag: 《鬨の声》 Battle Cry — family critical, attack, mana 1, +1 crit chip;
- Blue Wolf: 《鉄壁》 Iron Wall — family guard, when attacked, mana 0, +1 zero chip;
- Red Lion: 《強行軍》 Forced March — family charge, in one's own turn (continuous), mana 0,
  move then attack.

A battle trait is a skill in the schema of card skills, declared like one — as
(guild id, skill id) — where its timing fits, never automatically; it counts against the
one-skill-per-family rule like any skill; once declared it is used for the rest of the
game (`SeatState.trait_used`, public in `observe`).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import attrs
import pytest

from ai.selfplay import running
from ai import make_player
from rules import Config, IllegalAction, apply, legal_actions, new_game, observe, pending
from rules.actions import Activate, ChooseTarget, Declare, Done, EndTurn, Move, StartAttack, \
    StartCounter, Stop
from rules.cards import DEFAULT_CARDS_PATH, CardDataError, default_cards, parse_cards
from rules.engine import refusal
from rules.events import SkillActivated, SkillDeclared, TraitUsed

import test_battle_positions as P
from test_battle_positions import BATTLE_CARDS_PATH, run

CRY = ('{ kind = "battle", name = { ja = "鬨の声", en = "Battle Cry" }, skill = { id = "battle_cry", '
       'name = { ja = "鬨の声", en = "Battle Cry" }, family = "critical", mana = 1, '
       'timing = "attack", effect = { kind = "add_crit_chips", count = 1 } } }')
WALL = ('{ kind = "battle", name = { ja = "鉄壁", en = "Iron Wall" }, skill = { id = "iron_wall", '
        'name = { ja = "鉄壁", en = "Iron Wall" }, family = "guard", mana = 0, '
        'timing = "defend", effect = { kind = "add_zero_chips", count = 1 } } }')
MARCH = ('{ kind = "battle", name = { ja = "強行軍", en = "Forced March" }, skill = { id = '
         '"forced_march", name = { ja = "強行軍", en = "Forced March" }, family = "charge", '
         'mana = 0, timing = "turn", continuous = "turn_end", '
         'effect = { kind = "move_then_attack" } } }')


def with_traits(text: str, traits: dict[str, str]) -> str:
    """Card data text with the `trait = …` line of each named guild replaced."""
    for gid, trait in traits.items():
        pattern = re.compile(r'(\[\[guild\]\]\nid = "' + gid + r'"\n(?:.*\n)*?)trait = .*\n')
        text, n = pattern.subn(lambda m: m.group(1) + f"trait = {trait}\n", text, count=1)
        assert n == 1, gid
    return text


TRAIT_TEXT = with_traits(BATTLE_CARDS_PATH.read_text("utf-8"),
                         {"black_stag": CRY, "blue_wolf": WALL, "red_lion": MARCH})
TC = parse_cards(TRAIT_TEXT, "battle_cards.toml + battle traits")


def position(guilds: dict[int, str], seats: dict[int, dict], **kw):
    """A battle position (test_battle_positions.position) on the trait cards, with the
    given seats' guilds."""
    state = P.position(3, seats, **kw)
    state = attrs.evolve(state, cards=TC)
    taken = {g: i for i, g in enumerate(s.guild for s in state.seats)}
    for seat, guild in guilds.items():
        if guild in taken and taken[guild] != seat:       # swap so guilds stay distinct
            state = state.with_seat(taken[guild], guild=state.seats[seat].guild)
        state = state.with_seat(seat, guild=guild)
        taken = {g: i for i, g in enumerate(s.guild for s in state.seats)}
    return state


def duel(**seat0):
    """Seat 0 (Black Stag, area 1, Short Sword + Crit Charm) attacks seat 1 (Blue Wolf,
    area 2 — distance 1, the short range's crit area — Short Sword + Barrier Shield)."""
    spec = {"equip": ["short_sword", "crit_charm"], "area": 1, **seat0}
    return position({0: "black_stag", 1: "blue_wolf"},
                    {0: spec, 1: {"equip": ["short_sword", "barrier_shield"], "area": 2},
                     2: {"area": 4}})


def attacking(state, seat=0):
    state, _ = run(state, StartAttack(seat, "short_sword", "short_sword_range"))
    assert pending(state).kind == "skills"
    return state


CRY_DECL = Declare(0, "black_stag", "battle_cry")


def declare(state, *actions, target=1, defend=False):
    """Declare the attacker's skills, finish (unless nothing was left to declare: the
    engine finishes by itself) and choose the target; the targets then declare nothing
    (unless `defend`: the position waits for the first defender)."""
    state, events = run(state, *actions)
    if pending(state).kind == "skills":
        state, more = run(state, Done(state.battle.attack.attacker))
        events += more
    state, more = run(state, ChooseTarget(state.battle.attack.attacker, target))
    events += more
    while not defend and pending(state).kind == "defense":
        state, more = run(state, Done(pending(state).seats[0]))
        events += more
    return state, events


def refused_code(state, action) -> str:
    assert action not in legal_actions(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    assert refusal(state, action).code == info.value.code
    return info.value.code


# -------------------------------------------------------------- offered where it fits

def test_4_battle_trait_offered_in_an_attack_like_a_skill():
    """§6 アタック 3: the attacker's guild trait of timing アタック時 is offered among the
    skills — declared, never applied by itself (§2 消費魔力0のスキルも自動的には適用されず)."""
    state = attacking(duel())
    assert CRY_DECL in legal_actions(state)
    state, events = declare(state, CRY_DECL)
    assert [e for e in events if isinstance(e, TraitUsed)] == [TraitUsed(0, "black_stag", "battle_cry")]
    assert SkillDeclared(0, "black_stag", "battle_cry") in events
    # its effect applies: the target is in the crit area, so 1 + 1 crit chips go in
    assert state.battle.attack.bag.count("crit") + state.battle.attack.drawn.count("crit") == 2
    assert state.seats[0].mana == 2          # human mana 3, the trait costs 1


def test_4_battle_trait_not_used_unless_declared():
    """Control: an attack that does not declare it leaves it unused, and its effect does
    not apply (1 crit chip only)."""
    state, _ = declare(attacking(duel()))
    atk = state.battle.attack
    assert atk.bag.count("crit") + atk.drawn.count("crit") == 1
    assert not state.seats[0].trait_used


def test_4_battle_trait_not_offered_outside_its_timing():
    """§6 アタックとスキルの使用タイミング: an アタック時 trait is not offered in a counter
    (nor as a turn action); a 被攻撃時 trait is not offered in one's own attack. Refused
    with wrong_timing."""
    state = duel(equip=["short_sword", "crit_charm", "prayer_beads"])
    assert not any(getattr(a, "card", None) == "black_stag" for a in legal_actions(state))
    # seat 1 (Blue Wolf, Iron Wall: when attacked) attacks seat 0: Iron Wall not offered
    swapped = attrs.evolve(state, battle=attrs.evolve(state.battle, turn=attrs.evolve(
        state.battle.turn, seat=1)))
    atk, _ = run(swapped, StartAttack(1, "short_sword", "short_sword_range"))
    assert pending(atk).kind == "targets"       # nothing to declare: Iron Wall is not offered
    assert refused_code(atk, Declare(1, "blue_wolf", "iron_wall")) == "wrong_timing"
    # seat 0 counters seat 1's attack: Battle Cry (on attack) is not offered in the counter
    atk, _ = run(atk, ChooseTarget(1, 0))
    while pending(atk).kind == "draw":
        atk, _ = run(atk, Stop(1))
    assert pending(atk).kind == "counter"
    counter, _ = run(atk, StartCounter(0, "short_sword", "short_sword_range"))
    assert pending(counter).kind == "skills"    # Prayer Beads' Focus (any timing) is offered
    assert Declare(0, "prayer_beads#1", "beads_focus") in legal_actions(counter)
    assert CRY_DECL not in legal_actions(counter)
    assert refused_code(counter, CRY_DECL) == "wrong_timing"
    # RULINGS R15: the countered attacker's 被攻撃時 trait is offered against the counter
    counter, _ = run(counter, Done(0))
    assert pending(counter).kind == "defense"
    assert Declare(1, "blue_wolf", "iron_wall") in legal_actions(counter)


def test_4_defend_trait_offered_when_attacked():
    """§6 アタック 5: the target's 被攻撃時 guild trait is offered among its defense skills,
    and adds its zero chip."""
    state, _ = declare(attacking(duel()), defend=True)
    # the bag is filled at once only if seat 1 has nothing to declare; it has Barrier and Iron Wall
    assert pending(state).kind == "defense"
    wall = Declare(1, "blue_wolf", "iron_wall")
    assert wall in legal_actions(state)
    barrier = Declare(1, "barrier_shield#1", "barrier")
    assert barrier in legal_actions(state)
    # Barrier is of the guard family too: with Iron Wall declared it is refused (one skill
    # per family) — shown on the position built directly, as the engine ends the
    # declaration by itself when nothing is left to declare
    b = state.battle
    declared = attrs.evolve(state, battle=attrs.evolve(b, attack=attrs.evolve(
        b.attack, defense=((1, "blue_wolf", "iron_wall"),))))
    assert refused_code(declared, barrier) == "same_family"
    state, events = run(state, wall)
    assert TraitUsed(1, "blue_wolf", "iron_wall") in events
    atk = state.battle.attack
    assert atk.defense == ((1, "blue_wolf", "iron_wall"),)
    # the card's 0 chips + Iron Wall's one
    assert (atk.bag + atk.drawn).count("0") == TC.card("short_sword").chips.count(0) + 1


def test_4_turn_trait_is_activated_and_lasts_its_turn():
    """A continuous trait (timing: one's own turn) is declared with Activate (RULINGS R23):
    the seat may then attack after moving; used once, it is not offered next turn."""
    state = position({0: "red_lion"}, {0: {"equip": ["short_sword"], "area": 6},
                                       1: {"equip": ["short_sword"], "area": 2}, 2: {"area": 4}})
    march = Activate(0, "red_lion", "forced_march")
    assert march in legal_actions(state)
    state, events = run(state, march, Move(0, 1))
    assert TraitUsed(0, "red_lion", "forced_march") in events
    assert SkillActivated(0, "red_lion", "forced_march", 0) in events
    assert StartAttack(0, "short_sword", "short_sword_range") in legal_actions(state)
    state, _ = run(state, EndTurn(0))
    assert state.seats[0].active == () and state.seats[0].trait_used
    # seat 0's next turn: built directly
    state = attrs.evolve(state, battle=attrs.evolve(state.battle, attack=None,
                                                    turn=attrs.evolve(state.battle.turn, seat=0, moves=0)))
    assert march not in legal_actions(state)
    assert refused_code(state, march) == "trait_used"


# -------------------------------------------------------------------- once per game

def test_4_battle_trait_once_per_game_refused_the_second_time():
    """§4 「その使用回数はゲーム中1回です」: after one use it is never offered again, and
    declaring it is refused with code trait_used — in a later attack of the game."""
    state, _ = declare(attacking(duel()), CRY_DECL)
    assert state.seats[0].trait_used
    # a later attack of seat 0 (built directly: its next turn, full mana)
    later = attrs.evolve(state, battle=attrs.evolve(state.battle, attack=None, counter_queue=(),
                                                    countered=None, turn=attrs.evolve(
                                                        state.battle.turn, seat=0, attacked=False)))
    later = later.with_seat(0, mana=3)
    later = attacking(later)
    assert CRY_DECL not in legal_actions(later)
    assert refused_code(later, CRY_DECL) == "trait_used"
    # the card skill of the same family is still there
    assert Declare(0, "crit_charm#1", "charm_crit") in legal_actions(later)


def test_4_trait_used_is_in_every_seats_observation():
    """Public, like 《競売》's auction_used: every seat sees whether it has been used."""
    state = attacking(duel())
    assert not any(v.trait_used for v in observe(state, 1).seats)
    state, _ = run(state, CRY_DECL)
    for seat in range(3):
        views = observe(state, seat).seats
        assert views[0].trait_used and not views[1].trait_used


def test_4_another_guilds_trait_is_refused():
    """Only its guild's seat uses a trait: seat 0 cannot declare Blue Wolf's Iron Wall."""
    state = attacking(duel())
    assert refused_code(state, Declare(0, "blue_wolf", "iron_wall")) == "trait_not_own"
    assert refused_code(state, Declare(0, "black_stag", "iron_wall")) == "skill_not_on_card"


# ------------------------------------------------------------------ §6 same family

def test_6_trait_and_a_card_skill_of_its_family_exclude_each_other():
    """§6 「同じ1回の処理で同じ系統のスキルを複数適用または使用することはできません」…
    「異なる装備カードが持つスキル…も同様です」: Battle Cry and Crit Charm's Take Aim are both
    critical; declaring either first makes the other refused (same_family)."""
    state = attacking(duel())
    charm = Declare(0, "crit_charm#1", "charm_crit")
    after_charm, _ = run(state, charm)
    assert CRY_DECL not in legal_actions(after_charm)
    assert refused_code(after_charm, CRY_DECL) == "same_family"
    assert not after_charm.seats[0].trait_used
    after_cry, _ = run(state, CRY_DECL)
    assert charm not in legal_actions(after_cry)
    assert refused_code(after_cry, charm) == "same_family"


def test_6_trait_needs_its_mana():
    """§6: a trait's mana is paid like a skill's: at 0 mana Battle Cry (mana 1) is refused."""
    state = attacking(duel(mana=0))
    assert CRY_DECL not in legal_actions(state)
    assert refused_code(state, CRY_DECL) == "not_enough_mana"


# --------------------------------------------------------- card data validation

GUILD = '''
[[guild]]
id = "t_guild"
number = 7
name = { ja = "試験ギルド", en = "Test Guild" }
trait = %s
'''
SKILL = ('{ id = "t_trait", name = { ja = "試験", en = "Test" }, family = "focus", '
         'effect = { kind = "mana_reduction", amount = 1 }%s }')


def _shipped_without_azure() -> str:
    text = DEFAULT_CARDS_PATH.read_text("utf-8")
    return re.sub(r'\[\[guild\]\]\nid = "azure_sea"\n(?:.*\n)*?\n', "", text, count=1)


@pytest.mark.parametrize("trait, field, words", [
    ('{ kind = "battle", name = { ja = "a", en = "b" } }', "trait.skill", "needs a skill"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = "x" }', "trait.skill", "must be a table"),
    ('{ kind = "material", amount = 1, name = { ja = "a", en = "b" }, skill = ' + SKILL % "" + " }",
     "trait.skill", "only a battle trait has a skill"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, amount = 2, skill = ' + SKILL % "" + " }",
     "trait.amount", "only a material trait has an amount"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL % ', timng = "attack"' + " }",
     "trait.skill.timng", "did you mean 'timing'"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL % ', timing = "later"' + " }",
     "trait.skill.timing", "timing must be one of"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL % ", mana = 10" + " }",
     "trait.skill.mana", "mana must be between 0 and 9"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL.replace('"focus"', '"nope"') % "" + " }",
     "trait.skill.family", "unknown family 'nope'"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL.replace('"t_trait"', '"short_sword_short"') % "" + " }",
     "trait.skill.id", "duplicate skill id"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = { id = "t_r", name = { ja = "a", en = "b" }, '
     'family = "range", effect = { kind = "range", range = "short" } } }',
     "trait.skill.effect.kind", "cannot be a range skill"),
    ('{ kind = "battle", name = { ja = "a", en = "b" }, skill = { id = "t_r", name = { ja = "a", en = "b" }, '
     'family = "focus", effect = { kind = "mana_reduction" } } }',
     "trait.skill.effect.amount", "mana_reduction needs amount"),
    ('{ kind = "war", name = { ja = "a", en = "b" } }', "trait.kind", "unknown trait kind 'war'"),
])
def test_4_malformed_battle_trait_is_refused_naming_the_field(trait, field, words):
    """Card data with a malformed battle trait stops loading with one message that names
    the guild and the field (as for card skills)."""
    with pytest.raises(CardDataError) as info:
        parse_cards(_shipped_without_azure() + GUILD % trait, "custom.toml")
    message = str(info.value)
    assert f"guild 't_guild', field {field}:" in message, message
    assert words in message, message


def test_4_well_formed_battle_trait_loads():
    """Control for the cases above: the same guild with a good skill loads, and the skill
    is found by its id like a card's."""
    cards = parse_cards(_shipped_without_azure() + GUILD % (
        '{ kind = "battle", name = { ja = "a", en = "b" }, skill = ' + SKILL % ', timing = "attack"' + " }"),
        "custom.toml")
    g = cards.guild("t_guild")
    assert g.battle_skill is cards.skill("t_trait") and g.battle_skill.timing == "attack"
    assert g.material_bonus == 0


def test_4_shipped_guilds_have_no_battle_trait():
    """The rulebook's seven guilds have none (the trait is for custom card data)."""
    from rules.cards import default_cards
    assert all(g.trait.kind != "battle" for g in default_cards().guilds)


# --------------------------------------------------------------- whole games

def _shipped_with_traits() -> str:
    """The shipped card data with five guilds given battle traits of every timing (the
    families are the shipped ones: the trait competes with card skills of its family)."""
    def trait(tid, name, family, timing, effect, mana=0, extra=""):
        return (f'{{ kind = "battle", name = {{ ja = "{name}", en = "{name}" }}, skill = {{ id = "{tid}", '
                f'name = {{ ja = "{name}", en = "{name}" }}, family = "{family}", mana = {mana}, '
                f'timing = "{timing}"{extra}, effect = {effect} }} }}')
    return with_traits(DEFAULT_CARDS_PATH.read_text("utf-8"), {
        "white_wolf": trait("tr_focus", "Focus", "focus", "any", '{ kind = "mana_reduction", amount = 1 }'),
        "red_lion": trait("tr_cry", "Cry", "critical", "attack", '{ kind = "add_crit_chips", count = 1 }', 1),
        "black_iron": trait("tr_wall", "Wall", "guard", "defend", '{ kind = "add_zero_chips", count = 1 }'),
        "silver_moon": trait("tr_march", "March", "charge", "turn", '{ kind = "move_then_attack" }',
                             extra=', continuous = "turn_end"'),
        "azure_sea": trait("tr_riposte", "Riposte", "critical", "counter", '{ kind = "add_crit_chips", count = 2 }'),
    })


GAME_CARDS = parse_cards(_shipped_with_traits(), "cards.toml + battle traits")


def _play(levels, seed):
    players = [make_player(level, seed * 7 + i, GAME_CARDS) for i, level in enumerate(levels)]
    state, _ = new_game(Config(players=len(levels)), GAME_CARDS, seed)
    uses: dict[int, int] = {}
    steps = 0
    while running(state):
        seat = pending(state).seats[0]
        obs = observe(state, seat)
        action = players[seat].choose(obs, obs.legal)
        assert action in obs.legal
        state, events = apply(state, action)
        for e in events:
            if isinstance(e, TraitUsed):
                assert uses.get(e.seat, 0) == 0, "a battle trait used twice in one game"
                uses[e.seat] = 1
        steps += 1
        assert steps < 20000
    return state, uses


@pytest.mark.parametrize("level", ["random", "normal"])
def test_4_games_with_battle_trait_guilds_run_to_the_end(level):
    """Seeded random and normal-AI games on custom card data whose guilds have battle
    traits end with only legal actions, each trait used at most once per game — and the
    traits are used (a trait the engine never offered would not be)."""
    used = 0
    for seed in range(4):
        state, uses = _play([level] * 4, seed)
        assert state.phase == "over"
        for i, s in enumerate(state.seats):
            assert s.trait_used == (i in uses)
            if GAME_CARDS.guild(s.guild).battle_skill is None:
                assert not s.trait_used
        used += len(uses)
    assert used > 0


def test_4_a_hard_ai_game_with_battle_trait_guilds_runs_to_the_end():
    """The hard AI simulates from its observation (trait_used included) and still plays
    only legal actions to the end."""
    state, uses = _play(["hard", "normal", "normal"], 2)
    assert state.phase == "over"
    assert all(s.trait_used == (i in uses) for i, s in enumerate(state.seats))


# --------------------------------------------------------------- tactical cards

@pytest.mark.parametrize("lang, words", [("ja", ["各バトル中1回（ゲーム中1回）", "《Cry》（会心）", "被攻撃時"]),
                                         ("en", ["Once per battle (once per game)", "Cry (Critical)",
                                                 "When attacked"])])
def test_4_tactical_cards_lists_battle_traits(tmp_path, lang, words):
    """`tactical cards --cards FILE` lists custom card data with battle-trait guilds: the
    count and the skill as a card's skill reads, within 80 columns, nothing cut off."""
    import io

    from rich.cells import cell_len
    from rich.console import Console

    from rules.cards import load_cards
    from tactical_tui.tools.cards_cmd import print_cards
    path = tmp_path / "custom.toml"
    path.write_text(_shipped_with_traits(), encoding="utf-8")
    buf = io.StringIO()
    print_cards(load_cards(path, for_game=False), lang, ("guild",), False,
                Console(file=buf, width=80, color_system=None))
    out = buf.getvalue()
    assert max(cell_len(line) for line in out.splitlines()) <= 80 and "…" not in out
    squeezed = re.sub(r"[\s│]+", "", out)
    for w in words:
        assert re.sub(r"\s+", "", w) in squeezed, (w, out)


# ------------------------------------------------------------------ scenarios

V2 = Path(__file__).resolve().parent.parent / "scenarios" / "v2"


def _variant(tmp_path, name, old, new):
    text = (V2 / name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_4_scenario_expectation_on_trait_used_can_fail(tmp_path):
    """A scenario states whether the trait has been used (state and observation); made
    wrong, it fails with the difference."""
    from tactical_tui.tools.scenario import load_scenario, run_scenario
    assert run_scenario(load_scenario(V2 / "battle-trait-offered-in-attack.toml")).passed
    path = _variant(tmp_path, "battle-trait-offered-in-attack.toml",
                    '"seats[0].trait_used" = true\n"seats[0].mana" = 2',
                    '"seats[0].trait_used" = false\n"seats[0].mana" = 2')
    result = run_scenario(load_scenario(path))
    assert not result.passed
    out = "\n".join(result.failures)
    assert "seats[0].trait_used" in out and "expected: false" in out and "actual:   true" in out


def test_4_scenario_seat_starts_with_the_trait_used(tmp_path):
    """`trait_used = true` in a [[seat]]: the trait is not offered from the start."""
    from tactical_tui.tools.scenario import load_scenario, run_scenario
    path = _variant(tmp_path, "battle-trait-offered-in-attack.toml",
                    'guild = "t_war_drum"\n', 'guild = "t_war_drum"\ntrait_used = true\n')
    sc = load_scenario(path)
    assert sc.state.seats[0].trait_used
    result = run_scenario(sc)
    assert not result.passed and "trait_used" in "\n".join(result.failures)


def test_4_scenario_continuous_trait_in_effect(tmp_path):
    """A continuous trait may be given in effect (`active`, card = the seat's guild)."""
    from tactical_tui.tools.scenario import ScenarioError, load_scenario
    text = (V2 / "battle-trait-offered-in-attack.toml").read_text(encoding="utf-8")
    text = text.replace('mana = 1, timing = "attack", effect = { kind = "add_crit_chips", count = 1 }',
                        'mana = 0, timing = "turn", continuous = "turn_end", effect = { kind = "move_then_attack" }')
    good = tmp_path / "active.toml"
    good.write_text(text.replace('guild = "t_war_drum"\n', 'guild = "t_war_drum"\ntrait_used = true\n'
                                 'active = [{ card = "t_war_drum", skill = "t_drum" }]\n'), encoding="utf-8")
    sc = load_scenario(good)
    assert sc.state.seats[0].active[0].card == "t_war_drum"
    bad = tmp_path / "bad-active.toml"
    bad.write_text(text.replace('guild = "t_war_drum"\n', 'guild = "t_war_drum"\n'
                                'active = [{ card = "t_war_drum", skill = "t_sword_short" }]\n'),
                   encoding="utf-8")
    with pytest.raises(ScenarioError, match="'t_sword_short' is not a skill of 't_war_drum'"):
        load_scenario(bad)


@pytest.mark.parametrize("old, new, words", [
    ('family = "t_critical", mana = 1', 'family = "t_critcal", mana = 1',
     ["inline cards: guild 't_war_drum' (line 30), field trait.skill.family", "unknown family 't_critcal'"]),
    ('id = "t_drum"', 'id = "short_sword_short"',
     ["inline guild 't_war_drum'", "'short_sword_short' is also a skill of shipped 'short_sword'"]),
    ('id = "t_drum"', 'id = "t_sword_short"',
     ["inline attack 't_sword'", "'t_sword_short' is also a skill of 't_war_drum'"]),
    ('skill = { id = "t_drum"', 'skil = { id = "t_drum"',
     ["field trait.skil", "did you mean 'skill'"]),
])
def test_4_malformed_inline_battle_trait(tmp_path, old, new, words):
    from tactical_tui.tools.scenario import ScenarioError, load_scenario
    path = _variant(tmp_path, "battle-trait-offered-in-attack.toml", old, new)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    for w in words:
        assert w in str(err.value), str(err.value)


# -------------------------------------------------------- save, replay, export

def test_4_replay_export_of_trait_positions_round_trips(tmp_path, capsys):
    """`tactical --cards FILE replay SAVE --step N --export OUT.toml` for a game of custom
    card data with battle traits: the position before and after a trait's use is written
    with its card data, loads back equal (trait_used as it was) and its checks pass."""
    from tactical_tui.cli import main
    from tactical_tui.table.saves import FORMAT, SaveData, SeatEntry, to_json
    from tactical_tui.tools.scenario import load_scenario, run_scenario
    cards_path = tmp_path / "custom.toml"
    cards_path.write_text(_shipped_with_traits(), encoding="utf-8")
    cfg = Config(players=4)
    for seed in range(20):          # the first seeded random game in which a trait is used
        state, _ = new_game(cfg, GAME_CARDS, seed)
        rnd = random.Random(seed)
        actions, states, used_at = [], [state], None
        while legal_actions(state) and used_at is None:
            a = rnd.choice(legal_actions(state))
            state, events = apply(state, a)
            actions.append(a)
            states.append(state)
            if any(isinstance(e, TraitUsed) for e in events):
                used_at = len(actions)
        if used_at is not None:
            break
    assert used_at is not None
    save = tmp_path / "game.json"
    save.write_text(to_json(SaveData(FORMAT, seed, cfg, tuple(SeatEntry(False, "random")
                                                              for _ in range(4)), tuple(actions))),
                    encoding="utf-8")
    for step, used in ((used_at - 1, False), (used_at, True)):
        out = tmp_path / f"step{step}.toml"
        assert main(["--cards", str(cards_path), "replay", str(save), "--step", str(step),
                     "--export", str(out)]) == 0, capsys.readouterr().err
        sc = load_scenario(out)
        assert sc.state == states[step]
        assert any(s.trait_used for s in sc.state.seats) == used
        assert run_scenario(sc).passed


# -------------------------------------------------- refusals agree with legal actions

def test_6_explanations_agree_with_legal_actions_with_battle_traits():
    """Random battles on the trait cards, three seats holding the battle-trait guilds: at
    every step, a listed trait action (and every other) is never explained as refused, and
    every trait action not listed gets a specific code — trait_used once a trait is gone."""
    from rules import battle as B
    from rules.actions import Confirm
    from rules.state import Phase

    from test_illegal_reasons import _candidates
    traits = [g for g in TC.guilds if g.battle_skill is not None]
    offered: set[str] = set()
    codes: set[str] = set()
    for seed in range(1, 7):
        rnd = random.Random(seed)
        state, _ = new_game(Config(players=3), TC, seed)
        state = attrs.evolve(state, seats=tuple(attrs.evolve(s, guild=g.id)
                                                for s, g in zip(state.seats, traits)))
        while state.phase not in (Phase.BATTLE, Phase.OVER):
            legal = legal_actions(state)
            equip = [a for a in legal if getattr(a, "to", None) == "equip"]
            conf = [a for a in legal if isinstance(a, Confirm)]
            if state.phase == Phase.BUILD:
                action = rnd.choice(equip) if equip and rnd.random() < 0.8 else \
                    (conf[0] if conf else rnd.choice(legal))
            else:
                action = rnd.choice(legal)
            state, _ = apply(state, action)
        steps = 0
        while state.phase == Phase.BATTLE and steps < 200:
            legal = legal_actions(state)
            listed = set(legal)
            kind = pending(state).kind
            mine = [cls(s, g.id, g.battle_skill.id) for s in range(3) for g in traits
                    for cls in (Declare, Activate)]
            for a in _candidates(state) + mine:
                if a in listed:
                    assert B.explain_early(state, a) is None, a
                    if a.seat in pending(state).seats:
                        assert B.explain(state, a, kind) is None, a
                    if a in mine:
                        offered.add(a.skill)
                else:
                    r = refusal(state, a)
                    assert r.code != "illegal", f"{a} in {kind}: generic refusal"
                    if a in mine:
                        codes.add(r.code)
            state, _ = apply(state, rnd.choice(legal))
            steps += 1
    assert offered == {g.battle_skill.id for g in traits}
    assert {"trait_used", "trait_not_own", "wrong_timing"} <= codes


def test_4_cards_summary_lists_battle_trait_skills():
    """`tactical cards --summary`: a battle trait's skill is in the guild table and in its
    family's row (no card carries it, so the per-card counts leave it out)."""
    from tactical_tui.tools.cards_summary import block_families, block_guilds
    guilds = block_guilds(TC)
    row = next(line for line in guilds.splitlines() if "black_stag" in line)
    assert "鬨の声 Battle Cry: `add_crit_chips` 1 (`attack`" in row and "family `critical`" in row
    assert "mana 1" in row and "`attack`" in row
    shipped = block_guilds(default_cards()).splitlines()[2:]      # no battle trait there
    assert len(shipped) == 7 and all(line.endswith("| — |") for line in shipped)
    families = block_families(TC)
    crit = next(line for line in families.splitlines() if line.startswith("| `critical`"))
    assert "Battle Cry (trait of" in crit
    guard = next(line for line in families.splitlines() if line.startswith("| `guard`"))
    assert "Iron Wall (trait of" in guard and "`add_zero_chips` (defend" in guard
