"""Player-facing text in Japanese and English: the interface catalog and the event log.

The rules core yields typed events; this module turns them into one line each.
"""

from __future__ import annotations

import errno
from typing import Callable, Mapping

from rules import events as E
from rules.cards import CardSet
from rules.files import cap_text
from rules.files import size_text as rules_size_text

from tactical_tui.text.langs import LANGS, default_lang  # noqa: F401 - re-exported (langs.py)


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
    "err.seed": {"ja": "--seed には0から{limit}までの整数を指定します。",
                 "en": "--seed takes a whole number from 0 to {limit}."},
    "err.range": {"ja": "{option} には{lo}から{hi}までの数を指定します（{given} は範囲外）。",
                  "en": "{option} takes a number from {lo} to {hi} (not {given})."},
    "err.sim_cards": {"ja": "tactical {command} は同梱のカードデータで対戦します。--cards は使えません。",
                      "en": "tactical {command} plays the shipped card data; --cards cannot be used with it."},
    "err.no_tty": {"ja": "tactical は端末で起動してください（--headless で画面なしの対戦を表示）。",
                   "en": "tactical needs a terminal (use --headless to print a game without one)."},
    "headless.title": {"ja": "TACTICAL — ランダムプレイヤー{n}人の対戦 (シード {seed})",
                       "en": "TACTICAL — a game between {n} random players (seed {seed})"},
    "headless.over": {"ja": "ゲーム終了", "en": "Game over"},
    "headless.unfinished": {"ja": "{rounds}ラウンドを過ぎても勝利点5に届かないため、未決着のまま打ち切りました（勝者なし）",
                            "en": "Given up unfinished: nobody reached 5 VP in {rounds} rounds (no winner)"},
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
    "over.vp": {"ja": "{who}の勝利（勝利点5以上に到達）", "en": "{who} wins: 5 VP or more reached"},
    "over.agreement": {"ja": "合意により終了（勝者なし）", "en": "Ended by agreement (no winner)"},
    "over.nobody": {"ja": "勝者なし", "en": "no winner"},
}


NBSP = "\u00a0"          # a space no line breaks at (i18n.line_spans)


