"""Found by playing whole games at 80×24 (issue 15 "not done until"): what the screens
told a player that the game then did otherwise."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from rules.cards import load_cards
from tactical_tui.text.i18n import t
from tactical_tui.screens.battle import BattleScreen
from tactical_tui.screens.build import BuildScreen

SHIPPED = load_cards()


def _fake(lang: str, equipped: tuple, phase: str = "build"):
    """The parts of a seat's view that BuildScreen.check_text / BattleScreen.info_text
    read: a Fairy (Int 5) with `equipped`."""
    me = NS(material=0, race="fairy", guild="white_wolf", confirmed=False, mana=5,
            trait_used=False, seat=0)
    obs = NS(seats=[me], phase=phase, materialized=(), equipped=equipped, race="fairy",
             pending=NS(kind="build", seats=(0,)), battle=None, seat=0)
    fake = NS(cards=SHIPPED, lang=lang, seat=0, obs=obs, tr=lambda key, **kw: t(key, lang, **kw))
    fake.violation_text = lambda v: BuildScreen.violation_text(fake, v)
    return fake, obs


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_series_card_alone_shows_its_skills_as_not_working(lang):
    """§5-4 シリーズ効果: Starfall (Stargazer series) equipped alone has no skills in the
    battle (rules.battle.series_active), so no Starfall attack is offered. The build check
    listed "Usable skills: Long Range, Meteor Shower" and the battle's build panel
    "✓Long Range ✓Meteor Shower" all the same; with a second Stargazer card they work."""
    fake, obs = _fake(lang, ("starfall",))
    starfall = SHIPPED.card("starfall")
    names = [sk.name.get(lang) for sk in starfall.skills]
    check = BuildScreen.check_text(fake, obs).plain
    usable = next(x for x in check.splitlines() if x.startswith(t("build.skills", lang)))
    assert not any(n in usable for n in names), usable
    series = t("build.series_off", lang, card=starfall.name.get(lang),
               series="星詠み" if lang == "ja" else "Stargazer", have=1)
    assert series in check
    info = BattleScreen.info_text(fake).plain
    row = next(x for x in info.splitlines() if starfall.name.get(lang) in x)
    assert "✓" not in row and all("✗" + n in row for n in names), row

    fake, obs = _fake(lang, ("starfall", "stargazer_robe#1"))
    check = BuildScreen.check_text(fake, obs).plain
    usable = next(x for x in check.splitlines() if x.startswith(t("build.skills", lang)))
    assert names[0] in usable and t("build.series_off", lang, card="", series="", have=0)[:6] not in check
    info = BattleScreen.info_text(fake).plain
    row = next(x for x in info.splitlines() if starfall.name.get(lang) in x)
    assert "✓" + names[0] in row, row


@pytest.mark.parametrize("lang, twice, copies, alone", [
    ("en", "Short Range (Dagger, Short Sword), Concentration", "Concentration (Prayer Beads ×2)",
     "Short Range"),
    ("ja", "近距離（ダガー・ショートソード）、精神統一", "精神統一（祈りの数珠×2）", "近距離")])
def test_the_build_lists_a_skill_of_two_cards_once_with_its_cards(lang, twice, copies, alone):
    """Two equipped cards that give a skill of one name (Short Range on a Dagger and a
    Short Sword): the build check listed "Usable skills: Short Range, Short Range". It is
    listed once, with the cards that give it — R21: each is its own card's, for the
    attacks made with that card — as test_two_skills_of_one_name_say_whose_card does for
    the declarations; two copies of one card (an illegal build, still shown) say ×2. A
    skill of one card keeps its bare name."""
    def usable(equipped):
        fake, obs = _fake(lang, equipped)
        check = BuildScreen.check_text(fake, obs).plain
        line = next(x for x in check.splitlines() if x.startswith(t("build.skills", lang)))
        return line[len(t("build.skills", lang)) + 2:]
    assert usable(("dagger", "short_sword", "prayer_beads")) == twice
    assert usable(("prayer_beads#1", "prayer_beads#2")) == copies
    assert usable(("dagger",)) == alone


def test_the_top_bar_keeps_whose_decision_and_what_whole(tmp_path, monkeypatch):
    """The top bar at 80×24 always ends with the whole status: in the build, after this
    seat confirmed while the AI seats still build, it read "The build  Seat 1(you)  Race:
    … (r to switch) — Waiting for 3 seats · AI: buil" (in the bidding "… · AI: deciding
    on" lost "Auction"): the parts before the status give way first."""
    import asyncio
    import threading

    from rich.cells import cell_len

    from rules import actions as A
    from tactical_tui.table.live import GameTable
    from test_tui_input import line, quiet, resume_app, until

    seed = 3
    actions, states = line(seed)
    k = next(i for i, a in enumerate(actions) if isinstance(a, A.Confirm) and a.seat == 0) + 1
    assert states[k].phase == "build" and not all(s.confirmed for s in states[k].seats)
    go = threading.Event()
    play = GameTable.ai_decide

    def decide(self, seat, obs=None):
        go.wait(10)                                     # the AI seats are still building
        return play(self, seat, obs)
    monkeypatch.setattr(GameTable, "ai_decide", decide)

    for lang in ("en", "ja"):
        async def run():
            app = resume_app(tmp_path, seed, k, lang=lang)
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: isinstance(app.screen, BuildScreen) and app.busy, "the build")
                await pilot.pause(0.2)
                screen = app.screen
                status = screen.status()
                bar = str(screen.query_one("#topbar").render())
                assert status == t("status.waiting_ai", lang, who=t("status.seats", lang, n=3),
                                   what=t("doing.build", lang)), status
                assert bar.rstrip().endswith(status), (bar, status)
                assert cell_len(bar.strip()) <= 78
                go.set()
                await quiet(app, pilot)
            go.clear()
        asyncio.run(run())


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_revealed_bid_is_never_split_across_lines(lang):
    """The bid results (shown in a TextScreen, broken by i18n.Wrapped): a bid — seat,
    value, card — stays on one line. In Japanese "… 席3 4（ルビーの指輪）、席1 4（乗馬
    ブーツ）、席3" / "3（星詠みのローブ）" read as if 席3 had bid 3 on nothing."""
    from rich.text import Text

    from rules import events as E
    from tactical_tui.text.i18n import Wrapped, keep_names
    from tactical_tui.text.catalog import Describer

    cards = [c.id for c in SHIPPED.defense]
    target = SHIPPED.attack[0].id
    bids = tuple(E.RevealedBid(seat, target, cards[(seat * 7 + k) % len(cards)], 5 - k)
                 for k in range(2) for seat in range(5))
    d = Describer(SHIPPED, lang)
    text = "\n".join(d.bid_table(E.BidsRevealed(1, bids)))
    for width in range(40, 75):
        lines = Wrapped(Text(text), keep_names(SHIPPED, lang)).lines(width)   # as TextScreen
        plain = [x.plain for x in lines]
        for b in bids:
            seat = t("seat", lang, n=b.seat + 1)
            name = SHIPPED.card(b.card).name.get(lang)
            one = (f"{seat} {b.value}（{name}）" if lang == "ja" else f"{seat} {b.value} ({name})")
            assert any(one in x.replace("\u00a0", " ") for x in plain), (one, width, plain)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_log_says_why_a_targets_damage_differs_from_the_chip_total(lang):
    """§6 ダメージ: "Seat 1 takes 4 damage (chips total 3, 4 against this target)" did not
    say why (played: a crit with Vital Strike counted 3). The note names the skills that
    changed it — the attacker's crit value, the target's reduction — or a crit chip that
    counts 0 outside the critical area (RULINGS R14)."""
    from rules import events as E
    from tactical_tui.text.catalog import Describer

    dagger = SHIPPED.card("dagger")
    vital = next(s for s in dagger.skills if s.effect.kind == "crit_value")
    sturdy = SHIPPED.skill("chain_mail_sturdy")

    def attack(skills, chips, damage):
        d = Describer(SHIPPED, lang)
        d.describe(E.AttackStarted(0, "dagger", dagger.skills[0].id))
        d.describe(E.TargetChosen(0, 1))
        for seat, card, sk in skills:
            d.describe(E.SkillDeclared(seat, card, sk.id))
        total = 0
        for c in chips:
            total += 2 if c == "crit" else int(c)
            d.describe(E.ChipDrawn(0, c, total))
        d.describe(E.DrawEnded(0, "stop", total))
        return d.describe(E.DamageDealt(0, 1, damage, 6 - damage))

    line = attack([(0, "dagger", vital)], ["crit", "1"], 4)
    assert vital.name.get(lang) in line and ("クリティカル3" if lang == "ja" else "crit counts 3") in line, line
    line = attack([(1, "chain_mail#1", sturdy)], ["2", "1"], 2)
    assert ("《堅牢》で-1のため" if lang == "ja" else "against this target: Sturdy -1") in line, line
    line = attack([], ["crit", "1"], 1)
    assert ("クリティカルエリア外" if lang == "ja" else "outside the critical area") in line, line
    line = attack([(1, "chain_mail#1", sturdy)], ["1"], 1)             # not reduced: no note
    assert line == (t("seat", lang, n=2) + "に1ダメージ（体力5）" if lang == "ja"
                    else "Seat 2 takes 1 damage (HP 5)"), line


