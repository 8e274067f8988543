"""Help: the quick reference and the keys of the current screen, in both languages."""

from __future__ import annotations

QUICK = {
    "ja": """クイックリファレンス

流れ: 種族2枚・ギルド1枚配布 → 装備8枚配布・入札対象2ラウンド分公開 → 装備ドラフト → 武器入札（3人: 4枚×3ラウンド／4人: 3枚×4／5人: 3枚×5）→ ビルド・公開確認 → バトル

武器入札: 装備カード1枚を伏せて入札／パス。1ラウンド2回まで、パス後は復帰不可。全員パスで同時公開。最高の単独入札者が獲得し、判定に使った1枚を捨てる。同額のプレイヤーは除外して次に高い単独入札を判定。金鷹《競売》: 同額入札があるとき1回だけ入札価値+1（最大6）。紫晶《鑑定》: 最後のラウンドで誰も入札しなかった対象を獲得。

ビルド: 防具は部位ごとに1枚／アクセサリは上限なし／手の装備枠は2（両手は2枠、魔法は0）／同名カードは1枚まで。利用可能マテリアル（マテリアル化＋ギルド）≧ 装備コスト合計（アタックカードは0）。公開確認後、最終敏捷が高い順に処理順。
能力値: 魔=魔力 腕=腕力 知=知力 器=器用 防=防御 敏=敏捷。最終能力値＝種族＋装備の補正。スキルの発動条件はこれで判定。

バトル: 体力6、現在魔力＝最終魔力。処理順にサイコロで登場し初期手番。手番は最大2アクション（移動2回まで・アタック1回まで・休息1回）。移動後はアタック不可、アタック後は移動可。休息は魔力+1で手番終了。
距離: 近距離0〜1（クリティカル1）／中距離1〜2（2）／遠距離2〜3（3）。
チップバッグ: ポイントチップ5＋ミス1＋クリティカル（クリティカルエリアなら1）＋防御スキルの0チップ（最大値）。通常3枚まで引く。3枚目以降は1以上を引く限りもう1枚。1以上の後の0、3枚目以降の0、ミス、空のバッグで終了。ミスは0ダメージでアンラックチップ+1（最大2）。アンラック2枚でミスなし・最大3枚。
勝利点: 体力6から初めて4以下にすると1、ノックアウトで2（同時なら3）。5点で勝利。
カウンター: 攻撃者が自分のクリティカルエリアにいれば可能。クリティカルチップは自動では入らない。カウンターへのカウンターはない。""",
    "en": """Quick reference

Flow: 2 race cards and 1 guild each → 8 equipment cards each, bid targets of 2 rounds shown → the draft → weapon bidding (3 players: 4 targets × 3 rounds / 4: 3 × 4 / 5: 3 × 5) → build and reveal check → battle

Bidding: put one equipment card face down on a target, or pass. At most 2 bids a round; a pass is final. When all have passed, all bids are revealed. The highest single bidder wins and discards the one card that decided it; tied players drop out and the next lower single bid is tried. Golden Hawk's Auction: once per game, +1 to a tied bid (up to 6). Amethyst's Appraisal: in the last round, take a target nobody bid on.

Build: one armor per part / accessories unlimited / 2 hand slots (two-handed takes both, magic none) / never two cards of the same name. Available material (materialized + guild) ≥ total equip cost (attack cards cost 0). After the reveal check, the processing order is by final agility, high first.
Stats: Ma = mana, St = strength, In = intelligence, Dx = dexterity, Df = defense, Ag = agility. Final stats = the race's + the equipment's bonuses; skill requirements are checked against them.

Battle: HP 6, current mana = final mana. In processing order each seat rolls, enters that area and takes its initial turn. A turn has up to 2 actions (move ≤ 2, attack ≤ 1, rest ≤ 1). No attack after a move; moving after an attack is fine. Rest: +1 mana and the turn ends.
Ranges: short 0–1 (critical at 1) / mid 1–2 (2) / long 2–3 (3).
Chip bag: the card's 5 point chips + 1 miss + a critical chip (target in the critical area) + zero chips from defense skills (the largest count). Draw up to 3; from the 3rd on, one more each time you draw 1 or more. A 0 after a chip ≥ 1, a 0 as 3rd or later, a miss, or an empty bag ends it. A miss: 0 damage and an unluck chip (max 2). With 2 unluck chips: no miss chip, at most 3 draws.
VP: 1 the first time a seat's HP drops to 4 or less from 6, 2 for a knock-out (3 at once). 5 VP wins.
Counter: possible when the attacker stands in your critical area; no automatic critical chip; a counter is never countered.""",
}

