"""Rules text of cards and skills, generated from the effect data in both languages, so
what a card says and what the rules do cannot drift apart."""

from __future__ import annotations

from rules.battle import RANGE_AREA, RANGE_CRIT
from rules.cards import AttackCard, CardSet, DefenseCard, Effect, Requirements, Skill, Stats, Trait

STAT_NAMES = {
    "ja": {"mana": "魔力", "str": "腕力", "int": "知力", "dex": "器用", "def": "防御", "agi": "敏捷"},
    "en": {"mana": "Mana", "str": "Str", "int": "Int", "dex": "Dex", "def": "Def", "agi": "Agi"},
}
STAT_SHORT = {
    "ja": {"mana": "魔", "str": "腕", "int": "知", "dex": "器", "def": "防", "agi": "敏"},
    "en": {"mana": "Ma", "str": "St", "int": "In", "dex": "Dx", "def": "Df", "agi": "Ag"},
}
# The stats as the game's screens write them, one spelling each (issue 32 point 11: the
# lists said Dx, a card's details Dex): in English the two-letter forms of STAT_SHORT
# everywhere on screen, explained in the help and How to play; in Japanese the names
# (魔力 腕力 …), whose first kanji are the short forms of the lists.
STAT_WORDS = {"ja": STAT_NAMES["ja"], "en": STAT_SHORT["en"]}
RANGE_NAMES = {"ja": {"short": "近距離", "mid": "中距離", "long": "遠距離"},
               "en": {"short": "Short", "mid": "Mid", "long": "Long"}}
TIMING = {
    "ja": {"attack": "アタック時", "counter": "カウンター時", "any": "アタック・カウンター時",
           "defend": "被攻撃時", "countered": "被カウンター時", "turn": "自分の手番（継続）"},
    "en": {"attack": "On attack", "counter": "On counter", "any": "On attack or counter",
           "defend": "When attacked", "countered": "When countered",
           "turn": "In your turn (continuous)"},
}
CONTINUOUS = {
    "ja": {"turn_end": "継続: その手番の終了まで", "next_turn_start": "継続: 次の自分の手番の開始まで"},
    "en": {"turn_end": "continuous: until the end of the turn",
           "next_turn_start": "continuous: until your next turn"},
}
TYPE_NAMES = {
    "ja": {"armor": "防具", "shield": "盾", "accessory": "アクセサリ", "weapon": "武器", "magic": "魔法"},
    "en": {"armor": "Armor", "shield": "Shield", "accessory": "Accessory", "weapon": "Weapon",
           "magic": "Magic"},
}
PART_NAMES = {"ja": {"head": "頭", "body": "胴", "arms": "腕", "legs": "脚"},
              "en": {"head": "head", "body": "body", "arms": "arms", "legs": "legs"}}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def effect_text(e: Effect, timing: str, lang: str) -> str:
    """What the effect does, in one sentence."""
    ja = lang == "ja"
    k = e.kind
    if k == "range":
        lo, hi = RANGE_AREA[e.range]
        c = RANGE_CRIT[e.range]
        return (f"アタックエリア 距離{lo}〜{hi}、クリティカルエリア 距離{c}。" if ja else
                f"attack area at distance {lo}–{hi}, critical area at distance {c}.")
    if k == "add_zero_chips":
        return (f"攻撃者のチップバッグへ0チップを{e.count}枚加える（複数のターゲットなら最大値だけ）。" if ja else
                f"Add {_plural(e.count, 'zero chip')} to the attacker's bag (with several targets only the largest count).")
    if k == "add_crit_chips":
        if timing == "counter":
            return (f"カウンター用チップバッグへクリティカルチップを{e.count}枚入れる。" if ja else
                    f"Put {_plural(e.count, 'critical chip')} into the counter bag.")
        if timing == "attack":
            return (f"クリティカル発生時、クリティカルチップを{e.count}枚追加する。" if ja else
                    f"When a critical occurs, add {_plural(e.count, 'more critical chip')}.")
        return (f"アタックではクリティカル発生時にクリティカルチップを{e.count}枚追加し、カウンターではカウンター用チップバッグへ{e.count}枚入れる。"
                if ja else
                f"In an attack, add {_plural(e.count, 'more critical chip')} when a critical occurs; in a counter, put {e.count} into the counter bag.")
    if k == "crit_value":
        if timing in ("defend", "countered"):
            return (f"このターゲットに対して、引いたクリティカルチップを{e.value}として数える。" if ja else
                    f"Against this target a drawn critical chip counts {e.value}.")
        return (f"引いたクリティカルチップを{e.value}として数える。" if ja else
                f"A drawn critical chip counts {e.value}.")
    if k == "extra_targets":
        return (f"アタックエリアからターゲットを{e.count}人まで追加で選べる（同じプレイヤーを重ねて選んでもよい）。" if ja else
                f"Choose up to {_plural(e.count, 'more target')} in the attack area (the same seat may be chosen again).")
    if k == "multi_area":
        return (f"アタックエリアから{e.count}エリアまで選び、そこにいる攻撃者以外の全員をターゲットにする。" if ja else
                f"Choose up to {_plural(e.count, 'area')} of the attack area; every other seat there is a target.")
    if k == "damage_reduction":
        return (f"このターゲットが受けるダメージを{e.amount}減らす（0未満にならない）。" if ja else
                f"This target takes {e.amount} less damage (never below 0).")
    if k == "mana_reduction":
        return (f"同じ処理で宣言するほかのスキルの消費魔力をそれぞれ{e.amount}減らす（下限0）。" if ja else
                f"The other skills declared with it each cost {e.amount} less mana (never below 0).")
    if k == "move_then_attack":
        return ("この手番の終了まで、移動後もアタックできる（アクション数は変わらない）。" if ja else
                "Until the end of this turn you may attack after moving (the number of actions does not change).")
    if k == "fixed_draws":
        return (f"バトルチップを{e.count}枚まで選択なしで引き、追加で引かない（ミスなどの自動終了は通常どおり）。" if ja else
                f"Draw up to {_plural(e.count, 'battle chip')} with no choice and no drawing on (automatic ends still apply).")
    if k == "counter_block":
        if e.targets == "crit":
            return ("このアタックでクリティカルが発生したターゲットはカウンターできない。" if ja else
                    "The targets of this attack for whom a critical occurs cannot counter.")
        if e.targets == "not_crit":
            return ("このアタックでクリティカルが発生しなかったターゲットはカウンターできない。" if ja else
                    "The targets of this attack for whom no critical occurs cannot counter.")
        return ("このアタックのターゲットはカウンターできない。" if ja else
                "The targets of this attack cannot counter.")
    if k == "cause_crit":
        if e.value is None:
            return ("このアタックのすべてのターゲットにクリティカルが発生する。" if ja else
                    "A critical occurs for every target of this attack.")
        return (f"距離{e.value}のターゲットにもクリティカルが発生する。" if ja else
                f"A critical also occurs for targets at distance {e.value}.")
    raise ValueError(f"no text for effect kind {k!r}")


