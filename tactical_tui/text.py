"""Player-facing text in Japanese and English: the interface catalog and the event log.

The rules core yields typed events; this module turns them into one line each.
"""

from __future__ import annotations

import os
from typing import Callable

from rules import events as E
from rules.cards import CardSet

LANGS = ("ja", "en")


def default_lang() -> str:
    """The locale decides: ja* → Japanese, else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


UI: dict[str, dict[str, str]] = {
    "seat": {"ja": "席{n}", "en": "Seat {n}"},
    "phase.draft": {"ja": "装備ドラフト", "en": "the draft"},
    "phase.bidding": {"ja": "武器入札", "en": "weapon bidding"},
    "phase.build": {"ja": "ビルド", "en": "the build"},
    "phase.reveal": {"ja": "公開確認", "en": "the reveal check"},
    "phase.battle": {"ja": "バトル", "en": "the battle"},
    "phase.over": {"ja": "ゲーム終了", "en": "game over"},
    "to.equip": {"ja": "装備", "en": "equipped"},
    "to.materialize": {"ja": "マテリアル化", "en": "to materialize"},
    "to.unused": {"ja": "未使用", "en": "unused"},
    "unsold.tie": {"ja": "同額のため未落札", "en": "unsold (tied bids)"},
    "unsold.no_bids": {"ja": "入札なしで未落札", "en": "unsold (no bids)"},
    "none": {"ja": "なし", "en": "none"},
    "legal": {"ja": "違反なし", "en": "legal"},
    "violation.no_race": {"ja": "種族未選択", "en": "no race chosen"},
    "violation.same_name": {"ja": "同名カード", "en": "two cards of the same name"},
    "violation.part": {"ja": "同じ部位の防具", "en": "two armor cards for one part"},
    "violation.hand_slots": {"ja": "手の装備枠超過", "en": "too many hand slots"},
    "violation.material": {"ja": "マテリアル不足", "en": "not enough material"},
    "err.cards": {"ja": "カードデータを読み込めません", "en": "Cannot load the card data"},
    "err.illegal": {"ja": "その行動はできません", "en": "That action is not allowed"},
    "interrupted": {"ja": "中断しました。", "en": "Interrupted."},
    "err.seats": {"ja": "--seats には human, random, easy, normal, hard を3〜5個、カンマ区切りで指定します。",
                  "en": "--seats takes 3 to 5 of human, random, easy, normal, hard, separated by commas."},
    "err.no_tty": {"ja": "tactical は端末で起動してください（--headless で画面なしの対戦を表示）。",
                   "en": "tactical needs a terminal (use --headless to print a game without one)."},
    "headless.title": {"ja": "TACTICAL — ランダムプレイヤー{n}人の対戦 (シード {seed})",
                       "en": "TACTICAL — a game between {n} random players (seed {seed})"},
    "headless.over": {"ja": "ゲーム終了", "en": "Game over"},
    "chip.miss": {"ja": "ミス", "en": "miss"},
    "chip.crit": {"ja": "クリティカル", "en": "crit"},
    "end.stop": {"ja": "終了を選択", "en": "stopped"},
    "end.miss": {"ja": "ミス", "en": "a miss"},
    "end.zero_after_point": {"ja": "1以上の後の0", "en": "a 0 after a point"},
    "end.zero_third": {"ja": "3枚目以降の0", "en": "a 0 as 3rd or later"},
    "end.empty": {"ja": "バッグが空", "en": "the bag is empty"},
    "end.limit": {"ja": "引ける枚数に到達", "en": "no more draws allowed"},
    "vp.low": {"ja": "体力4以下", "en": "HP 4 or less"},
    "vp.knockout": {"ja": "ノックアウト", "en": "knock-out"},
    "vp.low_knockout": {"ja": "体力4以下とノックアウト", "en": "HP 4 or less and knock-out"},
    "over.vp": {"ja": "{who}の勝利（勝利点5）", "en": "{who} wins with 5 VP"},
    "over.round_limit": {"ja": "ラウンド上限で終了: {who}", "en": "Round limit reached: {who}"},
    "over.no_attacks": {"ja": "誰もアタックカードを装備していないため終了", "en": "Nobody has an attack card: the game ends"},
    "over.nobody": {"ja": "勝者なし", "en": "no winner"},
}


def ui(key: str, lang: str, **kw: object) -> str:
    return UI[key][lang].format(**kw)


class Describer:
    """Turns events into log lines in one language."""

    def __init__(self, cards: CardSet, lang: str) -> None:
        self.cards = cards
        self.lang = lang if lang in LANGS else "en"

    def seat(self, i: int) -> str:
        return ui("seat", self.lang, n=i + 1)

    def card(self, cid: str) -> str:
        return self.cards.card(cid).name.get(self.lang)

    def cards_(self, cids) -> str:
        return "、".join(self.card(c) for c in cids) if self.lang == "ja" else \
            ", ".join(self.card(c) for c in cids) or ui("none", self.lang)

    def skill(self, sid: str) -> str:
        return self.cards.skill(sid).name.get(self.lang)

    def chip(self, chip: str) -> str:
        return ui("chip." + chip, self.lang) if chip in ("miss", "crit") else chip

    def race(self, rid: str) -> str:
        return self.cards.race(rid).name.get(self.lang)

    def guild(self, gid: str) -> str:
        return self.cards.guild(gid).name.get(self.lang)

    def bid_table(self, e: E.BidsRevealed) -> list[str]:
        """The revealed bids, one line per target, highest first."""
        head = f"第{e.round}入札ラウンドの入札:" if self.lang == "ja" else f"Bids of round {e.round}:"
        out = [head]
        targets = list(dict.fromkeys(b.target for b in e.bids))
        for t in targets:
            bids = sorted((b for b in e.bids if b.target == t), key=lambda b: -b.value)
            out.append(f" {self.card(t)}: " + ("、" if self.lang == "ja" else ", ").join(
                f"{self.seat(b.seat)} {b.value}（{self.card(b.card)}）" if self.lang == "ja"
                else f"{self.seat(b.seat)} {b.value} ({self.card(b.card)})" for b in bids))
        if not targets:
            out.append(" " + ui("none", self.lang))
        return out

    def describe(self, e: E.Event) -> str:
        fn = _FORMATS.get(type(e))
        if fn is None:
            return type(e).__name__
        return fn[0 if self.lang == "ja" else 1](self, e)


def _j(items) -> str:
    return " / ".join(items)


_FORMATS: dict[type, tuple[Callable, Callable]] = {
    E.GuildsDealt: (
        lambda d, e: "ギルド: " + _j(f"{d.seat(i)} {d.guild(g)}" for i, g in enumerate(e.guilds)),
        lambda d, e: "Guilds: " + _j(f"{d.seat(i)} {d.guild(g)}" for i, g in enumerate(e.guilds))),
    E.StartSeatChosen: (
        lambda d, e: f"スタートプレイヤーは{d.seat(e.seat)}（ギルド番号{e.number}）",
        lambda d, e: f"{d.seat(e.seat)} is the start player (guild number {e.number})"),
    E.RacesDealt: (
        lambda d, e: "種族候補: " + _j(f"{d.seat(i)} {d.race(a)}・{d.race(b)}"
                                   for i, (a, b) in enumerate(e.candidates)),
        lambda d, e: "Race candidates: " + _j(f"{d.seat(i)} {d.race(a)} & {d.race(b)}"
                                             for i, (a, b) in enumerate(e.candidates))),
    E.DeckReshuffled: (
        lambda d, e: f"{'ディフェンス' if e.deck == 'defense' else 'アタック'}デッキを捨て山から作り直しました（{e.count}枚）",
        lambda d, e: f"The {e.deck} deck was rebuilt from its discard pile ({e.count} cards)"),
    E.HandDealt: (
        lambda d, e: f"{d.seat(e.seat)}の手札: {d.cards_(e.cards)}",
        lambda d, e: f"{d.seat(e.seat)}'s hand: {d.cards_(e.cards)}"),
    E.TargetsRevealed: (
        lambda d, e: f"第{e.round}入札ラウンドの入札対象: {d.cards_(e.targets)}",
        lambda d, e: f"Bid round {e.round} targets: {d.cards_(e.targets)}"),
    E.CardPicked: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}を選びました" + ("（最後の1枚）" if e.auto else ""),
        lambda d, e: f"{d.seat(e.seat)} picks {d.card(e.card)}" + (" (the last card)" if e.auto else "")),
    E.HandsPassed: (
        lambda d, e: f"手札を時計回りに渡しました（残り{e.remaining}枚）",
        lambda d, e: f"Hands pass clockwise ({e.remaining} cards left)"),
    E.DraftEnded: (lambda d, e: "装備ドラフト終了", lambda d, e: "The draft is over"),
    E.BidRoundStarted: (
        lambda d, e: f"第{e.round}入札ラウンド開始（開始プレイヤー {d.seat(e.leader)}）: {d.cards_(e.targets)}",
        lambda d, e: f"Bid round {e.round} begins, led by {d.seat(e.leader)}: {d.cards_(e.targets)}"),
    E.BidPlaced: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.target)}に伏せて入札",
        lambda d, e: f"{d.seat(e.seat)} bids face down on {d.card(e.target)}"),
    E.BidCardChosen: (
        lambda d, e: f"（{d.seat(e.seat)}の入札カード: {d.card(e.card)}）",
        lambda d, e: f"({d.seat(e.seat)}'s bid card: {d.card(e.card)})"),
    E.Passed: (
        lambda d, e: f"{d.seat(e.seat)}はパス" + ("（2回入札したため自動）" if e.auto else ""),
        lambda d, e: f"{d.seat(e.seat)} passes" + (" (automatically after 2 bids)" if e.auto else "")),
    E.BidsRevealed: (
        lambda d, e: "入札公開: " + (_j(f"{d.seat(b.seat)}→{d.card(b.target)} {d.card(b.card)}({b.value})" for b in e.bids) or "なし"),
        lambda d, e: "Bids revealed: " + (_j(f"{d.seat(b.seat)}→{d.card(b.target)} {d.card(b.card)} ({b.value})" for b in e.bids) or "none")),
    E.AuctionUsed: (
        lambda d, e: f"{d.seat(e.seat)}が《競売》: {d.card(e.target)}への入札価値を{e.value}に",
        lambda d, e: f"{d.seat(e.seat)} uses Auction: the bid on {d.card(e.target)} becomes {e.value}"),
    E.TargetWon: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.target)}を落札（入札価値{e.value}、{d.card(e.paid)}を支払い）",
        lambda d, e: f"{d.seat(e.seat)} wins {d.card(e.target)} at {e.value}, paying {d.card(e.paid)}"),
    E.TargetUnsold: (
        lambda d, e: f"{d.card(e.target)}: {ui('unsold.' + e.reason, 'ja')}",
        lambda d, e: f"{d.card(e.target)}: {ui('unsold.' + e.reason, 'en')}"),
    E.CardsReturned: (
        lambda d, e: f"{d.seat(e.seat)}の手札に戻る: {d.cards_(e.cards)}",
        lambda d, e: f"Back to {d.seat(e.seat)}'s hand: {d.cards_(e.cards)}"),
    E.Appraised: (
        lambda d, e: f"{d.seat(e.seat)}が《鑑定》で{d.card(e.target)}を獲得",
        lambda d, e: f"{d.seat(e.seat)} takes {d.card(e.target)} by Appraisal"),
    E.TargetsDiscarded: (
        lambda d, e: f"アタックデッキの捨て山へ: {d.cards_(e.targets)}",
        lambda d, e: f"To the attack discard: {d.cards_(e.targets)}"),
    E.BuildStarted: (lambda d, e: "ビルド開始", lambda d, e: "The build begins"),
    E.RaceChosen: (
        lambda d, e: f"{d.seat(e.seat)}は種族{d.race(e.race)}を選択",
        lambda d, e: f"{d.seat(e.seat)} chooses {d.race(e.race)}"),
    E.CardAssigned: (
        lambda d, e: f"{d.seat(e.seat)}: {d.card(e.card)} → {ui('to.' + e.to, 'ja')}",
        lambda d, e: f"{d.seat(e.seat)}: {d.card(e.card)} → {ui('to.' + e.to, 'en')}"),
    E.BuildConfirmed: (
        lambda d, e: f"{d.seat(e.seat)}がビルドを確定",
        lambda d, e: f"{d.seat(e.seat)} confirms the build"),
    E.BuildRevealed: (
        lambda d, e: f"{d.seat(e.seat)}のビルド: {d.race(e.race)} / 装備 {d.cards_(e.equipped)} / マテリアル化 {d.cards_(e.materialized)} — "
        + ("、".join(ui('violation.' + v, 'ja') for v in e.violations) or ui("legal", "ja")),
        lambda d, e: f"{d.seat(e.seat)}'s build: {d.race(e.race)} / equipped {d.cards_(e.equipped)} / materialized {d.cards_(e.materialized)} — "
        + (", ".join(ui('violation.' + v, 'en') for v in e.violations) or ui("legal", "en"))),
    E.CardRemoved: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}を外しました" + (f"（代わりに{d.card(e.replacement)}）" if e.replacement else ""),
        lambda d, e: f"{d.seat(e.seat)} removes {d.card(e.card)}" + (f" (replaced by {d.card(e.replacement)})" if e.replacement else "")),
    E.DieRolled: (
        lambda d, e: f"{d.seat(e.seat)}のサイコロ: {e.value}" + {"order": "（最終敏捷が同値のため処理順を決定）",
                                                              "enter": "（登場エリア）", "reenter": "（再登場エリア）"}.get(e.reason, ""),
        lambda d, e: f"{d.seat(e.seat)} rolls {e.value}" + {"order": " (tied agility: for the processing order)",
                                                           "enter": " (entry area)", "reenter": " (re-entry area)"}.get(e.reason, "")),
    E.OrderDecided: (
        lambda d, e: "処理順: " + " → ".join(d.seat(s) for s in e.order),
        lambda d, e: "Processing order: " + " → ".join(d.seat(s) for s in e.order)),
    E.BattleStarted: (
        lambda d, e: "バトル開始。処理順: " + " → ".join(d.seat(s) for s in e.order),
        lambda d, e: "The battle begins. Order: " + " → ".join(d.seat(s) for s in e.order)),
    E.Entered: (
        lambda d, e: f"{d.seat(e.seat)}がエリア{e.area}へ{'再' if e.reenter else ''}登場",
        lambda d, e: f"{d.seat(e.seat)} {'re-enters' if e.reenter else 'enters'} area {e.area}"),
    E.TurnStarted: (
        lambda d, e: f"［ラウンド{e.round}］{d.seat(e.seat)}の手番",
        lambda d, e: f"[Round {e.round}] {d.seat(e.seat)}'s turn"),
    E.TurnEnded: (lambda d, e: f"{d.seat(e.seat)}の手番終了", lambda d, e: f"{d.seat(e.seat)} ends the turn"),
    E.Moved: (
        lambda d, e: f"{d.seat(e.seat)}がエリア{e.from_area}→{e.to_area}へ移動",
        lambda d, e: f"{d.seat(e.seat)} moves from area {e.from_area} to {e.to_area}"),
    E.Rested: (
        lambda d, e: f"{d.seat(e.seat)}が休息（魔力{e.mana}）",
        lambda d, e: f"{d.seat(e.seat)} rests (mana {e.mana})"),
    E.SkillActivated: (
        lambda d, e: f"{d.seat(e.seat)}が継続スキル《{d.skill(e.skill)}》を発動",
        lambda d, e: f"{d.seat(e.seat)} activates {d.skill(e.skill)}"),
    E.SkillEnded: (
        lambda d, e: f"{d.seat(e.seat)}の《{d.skill(e.skill)}》が終了",
        lambda d, e: f"{d.seat(e.seat)}'s {d.skill(e.skill)} ends"),
    E.AttackStarted: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}《{d.skill(e.skill)}》で" + (f"{d.seat(e.target)}へカウンター" if e.counter else "アタック"),
        lambda d, e: f"{d.seat(e.seat)} " + (f"counters {d.seat(e.target)}" if e.counter else "attacks") + f" with {d.card(e.card)} ({d.skill(e.skill)})"),
    E.SkillDeclared: (
        lambda d, e: f"{d.seat(e.seat)}が《{d.skill(e.skill)}》を宣言",
        lambda d, e: f"{d.seat(e.seat)} declares {d.skill(e.skill)}"),
    E.ManaPaid: (
        lambda d, e: f"{d.seat(e.seat)}が魔力{e.amount}を消費（残り{e.mana}）",
        lambda d, e: f"{d.seat(e.seat)} pays {e.amount} mana ({e.mana} left)"),
    E.TargetChosen: (
        lambda d, e: f"ターゲット: {d.seat(e.target)}", lambda d, e: f"Target: {d.seat(e.target)}"),
    E.AreaChosen: (
        lambda d, e: f"エリア{e.area}を選択", lambda d, e: f"Area {e.area} chosen"),
    E.UnluckUsed: (
        lambda d, e: f"{d.seat(e.seat)}がアンラックを使用", lambda d, e: f"{d.seat(e.seat)} uses unluck"),
    E.BagFilled: (
        lambda d, e: "チップバッグ: " + " ".join(d.chip(c) for c in e.chips),
        lambda d, e: "Chip bag: " + " ".join(d.chip(c) for c in e.chips)),
    E.ChipDrawn: (
        lambda d, e: f"チップ: {d.chip(e.chip)}（合計{e.total}）",
        lambda d, e: f"Chip: {d.chip(e.chip)} (total {e.total})"),
    E.DrawEnded: (
        lambda d, e: f"引く処理終了: {ui('end.' + e.reason, 'ja')}、合計{e.total}",
        lambda d, e: f"Drawing ends: {ui('end.' + e.reason, 'en')}, total {e.total}"),
    E.UnluckGained: (
        lambda d, e: f"{d.seat(e.seat)}がアンラックチップを受け取る（{e.unluck}枚）",
        lambda d, e: f"{d.seat(e.seat)} takes an unluck chip ({e.unluck})"),
    E.DamageDealt: (
        lambda d, e: f"{d.seat(e.target)}に{e.amount}ダメージ（体力{e.hp}）",
        lambda d, e: f"{d.seat(e.target)} takes {e.amount} damage (HP {e.hp})"),
    E.VictoryPointsGained: (
        lambda d, e: f"{d.seat(e.seat)}が勝利点{e.amount}（{ui('vp.' + e.reason, 'ja')}、計{e.vp}）",
        lambda d, e: f"{d.seat(e.seat)} gains {e.amount} VP ({ui('vp.' + e.reason, 'en')}; {e.vp} in all)"),
    E.KnockedOut: (
        lambda d, e: f"{d.seat(e.seat)}がノックアウト", lambda d, e: f"{d.seat(e.seat)} is knocked out"),
    E.CounterDeclined: (
        lambda d, e: f"{d.seat(e.seat)}はカウンターしない", lambda d, e: f"{d.seat(e.seat)} does not counter"),
    E.GameOver: (
        lambda d, e: ui("over." + e.reason, "ja", who="、".join(d.seat(s) for s in e.winners) or ui("over.nobody", "ja")),
        lambda d, e: ui("over." + e.reason, "en", who=", ".join(d.seat(s) for s in e.winners) or ui("over.nobody", "en"))),
    E.PhaseStarted: (
        lambda d, e: f"―― {ui('phase.' + e.phase, 'ja')} ――",
        lambda d, e: f"—— {ui('phase.' + e.phase, 'en')} ——"),
}
