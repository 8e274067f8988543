"""The `hard` player: the normal player plus look-ahead for battle decisions.

Before the battle, the draft, the bids and the build are planned with a learned value of
builds (`ai.planner.PlanningPlayer`); payments, 《競売》 and 《鑑定》 are the normal player's.
In the battle (decisions turn, skills, targets, defense, unluck, draw, counter) the hard
player searches, with the normal player's choice as the default:

1. **Determinization.** Everything on the battle table is public (builds, HP, mana, VP,
   unluck, areas, the attack in progress and the chip bag), so the only hidden things
   are the other seats' unused hands — which play no part in the battle — and chance.
   A full `GameState` is rebuilt from the observation alone (`determinize`): the public
   battle facts, empty hands for the other seats, and an RNG state drawn from the hard
   player's own generator. Future chip draws and die rolls are therefore *sampled*,
   never known; the real game's state is never read.
2. **Simulation.** For each candidate action (the legal ones), the action is applied in
   a sampled future and the battle is played on by normal players for every seat until
   the game ends or every seat has had its next turn (`horizon`, in laps of turns).
3. **Evaluation.** A finished game is worth the share of the win (1, or 1/k for k
   winners, 0 for a loss); an unfinished one the chance to win that a logistic model
   fitted on normal self-play gives from the public facts at that turn start (`VALUE`
   over `features`: own VP and the best other seat's, the HP and low flag of every
   seat — which decide who can take the next VP from whom —, own mana and unluck, how
   soon this seat's turn comes, and how many seats can attack it and it can attack from
   where they stand), fitted for each player count (3, 4, 5).
4. **Choice.** Candidates are sampled in rounds with *common random numbers*: in round k
   every candidate gets the same sampled RNG state, and the same one again at the start
   of every later turn of its simulation (so the same chips come out of the same bag
   however much chance the earlier turns used), so differences between candidates are
   less differences of luck, and are compared pairwise. Every few rounds a candidate
   clearly behind the leader is dropped (racing), so the time goes to the contenders.
   The normal player's own choice is the default; another candidate replaces it only if
   its mean paired advantage is clearly positive (above `MARGIN` and `Z` standard
   errors) — with few samples the search changes nothing rather than guess.

The clock is checked between simulations and after every engine step inside them:
searching stops at 85 % of `budget`, and the rest covers the wrap-up (collecting the
search's garbage, see `choose_explained`). Decisions are deterministic for a seed and an
observation sequence whenever the search ends by its simulation cap (`sims`) or by
racing rather than by the clock — each decision takes exactly one number from the
player's generator, so a search the clock cut short never shifts later decisions.
"""

from __future__ import annotations

import gc
import math
import operator
import random
import time
from typing import Optional, Sequence

from rules import actions as A
from rules import rng as RNG
from rules.battle import RANGE_AREA, distance, step_area
from rules.build import final_stats
from rules.cards import CardSet, default_cards
from rules.engine import apply, new_game, pending
from rules.memo import Memo
from rules.observe import Observation, observe
from rules.state import Attack, GameState, Phase, SeatState, evolve

from .normal import NormalPlayer, R, Reason
from .planner import PlanningPlayer

SEARCHED = ("turn", "skills", "targets", "defense", "unluck", "draw", "counter")

# The leaf value's features (`features`), from one seat's point of view, for the logistic
# model `VALUE` (fitted by bench/fit_hard_value.py). A knocked-out seat counts as at full
# HP and not low: it re-enters at HP 6 (§6), so 3 VP can again be taken from it.
FEATURES = ("my VP = 1", "my VP = 2", "my VP = 3", "my VP >= 4",
            "best other VP = 1", "best other VP = 2", "best other VP = 3",
            "best other VP >= 4", "other VP besides the best",
            "my HP", "my low", "me knocked out", "my mana", "my unluck = 2",
            "leader's HP", "leader low", "leader knocked out",
            "others' mean HP", "others low", "others knocked out",
            "turns until mine / seats",
            "others that can attack me where they stand", "others I can attack where I stand")

_REACH: Memo = Memo(20_000)


