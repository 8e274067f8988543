"""One-line reasons for AI decisions, in Japanese and English (for the battle log and
the hint key): sentences a player reads — what the AI does and why, every figure named
(never a bare comparison such as ``1.16 ≥ 0.99``)."""

from __future__ import annotations

from rules.cards import CardSet

from .normal import Reason

_T: dict[str, tuple[str, str]] = {
    "only": ("選択肢は1つだけ", "the only choice"),
    "fallback": ("既定の行動", "default action"),
    "random": ("気まぐれな選択", "a whim"),
    "draft": ("{card}を選択（{use}向き）", "pick {card} (for {use})"),
    "use.equip": ("装備", "equipping"),
    "use.material": ("マテリアル化", "material"),
    "use.bid": ("入札", "bidding"),
    "bid": ("{card}（入札価値{value}）で{target}に入札: 落札すればビルドが強くなる（評価+{worth}）",
            "bid {card} (bid value {value}) on {target}: winning it makes the build stronger (rating +{worth})"),
    "bid_unarmed": ("{card}（入札価値{value}）で{target}に入札: 使えるアタックカードがまだないため",
                    "bid {card} (bid value {value}) on {target}: no usable attack card yet"),
    "draft_plan": ("{card}を選択: 取ると勝つ見込みが{gain}ポイント変わる（ビルドの評価モデル）",
                   "pick {card}: taking it changes the chance to win by {gain} points (the build model)"),
    "bid_plan": ("{card}（入札価値{value}）で{target}に入札: 落札すれば勝つ見込みが{gain}ポイント変わる（評価モデル）",
                 "bid {card} (bid value {value}) on {target}: winning it changes the chance to win by {gain} points (the build model)"),
    "pass_no_cards": ("入札に使えるカードがない", "no card left to bid"),
    "pass_nothing_worth": ("欲しい入札対象がない", "no target worth a card"),
    "auction": ("《競売》で{target}を落札できる", "Auction wins {target}"),
    "auction_keep": ("《競売》は温存", "keep Auction for later"),
    "pay": ("手放して惜しくない{card}で支払う", "pay with {card}, the least useful"),
    "appraise": ("《鑑定》で{target}を無料で獲得", "Appraisal takes {target} for free"),
    "race": ("種族{race}が最良のビルドになる", "{race} makes the best build"),
    "assign": ("{card}を{to}に", "{card}: {to}"),
    "to.equip": ("装備", "equip"),
    "to.materialize": ("マテリアル化", "materialize"),
    "to.unused": ("未使用", "unused"),
    # a card of which the seat holds two copies, named by where it is now (issue 32
    # point 12: with one Traveler's Boots equipped and one materialized, the hint said
    # "Traveler's Boots: unused")
    "card.copy": ("{zone}の{card}", "{card} ({zone})"),
    "zone.equip": ("装備中", "equipped"),
    "zone.materialize": ("マテリアル化済み", "materialized"),
    "zone.unused": ("未使用", "unused"),
    "confirm": ("ビルドを確定: 試したビルドの中で最も評価が高い（評価{score}）",
                "confirm the build: the best rated of the builds tried (rating {score})"),
    "confirm_plan": ("ビルドを確定: 評価モデルでは勝つ見込みが約{win}%",
                     "confirm the build: the build model gives it about a {win}\u00a0% chance to win"),
    "remove": ("違反を直すため{card}を外す", "remove {card} to fix the build"),
    "attack": ("{card}で{target}をアタック: 平均して勝利点を約{value}点得られる見込み",
               "attack {target} with {card}: on average this attack earns about {value} VP"),
    "charge": ("移動後にアタックするため継続スキルを発動", "activate a charge to attack after moving"),
    "move": ("エリア{area}へ移動（好位置）", "move to area {area} (a better position)"),
    "rest": ("休息して魔力{mana}に", "rest to mana {mana}"),
    "end_turn": ("手番終了", "end the turn"),
    "declare": ("《{skill}》を宣言", "declare {skill}"),
    "done": ("宣言終了", "done"),
    "target": ("{target}をターゲットに", "target {target}"),
    "area": ("エリア{area}を選ぶ", "choose area {area}"),
    "defend": ("《{skill}》で防御", "defend with {skill}"),
    "unluck_use": ("アンラックを使う: ミスチップなしで引く方が平均して多くのダメージになる",
                   "use unluck: drawing with no miss chip deals more damage on average"),
    "unluck_keep": ("アンラックは温存", "keep the unluck chips"),
    # the normal player's expectations are victory points, a point of damage adding a
    # little (ai.normal `_utility`): said so (issue 32 point 14: "expected 0.51 if
    # drawing, 0.08 if stopping" had no unit)
    "draw": ("合計{total}: もう1枚引く方が、ここで止めるより平均して得になる（見込みの勝利点、ダメージも少し加味: 引く{go}・止める{stop}）",
             "total {total}: another chip is worth more on average than stopping here (expected VP, damage adding a little: {go} if drawing, {stop} if stopping)"),
    "stop": ("合計{total}で止める: もう1枚引くと、得るものより失う危険の方が大きい（見込みの勝利点、ダメージも少し加味: 止める{stop}・引く{go}）",
             "stop at {total}: another chip risks more than it adds (expected VP, damage adding a little: {stop} if stopping, {go} if drawing)"),
    "draw_search": ("合計{total}: もう1枚引く方が勝ちやすい（試行では 引くと勝率{go}%、止めると{stop}%）",
                    "total {total}: drawing on wins more often (in the playouts {go}\u00a0% when drawing, {stop}\u00a0% when stopping)"),
    "stop_search": ("合計{total}で止める: 止める方が勝ちやすい（試行では 止めると勝率{stop}%、引くと{go}%）",
                    "stop at {total}: stopping wins more often (in the playouts {stop}\u00a0% when stopping, {go}\u00a0% when drawing)"),
    "search": ("（{sims}回の試行で勝率約{win}%）", " (about {win}\u00a0% wins over {sims} playouts)"),
    "counter": ("{target}へカウンター", "counter {target}"),
    "no_counter": ("カウンターしない", "no counter"),
}