def requires_text(req: Requirements, lang: str) -> str:
    """§2 スキルの発動条件: exactly the stats the skill lists (a listed 0 too); none listed
    is no requirement."""
    parts = [f"{STAT_WORDS[lang][k]}{v}" if lang == "ja" else f"{STAT_WORDS[lang][k]} {v}"
             for k, v in req.items()]
    if not parts:
        return "条件なし" if lang == "ja" else "no requirement"
    return "・".join(parts) if lang == "ja" else ", ".join(parts)


def mods_text(mods: Stats, lang: str) -> str:
    return " ".join(f"{STAT_WORDS[lang][k]}{v:+d}" for k, v in mods.items() if v)


def skill_text(cards: CardSet, sk: Skill, lang: str) -> str:
    """《Name》 (family) — requirements / mana / timing [/ exclusive]: effect."""
    fam = cards.family(sk.family).name.get(lang)
    head = [requires_text(sk.requires, lang),
            (f"魔力{sk.mana}" if lang == "ja" else f"mana {sk.mana}"),
            TIMING[lang][sk.timing]]
    if sk.continuous:                   # §6 継続スキル: in effect until its end timing
        head.append(CONTINUOUS[lang][sk.continuous])
    if sk.exclusive:
        head.append("併用不可" if lang == "ja" else "exclusive")
    if sk.combines:
        head.append("同系統のスキルと併用可" if lang == "ja" else "combines with its family")
    name = sk.name.get(lang)
    title = f"《{name}》（{fam}）" if lang == "ja" else f"{name} ({fam})"
    sep = "／" if lang == "ja" else " / "
    return f"{title} {sep.join(head)}: {effect_text(sk.effect, sk.timing, lang)}"


def battle_trait_text(cards: CardSet, trait: Trait, lang: str) -> str:
    """A guild's battle trait (§4 「各バトル中1回」 = once per game, RULINGS R2): the count,
    then its skill as a card's skill reads (`skill_text`)."""
    once = "各バトル中1回（ゲーム中1回）" if lang == "ja" else "Once per battle (once per game)"
    return f"{once}: {skill_text(cards, trait.skill, lang)}"


def card_summary(cards: CardSet, card: DefenseCard | AttackCard, lang: str) -> str:
    """A one-line description of the card's kind and numbers."""
    kind = TYPE_NAMES[lang][card.type]
    bits = [kind]
    if card.type == "armor":
        bits.append(PART_NAMES[lang][card.part])
    if card.hands:
        bits.append((f"{'両手' if card.hands == 2 else '片手'}") if lang == "ja"
                    else ("two-handed" if card.hands == 2 else "one-handed"))
    if isinstance(card, DefenseCard):
        bits.append(f"コスト{card.cost} 入札価値{card.bid} マテリアル{card.material}" if lang == "ja"
                    else f"cost {card.cost}, bid {card.bid}, material {card.material}")
    else:
        bits.append(("チップ " if lang == "ja" else "chips ") + " ".join(str(c) for c in card.chips))
    if card.mods.nonzero():
        bits.append(mods_text(card.mods, lang))
    if getattr(card, "counter_distances", ()):
        ds = "・".join(str(d) for d in card.counter_distances) if lang == "ja" else \
            ", ".join(str(d) for d in card.counter_distances)
        bits.append(f"カウンターは距離{ds}から" if lang == "ja" else f"counters from distance {ds}")
    if card.series:
        s = next(x for x in cards.series if x.id == card.series)
        bits.append((f"シリーズ: {s.name.ja}" if lang == "ja" else f"series: {s.name.en}"))
    return (" ／ " if lang == "ja" else " / ").join(bits)