def _reach(cards: CardSet, race, equipped) -> tuple:
    """(mana, nearest, farthest) of a build's usable attack range skills (requirements
    and series met), memoised."""
    key = (cards, race, equipped)
    out = _REACH.get(key)
    if out is None:
        stats = final_stats(cards, race, equipped)
        found = []
        for c in equipped:
            card = cards.card(c)
            if not card.is_attack:
                continue
            if card.series is not None and \
                    sum(1 for x in equipped if cards.card(x).series == card.series) < 2:
                continue
            for sk in card.skills:
                if sk.effect.kind == "range" and sk.timing in ("attack", "any") \
                        and sk.requires.met_by(stats):
                    found.append((sk.mana,) + RANGE_AREA[sk.effect.range])
        out = _REACH.put(key, tuple(found))
    return out


def _can_attack(state: GameState, a: int, t: int) -> bool:
    """Whether seat `a` could attack seat `t` from where both stand, with its mana."""
    sa, st = state.seats[a], state.seats[t]
    if sa.area is None or st.area is None or sa.knocked_out or st.knocked_out:
        return False
    d = distance(sa.area, st.area)
    return any(m <= sa.mana and lo <= d <= hi
               for m, lo, hi in _reach(state.cards, sa.race, sa.equipped))


def features(state: GameState, me: int) -> tuple:
    """The features (`FEATURES`) of seat `me` in a battle state: VP standing, the HP and
    low flag of every seat (what the next VP depend on), own mana and unluck, how soon
    this seat's turn comes, and who could attack whom from where they stand."""
    seats = state.seats
    n = len(seats)
    mine = seats[me]
    others = [i for i in range(n) if i != me]
    lead = max(others, key=lambda i: (seats[i].vp, -i))
    best = seats[lead].vp
    rest = sum(seats[i].vp for i in others) - best

    def hp(s):
        return 6 if s.knocked_out else s.hp

    def low(s):
        return 0 if s.knocked_out else int(s.low)

    m = min(mine.vp, 4)
    b = min(best, 4)
    order = state.order
    if state.battle is not None and order:
        gap = (order.index(me) - order.index(state.battle.turn.seat)) % n
    else:
        gap = 0
    return (int(m == 1), int(m == 2), int(m == 3), int(m == 4),
            int(b == 1), int(b == 2), int(b == 3), int(b == 4), rest,
            hp(mine), low(mine), int(mine.knocked_out), min(mine.mana, 6),
            int(mine.unluck >= 2),
            hp(seats[lead]), low(seats[lead]), int(seats[lead].knocked_out),
            sum(hp(seats[i]) for i in others) / len(others),
            sum(low(seats[i]) for i in others), sum(int(seats[i].knocked_out) for i in others),
            gap / n,
            sum(_can_attack(state, i, me) for i in others),
            sum(_can_attack(state, me, i) for i in others))


# The leaf value: logistic-model weights (bias, then one per `FEATURES` entry) of a seat's
# chance to win a game of normal players from a battle turn start, for 3, 4 and 5 players:
# fitted by bench/fit_hard_value.py (Newton's method, L2 penalty 1) on 1,500 games of
# normal self-play each (seeds 20000-21499, every seat at every turn start), refitted
# after the rule changes of issue 13. On the last 20 % of those games held out, log loss
# against a table of the win rate by own VP and the best other seat's: 3 players 0.4645
# vs 0.4764, 4 players 0.4916 vs 0.5000, 5 players 0.4219 vs 0.4328.
VALUE = {
    3: (-0.580, 1.572, 2.291, 3.204, 4.095, -0.633, -1.397, -2.012, -2.766, -0.229, -0.049,
        -0.305, 0.240, 0.003, 0.440, -0.041, 0.101, -0.201, 0.071, 0.139, -0.030, -1.250,
        -0.292, 0.200),
    4: (-1.014, 0.354, 1.213, 2.092, 2.801, -0.256, -0.595, -1.147, -1.596, -0.176, 0.059,
        0.088, 0.378, 0.018, 0.251, -0.080, -0.236, -0.167, 0.037, 0.063, 0.069, -0.925,
        -0.043, 0.158),
    5: (-1.313, 0.554, 1.336, 2.292, 3.037, -0.333, -0.652, -1.146, -1.588, -0.146, 0.062,
        0.117, 0.368, 0.037, 0.210, -0.015, -0.023, -0.038, -0.024, -0.011, 0.062, -1.100,
        -0.019, 0.138),
}


# ------------------------------------------------------------------------ rollout policy

