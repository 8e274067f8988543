"""The start position a v1 scenario file describes table by table: `StartBuilder` builds
the initial GameState from ``[[seat]]``, ``[bidding]``, ``[battle]`` (with an attack or
counter in progress) and ``[table]``, filling in what the file leaves out as the rules
would have it (decks, bid targets, mana, …) and refusing what no game can reach (a card
in two places, a seat off the field on its turn, …)."""

from __future__ import annotations

from typing import Optional

import attrs

from rules import Config, new_game
from rules.build import available_material, final_stats
from rules.cards import CardSet
from rules.engine import copies_of
from rules.state import (BID_ROUNDS, Active, Attack, BattleState, Bid, BiddingState, GameState,
                         Phase, SeatState, Turn)

from tactical_tui.tools.scenario.format import CHIPS, MAX_ROUND, error_at
from tactical_tui.tools.scenario.positions import cattrs_problem, strict_converter
from tactical_tui.tools.scenario.reader import Reader, entry_places, read_chance


SEAT_KEYS = ("guild", "race_candidates", "race", "hand", "picks", "draft_choice", "equipped",
             "materialized",
             "confirmed", "revealed", "material", "hp", "mana", "vp", "unluck", "area",
             "entered", "knocked_out", "low", "auction_used", "trait_used", "active")
BIDDING_KEYS = ("round", "leader", "turn", "current", "upcoming", "bids", "passed", "step",
                "payments", "tied")
BID_STEPS = ("bid", "auction", "payment", "appraisal")
BATTLE_KEYS = ("round", "turn", "order", "attack", "counter_queue", "countered", "blocked")
TABLE_KEYS = ("defense_deck", "attack_deck", "defense_discard", "attack_discard")


