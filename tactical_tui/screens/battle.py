"""The battle's screen (BattleScreen): rulebook §6 バトル — the field's six areas and who
stands where, the seats' figures, this seat's choices (one row a card for attacks and
counters), the chips drawn, and this seat's build."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rules import actions as A
from rules.battle import AREAS, RANGE_AREA, RANGE_CRIT, distance, step_area
from rules.build import final_stats

from tactical_tui.text.i18n import TUI, clip, pad, t
from tactical_tui.text.safe import as_text, lines_text
from tactical_tui.screens.game import GameScreen, skill_works
from tactical_tui.widgets.base import QuestionList, wrapped


SEAT_ROW = 36          # cells of a seat's row in the battle's seat panel at 80 columns


def seat_mark(seat: int, me: int) -> str:
    """A seat on the field: @ for the viewer's own seat, else a circled number (②)."""
    return "@" if seat == me else "①②③④⑤⑥⑦⑧⑨"[seat] if seat < 9 else str(seat + 1)


# Choices that give something up: never under the cursor when a question comes up.
GIVE_UP = (A.EndTurn, A.Decline, A.Stop, A.Pass)


class BattleScreen(GameScreen):
    KEYS = GameScreen.KEYS + GameScreen.SKIP_AI

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="top-row"):
            yield Static("", id="field", classes="panel")
            yield Static("", id="seats", classes="panel side")
        with Horizontal(id="mid-row"):
            yield QuestionList(id="actions", classes="panel")
            yield Static("", id="info", classes="panel side")

    def action_label(self, a) -> str:
        c, lang = self.cards, self.lang
        obs = self.obs
        me = obs.seats[self.seat]
        if isinstance(a, A.Move):
            return self.tr("act.move", area=step_area(me.area, a.step))
        if isinstance(a, A.Rest):
            full = me.race and me.mana >= final_stats(c, me.race, me.equipped)["mana"]
            return self.tr("act.rest_full" if full else "act.rest")
        if isinstance(a, A.EndTurn):
            return self.tr("act.end")
        if isinstance(a, (A.StartAttack, A.StartCounter)):
            kind = "act.attack" if isinstance(a, A.StartAttack) else "act.counter"
            if a.skill is None:             # one row for the card: its range comes next
                ranges = [c.skill(b.skill).name.get(lang) for b in self.obs.legal
                          if type(b) is type(a) and b.card == a.card and b.skill is not None]
                return self.tr(kind + "_card", card=c.card(a.card).name.get(lang),
                               ranges=("・" if lang == "ja" else " / ").join(ranges))
            return self.tr(kind, card=c.card(a.card).name.get(lang), skill=c.skill(a.skill).name.get(lang))
        if isinstance(a, A.Activate):
            return self.tr("act.activate", skill=c.skill(a.skill).name.get(lang))
        if isinstance(a, A.Declare):
            name = c.skill(a.skill).name.get(lang)
            twin = any(isinstance(b, A.Declare) and b.card != a.card
                       and c.skill(b.skill).name.get(lang) == name for b in getattr(self, "_actions", ()))
            if twin:      # two cards with a skill of that name: which card's (Barrier)
                return self.tr("act.declare_card", skill=name, card=c.card(a.card).name.get(lang),
                               mana=c.skill(a.skill).mana)
            return self.tr("act.declare", skill=name, mana=c.skill(a.skill).mana)
        if isinstance(a, A.Done):
            return self.tr("act.done_targets" if obs.pending.kind == "targets" else "act.done")
        if isinstance(a, A.ChooseTarget):
            s = obs.seats[a.target]
            crit = ""
            atk = obs.battle.attack
            if atk is not None and s.area is not None:
                rng_ = c.skill(atk.range_skill).effect.range
                if distance(me.area, s.area) == RANGE_CRIT[rng_]:
                    crit = self.tr("act.crit")
            # short enough that the target and its ★critical mark share one line
            label = self.tr("act.target", seat=self.seat_name(a.target), area=s.area, hp=s.hp)
            return label + " " + crit if crit else label
        if isinstance(a, A.ChooseArea):
            return self.tr("act.area", area=a.area)
        if isinstance(a, A.UseUnluck):
            return self.tr("act.unluck")
        if isinstance(a, A.Decline):
            return self.tr("act.keep_unluck" if obs.pending.kind == "unluck" else "act.no_counter")
        if isinstance(a, A.Draw):
            return self.tr("act.draw")
        if isinstance(a, A.Stop):
            return self.tr("act.stop")
        return type(a).__name__

    @staticmethod
    def one_row_per_card(legal: list) -> list:
        """The attacks and counters as one row per card (RULINGS R22 lets the rules offer
        each card with each range skill and the card alone: the list showed every card
        twice, "Fire Bolt (Mid Range)" and "Fire Bolt (range later)"): a card with one
        range skill is its attack with that range; a card with several is the card alone,
        its range then chosen in the next step among the skills."""
        starts = (A.StartAttack, A.StartCounter)
        ranged: dict = {}
        for a in legal:
            if isinstance(a, starts) and a.skill is not None:
                ranged.setdefault((type(a), a.card), []).append(a)
        out = []
        for a in legal:
            if not isinstance(a, starts):
                out.append(a)
            elif a.skill is None:           # (kept unless its one range has its row)
                out.append(None if len(ranged.get((type(a), a.card), ())) == 1 else a)
            elif len(ranged[(type(a), a.card)]) == 1:
                out.append(a)
        return [a for a in out if a is not None]

    def highlight_areas(self):
        """(attack area, crit area) of the highlighted attack option or attack in progress
        (a card whose range comes next: the areas of all its ranges)."""
        obs = self.obs
        atk = obs.battle.attack if obs.battle else None
        skills = []
        seat = self.seat
        if atk is not None and atk.stage != "done" and atk.range_skill is not None:
            skills, seat = [atk.range_skill], atk.attacker
        else:
            ol = self.query_one("#actions", OptionList)
            if ol.highlighted is not None and ol.highlighted < len(self._actions):
                a = self._actions[ol.highlighted]
                if isinstance(a, (A.StartAttack, A.StartCounter)) and a.skill is None:
                    skills = [b.skill for b in obs.legal if type(b) is type(a)
                              and b.card == a.card and b.skill is not None]
                elif isinstance(a, (A.StartAttack, A.StartCounter)) or (
                        isinstance(a, A.Declare) and self.cards.skill(a.skill).effect.kind == "range"):
                    skills = [a.skill]
        if not skills or obs.seats[seat].area is None:
            return set(), set()
        here = obs.seats[seat].area
        area, crit = set(), set()
        for skill in skills:
            rng_ = self.cards.skill(skill).effect.range
            lo, hi = RANGE_AREA[rng_]
            area |= {x for x in range(1, AREAS + 1) if lo <= distance(here, x) <= hi}
            crit |= {x for x in range(1, AREAS + 1) if distance(here, x) == RANGE_CRIT[rng_]}
        return area, crit

    def field_text(self) -> Text:
        obs = self.obs
        attack_area, crit_area = self.highlight_areas()
        occupants = {x: [] for x in range(1, AREAS + 1)}
        for s in obs.seats:
            if s.area is not None:
                occupants[s.area].append(s.seat)

        def cell(x: int) -> Text:
            # an area is a plain number, a seat a circled one (② is Seat 2, @ is you):
            # "!5!①③" reads "area 5, critical, holds seats 1 and 3" at any seat count
            label = f"!{x}!" if x in crit_area else f"[{x}]" if x in attack_area else f" {x} "
            who = "".join(seat_mark(s, self.seat) for s in occupants[x])
            style = "bold reverse" if x in crit_area else "reverse" if x in attack_area else ""
            return Text(label, style=style) + Text(pad(who, 5))
        sp = lambda n: Text(" " * n)
        others = [s.seat for s in obs.seats if s.seat != self.seat][:1]
        example = "".join(f" {seat_mark(s, self.seat)}={t('seat', self.lang, n=s + 1)}" for s in others)
        rows = [sp(7) + cell(1) + Text("── ") + cell(2),
                cell(6) + sp(18) + cell(3),
                sp(7) + cell(5) + Text("── ") + cell(4),
                Text("@=" + self.tr("you") + example + " " + self.tr("battle.legend"))]
        out = Text()
        for i, row in enumerate(rows):
            if i:
                out.append("\n")
            out.append_text(row)
        return out

    def seats_text(self) -> Text:
        obs = self.obs
        lines = []
        for s in (obs.seats[i] for i in (obs.order or range(len(obs.seats)))):
            turn = "▶" if obs.battle and obs.battle.turn.seat == s.seat else " "
            final = final_stats(self.cards, s.race, s.equipped)["mana"] if s.race else 0
            where = self.tr("battle.out") if s.knocked_out else \
                self.tr("battle.at", area=s.area if s.area else "-")
            figures = (f" HP{s.hp} {'魔' if self.lang == 'ja' else 'MP'}{s.mana}/{final} VP{s.vp} "
                       f"{'U' if self.lang == 'en' else 'ア'}{s.unluck} {where}")
            lines.append((turn, s.seat, figures))
        # one line a seat, the knocked-out mark included: the names give way first
        room = max(4, min(11, SEAT_ROW - 1 - max((cell_len(f) for _, _, f in lines), default=0)))
        rows = [clip(turn + pad(self.seat_label(seat, room), room) + figures, SEAT_ROW)
                for turn, seat, figures in lines]
        return Text("\n".join(rows), no_wrap=True, overflow="ellipsis")

    def seat_label(self, seat: int, room: int) -> str:
        """The seat's name in the seats panel, in `room` cells: "Seat 3 hanako", or, when
        that is wider, the seat as the field marks it and its player's name — "③ hanako",
        "③·AI" (issue 32 point 8: the names were cut, "Seat 3 han…")."""
        name = self.seat_name(seat)
        if cell_len(name) <= room or (seat == self.seat and self.is_human(seat)):
            return name
        return seat_mark(seat, -1) + ("" if self.is_human(seat) else "·AI") + self.player_name(seat)

    def info_text(self) -> Text:
        obs = self.obs
        atk = obs.battle.attack if obs.battle else None
        lines = []
        if atk is not None and atk.bag:
            chip = lambda c: t("chip." + c, self.lang) if c in ("miss", "crit") else c
            owner = self.bag_owner(atk)
            lines.append(owner[:1].upper() + owner[1:] + ": " + " ".join(chip(c) for c in atk.bag))
        if atk is not None and atk.drawn:
            from rules.battle import running_total
            chip = lambda c: t("chip." + c, self.lang) if c in ("miss", "crit") else c
            lines.append(f"{self.tr('battle.drawn')}: " + " ".join(chip(c) for c in atk.drawn)
                         + "  " + self.tr("battle.total", n=running_total(atk.drawn)))
            if atk.bag and obs.pending.kind == "draw":
                n = len(atk.bag)
                miss = atk.bag.count("miss")
                zero = atk.bag.count("0")
                lines.append(self.tr("battle.odds", miss=miss, zero=zero, pos=n - miss - zero, n=n))
        stats = final_stats(self.cards, obs.race, obs.equipped) if obs.race else None
        lines.append(self.tr("battle.mybuild") + ":")
        for c in sorted(obs.equipped, key=lambda c: not self.cards.card(c).is_attack):
            card = self.cards.card(c)
            sk = []
            for s in card.skills:
                ok = skill_works(self.cards, c, s, stats, obs.equipped)
                sk.append(("✓" if ok else "✗") + s.name.get(self.lang))
            lines.append(" " + card.name.get(self.lang) + " " + " ".join(sk))
        me = obs.seats[obs.seat]
        trait = self.cards.guild(me.guild).battle_skill     # §4 「各バトル中1回」 (RULINGS R2)
        if trait is not None:
            lines.append(self.tr("battle.trait", skill=trait.name.get(self.lang), state=self.tr(
                "battle.trait_used" if me.trait_used else "battle.trait_unused")))
        return lines_text(lines)

    def bag_owner(self, atk) -> str:
        """Whose bag the chips are drawn from: "Seat 2's counter bag", "your attack bag"."""
        kind = "counter" if atk.counter else "attack"
        if atk.attacker == self.seat:
            return self.tr("battle.bag_mine." + kind)
        return self.tr("battle.bag_of." + kind, who=t("seat", self.lang, n=atk.attacker + 1))

    def refresh_view(self) -> None:
        obs = self.obs
        rnd = obs.battle.round if obs.battle else 0
        stage = obs.pending.kind
        atk = obs.battle.attack if obs.battle else None
        if stage == "skills" and atk is not None and atk.range_skill is None:
            stage = "range"             # the card alone: its range skill comes first
        prompt = self.tr("stage." + stage) if self.my_turn() and ("stage." + stage) in TUI \
            else self.status()
        if self.my_turn() and stage in ("unluck", "draw") and atk is not None:
            prompt += f" ({self.bag_owner(atk)})" if self.lang == "en" else f"（{self.bag_owner(atk)}）"
        self.set_topbar([self.tr('battle.title' if rnd else 'battle.title0', r=rnd),   # round 0: §6 初期手番
                         self.seat_name(self.seat)], prompt, reserve=self.battle_reserve())
        legal = self.one_row_per_card(self.legal())     # what gives something up comes last
        self._actions = [a for a in legal if not isinstance(a, GIVE_UP)] + \
            [a for a in legal if isinstance(a, GIVE_UP)]
        ol = self.fill("#actions", self.tr("battle.actions"),
                       [Option(wrapped(self, as_text(self.action_label(a))), id=str(i))
                        for i, a in enumerate(self._actions)],
                       give_up=[str(i) for i, a in enumerate(self._actions) if isinstance(a, GIVE_UP)])
        ol.focus()
        f = self.query_one("#field", Static)
        f.border_title = self.tr("battle.field")
        f.update(self.field_text())
        seats = self.query_one("#seats", Static)
        seats.border_title = self.tr("bid.seats")
        seats.update(self.seats_text())
        info = self.query_one("#info", Static)
        info.border_title = self.tr("battle.info")
        info.update(wrapped(self, self.info_text()))

    def on_option_list_option_highlighted(self, event) -> None:
        if event.option_list.id == "actions":
            self.query_one("#field", Static).update(self.field_text())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.my_turn() and event.option_index < len(self._actions):
            self.send(self._actions[event.option_index])

    def highlighted_card(self):
        ol = self.query_one("#actions", OptionList)
        if ol.highlighted is None or ol.highlighted >= len(getattr(self, "_actions", [])):
            return None
        return getattr(self._actions[ol.highlighted], "card", None)