def plural(n: int, word: str) -> str:
    """An English count: "1 card", "2 cards"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ui(key: str, lang: str, **kw: object) -> str:
    return UI[key][lang].format(**kw)


class Describer:
    """Turns events into log lines in one language."""

    def __init__(self, cards: CardSet, lang: str,
                 names: Callable[[], Mapping[int, str]] | None = None) -> None:
        self.cards = cards
        self.lang = lang if lang in LANGS else "en"
        # seat -> its player's name, asked when a line is described (views.shared_names:
        # at a server's table, the names it shares with every seat)
        self.names = names
        # the attack being described (events come in order): who attacks, whether it is a
        # counter, how often each target was chosen, and the chip total
        self._attack: dict = {}

    def _follow(self, e: E.Event) -> None:
        if isinstance(e, E.AttackStarted):
            self._attack = {"seat": e.seat, "counter": e.counter, "total": None,
                            "times": {e.target: 1} if e.counter and e.target is not None else {},
                            "skills": [], "crit": False}
        elif isinstance(e, E.SkillDeclared) and self._attack:
            self._attack["skills"].append((e.seat, e.skill))
        elif isinstance(e, E.ChipDrawn) and self._attack.get("seat") == e.seat:
            self._attack["crit"] = self._attack["crit"] or e.chip == "crit"
        elif isinstance(e, E.TargetChosen) and self._attack.get("seat") == e.seat:
            times = self._attack["times"]
            times[e.target] = times.get(e.target, 0) + 1
        elif isinstance(e, E.DrawEnded) and self._attack.get("seat") == e.seat:
            self._attack["total"] = e.total

    def chosen(self, e: E.TargetChosen) -> int:
        """How often this attack has chosen `e.target` so far (1 for the first time)."""
        if self._attack.get("seat") != e.seat:
            return 1
        return self._attack["times"].get(e.target, 1)

    def bag(self, seat: int) -> str:
        """Whose chip bag: "Seat 2's attack bag" / "席2のカウンター用チップバッグ"."""
        counter = self._attack.get("seat") == seat and self._attack.get("counter")
        if self.lang == "ja":
            return f"{self.seat(seat)}の{'カウンター' if counter else 'アタック'}用チップバッグ"
        return f"{self.seat(seat)}'s {'counter' if counter else 'attack'} bag"

    def damage_note(self, e: E.DamageDealt) -> str:
        """Why the damage differs from the chip total, when it does (§6 バトルチップとダメージ:
        a seat chosen twice takes the damage twice — "2 × 1 = 2"; skills and a critical
        outside the critical area change a target's damage), else ""."""
        atk = self._attack
        if atk.get("seat") != e.seat:
            return ""
        times = atk["times"].get(e.target, 1)
        total = atk.get("total")
        per = e.amount // times if times else e.amount
        ja = self.lang == "ja"
        bits = []
        if total is not None and per != total:
            why = self._why(e.seat, e.target)
            bits.append((f"チップ合計{total}、{why}のためこのターゲットには{per}" if why else
                         f"チップ合計{total}、このターゲットには{per}") if ja else
                        f"chips total {total}, {per} against this target" + (f": {why}" if why else ""))
        if times > 1:
            bits.append(f"{times}回選ばれたので{times} × {per} = {e.amount}" if ja
                        else f"chosen {times} times: {times} × {per} = {e.amount}")
        return ("、".join(bits) + "、") if ja and bits else ("; ".join(bits) + "; ") if bits else ""

    def _why(self, attacker: int, target: int) -> str:
        """What made a target's damage differ from the chip total (§6 ダメージ): the skills
        declared in this attack by the attacker or that target that change a crit chip's
        value or reduce the damage, else a crit chip outside the critical area (RULINGS
        R14: it counts 0)."""
        ja = self.lang == "ja"
        out = []
        for seat, sid in self._attack.get("skills", ()):
            if seat not in (attacker, target):
                continue
            sk = self.cards.skill(sid)
            name = f"《{sk.name.ja}》" if ja else sk.name.en
            if sk.effect.kind == "crit_value" and self._attack.get("crit"):
                out.append(f"{name}でクリティカル{sk.effect.value}" if ja
                           else f"{name}'s crit counts {sk.effect.value}")
            elif sk.effect.kind == "damage_reduction" and seat == target:
                out.append(f"{name}で-{sk.effect.amount}" if ja else f"{name} -{sk.effect.amount}")
        if not out and self._attack.get("crit") and not self._attack.get("counter"):
            out.append("クリティカルエリア外のクリティカルは0" if ja
                       else "a crit outside the critical area counts 0")
        return "、".join(out) if ja else ", ".join(out)

    def seat(self, i: int) -> str:
        """"Seat 3", or "Seat 3 carol" when the table shares seat 3's name (`names`), as
        the phase screens name it."""
        who = self.names().get(i) if self.names is not None else None
        return ui("seat", self.lang, n=i + 1) + (" " + who if who else "")

    def card(self, cid: str) -> str:
        return self.cards.card(cid).name.get(self.lang)

    def cards_(self, cids) -> str:
        """The cards' names, or "none" / 「なし」 (the reveal check said 「マテリアル化  —」)."""
        sep = "、" if self.lang == "ja" else ", "
        return sep.join(self.card(c) for c in cids) or ui("none", self.lang)

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
            # one bid ("Seat 3 4 (Ruby Ring)") is never split across lines: a break
            # between the seat and its value read as another seat's bid ("席3 / 3（…）")
            out.append(f" {self.card(t)}: " + ("、" if self.lang == "ja" else ", ").join(
                (f"{self.seat(b.seat)} {b.value}（{self.card(b.card)}）" if self.lang == "ja"
                 else f"{self.seat(b.seat)} {b.value} ({self.card(b.card)})").replace(" ", NBSP)
                for b in bids))
        if not targets:
            out.append(" " + ui("none", self.lang))
        return out

    def describe(self, e: E.Event) -> str:
        """`e` as a log line; "" for an event that says nothing (0 mana paid)."""
        self._follow(e)
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
        lambda d, e: f"The {e.deck} deck was rebuilt from its discard pile ({plural(e.count, 'card')})"),
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
        lambda d, e: f"Hands pass clockwise ({plural(e.remaining, 'card')} left)"),
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
    E.CardMaterialized: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}をマテリアル化（表向きで捨て山へ）",
        lambda d, e: f"{d.seat(e.seat)} materializes {d.card(e.card)} (face up to the discard)"),
    E.BuildConfirmed: (
        lambda d, e: f"{d.seat(e.seat)}がビルドを確定" if e.confirmed else f"{d.seat(e.seat)}がビルドの確定を取り消しました",
        lambda d, e: f"{d.seat(e.seat)} confirms the build" if e.confirmed else f"{d.seat(e.seat)} takes back the confirmation"),
    E.BuildRevealed: (
        lambda d, e: f"{d.seat(e.seat)}のビルド: {d.race(e.race)} / 装備 {d.cards_(e.equipped)} / マテリアル化 {d.cards_(e.materialized)} — "
        + ("、".join(ui('violation.' + v, 'ja') for v in e.violations) or ui("legal", "ja")),
        lambda d, e: f"{d.seat(e.seat)}'s build: {d.race(e.race)} / equipped {d.cards_(e.equipped)} / materialized {d.cards_(e.materialized)} — "
        + (", ".join(ui('violation.' + v, 'en') for v in e.violations) or ui("legal", "en"))),
    E.CardRemoved: (
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}を{d.card(e.replacement)}と入れ替えました（{d.card(e.card)}は未使用へ）" if e.replacement
        else f"{d.seat(e.seat)}が{d.card(e.card)}を外しました",
        lambda d, e: f"{d.seat(e.seat)} swaps {d.card(e.card)} for {d.card(e.replacement)} ({d.card(e.card)} is unused now)" if e.replacement
        else f"{d.seat(e.seat)} removes {d.card(e.card)}"),
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
        lambda d, e: (f"［ラウンド{e.round}］" if e.round else "［初期手番］") + f"{d.seat(e.seat)}の手番",
        lambda d, e: (f"[Round {e.round}] " if e.round else "[Initial turn] ") + f"{d.seat(e.seat)}'s turn"),
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
        lambda d, e: f"{d.seat(e.seat)}が{d.card(e.card)}" + (f"《{d.skill(e.skill)}》" if e.skill else "") + "で" + (f"{d.seat(e.target)}へカウンター" if e.counter else "アタック"),
        lambda d, e: f"{d.seat(e.seat)} " + (f"counters {d.seat(e.target)}" if e.counter else "attacks") + f" with {d.card(e.card)}" + (f" ({d.skill(e.skill)})" if e.skill else "")),
    E.SkillDeclared: (
        lambda d, e: f"{d.seat(e.seat)}が《{d.skill(e.skill)}》を宣言",
        lambda d, e: f"{d.seat(e.seat)} declares {d.skill(e.skill)}"),
    E.TraitUsed: (
        lambda d, e: f"{d.seat(e.seat)}がギルド特性《{d.skill(e.skill)}》（{d.guild(e.guild)}）を使用（ゲーム中1回: 使用済み）",
        lambda d, e: f"{d.seat(e.seat)} uses the guild trait {d.skill(e.skill)} of {d.guild(e.guild)} (once per game: now used)"),
    E.ManaPaid: (          # nothing paid (no skill, or one reduced to 0): no line
        lambda d, e: f"{d.seat(e.seat)}が魔力{e.amount}を消費（残り{e.mana}）" if e.amount else "",
        lambda d, e: f"{d.seat(e.seat)} pays {e.amount} mana ({e.mana} left)" if e.amount else ""),
    E.TargetChosen: (
        lambda d, e: f"ターゲット: {d.seat(e.target)}" + (f"（{d.chosen(e)}回目）" if d.chosen(e) > 1 else ""),
        lambda d, e: f"Target: {d.seat(e.target)}" + (f" (chosen {d.chosen(e)} times)" if d.chosen(e) > 1 else "")),
    E.AreaChosen: (
        lambda d, e: f"エリア{e.area}を選択", lambda d, e: f"Area {e.area} chosen"),
    E.UnluckUsed: (
        lambda d, e: f"{d.seat(e.seat)}がアンラックを使用", lambda d, e: f"{d.seat(e.seat)} uses unluck"),
    E.BagFilled: (
        lambda d, e: f"{d.bag(e.seat)}: " + " ".join(d.chip(c) for c in e.chips),
        lambda d, e: f"{d.bag(e.seat)[:1].upper()}{d.bag(e.seat)[1:]}: " + " ".join(d.chip(c) for c in e.chips)),
    E.ChipDrawn: (
        lambda d, e: f"チップ: {d.chip(e.chip)}（合計{e.total}）",
        lambda d, e: f"Chip: {d.chip(e.chip)} (total {e.total})"),
    E.DrawEnded: (
        lambda d, e: f"引く処理終了: {ui('end.' + e.reason, 'ja')}、合計{e.total}",
        lambda d, e: f"Drawing ends: {ui('end.' + e.reason, 'en')}, total {e.total}"),
    E.UnluckGained: (
        lambda d, e: f"{d.seat(e.seat)}がアンラックチップを受け取る（計{e.unluck}枚）",
        lambda d, e: f"{d.seat(e.seat)} takes an unluck chip ({e.unluck} in all)"),
    E.DamageDealt: (
        lambda d, e: f"{d.seat(e.target)}に{e.amount}ダメージ（{d.damage_note(e)}体力{e.hp}）",
        lambda d, e: f"{d.seat(e.target)} takes {e.amount} damage ({d.damage_note(e)}HP {e.hp})"),
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


