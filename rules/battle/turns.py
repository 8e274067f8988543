"""The course of a battle and of a turn (§6 バトルの基本的な流れ): HP and current mana at
the start (§6 魔力メーターの準備), entry and the initial turns in processing order (§6
処理順, 登場と初期手番), rounds (§6 ラウンド), a turn's actions — move, rest, activating a
continuous turn skill — and its end (§6 手番, 移動, 休息), re-entry after a knock-out
(§6 体力とノックアウト), a seat without attack cards (§6 アタックカードを装備していない場合,
RULINGS R19), whose decision it is, and the end of the game at 5 VP (§6 バトルの終了).
The legal list of the "turn" decision.

Imports `field`, `base`, `skills` and `attack` (the attacks a turn may start).
"""

from __future__ import annotations

from ..actions import Activate, EndTurn, Move, Rest
from ..chance import roll
from ..events import (BattleStarted, DieRolled, Entered, GameOver, Moved, PhaseStarted, Rested,
                      SkillActivated, SkillEnded, TurnEnded, TurnStarted)
from ..memo import Memo
from ..state import CHANGE, Active, BattleState, GameState, Phase, Turn, evolve
from .attack import starts, where
from .base import CH, Events, memo_list
from .field import MAX_HP, step_area
from .skills import (activations, cost_of, has_attack_cards, in_effect, may_attack_after_move,
                     stats_of, use_trait)

# A turn just begun, per seat: values, one object serves every state (issue 16).
_TURN = tuple(Turn(seat) for seat in range(5))
# Actions are values: one object per seat (Config: at most 5 seats) serves every list.
_MOVES = tuple((Move(seat, +1), Move(seat, -1)) for seat in range(5))
_REST, _END_TURN = (tuple(cls(seat) for seat in range(5)) for cls in (Rest, EndTurn))


def start_battle(state: GameState, events: Events) -> GameState:
    """§6 バトルの準備: HP 6, current mana = final mana; then in processing order each seat
    rolls, enters and takes its initial turn."""
    for i in range(state.players):
        mana = stats_of(state, i)["mana"]
        state = state.with_seat(i, hp=MAX_HP, mana=max(0, mana), low=False)
    events.append(BattleStarted(state.order))
    battle = BattleState(round=0, turn=Turn(state.order[0]))
    state = evolve(state, battle=battle)
    return _begin_turn(state, state.order[0], events, fresh=True)


def _begin_turn(state: GameState, seat: int, events: Events, fresh: bool = False) -> GameState:
    """Start `seat`'s turn: its continuous skills that end at its next turn's start end
    (§6 継続スキル), entry (round 0) or re-entry after a knock-out, then wait for its
    decision. With no attack card equipped: §6 アタックカードを装備していない場合 「移動、
    アタック、休息を行わず、その場に留まったまま手番を終了します」 — the turn ends by itself,
    unless a continuous turn skill (no action, RULINGS R23) can be activated, or nobody at
    the table has an attack card: then ending the turn is the seat's one decision, so a
    battle nobody can win still waits for its players instead of turning for ever inside
    `apply` (RULINGS R19)."""
    b = state.battle
    if not fresh:                   # `fresh`: the battle already holds Turn(seat)
        state = CHANGE["battle"](state, CH["turn"](b, _TURN[seat]))
    s = state.seats[seat]
    ending = tuple(a for a in s.active if a.until == "next_turn_start") if s.active else ()
    if ending:
        for a in ending:
            events.append(SkillEnded(seat, a.card, a.skill))
        state = state.with_seat(seat, active=tuple(a for a in s.active if a not in ending))
    events.append(TurnStarted(seat, b.round))
    if not s.entered or s.knocked_out:
        area, state = roll(state)
        reenter = s.knocked_out
        events.append(DieRolled(seat, area, "reenter" if reenter else "enter"))
        state = state.with_seat(
            seat, area=area, entered=True, knocked_out=False, hp=MAX_HP, low=False)
        events.append(Entered(seat, area, reenter))
    if not has_attack_cards(state, seat) and not activations(state, seat) \
            and any(has_attack_cards(state, i) for i in range(state.players)):
        return end_turn(state, "no_attack_cards", events)
    return state


def end_turn(state: GameState, reason: str, events: Events) -> GameState:
    """The turn ends: every continuous skill that lasts until the end of the turn ends —
    the turn seat's, and one a target declared in this turn (§6 継続スキル 「効果文に記載
    された終了タイミングになったら、カードを縦向きに戻してスキルを解除します」) — and the
    next seat in processing order begins. Only 5 VP ends the game (§6 「誰かが勝利点チップ
    を5枚獲得するまで、ラウンドを繰り返します」, RULINGS R19)."""
    b = state.battle
    seat = b.turn.seat
    for i, s in enumerate(state.seats):
        if not s.active:
            continue
        ending = tuple(a for a in s.active if a.until == "turn_end")
        for a in ending:
            events.append(SkillEnded(i, a.card, a.skill))
        if ending:
            state = state.with_seat(i, active=tuple(a for a in s.active if a not in ending))
    events.append(TurnEnded(seat, reason))
    idx = state.order.index(seat) + 1
    rnd = b.round
    if idx >= len(state.order):
        idx, rnd = 0, rnd + 1
    state = CHANGE["battle"](state, CH["next_turn"](b, rnd, None, _TURN[state.order[idx]]))
    return _begin_turn(state, state.order[idx], events, fresh=True)