class RolloutPlayer(NormalPlayer):
    """The normal player's policy with its final stats and draw-or-stop choices memoised
    — the same decisions (tests check it), faster, for the simulations."""

    _stats_cache: Memo = Memo(50_000)

    def _stats(self, obs, seat):
        s = obs.seats[seat]
        race = s.race if seat != obs.seat else obs.race
        equipped = s.equipped if seat != obs.seat else obs.equipped
        key = (self.cards, race, equipped)
        st = self._stats_cache.get(key)
        if st is None:
            st = self._stats_cache.put(key, final_stats(self.cards, race, equipped))
        return st

    def _build_of(self, obs, seat):
        s = obs.seats[seat]
        if seat == obs.seat:
            return obs.race, obs.equipped
        return s.race, s.equipped

    # The usable range skills and the zero chips a seat could add depend only on its build
    # and mana (issue 16: the rollouts ask them many times a step).
    _ranges: Memo = Memo(20_000)

    def _range_options(self, obs, seat, timing, mana=None):
        mana = obs.seats[seat].mana if mana is None else mana
        key = (self.cards, *self._build_of(obs, seat), timing, mana)
        out = self._ranges.get(key)
        if out is None:
            out = self._ranges.put(key, tuple(super()._range_options(obs, seat, timing, mana)))
        return list(out)

    _zeros: Memo = Memo(20_000)

    def _zero_chips_of(self, obs, seat):
        key = (self.cards, *self._build_of(obs, seat), obs.seats[seat].mana)
        out = self._zeros.get(key)
        if out is None:
            out = self._zeros.put(key, super()._zero_chips_of(obs, seat))
        return out

    # The draw memo, one per card set, holds nothing the cyclic garbage collector tracks
    # (issue 16): its keys are the attack's fields and the seats' (HP, low, area), its
    # values (draw?, reason key, reason params) — tuples of str, int, float and bool,
    # which the collector stops tracking. Holding the attacks, actions and reasons
    # themselves (20,000 of each) made every full collection of a long run walk them:
    # 0.1-0.2 s, landing on whichever decision was running.
    _draws: dict = {}
    _attack_fields = operator.attrgetter(*(f.name for f in Attack.__attrs_attrs__))
    _actions: dict = {}

    def _draw(self, obs, legal):
        # The draw-or-stop choice depends only on the attack (bag, drawn chips, targets,
        # skills) and the seats' HP, low flags and areas.
        memo = self._draws.get(self.cards)
        if memo is None:
            if len(self._draws) >= 4:
                self._draws.clear()
            memo = self._draws[self.cards] = Memo(20_000)
        key = (self._attack_fields(obs.battle.attack),
               tuple((s.hp, s.low, s.area) for s in obs.seats))
        out = memo.get(key)
        if out is None:
            action, reason = super()._draw(obs, legal)
            out = memo.put(key, (isinstance(action, A.Draw), reason.key, reason.params))
        draw, rkey, params = out
        act = self._actions.get((obs.seat, draw))
        if act is None:
            act = self._actions[obs.seat, draw] = (A.Draw if draw else A.Stop)(obs.seat)
        return act, Reason(rkey, params)


# ------------------------------------------------------------------------ determinization

def determinize(obs: Observation, cards: CardSet, rng_state: int,
                base: Optional[GameState] = None) -> GameState:
    """A full battle `GameState` consistent with `obs`, built from the observation only:
    the public battle facts of every seat, the seat's own build and unused cards, empty
    hands for the other seats (their unused cards play no part in the battle) and the
    RNG state `rng_state` (so chance is sampled, never known)."""
    if base is None:
        base, _ = new_game(obs.config, cards, 0)
    seats = []
    for v in obs.seats:
        mine = v.seat == obs.seat
        seats.append(SeatState(
            guild=v.guild, race_candidates=v.race_candidates,
            hand=obs.hand if mine else (),
            race=obs.race if mine else v.race,
            equipped=obs.equipped if mine else v.equipped,
            materialized=v.materialized,            # public (§5-4, RULINGS R6)
            confirmed=True, revealed=True, material=v.material,
            hp=v.hp, mana=v.mana, vp=v.vp, unluck=v.unluck, area=v.area, entered=v.entered,
            knocked_out=v.knocked_out, low=v.low, active=v.active, trait_used=v.trait_used,
            auction_used=v.auction_used))
    return evolve(
        base, rng=rng_state, phase=Phase.BATTLE, seats=tuple(seats), start_seat=obs.start_seat,
        defense_deck=(), attack_deck=(), defense_discard=obs.defense_discard,
        attack_discard=obs.attack_discard, bidding=None, reveal_seat=None, order=obs.order,
        battle=obs.battle, winners=(), end_reason=None)


