"""The build's screen (BuildScreen): rulebook §5-4 ビルド, and its reveal (公開確認) —
this seat's cards by zone (equipped, materialized, unused), its race, and the check of
the build (material, hand slots, armour parts, stats, the skills that work)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rules import actions as A
from rules.build import available_material, equip_cost, final_stats, hand_slots_used, violations

from tactical_tui.text.cardtext import STAT_SHORT
from tactical_tui.text.i18n import t
from tactical_tui.text.safe import lines_text
from tactical_tui.screens.game import GameScreen, series_short, skill_works
from tactical_tui.widgets.base import ConfirmScreen, QuestionList, card_line, localized, wrapped


def usable_skills(cards, equipped, stats, lang: str) -> list[str]:
    """The skills of the `equipped` cards that work with `stats`, each name once: a name
    that two cards give (Barrier on an Iron Helm and a Kite Shield; Short Range on two
    weapons) says whose cards (R21: a skill is its card's) — "Barrier (Iron Helm, Kite
    Shield)", and two copies of one card "Concentration (Prayer Beads ×2)" — as the battle's
    declarations do (act.declare_card); it was listed twice, "Barrier, Barrier"."""
    givers: dict[str, list[str]] = {}
    for c in equipped:
        for sk in cards.card(c).skills:
            if skill_works(cards, c, sk, stats, equipped):
                givers.setdefault(sk.name.get(lang), []).append(cards.card(c).name.get(lang))
    out = []
    for name, who in givers.items():
        if len(who) == 1:
            out.append(name)
            continue
        times = "×" if lang == "ja" else " ×"
        counted = [n if who.count(n) == 1 else f"{n}{times}{who.count(n)}" for n in dict.fromkeys(who)]
        out.append(t("build.skill_cards", lang, skill=name,
                     cards=("・" if lang == "ja" else ", ").join(counted)))
    return out


class BuildScreen(GameScreen):
    # Enter works (it switches a card between equipped and unused) but the Footer leaves
    # it out: e and u say it, and with a server's chat key the Footer was cut at 80
    # columns ("… c Confirm / C", issue 32 point 8)
    KEYS = [k if k[0] != "enter" else (k[0], k[1], k[2], False, *k[4:]) for k in GameScreen.KEYS] \
        + [("e", "zone('equip')", "key.equip", True),
           ("m", "zone('materialize')", "key.materialize", True),
           ("u", "zone('unused')", "key.unused", True),
           ("r", "race", "key.race", True),
           ("c", "confirm", "key.confirm", True),
           ("w", "unconfirm", "key.unconfirm", True)]
    EDITING = ("zone", "race", "confirm", "cycle")

    def waiting(self) -> bool:
        """The waiting view: this seat has confirmed and the build is still open (§5-4)."""
        obs = self.obs
        return obs.phase == "build" and obs.seats[self.seat].confirmed

    def asked_now(self) -> bool:
        return self.my_turn() or self.waiting()     # the waiting view answers `w`

    def check_action(self, action: str, parameters) -> bool | None:
        """The Footer shows `w` (take the confirmation back) on the waiting view only, and
        hides the editing keys there."""
        if self.latest is None or not self.ready:
            return action != "unconfirm"
        if action == "unconfirm":
            return self.waiting()
        if action in self.EDITING and self.waiting():
            return False
        return True

    def compose_body(self) -> ComposeResult:
        with Horizontal(classes="main"):
            yield QuestionList(id="cards", classes="panel")
            yield Static("", id="check", classes="panel side")

    def question_key(self) -> tuple:
        """The whole build (and the reveal's fixes) is one question: the cursor stays on
        its card while cards change zone, and while the other seats build."""
        return ("build", self.obs.phase)

    def zone_of(self, obs, c) -> str:
        return "equip" if c in obs.equipped else "materialize" if c in obs.materialized else "unused"

    def refresh_view(self) -> None:
        obs = self.obs
        race = obs.race
        race_text = self.tr("build.race", race=self.cards.race(race).name.get(self.lang)) if race \
            else self.tr("build.no_race")
        self.set_topbar([self.tr('build.title'), self.seat_name(self.seat), race_text], self.status())
        # a stable order (attack cards first, then by kind and name) so the cursor stays on
        # the card it was on when the card changes zone
        kinds = {"weapon": 0, "magic": 1, "armor": 2, "shield": 3, "accessory": 4}
        owned = sorted(obs.equipped + obs.materialized + obs.hand,
                       key=lambda c: (kinds[self.cards.card(c).type], self.cards.card(c).name.get(self.lang), c))
        width = self.row_width("#cards", 41)
        ol = self.fill("#cards", self.tr("build.cards"), [
            Option(card_line(self.cards, c, self.lang, width,
                             extra=f"[{self.tr('zone.' + self.zone_of(obs, c))}] "), id=c)
            for c in owned])
        ol.focus()
        self.query_one("#check", Static).update(wrapped(self, self.check_text(obs)))
        self.query_one("#check", Static).border_title = self.tr("build.check")
        self.refresh_bindings()

    def check_text(self, obs) -> Text:
        cards = self.cards
        me = obs.seats[self.seat]
        revealed = me.material if obs.phase == "reveal" and me.race else None
        avail = available_material(cards, me.guild, obs.materialized) if revealed is None else revealed
        cost = equip_cost(cards, obs.equipped)
        stats = final_stats(cards, obs.race, obs.equipped)
        lines = [self.tr("build.slots", n=hand_slots_used(cards, obs.equipped))]
        parts = {cards.card(c).part for c in obs.equipped if cards.card(c).type == "armor"}
        names = {"head": "頭", "body": "胴", "arms": "腕", "legs": "脚"} if self.lang == "ja" else \
            {"head": "head", "body": "body", "arms": "arms", "legs": "legs"}
        lines.append(self.tr("build.parts") + ": " + " ".join(
            (names[p] if p in parts else "-") for p in ("head", "body", "arms", "legs")))
        mark = "✓" if cost <= avail else "✗"
        lines.append(f"{mark} " + self.tr("build.material", have=avail, cost=cost))
        lines.append(self.tr("build.stats") + ": " + " ".join(
            f"{STAT_SHORT[self.lang][k]}{v}" for k, v in stats.items()))
        usable = usable_skills(cards, obs.equipped, stats, self.lang)
        lines.append(self.tr("build.skills") + ": " + ("、" if self.lang == "ja" else ", ").join(usable or ["-"]))
        v = violations(cards, obs.race, obs.equipped, avail)
        if v:
            for x in v:
                lines.append(self.tr("build.bad", reason=self.violation_text(x)))
        else:
            lines.append(self.tr("build.ok"))
        if not any(cards.card(c).is_attack for c in obs.equipped):
            lines.append(self.tr("build.no_attack"))
        for c in obs.equipped:
            card = cards.card(c)
            have = series_short(cards, c, obs.equipped)
            if have is not None and card.skills:
                series = next(x for x in cards.series if x.id == card.series)
                lines.append(self.tr("build.series_off", card=card.name.get(self.lang),
                                     series=series.name.get(self.lang), have=have))
            elif card.is_attack and not any(sk.effect.kind == "range" and sk.requires.met_by(stats)
                                            for sk in card.skills):
                lines.append(self.tr("build.no_range", card=card.name.get(self.lang)))
        if obs.seats[self.seat].confirmed and obs.phase == "build":
            lines.append("")
            lines.append(self.tr("build.waiting"))
            lines.append(self.tr("build.unconfirm"))
        if obs.pending.kind == "reveal_fix" and self.seat in obs.pending.seats:
            lines.append(self.tr("reveal.fix"))
        lines.append(self.tr("zone.legend"))
        lines.append(self.tr("legend.cbm"))
        return lines_text(lines)

    def violation_text(self, v) -> str:
        names = ("、" if self.lang == "ja" else ", ").join(self.cards.card(c).name.get(self.lang) for c in v.cards)
        base = t("violation." + v.code, self.lang)
        if v.code in ("hand_slots", "material"):
            return f"{base} ({v.have}/{v.limit})"
        return f"{base}: {names}" if names else base

    def highlighted_card(self):
        ol = self.query_one("#cards", OptionList)
        if ol.highlighted is None or not ol.option_count:
            return None
        return ol.get_option_at_index(ol.highlighted).id

    def action_zone(self, zone: str) -> None:
        c = self.highlighted_card()
        if c is None or not self.my_turn():
            return
        obs = self.obs
        if obs.pending.kind == "reveal_fix":
            if zone == "unused":
                self.send(A.Remove(self.seat, c))
            return
        if self.zone_of(obs, c) == zone:
            return
        if c in obs.materialized:       # §5-4: face up in the discard for good (R6)
            self.app.notify(self.tr("build.materialized_final",
                                    card=self.cards.card(c).name.get(self.lang)))
            return
        if zone == "materialize" and not self.cards.card(c).is_attack:
            self.ask_materialize(c)
            return
        self.send(A.Assign(self.seat, c, zone))

    def ask_materialize(self, c: str) -> None:
        """§5-4 マテリアル化 (RULINGS R6): public and final — asked before it is sent."""
        card = self.cards.card(c)
        action = A.Assign(self.seat, c, "materialize")

        def done(yes) -> None:
            if yes and self.latest is not None and action in self.obs.legal:
                self.send(action)
        self.app.push_screen(localized(ConfirmScreen, self.lang)(self.tr(
            "build.materialize_ask", card=card.name.get(self.lang), material=card.material)),
            done)

    def action_cycle(self) -> None:
        """Enter: unused ↔ equipped (materializing is `m`: asked first, final)."""
        c = self.highlighted_card()
        if c is None:
            return
        z = self.zone_of(self.obs, c)
        self.action_zone("unused" if z == "equip" else "equip")

    def on_option_list_option_selected(self, event) -> None:
        self.action_cycle()

    def action_race(self) -> None:
        if not self.my_turn():
            return
        obs = self.obs
        cands = obs.seats[self.seat].race_candidates
        nxt = cands[0] if obs.race != cands[0] else cands[1]
        if obs.pending.kind == "build":
            self.send(A.ChooseRace(self.seat, nxt))

    def action_unconfirm(self) -> None:
        """§5-4 (RULINGS R4): take the confirmation back while another seat has not
        confirmed — at once, even while an AI seat is thinking (the table applies its
        decision afterwards only if it is still legal)."""
        if self.latest is None or not self.is_current:
            return
        if A.Unconfirm(self.seat) not in self.obs.legal:
            if self.obs.phase != "build":
                self.app.notify(self.tr("build.final"))
            return
        self.send(A.Unconfirm(self.seat))

    def action_confirm(self) -> None:
        if not self.my_turn() or self.obs.pending.kind != "build":
            return
        obs = self.obs
        me = obs.seats[self.seat]
        avail = available_material(self.cards, me.guild, obs.materialized)
        v = violations(self.cards, obs.race, obs.equipped, avail)
        if v:
            self.app.notify(self.tr("build.refused", reason=self.violation_text(v[0])), severity="error")
            return
        self.send(A.Confirm(self.seat))
