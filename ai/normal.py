"""The `normal` player: heuristics for every decision, from one seat's observation only.

Every decision comes with a `Reason` (a key and parameters) that `ai.explain` turns into
one line of Japanese or English.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Optional, Sequence

from attrs import frozen

from rules import actions as A
from rules.battle import RANGE_AREA, RANGE_CRIT, distance, step_area
from rules.bidding import resolve_target
from rules.build import final_stats, violations
from rules.cards import CardSet, Stats, default_cards
from rules.observe import Observation

from .chips import POINTS, Solver
from .evaluate import (attack_power, best_build, build_score, card_damage, draft_value,
                       keep_value, race_stats, reachable_mods, series_ok, target_value)


@frozen
class Reason:
    key: str
    params: tuple[tuple[str, object], ...] = ()

    def get(self, name: str, default: object = None) -> object:
        return dict(self.params).get(name, default)


def R(key: str, **params: object) -> Reason:
    return Reason(key, tuple(sorted(params.items())))


@lru_cache(maxsize=65536)
def attack_vp_value(bag: tuple[str, ...], hp: int, low: bool, crit: bool) -> float:
    """Expected VP (plus a little damage) of one attack with this bag on one target,
    drawing optimally (the exact solver)."""
    def u(pts, crits):
        dmg = pts + (2 * crits if crit else 0)
        return vp_for(hp, low, dmg) + 0.08 * min(dmg, hp)
    return Solver(u).start_value(bag)


def vp_for(hp: int, low: bool, damage: int) -> int:
    """§6 体力による勝利点: the VP an attacker gains from `damage` to one target."""
    if damage <= 0:
        return 0
    after = max(0, hp - damage)
    vp = 0
    if not low and after <= 4:
        vp += 1
    if after == 0:
        vp += 2
    return vp


class NormalPlayer:
    """Heuristic player for every decision of the game."""

    level = "normal"

    def __init__(self, cards: Optional[CardSet] = None, seed: int = 0) -> None:
        self.cards = cards or default_cards()
        self._rng = random.Random(seed)
        self._build_cache: dict = {}

    # ----------------------------------------------------------------------- entry
    def choose(self, obs: Observation, legal: Sequence[object]) -> object:
        return self.choose_explained(obs, legal)[0]

    def choose_explained(self, obs: Observation, legal: Sequence[object]) -> tuple[object, Reason]:
        if not legal:
            raise ValueError("no legal action to choose from")
        fn = getattr(self, "_" + obs.pending.kind, None)
        if fn is None:
            return legal[0], R("only")
        action, reason = fn(obs, list(legal))
        if action not in legal:  # a heuristic must never play an illegal action
            return legal[0], R("fallback")
        return action, reason

    def memory(self) -> dict:
        """What carries over to the next decision: the seat this player aims at."""
        return {"intended": getattr(self, "_intended", None)}

    def remember(self, obs: Observation, legal: Sequence[object], action: object,
                 memo: Optional[dict]) -> None:
        """As if this player had chosen `action` (base.Player): nothing is computed."""
        if memo is not None:
            seat = memo.get("intended")
            self._intended = seat if type(seat) is int and 0 <= seat < len(obs.seats) else None

    # ----------------------------------------------------------------------- helpers
    def _me(self, obs: Observation):
        return obs.seats[obs.seat]

    def _races(self, obs: Observation) -> tuple[str, ...]:
        me = self._me(obs)
        return (obs.race,) if obs.race else me.race_candidates

    def _owned_attack(self, obs: Observation) -> list[str]:
        return [c for c in obs.hand if self.cards.card(c).is_attack]

    # ----------------------------------------------------------------------- draft
    def _draft_pick(self, obs, legal):
        """§5-2: the card worth most for equip, material or bidding, for either race."""
        races = self._races(obs)
        targets = len(obs.targets) + len(obs.upcoming)
        mine = list(obs.picks)
        bids_held = sum(1 for c in mine if self.cards.card(c).bid >= 4)
        best = None
        for a in legal:
            card = self.cards.card(a.card)
            v = draft_value(self.cards, card, races, targets)
            if bids_held >= 3:
                v["bid"] *= 0.5
            use = max(v, key=v.get)
            score = v[use] + 0.2 * sum(x for k, x in v.items() if k != use)
            if best is None or score > best[0]:
                best = (score, a, use)
        return best[1], R("draft", card=best[1].card, use=best[2])

    # ----------------------------------------------------------------------- bidding
    def _bid(self, obs, legal):
        """§5-3: bid on the target worth most to the likely build with a card worth
        little to keep; a second bid of another value on the same target hedges a tie."""
        races = self._races(obs)
        me = self._me(obs)
        owned = self._owned_attack(obs)
        placed = list(me.face_down_bids)
        bid_cards = sorted(dict.fromkeys(a.card for a in legal if isinstance(a, A.PlaceBid)),
                           key=lambda c: keep_value(self.cards, self.cards.card(c), races))
        passing = next(a for a in legal if isinstance(a, A.Pass))
        if not bid_cards:
            return passing, R("pass_no_cards")
        defense = [c for c in obs.hand if not self.cards.card(c).is_attack]
        values = {t: target_value(self.cards, self.cards.card(t), races, owned, defense)
                  for t in obs.targets}
        rivals = {t: sum(1 for s in obs.seats if s.seat != obs.seat for x in s.face_down_bids
                         if x == t) for t in obs.targets}
        if not self._armed(obs, races, owned, defense):
            # A seat with no attack card it could use cannot attack at all in the battle
            # (§6): any target it could use is worth its highest card, preferably one no
            # other seat has bid on (equal top bids both drop out, §5-3); a second bid
            # only hedges a contested target.
            usable = [t for t in obs.targets if values[t] > 0]
            if placed:
                t = placed[0]
                if not rivals.get(t) or len(placed) > 1 or t not in obs.targets:
                    return passing, R("pass_nothing_worth")
                choice = self._bid_card(bid_cards, 3, races)
            elif usable:
                t = min(usable, key=lambda t: (rivals[t], -values[t]))
                choice = self._bid_card(bid_cards, 5, races)
            else:
                return passing, R("pass_nothing_worth")
            return A.PlaceBid(obs.seat, t, choice), R("bid_unarmed", target=t, card=choice,
                                                      value=self.cards.card(choice).bid,
                                                      worth=round(values[t], 1))
        threshold = 1.0 if not owned else 1.4
        for t in sorted(obs.targets, key=lambda t: -values[t]):
            v = values[t]
            if v < threshold:
                break
            if t in placed and not (rivals[t] and len(placed) == 1 and v >= 2.0):
                continue
            want = 5 if (rivals[t] or v >= 2.2) else 3
            if t in placed:
                want = 3  # hedge below a possible tie at the top
            choice = self._bid_card(bid_cards, want, races)
            return A.PlaceBid(obs.seat, t, choice), R("bid", target=t, card=choice,
                                                      value=self.cards.card(choice).bid,
                                                      worth=round(v, 1))
        return passing, R("pass_nothing_worth")

    def _armed(self, obs, races, owned, defense) -> bool:
        """Whether the seat owns an attack card one of its races could use (with the
        modifiers its own defense cards could add)."""
        extra = reachable_mods(self.cards, defense)
        return any(attack_power(self.cards.card(c), race_stats(self.cards, r) + extra,
                                series_ok(self.cards, c, tuple(owned) + tuple(defense))) > 0
                   for c in owned for r in races)

    def _bid_card(self, cards_sorted: list[str], want: int, races) -> str:
        fits = [c for c in cards_sorted if self.cards.card(c).bid >= want]
        if fits:
            return min(fits, key=lambda c: (keep_value(self.cards, self.cards.card(c), races)
                                            + 0.15 * self.cards.card(c).bid))
        return max(cards_sorted, key=lambda c: (self.cards.card(c).bid,
                                                -keep_value(self.cards, self.cards.card(c), races)))

    def _auction(self, obs, legal):
        """§5-3 《競売》: use it when raising that bid wins a target worth having — that the
        seat would not win without it (Auction is once a game, 「1回だけ」: it was spent on
        a tie of 3s on a target the seat's single 5 already won, issue 32)."""
        races = self._races(obs)
        owned = self._owned_attack(obs)
        bids = list(obs.revealed_bids)
        for a in legal:
            if not isinstance(a, A.UseAuction):
                continue
            boosted = [b if b.card != a.card else type(b)(b.seat, b.target, b.card, b.value + 1)
                       for b in bids]
            target = next(b.target for b in bids if b.card == a.card)
            if resolve_target(target, bids).winner == obs.seat:
                continue                     # won already: the raise changes nothing
            res = resolve_target(target, boosted)
            if res.winner == obs.seat and target_value(self.cards, self.cards.card(target),
                                                       races, owned) >= 1.0:
                return a, R("auction", target=target)
        return next(a for a in legal if isinstance(a, A.Decline)), R("auction_keep")

    def _payment(self, obs, legal):
        races = self._races(obs)
        a = min(legal, key=lambda a: keep_value(self.cards, self.cards.card(a.card), races))
        return a, R("pay", card=a.card)

    def _appraisal(self, obs, legal):
        """§5-3 《鑑定》: a free card — take the best one."""
        races = self._races(obs)
        owned = self._owned_attack(obs)
        takes = [a for a in legal if isinstance(a, A.Appraise)]
        if takes:
            a = max(takes, key=lambda a: target_value(self.cards, self.cards.card(a.target), races, owned))
            return a, R("appraise", target=a.target)
        return legal[0], R("only")

    # ----------------------------------------------------------------------- build
    def _fixed_material(self, obs) -> int:
        """The material of the seat's guild and of the cards it has materialized — those lie
        in the public discard for good (§5-4, RULINGS R6): a plan builds on them."""
        me = self._me(obs)
        return self.cards.guild(me.guild).material_bonus + sum(
            self.cards.card(c).material for c in obs.materialized)

    def _plan(self, obs):
        """(score, race, equipped, to materialize) of the best build of the cards the seat
        can still place (its unused and equipped cards), on the material it has."""
        me = self._me(obs)
        owned = tuple(sorted(obs.hand + obs.equipped))
        bonus = self._fixed_material(obs)
        key = (owned, me.race_candidates, bonus)
        if key not in self._build_cache:
            self._build_cache[key] = best_build(self.cards, me.race_candidates, owned, bonus)
        return self._build_cache[key]

    def _build(self, obs, legal):
        """§5-4: search the legal builds for the best by `build_score`, then make it step
        by step — the hidden steps first, the materializing (public and final, RULINGS
        R6) last."""
        score, race, equip, mat = self._plan(obs)
        if obs.race != race:
            return A.ChooseRace(obs.seat, race), R("race", race=race)
        cards = obs.hand + obs.equipped
        for c in cards:
            want = "equip" if c in equip else "materialize" if c in mat else "unused"
            have = "equip" if c in obs.equipped else "unused"
            if want != have and want != "materialize":
                return A.Assign(obs.seat, c, want), R("assign", card=c, to=want)
        for c in cards:
            if c in mat:
                return A.Assign(obs.seat, c, "materialize"), R("assign", card=c, to="materialize")
        return A.Confirm(obs.seat), R("confirm", score=round(score, 1))

    def _reveal_fix(self, obs, legal):
        me = self._me(obs)
        race = obs.race
        best = None
        for a in legal:
            if not isinstance(a, A.Remove):
                continue
            eq = tuple(c for c in obs.equipped if c != a.card)
            bad = len(violations(self.cards, race, eq, me.material))
            score = -bad * 100 + build_score(self.cards, race, eq)
            if best is None or score > best[0]:
                best = (score, a)
        a = best[1] if best else legal[0]
        return a, R("remove", card=getattr(a, "card", ""))

    # ----------------------------------------------------------------------- battle
    def _stats(self, obs, seat: int) -> Stats:
        s = obs.seats[seat]
        race = s.race if seat != obs.seat else obs.race
        equipped = s.equipped if seat != obs.seat else obs.equipped
        return final_stats(self.cards, race, equipped)

    def _equipped(self, obs, seat):
        return obs.equipped if seat == obs.seat else obs.seats[seat].equipped

    def _range_options(self, obs, seat: int, timing: str, mana: Optional[int] = None):
        """(card, skill) range skills the seat can use (requirements, series, mana)."""
        stats = self._stats(obs, seat)
        equipped = self._equipped(obs, seat)
        mana = obs.seats[seat].mana if mana is None else mana
        out = []
        for c in equipped:
            card = self.cards.card(c)
            if not card.is_attack:
                continue
            s = card.series
            if s is not None and sum(1 for x in equipped if self.cards.card(x).series == s) < 2:
                continue
            for sk in card.skills:
                if sk.effect.kind == "range" and sk.timing in (timing, "any") \
                        and sk.requires.met_by(stats) and sk.mana <= mana:
                    out.append((c, sk))
        return out

    def _zero_chips_of(self, obs, seat: int) -> int:
        """The zero chips a target could add (its usable defend skills it can pay)."""
        stats = self._stats(obs, seat)
        best = 0
        for c in self._equipped(obs, seat):
            for sk in self.cards.card(c).skills:
                if sk.timing == "defend" and sk.effect.kind == "add_zero_chips" \
                        and sk.requires.met_by(stats) and sk.mana <= obs.seats[seat].mana:
                    best = max(best, sk.effect.count)
        return best

    def _attack_value(self, obs, attacker: int, card: str, rng_: str, target: int,
                      from_area: Optional[int] = None) -> float:
        """Expected VP (plus a little damage) of attacking `target` with this card."""
        a_area = obs.seats[attacker].area if from_area is None else from_area
        t = obs.seats[target]
        if t.area is None or a_area is None:
            return 0.0
        d = distance(a_area, t.area)
        lo, hi = RANGE_AREA[rng_]
        if not lo <= d <= hi:
            return 0.0
        crit = d == RANGE_CRIT[rng_]
        chips = tuple(self.cards.card(card).chips)
        bag = tuple(sorted([str(c) for c in chips] + ["miss"] + ["crit"] * crit
                           + ["0"] * self._zero_chips_of(obs, target)))
        return attack_vp_value(bag, t.hp, t.low, crit)

    def _best_attack(self, obs, seat, from_area=None, options=None):
        best = (0.0, None, None, None)
        options = options if options is not None else self._range_options(obs, seat, "attack")
        for c, sk in options:
            for t in range(len(obs.seats)):
                if t == seat or obs.seats[t].knocked_out or not obs.seats[t].entered:
                    continue
                v = self._attack_value(obs, seat, c, sk.effect.range, t, from_area)
                if v > best[0]:
                    best = (v, c, sk, t)
        return best

    def _threat(self, obs, area: int) -> float:
        """How much the other seats could score against me standing in `area`."""
        total = 0.0
        me = obs.seats[obs.seat]
        for s in obs.seats:
            if s.seat == obs.seat or s.area is None:
                continue
            for c, sk in self._range_options(obs, s.seat, "attack"):
                lo, hi = RANGE_AREA[sk.effect.range]
                d = distance(s.area, area)
                if lo <= d <= hi:
                    dmg = card_damage(tuple(self.cards.card(c).chips))
                    total += 0.5 * min(1.0, vp_for(me.hp, me.low, round(dmg)) + 0.1 * dmg)
                    break
        return total

    def _position_value(self, obs, area: int) -> float:
        opp = self._best_attack(obs, obs.seat, from_area=area,
                                options=self._range_options(obs, obs.seat, "attack",
                                                            mana=obs.seats[obs.seat].mana))[0]
        return opp - 0.6 * self._threat(obs, area)

    def _turn(self, obs, legal):
        """§6 手番: attack when it is worth it (expected VP), then take the best position
        by opportunity against threat; rest when mana is short; else end the turn."""
        turn = obs.battle.turn
        # StartAttack(card) — the range skill declared later (RULINGS R22) — is the same
        # attack in another order; this player always names the range skill at once.
        attacks = [a for a in legal if isinstance(a, A.StartAttack) and a.skill is not None]
        if attacks:
            best = None
            for a in attacks:
                sk = self.cards.skill(a.skill)
                for t in range(len(obs.seats)):
                    if t == obs.seat:
                        continue
                    v = self._attack_value(obs, obs.seat, a.card, sk.effect.range, t)
                    if best is None or v > best[0]:
                        best = (v, a, t)
            if best and best[0] > 0.05:
                self._intended = best[2]
                return best[1], R("attack", card=best[1].card, target=best[2],
                                  value=round(best[0], 2))
        moves = [a for a in legal if isinstance(a, A.Move)]
        here = obs.seats[obs.seat].area
        activates = [a for a in legal if isinstance(a, A.Activate)
                     and self.cards.skill(a.skill).effect.kind == "move_then_attack"]
        if activates and not turn.attacked and turn.moves == 0:
            for step in (1, -1):
                there = step_area(here, step)
                if self._best_attack(obs, obs.seat, from_area=there)[0] > 0.3:
                    return activates[0], R("charge")
        if moves:
            current = self._position_value(obs, here)
            best_move = max(moves, key=lambda a: self._position_value(obs, step_area(here, a.step)))
            there = step_area(here, best_move.step)
            gain = self._position_value(obs, there) - current
            if gain > 0.05:
                return best_move, R("move", area=there)
        rest = [a for a in legal if isinstance(a, A.Rest)]
        me = obs.seats[obs.seat]
        if rest and me.mana < self._stats(obs, obs.seat)["mana"]:
            return rest[0], R("rest", mana=me.mana + 1)
        return next(a for a in legal if isinstance(a, A.EndTurn)), R("end_turn")

    def _skills(self, obs, legal):
        """§6 アタック 3: declare the skills that raise the attack's value."""
        atk = obs.battle.attack
        order = {"mana_reduction": 0, "extra_targets": 1, "multi_area": 2, "add_crit_chips": 3,
                 "crit_value": 4, "counter_block": 5}
        declares = [a for a in legal if isinstance(a, A.Declare)]
        target = getattr(self, "_intended", None)
        if atk.range_skill is None:
            # begun with the card alone (not this player's way, but possible when a
            # mistake or a replay put it here): the reductions first, then the range
            # skill that gives the best attack
            order0 = [a for a in declares
                      if self.cards.skill(a.skill).effect.kind == "mana_reduction"]
            ranges = [a for a in declares if self.cards.skill(a.skill).effect.kind == "range"]
            if order0 and not ranges:
                return order0[0], R("declare", skill=order0[0].skill)
            if ranges:
                a = max(ranges, key=lambda a: max(
                    [self._attack_value(obs, obs.seat, atk.card,
                                        self.cards.skill(a.skill).effect.range, t)
                     for t in range(len(obs.seats)) if t != obs.seat] + [0.0]))
                return a, R("declare", skill=a.skill)
        useful = []
        for a in declares:
            e = self.cards.skill(a.skill).effect
            if e.kind not in order:
                continue
            if e.kind == "counter_block" and (target is None or not self._can_counter(obs, target)):
                continue
            if e.kind in ("add_crit_chips", "crit_value") and not atk.counter:
                if target is None or not self._in_crit(obs, atk, target):
                    continue
            if e.kind == "crit_value" and (e.value or 0) <= 2:
                continue
            useful.append((order[e.kind], a))
        if useful:
            a = min(useful, key=lambda x: x[0])[1]
            return a, R("declare", skill=a.skill)
        done = next((a for a in legal if isinstance(a, A.Done)), None)
        if done is None:   # the declared set is not payable yet: every Declare left helps
            return declares[0], R("declare", skill=declares[0].skill)
        return done, R("done")

    def _in_crit(self, obs, atk, target) -> bool:
        t = obs.seats[target]
        a = obs.seats[atk.attacker]
        if t.area is None or a.area is None or atk.range_skill is None:
            return False
        return distance(a.area, t.area) == RANGE_CRIT[self.cards.skill(atk.range_skill).effect.range]

    def _can_counter(self, obs, seat) -> bool:
        me = obs.seats[obs.seat]
        s = obs.seats[seat]
        if s.area is None or me.area is None:
            return False
        d = distance(s.area, me.area)
        return any(RANGE_CRIT[sk.effect.range] == d for _, sk in self._range_options(obs, seat, "counter"))

    def _targets(self, obs, legal):
        atk = obs.battle.attack
        rng_ = self.cards.skill(atk.range_skill).effect.range
        picks = [a for a in legal if isinstance(a, A.ChooseTarget)]
        if picks:
            a = max(picks, key=lambda a: self._attack_value(obs, obs.seat, atk.card, rng_, a.target))
            return a, R("target", target=a.target)
        areas = [a for a in legal if isinstance(a, A.ChooseArea)]
        if areas:
            def area_value(a):
                return sum(self._attack_value(obs, obs.seat, atk.card, rng_, s.seat)
                           for s in obs.seats if s.area == a.area and s.seat != obs.seat)
            a = max(areas, key=area_value)
            if area_value(a) > 0 or not atk.targets:
                return a, R("area", area=a.area)
        return next(a for a in legal if isinstance(a, A.Done)), R("done")

    def _defense(self, obs, legal):
        """§6 防御スキル: declare what protects, while mana allows."""
        declares = [a for a in legal if isinstance(a, A.Declare)]
        atk = obs.battle.attack
        good = []
        for a in declares:
            e = self.cards.skill(a.skill).effect
            if e.kind == "crit_value" and not (self._in_crit(obs, atk, obs.seat) and (e.value or 0) < 2):
                continue
            good.append(a)
        if good:
            a = max(good, key=lambda a: {"add_zero_chips": 3, "damage_reduction": 2}.get(
                self.cards.skill(a.skill).effect.kind, 1))
            return a, R("defend", skill=a.skill)
        done = next((a for a in legal if isinstance(a, A.Done)), None)
        if done is None:   # the declared set is not payable yet: every Declare left helps
            return declares[0], R("defend", skill=declares[0].skill)
        return done, R("done")

    def _utility(self, obs):
        """The utility of a draw total for the attack in progress: VP (+ a little damage)
        summed over the targets, each with its own crit value and reductions."""
        atk = obs.battle.attack
        crit_targets = set()
        if atk.counter:
            crit_targets = set(atk.targets)
        else:
            for t in set(atk.targets):
                if self._in_crit(obs, atk, t):
                    crit_targets.add(t)
        specs = []
        for t in set(atk.targets):
            s = obs.seats[t]
            reduction = 0
            cv = 2 if t in crit_targets else 0
            for seat, c, skid in atk.defense:
                if seat == t:
                    e = self.cards.skill(skid).effect
                    if e.kind == "damage_reduction":
                        reduction += e.amount
                    if e.kind == "crit_value" and t in crit_targets:
                        cv = e.value
            specs.append((s.hp, s.low, cv, reduction, atk.targets.count(t)))

        def u(pts, crits):
            total = 0.0
            for hp, low, cv, red, times in specs:
                dmg = max(0, pts + crits * cv - red) * times
                total += vp_for(hp, low, dmg) + 0.08 * min(dmg, hp)
            return total
        return u

    def _unluck(self, obs, legal):
        """§6 アンラック: compare the exact values with and without it."""
        atk = obs.battle.attack
        u = self._utility(obs)
        chips = [str(c) for c in self.cards.card(atk.card).chips]
        base = tuple(sorted(chips + ["miss"]))
        with_u = Solver(u, unluck=True).start_value(tuple(sorted(chips)))
        without = Solver(u).start_value(base)
        if with_u >= without:
            return next(a for a in legal if isinstance(a, A.UseUnluck)), R("unluck_use")
        return next(a for a in legal if isinstance(a, A.Decline)), R("unluck_keep")

    def _draw(self, obs, legal):
        """§6 バトルチップを引く枚数: draw on only if the exact expected utility of drawing
        (over the bag's known contents) beats stopping."""
        atk = obs.battle.attack
        solver = Solver(self._utility(obs), unluck=atk.unluck_used)
        go, stop_v, draw_v = solver.should_draw(atk.bag, atk.drawn)
        total = sum(POINTS[c] + (2 if c == "crit" else 0) for c in atk.drawn)
        if go and any(isinstance(a, A.Draw) for a in legal):
            return A.Draw(obs.seat), R("draw", total=total, stop=round(stop_v, 2), go=round(draw_v, 2))
        return A.Stop(obs.seat), R("stop", total=total, stop=round(stop_v, 2), go=round(draw_v, 2))

    def _counter(self, obs, legal):
        """§6 カウンター: counter with the best option (it costs at most its skill's mana)."""
        options = [a for a in legal if isinstance(a, A.StartCounter) and a.skill is not None]
        b = obs.battle
        if options:
            best = max(options, key=lambda a: self._attack_value(
                obs, obs.seat, a.card, self.cards.skill(a.skill).effect.range, b.countered))
            self._intended = b.countered
            return best, R("counter", target=b.countered)
        return next(a for a in legal if isinstance(a, A.Decline)), R("no_counter")


class EasyPlayer(NormalPlayer):
    """`easy`: the normal player with a fixed share of random mistakes."""

    level = "easy"
    MISTAKES = 0.3

    def choose_explained(self, obs, legal):
        if self._rng.random() < self.MISTAKES:
            return legal[self._rng.randrange(len(legal))], R("random")
        return super().choose_explained(obs, legal)

    def remember(self, obs, legal, action, memo) -> None:
        if self._rng.random() < self.MISTAKES:          # the draws `choose_explained` made
            self._rng.randrange(len(legal))
        super().remember(obs, legal, action, memo)