# Refusals (rules.actions.REFUSALS): "illegal.<code>" says why an action is refused, from
# the refusal's params as `refusal_text` shows them in the player's language.
REFUSAL_UI: dict[str, dict[str, str]] = {
    "illegal.no_such_seat": {"ja": "{seat}はありません（{players}人のゲーム）",
                             "en": "There is no {seat} in a {players}-player game"},
    "illegal.game_over": {"ja": "ゲームは終了しています", "en": "The game is over"},
    "illegal.not_your_turn": {"ja": "{seat}は今は行動できません（{waiting}の{decision}を待っています）",
                              "en": "{seat} cannot act now: waiting for {waiting} ({decision})"},
    "illegal.wrong_action": {"ja": "今は{action}はできません（{decision}の最中です）",
                             "en": "{action} is not possible during the {decision}"},
    "illegal.illegal": {"ja": "今は{action}はできません", "en": "{action} is not possible now"},
    "illegal.not_a_target": {"ja": "{bid_target}はこの入札ラウンドの入札対象ではありません",
                             "en": "{bid_target} is not a target of this bid round"},
    "illegal.card_not_in_hand": {"ja": "{card}は{seat}の手札にありません",
                                 "en": "{card} is not in {seat}'s hand"},
    "illegal.attack_card_bid": {"ja": "入札価値があるのはディフェンスカードだけです（アタックカードは入札に使えません）",
                                "en": "Only defense cards have a bid value; attack cards cannot be bid"},
    "illegal.card_not_owned": {"ja": "{card}は{seat}のカードではありません",
                               "en": "{card} is not one of {seat}'s cards"},
    "illegal.no_change": {"ja": "{card}はすでに{to}です", "en": "{card} is already {to}"},
    "illegal.attack_card_material": {"ja": "アタックカードには獲得マテリアルがないため、マテリアル化できません",
                                     "en": "Attack cards have no material and cannot be materialized"},
    "illegal.no_race": {"ja": "確定の前に種族候補から1つを選んでください",
                        "en": "Choose one of your two race candidates before confirming"},
    "illegal.bad_card": {"ja": "今は{card}を{action}に選べません",
                         "en": "{card} cannot be chosen for {action} now"},
    "illegal.bad_target": {"ja": "{bid_target}はこのラウンドで誰も入札しなかった入札対象ではありません",
                           "en": "{bid_target} is not a target nobody bid on this round"},
    "illegal.bad_race": {"ja": "{race}は{seat}の種族候補ではありません",
                         "en": "{race} is not one of {seat}'s race candidates"},
    "illegal.build_confirmed": {"ja": "{seat}はビルドを確定済みです。変更するには確定を取り消してください",
                                "en": "{seat} has confirmed the build: take the confirmation back to change it"},
    "illegal.not_confirmed": {"ja": "{seat}はまだビルドを確定していません（取り消す確定がありません）",
                              "en": "{seat} has not confirmed the build (there is nothing to take back)"},
    "illegal.builds_final": {"ja": "全員が確定を宣言した後は、公開確認中を含め、ビルドを変更できません",
                             "en": "Every seat has confirmed: no build can change now, the reveal included"},
    "illegal.swap_not_in_violation": {"ja": "{card}はルール違反が見つかったカードではありません（入れ替えられるのは違反したカードだけです）",
                                      "en": "{card} is not found in violation: only a card that breaks a build rule can be swapped"},
    # actions built by hand (scenarios, saves, code): a field of the wrong type
    "illegal.not_an_action": {"ja": "{got}はアクションではありません", "en": "{got} is not an action"},
    "illegal.bad_field": {"ja": "{action}の{field}は{kind}でなければなりません（{got}が渡されました）",
                          "en": "{action}: {field} must be {kind}, not {got}"},
    "illegal.number_out_of_range": {"ja": "{action}の{field}が範囲外です（-2**63から2**63-1までの整数。この値は{bits}ビット）",
                                    "en": "{action}: {field} is out of range (a whole number from -2**63 to 2**63-1; this one has {bits} bits)"},
    "illegal.bad_zone": {"ja": "{action}の{field}は装備・マテリアル化・未使用のどれかです",
                         "en": "{action}: {field} must be equip, materialize or unused"},
    # §6 手番 / 移動 / 休息 / 継続スキル
    "illegal.no_actions_left": {"ja": "この手番のアクション2回を使い切りました（移動は2回まで、アタックは1回まで）",
                                "en": "Both actions of this turn are used (at most 2 moves and 1 attack)"},
    "illegal.already_attacked": {"ja": "アタックは1手番に1回です（この手番ではアタック済み）",
                                 "en": "One attack a turn, and this turn has had its attack"},
    "illegal.attack_after_move": {"ja": "移動した手番にはアタックできません（移動後もアタックできるスキルの発動中を除く）",
                                  "en": "No attack after a move in the same turn (unless a move-then-attack skill is active)"},
    "illegal.bad_step": {"ja": "移動は隣のエリアへ1つだけです（+1か-1。{step}ではありません）",
                         "en": "A move is one step to an adjacent area (+1 or -1, not {step})"},
    "illegal.rest_after_action": {"ja": "移動やアタックの後には休息できません（休息はその手番の唯一のアクションです）",
                                  "en": "No rest after a move or an attack: a rest is the turn's only action"},
    "illegal.same_family_in_effect": {"ja": "同じ系統（{family}）の継続スキル《{other_skill}》が発動中です（同じ系統は1つだけ）",
                                      "en": "{other_skill}, a continuous skill of the same family ({family}), is in effect (one per family)"},
    "illegal.no_attack_card_no_actions": {"ja": "アタックカードを装備していないため、手番を終了することしかできません",
                                          "en": "With no attack card equipped you can only end your turn"},
    "illegal.materialized_final": {"ja": "{card}はマテリアル化済みです（表向きで捨て山にあり、戻せません）",
                                   "en": "{card} was materialized: it lies face up in the discard and cannot come back"},
    "illegal.skill_already_active": {"ja": "《{skill}》はすでに発動中です", "en": "{skill} is already active"},
    # §6 アタック 1–3 / 魔力を消費するスキル / カウンター
    "illegal.card_not_equipped": {"ja": "{seat}は{card}を装備していません",
                                  "en": "{seat} has not equipped {card}"},
    "illegal.not_attack_card": {"ja": "{card}はアタックカードではありません",
                                "en": "{card} is not an attack card"},
    "illegal.skill_not_on_card": {"ja": "{card}にはスキル《{skill}》がありません",
                                  "en": "{card} has no skill {skill}"},
    "illegal.not_range_skill": {"ja": "《{skill}》は距離スキルではありません（アタックとカウンターはカードの距離スキルを1つ選んで始めます）",
                                "en": "{skill} is not a range skill: an attack or counter begins with a range skill of the card"},
    "illegal.one_range_skill": {"ja": "《{skill}》は距離スキルです（距離はカードを選ぶときに1つだけ選びます）",
                                "en": "{skill} is a range skill: the one range was chosen with the card"},
    "illegal.series_inactive": {"ja": "{card}のスキルは{series}シリーズのカードを2枚以上装備したときだけ使えます（装備{have}枚）",
                                "en": "{card}'s skills work only with 2 or more {series} series cards equipped ({have} equipped)"},
    "illegal.requirements_not_met": {"ja": "《{skill}》の発動条件は{requires}です（最終能力値 {have}）",
                                     "en": "{skill} requires {requires} (final stats: {have})"},
    "illegal.wrong_timing": {"ja": "《{skill}》は{timing}のスキルです（今は{now}）",
                             "en": "{skill} is used {timing}, not {now}"},
    "illegal.not_enough_mana": {"ja": "魔力が足りません（《{skill}》を使うと支払う魔力は{cost}、現在魔力は{mana}）",
                                "en": "Not enough mana: with {skill} the mana to pay is {cost}, the current mana {mana}"},
    "illegal.already_declared": {"ja": "《{skill}》はすでに宣言しています", "en": "{skill} is already declared"},
    "illegal.trait_used": {"ja": "ギルド特性《{skill}》はゲーム中1回だけ使えます（{seat}は使用済み）",
                           "en": "The guild trait {skill} is usable once per game, and {seat} has used it"},
    "illegal.trait_not_own": {"ja": "{card}は{seat}のギルドではありません（ギルド特性はそのギルドのプレイヤーだけが使えます）",
                              "en": "{card} is not {seat}'s guild (a guild trait is used by its own guild's player)"},
    "illegal.same_family": {"ja": "《{skill}》は宣言済みの《{other_skill}》と同じ{family}系統です（同じ系統は1回の処理で1つ）",
                            "en": "{skill} is of the {family} family, like the declared {other_skill} (one skill per family)"},
    "illegal.exclusive": {"ja": "《{skill}》と《{other_skill}》は同時に使えません（併用不可）",
                          "en": "{skill} and {other_skill} cannot be combined (exclusive)"},
    "illegal.targeting_in_counter": {"ja": "《{skill}》はターゲットを選ぶスキルです（カウンターのターゲットは攻撃者だけ）",
                                     "en": "{skill} chooses targets, and a counter's only target is the attacker"},
    "illegal.skills_closed": {"ja": "攻撃者のスキル宣言は終わっています（ターゲットを選ぶ前に宣言します）",
                              "en": "The attacker's skills are declared before the targets are chosen"},
    "illegal.other_attack_card": {"ja": "《{skill}》は別のアタックカード{card}のスキルです（アタックとカウンターでは、使うカード自身とディフェンスカードのスキルだけを使えます）",
                                  "en": "{skill} is printed on {card}, another attack card: an attack or counter uses the skills of its own card (and of defense cards)"},
    "illegal.range_skill_needed": {"ja": "先に{card}の距離スキルを1つ宣言してください",
                                   "en": "Declare one range skill of {card} first"},
    "illegal.declared_not_payable": {"ja": "宣言したスキルの支払う魔力は{cost}です（魔力軽減の後、現在魔力は{mana}）",
                                     "en": "The declared skills cost {cost} mana after reductions; the current mana is {mana}"},
    # §6 アタック 4 / ターゲットの選択 / 複数スキル
    "illegal.no_target_in_range": {"ja": "《{skill}》の{range}のアタックエリアに、ターゲットにできるプレイヤーがいません",
                                   "en": "Nobody can be targeted in the {range} attack area of {skill}"},
    "illegal.target_self": {"ja": "自分自身はターゲットに選べません", "en": "You cannot target yourself"},
    "illegal.target_not_on_field": {"ja": "{target}はフィールドにいません", "en": "{target} is not on the field"},
    "illegal.target_knocked_out": {"ja": "{target}はノックアウト中のため、ターゲットに選べません",
                                   "en": "{target} is knocked out and cannot be targeted"},
    "illegal.target_not_in_area": {"ja": "{target}は距離{distance}にいて、{range}のアタックエリア（距離{lo}〜{hi}）の外です",
                                   "en": "{target} is at distance {distance}, outside the {range} attack area (distance {lo}–{hi})"},
    "illegal.areas_not_targets": {"ja": "このアタックではプレイヤーではなくエリアを選びます",
                                  "en": "This attack chooses areas, not players"},
    "illegal.targets_not_areas": {"ja": "このアタックではエリアではなくプレイヤーを選びます",
                                  "en": "This attack chooses players, not areas"},
    "illegal.area_not_in_range": {"ja": "エリア{area}は{range}のアタックエリア（距離{lo}〜{hi}）の外です",
                                  "en": "Area {area} is outside the {range} attack area (distance {lo}–{hi})"},
    "illegal.area_already_chosen": {"ja": "エリア{area}はすでに選んでいます", "en": "Area {area} is already chosen"},
    "illegal.area_no_target": {"ja": "最後のエリアにはターゲットが必要ですが、エリア{area}には誰もいません",
                               "en": "The last area must hold a target, and nobody is in area {area}"},
    "illegal.no_target_chosen": {"ja": "先にターゲットを1人以上選んでください",
                                 "en": "Choose at least one target first"},
    # §6 アンラック / バトルチップを引く枚数 / カウンター
    "illegal.unluck_not_enough": {"ja": "アンラックにはアンラックチップが2枚必要です（{seat}は{have}枚）",
                                  "en": "Unluck needs 2 unluck chips ({seat} has {have})"},
    "illegal.unluck_not_now": {"ja": "アンラックは自分のアタックかカウンターでチップを引く直前にだけ使えます",
                               "en": "Unluck is used only just before your own attack or counter draws chips"},
    "illegal.not_attacker": {"ja": "チップを引くのは攻撃者（{attacker}）だけです",
                             "en": "Only the attacker ({attacker}) draws chips"},
    "illegal.no_draw_now": {"ja": "今はチップを引く場面ではありません", "en": "No chips are being drawn now"},
    "illegal.counter_not_in_crit": {"ja": "攻撃者（{target}）は距離{distance}にいて、《{skill}》のクリティカルエリア（距離{crit}）の外なのでカウンターできません",
                                    "en": "The attacker ({target}) is at distance {distance}, outside the critical area of {skill} (distance {crit}): no counter"},
    # what the params name
    "decision.draft_pick": {"ja": "装備ドラフトの選択", "en": "draft"},
    "decision.bid": {"ja": "入札", "en": "bidding"},
    "decision.auction": {"ja": "《競売》の選択", "en": "Auction choice"},
    "decision.payment": {"ja": "支払うカードの選択", "en": "payment choice"},
    "decision.appraisal": {"ja": "《鑑定》の選択", "en": "Appraisal choice"},
    "decision.build": {"ja": "ビルド", "en": "build"},
    "decision.reveal_fix": {"ja": "公開確認の修正", "en": "reveal check"},
    "decision.turn": {"ja": "手番の行動", "en": "turn's actions"},
    "decision.skills": {"ja": "スキル宣言", "en": "skill declaration"},
    "decision.targets": {"ja": "ターゲットの選択", "en": "target choice"},
    "decision.defense": {"ja": "防御スキルの宣言", "en": "defense declaration"},
    "decision.unluck": {"ja": "アンラックの選択", "en": "unluck choice"},
    "decision.draw": {"ja": "チップを引くかの選択", "en": "chip drawing"},
    "decision.counter": {"ja": "カウンターの選択", "en": "counter choice"},
    "decision.over": {"ja": "ゲーム終了", "en": "game's end"},
    "action.Pick": {"ja": "カードの選択", "en": "Pick"},
    "action.PlaceBid": {"ja": "入札", "en": "Bid"},
    "action.Pass": {"ja": "パス", "en": "Pass"},
    "action.UseAuction": {"ja": "《競売》", "en": "Auction"},
    "action.Pay": {"ja": "支払い", "en": "Pay"},
    "action.Appraise": {"ja": "《鑑定》", "en": "Appraisal"},
    "action.Decline": {"ja": "見送り", "en": "Decline"},
    "action.ChooseRace": {"ja": "種族の選択", "en": "Choose race"},
    "action.Assign": {"ja": "カードの配置", "en": "Assign a card"},
    "action.Confirm": {"ja": "ビルドの確定", "en": "Confirm"},
    "action.Unconfirm": {"ja": "確定の取り消し", "en": "Unconfirm"},
    "action.Remove": {"ja": "カードを外す", "en": "Remove a card"},
    "action.Swap": {"ja": "カードの入れ替え", "en": "Swap"},
    "action.Move": {"ja": "移動", "en": "Move"},
    "action.Rest": {"ja": "休息", "en": "Rest"},
    "action.EndTurn": {"ja": "手番終了", "en": "End turn"},
    "action.Activate": {"ja": "継続スキルの発動", "en": "Activate"},
    "action.StartAttack": {"ja": "アタック", "en": "Attack"},
    "action.StartCounter": {"ja": "カウンター", "en": "Counter"},
    "action.Declare": {"ja": "スキル宣言", "en": "Declare a skill"},
    "action.Done": {"ja": "宣言・選択の終了", "en": "Done"},
    "action.ChooseTarget": {"ja": "ターゲットの選択", "en": "Choose target"},
    "action.ChooseArea": {"ja": "エリアの選択", "en": "Choose area"},
    "action.UseUnluck": {"ja": "アンラック", "en": "Unluck"},
    "action.Draw": {"ja": "チップを引く", "en": "Draw"},
    "action.Stop": {"ja": "ここで止める", "en": "Stop"},
}
UI.update(REFUSAL_UI)