SCREEN = {
    "title": {"ja": "↑↓で選び、Enterで決定。", "en": "↑↓ to choose, Enter to select."},
    "draft": {"ja": "装備ドラフト: ↑↓でカードを選び、Enterで取得。dで詳細。全員が選ぶと手札が時計回りに渡されます。種族候補の能力値: 魔=魔力 腕=腕力 知=知力 器=器用 防=防御 敏=敏捷。",
              "en": "The draft: ↑↓ to choose a card, Enter to pick it, d for details. When everyone has picked, hands pass clockwise. The race candidates' stats: Ma = mana, St = strength, In = intelligence, Dx = dexterity, Df = defense, Ag = agility."},
    "bidding": {"ja": "武器入札: 対象をEnterで選び、入札するカードをEnterで選ぶ。Tabで切替、pでパス。",
                "en": "Bidding: Enter on a target, then Enter on the card to bid. Tab switches lists, p passes."},
    "build": {"ja": "ビルド: カードを選び e=装備 m=マテリアル化 u=未使用（Enterで装備と未使用を切替）。マテリアル化はその場で表向きに捨て山へ置かれ、戻せません（確認があります）。rで種族、cで確定。違反があると確定できません。全員が確定するまでは、wで確定を取り消して変更できます。",
              "en": "Build: choose a card, then e = equip, m = materialize, u = unused (Enter switches equipped/unused). Materializing is at once and final: the card goes face up to the discard (you are asked first). r switches race, c confirms; an illegal build cannot be confirmed. Until everyone has confirmed, w takes your confirmation back to change the build."},
    "reveal": {"ja": "公開確認: 違反があればuで外すカードを選びます。",
               "en": "Reveal check: if your build breaks a rule, press u on a card to remove it."},
    "battle": {"ja": "バトル: 行動を↑↓で選びEnter。アタックを選ぶと[n]がアタックエリア、!n!がクリティカルエリア。@があなたです。",
               "en": "Battle: ↑↓ to choose an action, Enter to take it. On an attack, [n] marks the attack area and !n! the critical area. @ is you."},
    "over": {"ja": "s=リプレイ保存 n=新しいゲーム t=タイトル l=ログ", "en": "s = save the replay, n = new game, t = title, l = log"},
}

COMMON = {
    "ja": "共通キー: ?/F1 ヘルプ  l ログ  h ヒント  H おまかせ（AIが代わりに1手）  z 戻す（何も公開・抽選されていない間だけ）  d カード詳細  f AIの間をとばす（入札とバトル、次のあなたの判断まで）  Ctrl+C 終了（ゲームは自動保存され、タイトルの「続きから」で再開できます）",
    "en": "Keys everywhere: ?/F1 help  l log  h hint  H auto (the AI makes this decision)  z undo (while nothing has been revealed or drawn since)  d card details  f skip the AI pauses up to your next decision (bidding, battle)  Ctrl+C quit (the game is saved after every action; Continue on the title screen resumes it)",
}


def help_text(lang: str, where: str | None) -> str:
    lang = lang if lang in QUICK else "en"
    screen = SCREEN.get(where or "title", SCREEN["title"])[lang]
    return f"{screen}\n{COMMON[lang]}\n\n{QUICK[lang]}"