@pytest.mark.parametrize("lang, paid, nothing", [
    ("en", "Seat 1 pays 2 mana (3 left)", "pays 0 mana"),
    ("ja", "席1が魔力2を消費（残り3）", "魔力0を消費")])
def test_the_log_says_mana_paid_only_when_some_is(lang, paid, nothing):
    """An attack without a mana skill (ManaPaid of 0, §6 アタック 3) gives no log line —
    the battle log said "pays 0 mana" on every attack; a payment of 2 is told."""
    from rules.events import ManaPaid
    from tactical_tui.text.catalog import Describer
    d = Describer(SHIPPED, lang)
    assert d.describe(ManaPaid(0, 2, 3)) == paid
    assert d.describe(ManaPaid(0, 0, 5)) == ""
    assert nothing not in d.describe(ManaPaid(0, 0, 5))


@pytest.mark.parametrize("lang, helm, shield", [
    ("en", "Declare Barrier (Iron Helm, mana 1)", "Declare Barrier (Kite Shield, mana 0)"),
    ("ja", "スキル宣言《防壁》（アイアンヘルム、魔力1）", "スキル宣言《防壁》（カイトシールド、魔力0）")])
def test_two_skills_of_one_name_say_whose_card(lang, helm, shield):
    """Declare defense skills with an Iron Helm and a Kite Shield: both have Barrier; the
    two rows named only the skill ("Declare Barrier (mana 1)", "… (mana 0)") and the
    player could not tell which card each was. A skill no other row shares keeps its
    short label."""
    from rules import actions as A
    ids = {c.name.en: c.id for c in SHIPPED.defense + SHIPPED.attack}
    skill = lambda card: next(s.id for s in SHIPPED.card(ids[card]).skills if "barrier" in s.id)
    a = A.Declare(0, ids["Iron Helm"], skill("Iron Helm"))
    b = A.Declare(0, ids["Kite Shield"], skill("Kite Shield"))
    fake, _ = _fake(lang, ())
    fake._actions = [a, b]
    assert BattleScreen.action_label(fake, a) == helm
    assert BattleScreen.action_label(fake, b) == shield
    fake._actions = [a]
    assert BattleScreen.action_label(fake, a) == t("act.declare", lang, skill=SHIPPED.skill(a.skill).name.get(lang), mana=1)