_TIMING_PHRASE = {
    "ja": {"attack": "アタック時", "counter": "カウンター時", "any": "アタック時・カウンター時",
           "defend": "被攻撃時", "countered": "被カウンター時", "turn": "自分の手番（継続スキル）"},
    "en": {"attack": "on attack", "counter": "on counter", "any": "on attack or counter",
           "defend": "when attacked", "countered": "when countered", "turn": "in your own turn"},
}
_KIND = {"ja": {"int": "整数（int）", "str": "文字列（str）"},
         "en": {"int": "a whole number (int)", "str": "text (str)"}}
_ZONE = {"ja": {"equip": "装備", "materialize": "マテリアル化", "unused": "未使用"},
         "en": {"equip": "equipped", "materialize": "materialized", "unused": "unused"}}
from tactical_tui.text.cardtext import STAT_WORDS as _STAT   # one spelling on screen (issue 32 point 11)
_RANGE = {"ja": {"short": "近距離", "mid": "中距離", "long": "遠距離"},
          "en": {"short": "short-range", "mid": "mid-range", "long": "long-range"}}


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "?"


# Operating-system errors met when reading or writing files (saves, replays), by errno, in
# the player's language; any other error shows the system's own (English) text.
_OS_ERRORS: dict[int, tuple[str, str]] = {
    code: pair for name, pair in {
        "EACCES": ("アクセスが許可されていません", "permission denied"),
        "EPERM": ("アクセスが許可されていません", "permission denied"),
        "ENOSPC": ("ディスクの空き容量がありません", "no space left on the disk"),
        "EDQUOT": ("ディスク使用量の上限に達しています", "disk quota exceeded"),
        "EROFS": ("読み取り専用のファイルシステムです", "read-only file system"),
        "ENOENT": ("ファイルまたはフォルダがありません", "no such file or folder"),
        "ENOTDIR": ("パスの途中がフォルダではありません", "a part of the path is not a folder"),
        "EISDIR": ("ファイルではなくフォルダです", "it is a folder, not a file"),
        "ENAMETOOLONG": ("名前が長すぎます", "the name is too long"),
        "EIO": ("読み書きに失敗しました（入出力エラー）", "input/output error"),
    }.items() if (code := getattr(errno, name, None)) is not None
}


