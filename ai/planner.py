"""The hard player's decisions before the battle: the draft (§5-2), the bids (§5-3) and
the build (§5-4), planned with the learned build value (`ai.buildvalue`).

The normal player values cards with hand-set weights (`ai.evaluate`). The planner asks
one question instead: *how much does this change my chance to win with the best build I
could make?* `_best(owned)` searches the legal builds of the owned cards (the normal
player's build search, `best_build`, scored by the model's logit) for the seat's race
candidates, and `_win(owned)` is that build's modelled chance to win.

- **Draft**: a card is worth the gain in `_win` it brings, averaged over the weapons the
  seat might fight with (its attack cards, or while it has none, each visible bid target
  in turn), plus a small share (`BID_WEIGHT`) of its bid value (`draft_value`'s "bid"
  term) — the model knows nothing of bidding.
- **Bids**: a target is worth the gain in `_win` if won, counted at `CONTESTED` per
  other seat's face-down bid on it (up to two: §5-3, equal top bids all drop out, so
  seats chasing one target often all lose it — without this, four planners at one table
  left 13 % of their seats unarmed). The planner bids on the best target once its gain
  reaches `LOW`, with a card of value 5 when another seat has bid on it too or the gain
  reaches `HIGH` (else 3), and as payment the card whose loss costs the build least. A
  second bid of 3 hedges a contested target, as the normal player does.
- **Build**: the best build by the model.

Battle decisions, payments, 《競売》 and 《鑑定》 stay the normal player's. The model is
the one fitted for the game's player count (`ai.buildvalue.weights_for`).
"""

from __future__ import annotations

import math
from typing import Optional

from rules import actions as A

from .buildvalue import build_logit
from .evaluate import best_build, draft_value
from .normal import NormalPlayer, R


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


class PlanningPlayer(NormalPlayer):
    """The normal player with draft, bids and build planned by the build value model."""

    LOW = 0.02          # bid when winning the target adds this much chance to win ...
    HIGH = 0.06         # ... and with a 5 from this much (or when the target is contested)
    BID_WEIGHT = 0.02   # draft: chance to win per unit of `draft_value`'s bid term
    CONTESTED = 0.6     # bids: a target's gain counts this much per rival bid on it (≤ 2)

    def _best(self, obs, owned: tuple[str, ...], bonus: Optional[int] = None):
        """(logit, race, equipped, materialized) of the best build of `owned` by the
        model, for the seat's race candidates, on `bonus` material besides (default: the
        guild's); memoised."""
        me = self._me(obs)
        players = obs.config.players
        if bonus is None:
            bonus = self.cards.guild(me.guild).material_bonus
        key = ("model", players, tuple(sorted(owned)), me.race_candidates, bonus)
        out = self._build_cache.get(key)
        if out is None:
            if len(self._build_cache) > 5000:
                self._build_cache.clear()
            out = self._build_cache[key] = best_build(
                self.cards, me.race_candidates, key[2], bonus,
                lambda cards, race, equipped: build_logit(cards, race, equipped, players=players))
        return out

    def _win(self, obs, owned: tuple[str, ...]) -> float:
        return _sigmoid(self._best(obs, owned)[0])

    # ----------------------------------------------------------------------- draft
    def _draft_pick(self, obs, legal):
        """§5-2: the card whose pick raises the modelled chance to win most."""
        races = self._races(obs)
        targets = tuple(obs.targets) + tuple(obs.upcoming)
        mine = tuple(obs.picks)
        bids_held = sum(1 for c in mine if self.cards.card(c).bid >= 4)
        weapons = [c for c in mine if self.cards.card(c).is_attack] or list(targets) or [None]
        defense = tuple(c for c in mine if not self.cards.card(c).is_attack)

        def chance(extra: tuple[str, ...]) -> float:
            return sum(self._win(obs, defense + extra + ((w,) if w else ()))
                       for w in weapons) / len(weapons)

        base = chance(())
        best = None
        for a in legal:
            card = self.cards.card(a.card)
            bid = draft_value(self.cards, card, races, len(targets))["bid"]
            gain = chance((a.card,)) - base
            score = gain + self.BID_WEIGHT * bid * (0.5 if bids_held >= 3 else 1.0)
            if best is None or score > best[0]:
                best = (score, a, gain)
        return best[1], R("draft_plan", card=best[1].card, gain=_pct(best[2]))

    # ----------------------------------------------------------------------- bidding
    def _bid(self, obs, legal):
        """§5-3: bid on the target whose win raises the modelled chance to win most."""
        me = self._me(obs)
        placed = list(me.face_down_bids)
        passing = next(a for a in legal if isinstance(a, A.Pass))
        bid_cards = list(dict.fromkeys(a.card for a in legal if isinstance(a, A.PlaceBid)))
        if not bid_cards:
            return passing, R("pass_no_cards")
        hand = tuple(obs.hand)
        now = self._win(obs, hand)
        rivals = {t: sum(1 for s in obs.seats if s.seat != obs.seat for x in s.face_down_bids
                         if x == t) for t in obs.targets}
        gains = {t: self._win(obs, hand + (t,)) - now for t in obs.targets}
        def expected(t: str) -> float:
            # equal top bids all drop out (§5-3): a target other seats already bid on is
            # worth less, the more of them there are
            return gains[t] * self.CONTESTED ** min(rivals[t], 2)

        for t in sorted(obs.targets, key=lambda t: (-expected(t), t)):
            gain = gains[t]
            if gain < self.LOW:
                break
            if t in placed and not (rivals[t] and len(placed) == 1 and gain >= self.HIGH):
                continue
            want = 3 if t in placed else 5 if (rivals[t] or gain >= self.HIGH) else 3
            with_t = self._win(obs, hand + (t,))

            def loss(c: str) -> float:
                return with_t - self._win(obs, tuple(x for x in hand if x != c) + (t,))

            fits = [c for c in bid_cards if self.cards.card(c).bid >= want]
            if fits:
                card = min(fits, key=lambda c: (loss(c), self.cards.card(c).bid, c))
            else:
                card = max(bid_cards, key=lambda c: (self.cards.card(c).bid, -loss(c), c))
            return A.PlaceBid(obs.seat, t, card), R("bid_plan", target=t, card=card,
                                                    value=self.cards.card(card).bid,
                                                    gain=_pct(gain))
        return passing, R("pass_nothing_worth")

    # ----------------------------------------------------------------------- build
    def _plan(self, obs):
        """§5-4: the best build by the model of the cards the seat can still place, on the
        material of its guild and of the cards it has materialized (final, R6)."""
        return self._best(obs, tuple(obs.hand + obs.equipped), self._fixed_material(obs))

    def _build(self, obs, legal):
        action, reason = super()._build(obs, legal)
        if reason.key == "confirm":
            reason = R("confirm_plan", win=round(100 * _sigmoid(self._plan(obs)[0])))
        return action, reason


def _pct(p: float) -> str:
    return f"{100 * p:+.1f}"