class StartBuilder:
    """Builds the scenario's initial GameState from its tables."""

    def __init__(self, path: str, text: str, raw: dict, cards: CardSet, config: Config,
                 phase: str, head: Reader) -> None:
        self.path, self.text, self.raw, self.cards = path, text, raw, cards
        self.config, self.phase, self.head = config, phase, head
        self.n = config.players
        self.placed: dict[str, str] = {}      # copy id → where

    # cards -------------------------------------------------------------------------
    def card(self, r: Reader, key: str, cid: str, where: str, attack: Optional[bool] = None) -> str:
        base, _, copy = cid.partition("#")
        try:
            card = self.cards.card(cid)
        except KeyError:
            raise r.error(f"no card {base!r} in the shipped or inline cards", key) from None
        if attack is not None and card.is_attack != attack:
            raise r.error(f"{cid!r} is {'an attack' if card.is_attack else 'a defense'} card; "
                          f"{'an attack' if attack else 'a defense'} card is needed here", key)
        if card.is_attack:
            if copy:
                raise r.error(f"attack cards are single: write {base!r}, not {cid!r}", key)
        else:
            if not copy.isdigit() or not 1 <= int(copy) <= card.copies:
                raise r.error(f"a defense card is a physical copy \"{base}#n\" with n from 1 "
                              f"to {card.copies}, not {cid!r}", key)
        if cid in self.placed:
            raise r.error(f"card {cid!r} is placed twice (also in {self.placed[cid]})", key)
        self.placed[cid] = where
        return cid

    def cards_at(self, r: Reader, key: str, where: str, attack: Optional[bool] = None) -> tuple:
        return tuple(self.card(r, key, c, where, attack) for c in r.strings(key, ()))

    # the state ---------------------------------------------------------------------
    def build(self) -> tuple[GameState, tuple]:
        try:
            state, _ = new_game(self.config, self.cards,
                                self.head.get("seed", int, 0, 0, 2 ** 62))
        except ValueError as exc:
            raise error_at(self.path, "", str(exc)) from None
        seats = self.seats()
        start = self.head.get("start_seat", int, None, 0, self.n - 1)
        if start is None:
            start = min(range(self.n), key=lambda i: self.cards.guild(seats[i].guild).number)
        bidding = self.bidding(start) if self.phase in ("draft", "bidding") else None
        order: tuple[int, ...] = ()
        battle = None
        if self.phase == "battle":
            order, battle = self.battle(seats)
        table = Reader(self.path, "[table]", self.raw.get("table", {}), TABLE_KEYS)
        piles = {k: self.cards_at(table, k, f"[table] {k}") for k in TABLE_KEYS}
        defense_all, attack_all = copies_of(self.cards, self.config.first_game)
        for k, everything in (("defense_deck", defense_all), ("attack_deck", attack_all)):
            if not table.has(k):
                piles[k] = tuple(c for c in everything if c not in self.placed)
        # §5-4 (RULINGS R6): a seat's materialized cards lie face up in the defense discard
        piles["defense_discard"] += tuple(c for s in seats for c in s.materialized)
        script, dice_seats = read_chance(self.path, self.raw)
        if bidding is not None and not bidding.current:
            # the draft: the first round's targets are the top of the attack deck (§5-2)
            per_round, _ = BID_ROUNDS[self.n]
            deck = piles["attack_deck"]
            bidding = attrs.evolve(bidding, current=tuple(deck[:per_round]))
            piles["attack_deck"] = tuple(deck[per_round:])
        if bidding is not None and bidding.upcoming is None:
            # default: the next round's targets are the top of the attack deck (none in the
            # last round), as §5-3 reveals them
            per_round, rounds = BID_ROUNDS[self.n]
            count = per_round if bidding.round < rounds - 1 else 0
            deck = piles["attack_deck"]
            bidding = attrs.evolve(bidding, upcoming=tuple(deck[:count]))
            piles["attack_deck"] = tuple(deck[count:])

        phase = {"draft": Phase.DRAFT, "bidding": Phase.BIDDING, "build": Phase.BUILD,
                 "battle": Phase.BATTLE}[self.phase]
        return attrs.evolve(state, phase=phase, seats=tuple(seats), start_seat=start,
                            bidding=bidding, order=order, battle=battle,
                            script=script, **piles), dice_seats

    def seats(self) -> list[SeatState]:
        raw = self.raw.get("seat", [])
        places = entry_places(self.text, "seat", len(raw))
        readers = [Reader(self.path, f"{places[i]} (seat {i})", raw[i], SEAT_KEYS)
                   for i in range(len(raw))]
        readers += [Reader(self.path, f"seat {i}", {}, SEAT_KEYS) for i in range(len(raw), self.n)]
        guilds: list[Optional[str]] = []
        for r in readers:
            g = r.get("guild", str)
            if g is not None:
                try:
                    self.cards.guild(g)
                except KeyError:
                    raise r.error(f"no guild {g!r}", "guild") from None
                if g in guilds:
                    raise r.error(f"guild {g!r} is already another seat's", "guild")
            guilds.append(g)
        spare = sorted((g for g in self.cards.guilds if g.id not in guilds),
                       key=lambda g: (g.trait.kind != "material", g.number))
        spare_ids = iter(g.id for g in spare)
        guilds = [g if g is not None else next(spare_ids) for g in guilds]
        return [self.seat(i, r, guilds[i]) for i, r in enumerate(readers)]

    def race(self, r: Reader, key: str, rid: str) -> str:
        try:
            self.cards.race(rid)
        except KeyError:
            raise r.error(f"no race {rid!r}", key) from None
        return rid

    def seat(self, i: int, r: Reader, guild: str) -> SeatState:
        battle = self.phase == "battle"
        race = r.get("race", str)
        if race is not None:
            self.race(r, "race", race)
        cands = r.strings("race_candidates")
        if cands is not None:
            if len(cands) != 2:
                raise r.error("a seat has 2 race candidates", "race_candidates")
            for c in cands:
                self.race(r, "race_candidates", c)
            if race is not None and race not in cands:
                raise r.error(f"{race!r} is not one of race_candidates", "race")
        else:
            # default candidates: the scenario's inline races first, then the shipped ones
            inline = {e.get("id") for e in self.raw.get("race", [])}
            races = sorted(self.cards.races, key=lambda x: x.id not in inline)
            others = [x.id for x in races if x.id != race]
            cands = (race, others[0]) if race is not None else tuple(others[:2])
        if battle and race is None:
            race = cands[0]
        where = f"seat {i}"
        hand = self.cards_at(r, "hand", f"{where} hand")
        picks = self.cards_at(r, "picks", f"{where} picks", attack=False)
        draft_choice = r.get("draft_choice", str)
        if (picks or draft_choice is not None) and self.phase != "draft":
            raise r.error("only in phase = \"draft\" (after the draft the picks are the hand)",
                          "picks" if picks else "draft_choice")
        if draft_choice is not None and draft_choice not in hand:
            raise r.error(f"{draft_choice!r} is not in this seat's hand", "draft_choice")
        equipped = self.cards_at(r, "equipped", f"{where} equipped")
        materialized = self.cards_at(r, "materialized", f"{where} materialized", attack=False)
        hp = r.get("hp", int, 6, 0, 6)
        knocked_out = r.get("knocked_out", bool, hp == 0 if battle else False)
        area = r.get("area", int, None, 1, 6)
        if knocked_out and area is not None:
            raise r.error("a knocked-out seat is off the field: leave area out", "area")
        entered = r.get("entered", bool, area is not None or knocked_out)
        if battle and self.raw.get("battle", {}).get("round", 1) != 0 \
                and area is None and not knocked_out:
            raise r.error("in a battle round after the entries every seat needs an area "
                          "(or knocked_out = true)", "area")
        default_mana = max(0, final_stats(self.cards, race, equipped)["mana"]) if race else 0
        active = []
        if not isinstance(r.table.get("active", []), list):
            raise r.error("must be a list of {card, skill, until} tables", "active")
        for k, a in enumerate(r.table.get("active", [])):
            ar = Reader(self.path, f"{r.place}, active[{k}]", a, ("card", "skill", "until"))
            if not ar.has("card") or not ar.has("skill"):
                raise ar.error("give the card and the skill in effect")
            card = ar.get("card", str)
            skill = ar.get("skill", str)
            trait = self.cards.guild(guild).battle_skill if card == guild else None
            if card not in equipped and trait is None:
                raise ar.error(f"{card!r} is not an equipped card of this seat (nor its guild "
                               "with a battle trait)", "card")
            if skill not in ({trait.id} if trait is not None else
                             {s.id for s in self.cards.card(card).skills}):
                raise ar.error(f"{skill!r} is not a skill of {card!r}", "skill")
            until = ar.get("until", str, self.cards.skill(skill).continuous or "turn_end")
            if until not in ("turn_end", "next_turn_start"):
                raise ar.error("must be turn_end or next_turn_start", "until")
            active.append(Active(card, skill, until))
        return SeatState(
            guild=guild, race_candidates=tuple(cands), hand=hand, picks=picks,
            draft_choice=draft_choice, race=race, equipped=equipped,
            materialized=materialized, confirmed=r.get("confirmed", bool, battle),
            revealed=r.get("revealed", bool, battle),
            material=r.get("material", int, available_material(self.cards, guild, materialized), 0, 99),
            hp=hp, mana=r.get("mana", int, default_mana, 0, 99), vp=r.get("vp", int, 0, 0, 9),
            unluck=r.get("unluck", int, 0, 0, 2), area=area, entered=entered,
            knocked_out=knocked_out, low=r.get("low", bool, hp <= 4),
            active=tuple(active), auction_used=r.get("auction_used", bool, False),
            trait_used=r.get("trait_used", bool, False))

    def bidding(self, start: int) -> BiddingState:
        draft = self.phase == "draft"
        r = Reader(self.path, "[bidding]", self.raw.get("bidding", {}),
                   ("current", "upcoming") if draft else BIDDING_KEYS)
        per_round, rounds = BID_ROUNDS[self.n]
        step = r.get("step", str, "bid")
        if step not in BID_STEPS:
            raise r.error(f"must be one of {', '.join(BID_STEPS)}, not {step!r}", "step")
        rnd = r.get("round", int, 0, 0, rounds - 1)
        leader = r.get("leader", int, (start + rnd) % self.n, 0, self.n - 1)
        turn = r.get("turn", int, leader, 0, self.n - 1)
        current = self.cards_at(r, "current", "[bidding] current", attack=True)
        upcoming = (self.cards_at(r, "upcoming", "[bidding] upcoming", attack=True)
                    if r.has("upcoming") else None)
        if not current and not draft and step != "appraisal":
            raise r.error("list the targets of this bid round", "current")
        bids = []
        raw_bids = r.table.get("bids", [])
        if not isinstance(raw_bids, list):
            raise r.error("must be a list of {seat, target, card} tables", "bids")
        for k, b in enumerate(raw_bids):
            br = Reader(self.path, f"[bidding] bids[{k}]", b, ("seat", "target", "card", "value"))
            for key in ("seat", "target", "card"):
                if not br.has(key):
                    raise br.error(f"missing field {key!r}")
            seat = br.get("seat", int, None, 0, self.n - 1)
            target = br.get("target", str)
            if target not in current:
                raise br.error(f"{target!r} is not a current target", "target")
            card = self.card(br, "card", br.get("card", str), f"[bidding] bids[{k}]", attack=False)
            value = br.get("value", int, self.cards.card(card).bid, 1, 6)
            bids.append(Bid(seat, target, card, value))
        if step != "bid":
            return self.bid_result(r, step, rnd, rounds, leader, turn, current, upcoming,
                                   tuple(bids))
        passed = set(r.ints("passed", 0, self.n - 1, ()))
        for seat in range(self.n):
            count = sum(1 for b in bids if b.seat == seat)
            if count > 2:
                raise r.error(f"seat {seat} has {count} bids; at most 2 a round", "bids")
            if count == 2:
                passed.add(seat)       # the 2nd bid passes automatically (§5-3)
        if len(passed) == self.n:
            raise r.error("every seat has passed: nothing is left to decide", "passed")
        if turn in passed:
            raise r.error(f"seat {turn} has passed and cannot be the seat to bid", "turn")
        return BiddingState(round=rnd, leader=leader, turn=turn, current=current,
                            upcoming=upcoming, bids=tuple(bids),
                            passed=tuple(i in passed for i in range(self.n)))

    def bid_result(self, r: Reader, step: str, rnd: int, rounds: int, leader: int, turn: int,
                   current: tuple, upcoming: Optional[tuple], bids: tuple) -> BiddingState:
        """§5-3 入札結果: every seat has passed and the bids are revealed; the position is
        the 《競売》 step (bids as placed), the payment step (bids, `payments` chosen so
        far) or the 《鑑定》 step of the last round (bids resolved: `current` is what is
        left, `tied` the targets left unsold by a tie)."""
        if r.has("passed"):
            raise r.error(f"in step {step!r} every seat has passed", "passed")
        if step in ("auction", "payment") and not bids:
            raise r.error(f"step {step!r} resolves the bids: give them", "bids")
        if step == "appraisal":
            if bids:
                raise r.error("in step 'appraisal' the bids are already resolved: leave "
                              "them out", "bids")
            if rnd != rounds - 1:
                raise r.error(f"《鑑定》 comes after the last bid round ({rounds - 1}), not "
                              f"round {rnd}", "round")
        elif r.has("tied"):
            raise r.error("only in step 'appraisal'", "tied")
        if r.has("payments") and step != "payment":
            raise r.error("only in step 'payment'", "payments")
        payments = []
        raw = r.table.get("payments", [])
        if not isinstance(raw, list):
            raise r.error("must be a list of { target, card } tables", "payments")
        for k, entry in enumerate(raw):
            pr = Reader(self.path, f"[bidding] payments[{k}]", entry, ("target", "card"))
            target, card = pr.get("target", str), pr.get("card", str)
            if not any(b.target == target and b.card == card for b in bids):
                raise pr.error(f"no bid of {card!r} on {target!r}")
            payments.append((target, card))
        tied = r.strings("tied", ())
        for t in tied:
            if t not in current:
                raise r.error(f"{t!r} is not a current target", "tied")
        return BiddingState(round=rnd, leader=leader, turn=turn, current=current,
                            upcoming=upcoming if upcoming is not None else (), bids=bids,
                            passed=(True,) * self.n, step=step, payments=tuple(payments),
                            tied=tied)

    def battle(self, seats: list[SeatState]) -> tuple[tuple[int, ...], BattleState]:
        r = Reader(self.path, "[battle]", self.raw.get("battle", {}), BATTLE_KEYS)
        rnd = r.get("round", int, 1, 0, MAX_ROUND)
        order = r.ints("order", 0, self.n - 1, tuple(range(self.n)))
        if sorted(order) != list(range(self.n)):
            raise r.error(f"must list every seat 0..{self.n - 1} once", "order")
        t = r.table.get("turn", order[0])
        if type(t) is int:
            tr = Reader(self.path, "[battle] turn", {"seat": t}, ("seat",))
        else:
            tr = Reader(self.path, "[battle] turn", t, ("seat", "moves", "attacked", "rested"))
        seat = tr.get("seat", int, order[0], 0, self.n - 1)
        turn = Turn(seat, moves=tr.get("moves", int, 0, 0, 2),
                    attacked=tr.get("attacked", bool, False), rested=tr.get("rested", bool, False))
        s = seats[seat]
        attack = self.attack(r, seats) if r.has("attack") else None
        in_attack = attack is not None or bool(r.table.get("counter_queue"))
        if (s.knocked_out or s.area is None) and not in_attack:
            raise tr.error(f"seat {seat} is not on the field; start at the end of the turn "
                           "before it (its entry or re-entry happens when its turn begins)")
        queue = r.ints("counter_queue", 0, self.n - 1, ())
        countered = r.get("countered", int, None, 0, self.n - 1)
        if queue and countered is None:
            raise r.error("the counters wait against an attacker: give countered = seat",
                          "countered")
        if queue and (attack is None or attack.stage != "done") and \
                (attack is None or not attack.counter):
            raise r.error("counters come after the attack: give attack = { …, stage = "
                          "\"done\" } (or a counter in progress)", "counter_queue")
        return order, BattleState(round=rnd, turn=turn, attack=attack, counter_queue=queue,
                                  countered=countered, blocked=r.get("blocked", bool, False))

    def attack(self, r: Reader, seats: list[SeatState]) -> Attack:
        """[battle] attack = { … }: the attack or counter in progress — the fields of
        rules.state.Attack (attacker, counter, card, range_skill, stage, skills, targets,
        defense, bag, drawn, …), structured strictly."""
        raw = r.table["attack"]
        if not isinstance(raw, dict):
            raise r.error("must be a table of the attack's fields (attacker, card, "
                          "range_skill, stage, …)", "attack")
        place = "[battle] attack"
        try:
            atk = strict_converter().structure(dict(raw), Attack)
        except Exception as exc:  # noqa: BLE001 - the file's problem, with its field
            where, problem = cattrs_problem(exc)
            raise error_at(self.path, f"{place}.{where}" if where else place, problem) from None
        if not 0 <= atk.attacker < self.n:
            raise error_at(self.path, place + ", attacker", f"there is no seat {atk.attacker}")
        owner = seats[atk.attacker]
        for k, (card, skill) in enumerate(((atk.card, atk.range_skill),) + atk.skills):
            where = place + (", card" if k == 0 else f", skills[{k - 1}]")
            if card not in owner.equipped:
                raise error_at(self.path, where, f"{card!r} is not equipped by seat {atk.attacker}")
            if skill not in {x.id for x in self.cards.card(card).skills}:
                raise error_at(self.path, where, f"{skill!r} is not a skill of {card!r}")
        for k, (seat, card, skill) in enumerate(atk.defense):
            where = f"{place}, defense[{k}]"
            if not 0 <= seat < self.n or card not in seats[seat].equipped:
                raise error_at(self.path, where, f"{card!r} is not equipped by seat {seat}")
            if skill not in {x.id for x in self.cards.card(card).skills}:
                raise error_at(self.path, where, f"{skill!r} is not a skill of {card!r}")
        for k, seat in enumerate(atk.targets + ((atk.defender,) if atk.defender is not None
                                                 else ()) + atk.defenders_done):
            if not 0 <= seat < self.n:
                raise error_at(self.path, place, f"there is no seat {seat} (seats 0..{self.n - 1})")
        for key in ("bag", "drawn"):
            bad = [c for c in getattr(atk, key) if c not in CHIPS]
            if bad:
                raise error_at(self.path, f"{place}, {key}", f"{bad[0]!r} is not a chip (chips: "
                                                             f"{', '.join(CHIPS)})")
        return atk