def os_error_text(exc: BaseException, lang: str) -> str:
    """An OSError's cause in `lang` (the system's own text for an errno not listed)."""
    pair = _OS_ERRORS.get(getattr(exc, "errno", None))  # type: ignore[arg-type]
    if pair is not None:
        return pair[0 if lang == "ja" else 1]
    return getattr(exc, "strerror", None) or str(exc)


# The kinds of file that are not regular files (rules.files.KINDS), as a message names them.
_FILE_KINDS = {"directory": ("フォルダ", "a folder"), "fifo": ("名前付きパイプ", "a named pipe"),
               "device": ("デバイス", "a device"), "socket": ("ソケット", "a socket"),
               "other": ("特殊なファイル", "a special file")}


def file_kind_text(kind: str, lang: str) -> str:
    pair = _FILE_KINDS.get(kind, _FILE_KINDS["other"])
    return pair[0 if lang == "ja" else 1]


def size_text(size: int, lang: str) -> str:
    """A byte count: ``52,428,800 bytes (50.0 MB)`` / ``52,428,800バイト（50.0 MB）``."""
    if lang != "ja":
        return rules_size_text(size)
    if size < 1024 * 1024:
        return f"{size:,}バイト"
    return f"{size:,}バイト（{size / (1024 * 1024):.1f} MB）"