# ----------------------------------------------------------------------------- the player

class HardPlayer:
    """`hard`: the normal player plus determinized look-ahead for battle decisions.

    `budget`: seconds per searched decision (None: no clock, only the `sims` cap);
    `sims`: at most this many rounds of simulations (one per candidate each);
    `horizon`: simulations stop when this many laps of turns (a lap: one turn per
    seat) have begun after the current turn's start, or at the game end;
    `searched`: the decision kinds searched (`SEARCHED`; the others are the normal
    player's choice — for measuring what the search of each kind is worth).
    """

    level = "hard"
    MARGIN = 0.01       # a candidate must beat the normal choice by this (win share) ...
    Z = 1.5             # ... and by this many standard errors of the paired difference
    DROP = 2.0          # racing: drop a candidate this many standard errors behind ...
    RACE_FROM = 8       # ... checked from this many rounds on ...
    RACE_EVERY = 4      # ... every this many rounds
    SAFETY = 0.85       # searching stops at this share of the budget (the rest: wrap-up)
    RESEED = True       # common random numbers per turn in the simulations (`_simulate`)

    def __init__(self, cards: Optional[CardSet] = None, seed: int = 0,
                 budget: Optional[float] = 0.5, sims: Optional[int] = None,
                 horizon: float = 1.0, searched: Sequence[str] = SEARCHED) -> None:
        if budget is None and sims is None:
            raise ValueError("give a time budget, a simulation cap, or both")
        self.cards = cards or default_cards()
        self.budget = budget
        self.sims = sims
        self.horizon = horizon
        unknown = set(searched) - set(SEARCHED)
        if unknown:
            raise ValueError(f"not a searched decision kind: {sorted(unknown)}")
        self.searched = tuple(searched)
        self._rng = random.Random(seed)
        self._normal = PlanningPlayer(self.cards, seed)
        self._base: dict = {}
        self.last_search: Optional[dict] = None   # figures of the last search (bench, tests)

    # ------------------------------------------------------------------------- entry
    def choose(self, obs: Observation, legal: Sequence[object]) -> object:
        return self.choose_explained(obs, legal)[0]

    def choose_explained(self, obs: Observation, legal: Sequence[object]) -> tuple[object, Reason]:
        if not legal:
            raise ValueError("no legal action to choose from")
        legal = list(legal)
        self.last_search = None
        if len(legal) == 1:
            return legal[0], R("only")
        t0 = time.perf_counter()
        # A full pass of the cyclic garbage collector (0.06-0.2 s here, with the caches of
        # a long run) would break the budget: it is paused during every decision — the
        # planned ones before the battle too (a full pass took a 40 ms draft pick or bid
        # to 0.5-0.7 s) — and the young garbage the decision made is collected within
        # the budget (the share of it that `SAFETY` leaves) before it is restored as it
        # was; the older generations are collected between decisions.
        collecting = gc.isenabled()
        gc.disable()
        try:
            prior, reason = self._normal.choose_explained(obs, legal)
            if not self._searched(obs, legal):
                return prior, reason
            base_seed = self._rng.getrandbits(64)     # exactly one number per searched decision
            deadline = None if self.budget is None else t0 + self.SAFETY * self.budget
            choice, stats = self._search(obs, legal, prior, base_seed, t0, deadline)
        finally:
            if collecting:
                gc.collect(0)
                gc.enable()
        self.last_search = stats
        if choice == prior:
            return prior, _with(reason, win=stats["win"].get(prior), sims=stats["sims"])
        self._after_choice(obs, choice)
        return choice, self._reason(obs, choice, stats)

    def _searched(self, obs: Observation, legal: Sequence[object]) -> bool:
        """A decision the look-ahead searches (it draws one number from `_rng`)."""
        return len(legal) > 1 and obs.phase == Phase.BATTLE and obs.pending.kind in self.searched

    def memory(self) -> dict:
        return self._normal.memory()

    def remember(self, obs: Observation, legal: Sequence[object], action: object,
                 memo: Optional[dict]) -> None:
        """As if this player had chosen `action` (base.Player): no search."""
        if self._searched(obs, legal):
            self._rng.getrandbits(64)
        if len(legal) > 1:
            self._normal.remember(obs, legal, action, memo)

    # ------------------------------------------------------------------------ search
    def _search(self, obs, legal, prior, base_seed, t0, deadline):
        """Sample the candidates in rounds of common random numbers; drop a candidate
        once it is clearly behind the leader; keep the normal choice unless another is
        clearly better."""
        me = obs.seat
        # StartAttack(card) / StartCounter(card) start the same attacks as the options that
        # name the range skill, in another order (RULINGS R22): not searched twice
        cands = [prior] + [a for a in legal if a != prior and not (
            isinstance(a, (A.StartAttack, A.StartCounter)) and a.skill is None)]
        key = obs.config
        if key not in self._base:
            self._base[key], _ = new_game(obs.config, self.cards, 0)
        base = self._base[key]
        players = [RolloutPlayer(self.cards, i) for i in range(len(obs.seats))]
        intended = {a: getattr(self._normal, "_intended", None) for a in cands}
        for a in cands:
            if isinstance(a, A.StartAttack):
                intended[a] = self._best_target(obs, a)[1]
            elif isinstance(a, A.StartCounter):
                intended[a] = obs.battle.countered
        n = len(obs.order)
        b = obs.battle
        horizon = b.round * n + obs.order.index(b.turn.seat) + max(1, round(self.horizon * n))
        values: list[list[float]] = [[] for _ in cands]
        active = list(range(len(cands)))
        rounds = 0
        sims = 0
        sim_times: list[float] = []
        stopped = "cap"
        while self.sims is None or rounds < self.sims:
            rs = RNG.seed_state(base_seed + rounds)
            row = []
            for i in active:
                now = time.perf_counter()
                if deadline is not None:
                    est = max(sim_times[-8:]) if sim_times else 0.0
                    if now + est > deadline:
                        break
                state = determinize(obs, self.cards, rs, base)
                v = self._simulate(state, me, cands[i], players, intended[cands[i]], horizon,
                                   deadline, base_seed + rounds)
                if v is None:
                    break
                sims += 1
                sim_times.append(time.perf_counter() - now)
                row.append(v)
            if len(row) < len(active):
                stopped = "clock"
                break
            for i, v in zip(active, row):
                values[i].append(v)
            rounds += 1
            if rounds >= self.RACE_FROM and rounds % self.RACE_EVERY == 0:
                active = self._race(values, active, rounds)
                if active == [0]:
                    stopped = "decided"
                    break
        choice = prior
        win = {cands[i]: round(sum(v) / len(v), 3) for i, v in enumerate(values) if v}
        best = 0.0
        paired = {}
        for i in active[1:] if rounds else ():
            mean, se = _paired(values[i], values[0])
            paired[cands[i]] = (round(mean, 4), round(se, 4))
            if mean > max(self.MARGIN, self.Z * se) and mean > best:
                best, choice = mean, cands[i]
        stats = {"sims": sims, "rounds": rounds, "candidates": len(cands),
                 "seconds": time.perf_counter() - t0, "stopped": stopped, "win": win,
                 "kept": len(active), "paired": paired}
        return choice, stats

    def _race(self, values, active, rounds):
        """Drop the candidates (never the normal choice, index 0) that trail the leader
        by more than `DROP` standard errors of the paired difference."""
        leader = max(active, key=lambda i: (sum(values[i]), -i))
        keep = []
        for i in active:
            if i in (0, leader):
                keep.append(i)
                continue
            mean, se = _paired(values[i], values[leader])
            if mean + self.DROP * se >= 0:
                keep.append(i)
        return keep

    def _simulate(self, state, me, action, players, intended, horizon, deadline, seed):
        """Apply `action`, play on with normal players until the horizon (a turn index)
        or the game end; the value for seat `me`, or None when the clock ran out.

        Every later turn starts from an RNG state drawn from `seed` and the turn's index
        (`RESEED`), so the candidates of one round meet the same chance in the same turn
        — the same chips from the same bag — however much of it the earlier turns used."""
        for p in players:
            p._intended = None
        players[me]._intended = intended     # the target the normal player would aim at
        state, _ = apply(state, action)
        order = state.order
        n = len(order)
        b = state.battle
        last = b.round * n + order.index(b.turn.seat) if b is not None else 0
        while state.phase != Phase.OVER:
            b = state.battle
            mark = b.round * n + order.index(b.turn.seat)
            if mark >= horizon:
                break
            if mark != last and self.RESEED:
                last = mark
                state = evolve(state, rng=RNG.seed_state(seed * 7919 + mark))
            seat = pending(state).seats[0]
            o = observe(state, seat)
            state, _ = apply(state, players[seat].choose(o, o.legal))
            if deadline is not None and time.perf_counter() > deadline:
                return None
        return self._value(state, me)

    @staticmethod
    def _value(state: GameState, me: int) -> float:
        """Win share (finished game), or the chance to win that the fitted model `VALUE`
        gives this seat from the public facts (`features`) when the horizon is reached."""
        if state.phase == Phase.OVER:
            return 1 / len(state.winners) if me in state.winners else 0.0
        w = VALUE[len(state.seats)]
        z = w[0]
        for c, f in zip(w[1:], features(state, me)):
            z += c * f
        return 1 / (1 + math.exp(-z))

    # ------------------------------------------------------------------------ explain
    def _after_choice(self, obs, choice) -> None:
        """Keep the normal player's notion of the intended target in step with a choice
        the search made."""
        if isinstance(choice, A.StartAttack):
            self._normal._intended = self._best_target(obs, choice)[1]
        elif isinstance(choice, A.StartCounter):
            self._normal._intended = obs.battle.countered

    def _best_target(self, obs, action):
        """(expected VP, target) the normal player's evaluation prefers for this attack."""
        rng_ = self.cards.skill(action.skill).effect.range
        best = (0.0, None)
        for t in range(len(obs.seats)):
            if t != obs.seat:
                v = self._normal._attack_value(obs, obs.seat, action.card, rng_, t)
                if best[1] is None or v > best[0]:
                    best = (v, t)
        return best

    def _reason(self, obs, a, stats) -> Reason:
        """A reason with an existing key (ai.explain) and the search figures added."""
        win = stats["win"].get(a)
        extra = {"win": win, "sims": stats["sims"]}
        kind = obs.pending.kind
        if isinstance(a, A.StartAttack):
            v, t = self._best_target(obs, a)
            return R("attack", card=a.card, target=t, value=round(v, 2), **extra)
        if isinstance(a, A.StartCounter):
            return R("counter", target=obs.battle.countered, **extra)
        if isinstance(a, A.Move):
            return R("move", area=step_area(obs.seats[obs.seat].area, a.step), **extra)
        if isinstance(a, A.Rest):
            return R("rest", mana=obs.seats[obs.seat].mana + 1, **extra)
        if isinstance(a, A.EndTurn):
            return R("end_turn", **extra)
        if isinstance(a, A.Activate):
            if self.cards.skill(a.skill).effect.kind == "move_then_attack":
                return R("charge", **extra)
            return R("declare", skill=a.skill, **extra)
        if isinstance(a, A.Declare):
            return R("defend" if kind == "defense" else "declare", skill=a.skill, **extra)
        if isinstance(a, A.Done):
            return R("done", **extra)
        if isinstance(a, A.ChooseTarget):
            return R("target", target=a.target, **extra)
        if isinstance(a, A.ChooseArea):
            return R("area", area=a.area, **extra)
        if isinstance(a, A.UseUnluck):
            return R("unluck_use", **extra)
        if isinstance(a, (A.Draw, A.Stop)):
            atk = obs.battle.attack
            total = sum({"1": 1, "2": 2, "crit": 2}.get(c, 0) for c in atk.drawn)
            go = stats["win"].get(A.Draw(obs.seat), 0.0)
            stop = stats["win"].get(A.Stop(obs.seat), 0.0)
            return R("draw" if isinstance(a, A.Draw) else "stop", total=total, go=go,
                     stop=stop, **extra)
        if isinstance(a, A.Decline):
            return R("unluck_keep" if kind == "unluck" else "no_counter", **extra)
        return R("fallback", **extra)


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the paired differences a - b (over b's first len(a))."""
    n = min(len(a), len(b))
    diffs = [x - y for x, y in zip(a[:n], b[:n])]
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def _with(reason: Reason, **params) -> Reason:
    merged = dict(reason.params)
    for k, v in params.items():
        merged.setdefault(k, v)
    return Reason(reason.key, tuple(sorted(merged.items())))