def reason_text(reason: Reason, cards: CardSet, lang: str, obs=None) -> str:
    """The reason as one line in `lang` ("ja" or "en"). `obs`: the observation of the seat
    the reason is for (a hint): a card of its build of which it holds another copy is
    named with where it is — "Traveler's Boots (equipped)"."""
    i = 0 if lang == "ja" else 1
    params = dict(reason.params)
    for key in ("card", "target") :
        v = params.get(key)
        if isinstance(v, str):
            params[key] = cards.card(v).name.get(lang)
            zone = _zone_of_copy(v, cards, obs) if key == "card" else None
            if zone is not None:
                params[key] = _T["card.copy"][i].format(card=params[key], zone=_T["zone." + zone][i])
    if isinstance(params.get("target"), int):
        params["target"] = ("席{}" if lang == "ja" else "Seat {}").format(params["target"] + 1)
    if "skill" in params:
        params["skill"] = cards.skill(params["skill"]).name.get(lang)
    if "race" in params:
        params["race"] = cards.race(params["race"]).name.get(lang)
    for key, prefix in (("use", "use."), ("to", "to.")):
        if key in params:
            params[key] = _T[prefix + params[key]][i]
    key = reason.key
    win, sims = params.get("win"), params.get("sims")
    searched = isinstance(win, (int, float)) and isinstance(sims, int) and sims > 0
    chosen = params.get("go" if key == "draw" else "stop")
    if searched and key in ("draw", "stop") and chosen == win:
        # the hard player's own figures (ai.hard `_reason`: go and stop are its chances to
        # win, the chosen one is `win`), not the normal player's expectations it agreed
        # with: say them as percentages
        params["go"], params["stop"] = (_percent(params.get("go")), _percent(params.get("stop")))
        return _T[key + "_search"][i].format(**params)
    text = _T[key][i].format(**params)
    if searched:
        text += _T["search"][i].format(win=_percent(win), sims=sims)
    return text


def _zone_of_copy(cid: str, cards: CardSet, obs) -> str | None:
    """Where card `cid` is in the build of `obs`'s seat (equip, materialize, unused) when
    the seat holds another card of the same name elsewhere, else None."""
    if obs is None or getattr(obs, "equipped", None) is None:
        return None
    equipped, materialized = tuple(obs.equipped or ()), tuple(obs.materialized or ())
    zone = lambda c: "equip" if c in equipped else "materialize" if c in materialized else "unused"
    mine = set(obs.hand or ()) | set(obs.picks or ()) | set(equipped) | set(materialized)
    name = cards.card(cid).name
    if any(c != cid and cards.card(c).name == name and zone(c) != zone(cid) for c in mine):
        return zone(cid)
    return None


def _percent(p: object) -> object:
    return round(100 * p) if isinstance(p, (int, float)) else p