_CARD_PROBLEMS_JA = {
    "unreadable": "カードデータを読めません（{detail}）",
    "not_regular": "通常のファイルではなく{kind}です",
    "too_large": "カードデータが大きすぎます: {size}。最大{cap}です",
    "not_utf8": "UTF-8のテキストではありません（{byte}バイト目）",
    "huge_number": "{digits}桁を超える数があります",
    "empty": "カードデータがありません",
}
_SHORT_JA = {
    "guilds": "{n}人のゲームにはギルドが{need}枚必要です（1人1枚）",
    "races": "{n}人のゲームには種族が{need}枚必要です（1人2枚）",
    "draft": "{n}人の装備ドラフトにはディフェンスカードが{need}枚必要です（1人8枚、同じカードの複数枚も数えます）",
    "targets": "{n}人の武器入札の入札対象にはアタックカードが{need}枚必要です（1ラウンド{per}枚×{rounds}ラウンド）",
}


def card_error_text(exc: BaseException, lang: str) -> str:
    """A CardDataError as the player reads it: the file problems and the shortages of card
    data that cannot make a game (rules.cards.Shortage) in Japanese too; a problem in the
    data's schema (code ``invalid``) in the loader's English, which names the file, card
    and field."""
    code, params = getattr(exc, "code", "invalid"), dict(getattr(exc, "params", {}))
    if lang != "ja" or code not in _CARD_PROBLEMS_JA and code != "short":
        return str(exc)
    source = getattr(exc, "source", "")
    if code == "short":
        from rules.state import BID_ROUNDS
        parts = []
        for sh in params["shortages"]:
            per, rounds = BID_ROUNDS[sh.players]
            where = ("初期セット（星マークのないカード）" if sh.first_game and sh.what in ("draft", "targets")
                     else "カードデータ")
            parts.append(_SHORT_JA[sh.what].format(n=sh.players, need=sh.need, per=per, rounds=rounds)
                         + f"。{where}には{sh.have}枚です（{sh.short}枚不足）")
        return f"{source}: ゲームを始められません: " + "。".join(parts)
    if "os_error" in params:
        params["detail"] = os_error_text(params["os_error"], lang)
    if "kind" in params:
        params["kind"] = file_kind_text(params["kind"], lang)
    if "size" in params:
        params["size"] = size_text(params["size"], lang)
    if "cap" in params:
        params["cap"] = cap_text(params["cap"]).replace(" bytes", "バイト")
    return f"{source}: " + _CARD_PROBLEMS_JA[code].format(**params)


