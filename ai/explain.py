"""One-line reasons for AI decisions, in Japanese and English (for the battle log and
the hint key)."""

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
    "bid": ("{target}に入札価値{value}（{card}）: 自分のビルドでの価値{worth}",
            "bid {value} on {target} with {card}: worth {worth} to my build"),
    "bid_unarmed": ("{target}に入札価値{value}（{card}）: 使えるアタックカードがまだない",
                    "bid {value} on {target} with {card}: no usable attack card yet"),
    "draft_plan": ("{card}を選択: ビルド評価モデルで勝率{gain}%",
                   "pick {card}: {gain} % chance to win by the build model"),
    "bid_plan": ("{target}に入札価値{value}（{card}）: 落札すればモデル上の勝率{gain}%",
                 "bid {value} on {target} with {card}: {gain} % chance to win if won (model)"),
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
    "confirm": ("ビルド確定（評価{score}）", "confirm the build (score {score})"),
    "confirm_plan": ("ビルド確定（モデル上の勝率{win}%）", "confirm the build (model: {win} % to win)"),
    "remove": ("違反を直すため{card}を外す", "remove {card} to fix the build"),
    "attack": ("{card}で{target}をアタック: 期待勝利点{value}",
               "attack {target} with {card}: expected VP {value}"),
    "charge": ("移動後にアタックするため継続スキルを発動", "activate a charge to attack after moving"),
    "move": ("エリア{area}へ移動（好位置）", "move to area {area} (a better position)"),
    "rest": ("休息して魔力{mana}に", "rest to mana {mana}"),
    "end_turn": ("手番終了", "end the turn"),
    "declare": ("《{skill}》を宣言", "declare {skill}"),
    "done": ("宣言終了", "done"),
    "target": ("{target}をターゲットに", "target {target}"),
    "area": ("エリア{area}を選ぶ", "choose area {area}"),
    "defend": ("《{skill}》で防御", "defend with {skill}"),
    "unluck_use": ("アンラックを使う方が期待値が高い", "unluck gives the better expectation"),
    "unluck_keep": ("アンラックは温存", "keep the unluck chips"),
    "draw": ("合計{total}: 引く方が有利（{go} > {stop}）", "total {total}: drawing is better ({go} > {stop})"),
    "stop": ("合計{total}で終了（{stop} ≥ {go}）", "stop at {total} ({stop} ≥ {go})"),
    "counter": ("{target}へカウンター", "counter {target}"),
    "no_counter": ("カウンターしない", "no counter"),
}


def reason_text(reason: Reason, cards: CardSet, lang: str) -> str:
    """The reason as one line in `lang` ("ja" or "en")."""
    i = 0 if lang == "ja" else 1
    params = dict(reason.params)
    for key in ("card", "target") :
        v = params.get(key)
        if isinstance(v, str):
            params[key] = cards.card(v).name.get(lang)
    if isinstance(params.get("target"), int):
        params["target"] = ("席{}" if lang == "ja" else "Seat {}").format(params["target"] + 1)
    if "skill" in params:
        params["skill"] = cards.skill(params["skill"]).name.get(lang)
    if "race" in params:
        params["race"] = cards.race(params["race"]).name.get(lang)
    for key, prefix in (("use", "use."), ("to", "to.")):
        if key in params:
            params[key] = _T[prefix + params[key]][i]
    return _T[reason.key][i].format(**params)