@pytest.mark.parametrize("lang, first, later", [
    ("en", "[Initial turn] Seat 1's turn", "[Round 1] Seat 1's turn"),
    ("ja", "［初期手番］席1の手番", "［ラウンド1］席1の手番")])
def test_the_entry_turns_are_not_called_round_0(lang, first, later):
    """§6 ラウンド: the rounds start after everyone has entered and made the initial turn;
    the battle's first turns were headed "Battle, round 0" and logged "[Round 0]"."""
    from rules.events import TurnStarted
    from tactical_tui.text.catalog import Describer
    d = Describer(SHIPPED, lang)
    assert d.describe(TurnStarted(0, 0)) == first
    assert d.describe(TurnStarted(0, 1)) == later
    assert t("battle.title0", lang) == {"en": "Battle, initial turns", "ja": "バトル 初期手番"}[lang]


def test_a_toast_breaks_japanese_lines_by_the_rules():
    """A recap toast in Japanese at 80×24 (seen in a hotseat game): Textual broke it by
    its own rules — "…席3にノッ" / "クアウトされた" and a line starting with "、". Now
    no toast line starts with 、。）, and ノックアウト and a card name stay whole."""
    import asyncio
    from tactical_tui.app import TacticalApp
    from tui_app import screen_text
    msg = ("前回の判断から: 席3から6ダメージ（体力0）、席3にノックアウトされた、"
           "席3が勝利点+3（計4）、席2が勝利点+2（計3）、エリア6に再入場")
    hint = "ヒント: シルバーシールドを選択（入札向き）"

    async def run():
        app = TacticalApp(lang="ja", ai_delay=0.0, seed=1, autosave=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            app.cards                                   # the card names to keep whole
            app.notify(msg, timeout=30)
            app.notify(hint, timeout=30)
            for _ in range(100):                         # both toasts drawn (under load)
                await pilot.pause(0.05)
                rows = [r.split("▌", 1)[1].strip() for r in screen_text(app).splitlines() if "▌" in r]
                rows = [r for r in rows if r]
                if "".join(rows).endswith("向き）"):
                    break
            assert rows and "".join(rows).replace(" ", "") == (msg + hint).replace(" ", "")
            for r in rows:
                assert r[0] not in "、。）」", rows
            assert any("ノックアウト" in r for r in rows), rows
            assert any("シルバーシールド" in r for r in rows), rows
    asyncio.run(run())