def refusal_params(cards: CardSet, params: Mapping[str, object], lang: str) -> dict[str, object]:
    """The params of a refusal (rules.actions.REFUSALS) as a player reads them in `lang`:
    card, skill, family, series and race names; seats from 1; stats, timings, ranges,
    decisions and actions in words. An id the card set does not know stays as it is."""
    lang = lang if lang in LANGS else "en"
    sep = "、" if lang == "ja" else ", "

    def named(kind: str, value: object) -> object:
        try:
            return getattr(cards, kind)(value).name.get(lang)
        except (KeyError, AttributeError, TypeError):
            return value

    def seat(value: object) -> object:
        return ui("seat", lang, n=value + 1) if isinstance(value, int) else value

    out: dict[str, object] = {}
    for key, value in params.items():
        if key in ("card", "bid_target"):
            value = named("card", value)
        elif key in ("skill", "other_skill"):
            value = named("skill", value)
        elif key in ("family", "race"):
            value = named(key, value)
        elif key == "series":
            value = next((s.name.get(lang) for s in cards.series if s.id == value), value)
        elif key in ("seat", "target", "attacker"):
            value = seat(value)
        elif key == "waiting":
            value = sep.join(str(seat(x)) for x in value) or ui("none", lang)  # type: ignore[attr-defined]
        elif key in ("requires", "have") and isinstance(value, Mapping):
            value = ("・" if lang == "ja" else ", ").join(
                f"{_STAT[lang].get(k, k)}{v}" if lang == "ja" else f"{_STAT[lang].get(k, k)} {v}"
                for k, v in value.items())
        elif key in ("timing", "now"):
            value = _TIMING_PHRASE[lang].get(value, value)  # type: ignore[arg-type]
        elif key == "range":
            value = _RANGE[lang].get(value, value)  # type: ignore[arg-type]
        elif key == "to":
            value = _ZONE[lang].get(value, value)  # type: ignore[arg-type]
        elif key == "decision":
            value = UI.get(f"decision.{value}", {}).get(lang, value)
        elif key == "action":
            value = UI.get(f"action.{value}", {}).get(lang, value)
        elif key == "allowed":
            value = sep.join(str(UI.get(f"action.{a}", {}).get(lang, a)) for a in value)  # type: ignore[attr-defined]
        elif key == "kind":
            value = _KIND[lang].get(value, value)  # type: ignore[arg-type]
        elif key == "step" and isinstance(value, int):
            value = f"{value:+d}"
        out[key] = value
    return out


def refusal_text(cards: CardSet, code: str, params: Mapping[str, object], lang: str) -> str:
    """Why an action was refused, in `lang` (rules.engine.refusal / IllegalAction: code and
    params). A code without a translation falls back to the generic one."""
    lang = lang if lang in LANGS else "en"
    table = UI.get(f"illegal.{code}") or UI["illegal.illegal"]
    return table[lang].format_map(_Missing(refusal_params(cards, params, lang)))