def game_over(state: GameState, winners: tuple[int, ...], reason: str,
              events: Events) -> GameState:
    """§6 バトルの終了: a seat holds 5 VP — the one end the rulebook has."""
    events.append(GameOver(winners, reason))
    events.append(PhaseStarted(Phase.OVER))
    if state.battle is not None:   # nothing is in progress any more
        state = evolve(state, battle=evolve(state.battle, attack=None,
                                                        counter_queue=(), countered=None))
    return evolve(state, phase=Phase.OVER, winners=winners, end_reason=reason)


def pending_battle(state: GameState) -> tuple[str, tuple[int, ...]]:
    b = state.battle
    a = b.attack
    if b.counter_queue and (a is None or a.stage == "done"):
        return "counter", (b.counter_queue[0],)
    if a is None:
        return "turn", (b.turn.seat,)
    if a.stage == "defense":
        return "defense", (a.defender,)
    return a.stage, (a.attacker,)


def legal_turn(state: GameState, seat: int) -> list:
    """§6 手番: up to 2 actions — moves ≤ 2, one attack, rest alone; no attack after a move
    unless a move-then-attack skill is in effect.

    It depends on the turn so far, the seat's build, guild trait, mana and continuous
    skills in effect, and where the seats stand as far as the attack starts read it
    (`where`): memoised by those values (issue 16)."""
    t = state.battle.turn
    s = state.seats[seat]
    if s.area is None:
        return _legal_turn(state, seat)
    key = (state.cards, seat, s.race, s.equipped, s.guild, s.trait_used, s.mana, s.active,
           t.moves, t.attacked, t.rested, where(state, seat, False))
    return memo_list(_TURN_LISTS, key, _legal_turn, state, seat)


_TURN_LISTS: Memo = Memo(20_000)


def _legal_turn(state: GameState, seat: int) -> list:
    t = state.battle.turn
    s = state.seats[seat]
    out: list = []
    taken = t.actions
    if taken < 2 and not t.rested and has_attack_cards(state, seat):
        if not t.attacked and (t.moves == 0 or may_attack_after_move(state, seat)):
            out += starts(state, seat, False)
        if t.moves < 2:
            out += _MOVES[seat]
        if taken == 0:
            out.append(_REST[seat])
    out += activations(state, seat)
    out.append(_END_TURN[seat])
    return out


def apply_move(state: GameState, a: Move, events: Events) -> GameState:
    """§6 移動: one step left or right; occupied areas are fine."""
    s = state.seats[a.seat]
    to = step_area(s.area, a.step)
    events.append(Moved(a.seat, s.area, to))
    seats = list(state.seats)
    seats[a.seat] = CH["area"](s, to)
    b = state.battle
    state = CHANGE["seats_battle"](state, tuple(seats),
                                   CH["turn"](b, CH["moves"](b.turn, b.turn.moves + 1)))
    return after_action(state, events)


def apply_rest(state: GameState, a: Rest, events: Events) -> GameState:
    """§6 休息: +1 mana up to final mana, and the turn ends."""
    s = state.seats[a.seat]
    mana = min(s.mana + 1, max(0, stats_of(state, a.seat)["mana"]))
    state = state.with_seat(a.seat, mana=mana)
    events.append(Rested(a.seat, mana))
    b = state.battle
    state = CHANGE["battle"](state, CH["turn"](b, CH["rested"](b.turn, True)))
    return end_turn(state, "rest", events)


def apply_end_turn(state: GameState, a: EndTurn, events: Events) -> GameState:
    return end_turn(state, "end" if has_attack_cards(state, a.seat) else "no_attack_cards",
                    events)


def apply_activate(state: GameState, a: Activate, events: Events) -> GameState:
    """§6 継続スキル: pay, turn the card sideways until the skill's end timing."""
    sk = state.cards.skill(a.skill)
    s = state.seats[a.seat]
    paid = cost_of(state, ((a.card, a.skill),), in_effect(state, a.seat, "turn"))
    state = state.with_seat(a.seat, mana=s.mana - paid,
                            active=s.active + (Active(a.card, a.skill, sk.continuous or "turn_end"),))
    events.append(SkillActivated(a.seat, a.card, a.skill, paid))
    state = use_trait(state, a.seat, a.card, a.skill, events)
    return after_action(state, events)


def after_action(state: GameState, events: Events) -> GameState:
    """A turn with 2 actions done ends by itself — unless a continuous turn skill can still
    be activated, which the seat may do at any point of its turn (RULINGS R23)."""
    t = state.battle.turn
    if t.actions >= 2 and not activations(state, t.seat):
        return end_turn(state, "actions", events)
    return state
