"""How to play: one page per phase, in Japanese and English, true to the rulebook
(/work/shared/rules/rulebook.ja.txt §1 ゲームの目的, §2 ディフェンスカードの3つの使い道,
§5-1 配布, §5-2 装備ドラフト, §5-3 武器入札, §5-4 ビルド, §6 バトル) and the quick
reference. Reached from the title menu, from the help dialog (`p`) and from the command
palette.

The pages are laid out by hand for 80×24: every line is at most `WIDTH` cells and a page
has at most `HEIGHT` lines (tests/test_howto.py checks both), so nothing is wrapped or cut.
The guild page is built from the card data of the game being played (or the loaded card
set, or the shipped cards.toml), when it is shown; this module imports nothing from
`rules` at import time, so the title screen stays light. Every text goes through
`safe.as_text` (card data is never markup).

`HelpScreen` is the help dialog with the `p` key to this screen.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tactical_tui.text.i18n import t
from tactical_tui.text.safe import as_text, plain
from tactical_tui.widgets.base import Guarded, TextScreen

WIDTH = 76          # cells of a page line (80 columns, the body's padding of 2)
HEIGHT = 21         # lines of a page (24 rows: top bar, page, Footer, a spare row)

TITLES = {
    "goal": {"ja": "ゲームの目的と流れ", "en": "The goal and the flow"},
    "draft": {"ja": "装備ドラフト", "en": "The draft"},
    "bidding": {"ja": "武器入札", "en": "Weapon bidding"},
    "build": {"ja": "ビルド", "en": "The build"},
    "battle": {"ja": "バトル: フィールドと手番", "en": "Battle: the field and a turn"},
    "chips": {"ja": "バトル: チップ・カウンター・勝利点", "en": "Battle: chips, counters, VP"},
    "guilds": {"ja": "ギルド特性", "en": "Guild traits"},
    "keys": {"ja": "キーと設定", "en": "Keys and settings"},
    "levels": {"ja": "AIのレベルと運", "en": "The AI levels, and luck"},
}

PAGES = {
    "goal": {
        "ja": """\
ゲームの目的
  勝利点チップを先に5枚獲得したプレイヤーが勝ちます。勝利点はバトルで
  得ます。相手の体力が6に設定されたあと初めて体力4以下にすると1枚、
  相手をノックアウトさせると2枚（1回の攻撃で両方なら3枚）。

ゲームの流れ
  1. 配布: 種族カード2枚（候補、公開）とギルドカード1枚（公開）。
     ギルド番号が最も小さいプレイヤーがスタートプレイヤーです。
  2. 装備ドラフト: 8枚の手札から1枚ずつ取り、残りを時計回りに渡します。
  3. 武器入札: 装備カードの入札価値で、アタックカード（武器・魔法）を
     伏せて競ります。お金は使いません。
  4. ビルド: 種族を1枚選び、装備するカードとマテリアル化するカードを
     決めます。全員が確定したら公開確認です。
  5. バトル: 6つのエリアで戦います。誰かが勝利点5枚で終了です。

初めて遊ぶときは、星マークのない初期セットのカードだけで遊びます
（タイトルのクイックゲーム、または新しいゲームの「初めてのゲーム」）。""",
        "en": """\
The goal
  The first player to gain 5 victory points (VP) wins. VP come from the
  battle: 1 VP the first time you bring a seat to 4 HP or less after its HP
  was set to 6, 2 VP for a knock-out (3 VP when one attack does both).

How a game goes
  1. The deal: 2 race cards (your candidates, face up) and 1 guild card
     (face up). The lowest guild number in play is the start player.
  2. The draft: take 1 card from a hand of 8, pass the rest clockwise.
  3. Weapon bidding: bid face down on attack cards (weapons and magic) with
     the bid values of your equipment cards. No money is used.
  4. The build: pick 1 race; choose the cards to equip and the cards to
     materialize. When everyone has confirmed, the builds are revealed.
  5. The battle: fight over 6 areas until someone has 5 VP.

A first game uses only the initial set (the cards without a star): the quick
game on the title screen, or "First game" when you set up a new game.""",
    },
    "draft": {
        "ja": """\
装備ドラフト
  全員に装備カード（防具・盾・アクセサリ）が8枚ずつ配られます。第1・第2
  入札ラウンドの入札対象（アタックカード）は、ドラフトの前から公開です。
  手札から1枚を選んで伏せ、全員が選んだら残りを時計回りに渡します。
  8枚取るまで繰り返します。取ったカードは公開確認まで秘密です。

取ったカードの3つの使い道（ドラフト中に決める必要はありません）
  1. 装備: ビルドで装備して、能力値補正とスキルを得ます。
     装備コスト（コ）がかかります。
  2. マテリアル: ビルドでマテリアル化すると、獲得マテリアル（マ）が
     装備コストの予算になります。マテリアル化したカードは装備できません。
  3. 入札: 入札価値（入、1〜5）で武器入札に使います。落札の支払いに
     使われなかったカードは手札に戻り、あとで装備・マテリアル化できます。

選ぶ順の目安（ルールではありません）
  装備したいカード → それに必要なマテリアル → 狙う武器への入札用。
  種族候補の能力値と、スキルの発動条件も見比べましょう。""",
        "en": """\
The draft
  Everyone is dealt 8 equipment cards (armor, shields, accessories). The bid
  targets (attack cards) of bid rounds 1 and 2 are shown before the draft.
  Put 1 card of your hand face down; when everyone has, pass the rest
  clockwise. Repeat until you have 8. Your picks stay secret until the
  reveal.

Why a drafted card matters three ways (you need not decide in the draft)
  1. Equipment: equip it in the build for its stat bonuses and skills.
     It costs its equip cost (C).
  2. Material: materialize it in the build; its material (M) pays for
     equip costs. A materialized card cannot be equipped.
  3. Bid money: its bid value (B, 1 to 5) bids on weapons. A card that did
     not pay for a won target goes back to your hand, to equip or
     materialize later.

An order to think in (a guide, not a rule)
  The cards you want to equip → the material they need → bids for the
  weapon you want. Compare your race candidates' stats with the skills'
  requirements.""",
    },
    "bidding": {
        "ja": """\
武器入札（3人: 4枚×3ラウンド／4人: 3枚×4／5人: 3枚×5）
  開始プレイヤーから時計回りに、入札対象1枚に装備カード1枚を伏せて置くか、
  パスします。1ラウンドに2回まで（2回目の後は自動的にパス）。
  パスしたらそのラウンドには戻れません。開始プレイヤーは毎ラウンド交代。
  全員がパスしたら、入札に使ったカードを同時に公開します。

落札判定（入札対象ごと、入札表で）
  最も高い入札価値を1人だけが出していれば、その人が獲得します。
  同額の人たちは外し、次に高い価値で同じ判定をします。
  落札者は判定に使ったカード1枚だけを支払い、ほかは手札に戻ります。
  単独の入札者がいなければ未落札です。

入札表の例（ショートソード）: A=5と3、B=5、C=2
  5はAとBが同額 → 2人とも外す。次に高い単独入札はAの3 → Aが獲得し、
  入札価値3のカードを支払います。5のカードはAとBの手札に戻ります。

金鷹ギルド《競売》と紫晶ギルド《鑑定》は、ギルド特性のページを見てください。""",
        "en": """\
Weapon bidding (3 players: 4 targets × 3 rounds / 4: 3 × 4 / 5: 3 × 5)
  From the round's lead player clockwise: put 1 equipment card face down on
  1 target, or pass. At most 2 bids a round (after the 2nd you pass). A pass
  is final for the round. The lead player moves on each round.
  When everyone has passed, all bid cards are revealed at once.

Who wins a target (the bid table)
  If exactly one player made the highest bid value, that player wins it.
  Players tied on a value drop out; the next lower value is tried alike.
  The winner pays only the card that decided it; the others go back to hand.
  With no single bidder left, the target is not won.

Example (Short Sword): A bid 5 and 3, B bid 5, C bid 2
  A and B tie on 5 → both drop out. The next single bid is A's 3 → A wins
  and pays the card of value 3. The cards of value 5 go back to A and B.

Golden Hawk's Auction and Amethyst's Appraisal: see the guild traits page.""",
    },
    "build": {
        "ja": """\
ビルド
  種族候補2枚から1枚を選び、取ったカードを「装備」「マテリアル化」「未使用」
  に分けます。全員が確定すると公開確認になり、その後は変更できません
  （それまでは確定を取り消して変更できます）。

マテリアルの予算
  装備する防具・盾・アクセサリの装備コスト合計 ≦ 利用可能マテリアル
  利用可能マテリアル ＝ マテリアル化したカードの獲得マテリアル ＋ ギルド特性
  マテリアル化したカードはその場で表向きに捨て山へ置かれ、全員に見え、
  戻せません（装備と未使用は伏せたまま）。
  アタックカード（武器・魔法）に装備コストはありません。
  余ったマテリアルは持ち越しません。

装備枠
  防具: 頭・胴・腕・脚の部位ごとに1枚まで。アクセサリ: 枚数の上限なし。
  手の装備枠は2つ: 片手武器・片手盾は1つ、両手武器・両手盾は2つ使います。
  魔法は手の装備枠を使いません。同じ名前のカードは1枚まで。

最終能力値（魔=魔力 腕=腕力 知=知力 器=器用 防=防御 敏=敏捷）＝
種族カードの能力値 ＋ 装備の補正。発動条件はこれで判定します。
公開確認の後、最終敏捷の高い順がバトルの処理順です（同値はサイコロ）。""",
        "en": """\
The build
  Pick 1 of your 2 race candidates and sort your cards into equipped,
  materialized and unused. When everyone has confirmed, the builds are
  revealed and can no longer change (until then you may take it back).

The material budget
  total equip cost of your armor, shields, accessories ≤ available material
  available material = material of your materialized cards + guild trait
  A materialized card goes face up to the discard at once: everyone sees
  it, and it cannot come back (equipped and unused cards stay hidden).
  Attack cards (weapons, magic) cost nothing. Material left over is lost.

Equip slots
  Armor: one per part (head, body, arms, legs). Accessories: no limit.
  2 hand slots: a one-handed weapon or shield takes 1, a two-handed one 2.
  Magic takes no hand slot. Never two cards of the same name.

Final stats (Ma mana, St strength, In intelligence, Dx dexterity, Df
defense, Ag agility) = the race card's stats + your equipment's bonuses;
skill requirements are checked against them. After the reveal, the highest
final agility acts first in the battle (ties: a die decides).""",
    },
    "battle": {
        "ja": """\
フィールド          6つのエリアが輪になっています。隣のエリアまでが距離1、
    1 ─ 2          いちばん遠いエリアが距離3です。
  6       3        体力6、現在魔力＝最終魔力で始めます。処理順にサイコロを
    5 ─ 4          振って出目のエリアに登場し、すぐ初期手番を行います。

手番: 最大2アクション
  移動（隣のエリアへ、2回まで）・アタック（1回まで）・休息（魔力+1で
  手番終了、移動やアタックと同じ手番には不可）。
  移動の後はアタックできません。アタックの後は移動できます。
  アタックカードを装備していないと、手番では何もできません。

アタック
  アタックカードと距離のスキルを選ぶ → スキルを宣言して魔力を払う →
  アタックエリアのターゲットを選ぶ → ターゲットが防御スキルを宣言する →
  チップバッグからチップを引く（次のページ）。
  近距離: 距離0〜1（クリティカル1）  中距離: 1〜2（2）  遠距離: 2〜3（3）

画面の印: [n]=アタックエリア  !n!=クリティカルエリア  @=あなた
          ▶=手番の席  ★クリティカル=そのターゲットはクリティカルエリア""",
        "en": """\
The field           Six areas in a ring: the next area is at distance 1, the
    1 ─ 2           one across at distance 3. Everyone starts with 6 HP and
  6       3         current mana = final mana. In processing order each seat
    5 ─ 4           rolls a die, enters that area and takes its first turn.

A turn: up to 2 actions
  Move (to a neighbouring area, at most 2), attack (at most 1), or rest (+1
  mana and the turn ends; not in a turn with a move or an attack).
  No attack after a move; moving after an attack is fine.
  Without an attack card equipped you can do nothing in your turns.

An attack
  Choose an attack card and its range skill → declare skills, pay mana →
  choose targets in the attack area → the targets declare defense skills →
  draw chips from the chip bag (next page).
  Short: distance 0–1 (critical at 1)   Mid: 1–2 (2)   Long: 2–3 (3)

On screen: [n] = attack area  !n! = critical area  @ = you
           ▶ = the seat to act  ★critical = target in the critical area""",
    },
    "chips": {
        "ja": """\
チップバッグ（どこまで引くか）
  バッグ: カードのポイントチップ5個＋ミス1個、ターゲットがクリティカル
  エリアにいればクリティカル1個（2として数える）、防御スキルの0チップ。
  1枚ずつ引き、合計がダメージです。通常は3枚まで。3枚目以降も、直前に
  1以上を引いていればもう1枚引けます。毎回、止めるか続けるかを選びます。
  自動で終わる: ミス（0ダメージ、アンラックチップ+1、最大2枚）／
  1以上の後の0／3枚目以降の0／空のバッグ。
  アンラックチップ2枚: 引く前に使うと、ミスなしで最大3枚（2枚は捨てる）。

カウンター
  ノックアウトされなかったターゲットは、攻撃者が自分のクリティカル
  エリアにいればカウンターできます。通常のクリティカルチップは入らず、
  カウンターへのカウンターはありません。

ノックアウトと勝利点
  体力0でノックアウト: フィールドから外れ、ターゲットになりません。
  次の自分の手番の初めにサイコロで再登場し、体力6に戻って続けます。
  勝利点: 初めて体力4以下に 1、ノックアウト 2、両方同時 3。5点で勝利。
  画面の「退場」はノックアウト中の席です。""",
        "en": """\
The chip bag (push your luck)
  The bag: the card's 5 point chips + 1 miss, a critical chip (counts 2) if
  the target stands in the critical area, and zero chips of defense skills.
  Draw one at a time; the total is the damage. Up to 3 draws; from the 3rd
  on, one more each time the last chip was 1 or more. Stop or go on at each
  draw.
  It ends by itself on: a miss (0 damage, +1 unluck chip, at most 2), a 0
  after a chip of 1 or more, a 0 as 3rd or later chip, an empty bag.
  With 2 unluck chips: use them before drawing: no miss, at most 3 draws.

Counters
  A target that is not knocked out may counter if the attacker stands in
  its own critical area. No automatic critical chip; a counter is never
  countered.

Knock-outs and VP
  At 0 HP a seat is knocked out: off the field, it cannot be targeted.
  At the start of its next turn it rolls, re-enters with 6 HP and plays on.
  VP: 1 for the first drop to 4 HP or less, 2 for a knock-out, 3 for both at
  once. 5 VP wins. "out" on the screen marks a knocked-out seat.""",
    },
    "keys": {
        "ja": """\
どの画面でも
  ?/F1  ヘルプ（クイックリファレンス）。ヘルプで p を押すとこの遊び方へ
  Ctrl+P コマンドパレット（ダイアログ以外）: 新しいゲーム・続きから・言語・
         AIの間・ルール・遊び方・テーマ・リプレイ保存を名前で探して実行
  Ctrl+C 終了（ゲームは手ごとに自動保存。タイトルの「続きから」か
         tactical --resume で再開できます）

ゲーム中
  ↑↓ Enter  選んで決定      d  カードの詳細      l  ログ
  h  ヒント      H  おまかせ（AIがこの1手を決める）
  z  戻す（自分の前の判断まで。その後に何も公開・抽選されていない間）

設定
  言語・AIの間・新しいゲームの人数と席・初めてのゲーム・テーマは
  設定ファイルに保存され、次回もそのまま始まります（docs/PLAYING.md）。
  コマンドラインの --lang や --ai-delay は設定より優先です。

この画面: ←→ または Tab でページ切替、数字キーでページへ、Esc で閉じる""",
        "en": """\
Everywhere
  ?/F1    Help (the quick reference); press p there for this guide
  Ctrl+P  The command palette (not in dialogs): new game, continue,
          language, AI pause, rules, how to play, theme, save replay
  Ctrl+C  Quit (the game is saved after every action: Continue on the
          title screen or tactical --resume takes it up again)

In a game
  ↑↓ Enter  choose and select   d  card details   l  the log
  h  a hint     H  auto (the AI makes this one decision for you)
  z  undo (to your last decision, if nothing was revealed or drawn since)

Settings
  The language, the AI pause, a new game's players and seats, first-game
  mode and the theme are kept in the settings file and used next time
  (docs/PLAYING.md). The options --lang and --ai-delay override them.

Here: ←→ or Tab turn the page, a number key jumps to a page, Esc closes""",
    },
    # The strength sentences: measured (docs/MEASURED.md "AI strength, measured", issue 34).
    "levels": {
        "ja": """\
AIのレベル（席ごとに選べます。数字はAI同士の対戦で計測）
  ランダム  合法手から無作為。ふつう1人対ランダム3人で、ふつうが99%勝利。
  やさしい  ふつうに一定の割合で無作為な手が混ざります。ふつう1人対やさしい
            3人で、ふつうの勝率は約51%（4人なので公平な取り分は25%）。
  ふつう    すべての判断をルールで決め、チップを引くか止めるかは厳密に計算。
  つよい    ドラフト・入札・ビルドを学習した評価で計画し、バトルは先読み。
            ふつう3人を相手に約40%（公平な取り分25%）。3人戦で約47%
            （33%）、5人戦で約34%（20%）。

レーティング（tactical ladder、3〜5人戦 1,200局。±3.5）
  つよい 32.1、ふつう 28.0、やさしい 23.5、ランダム 20.8。つよいとふつう
  のどちらかが勝った対局のうち62%はつよいの勝ち。

運はどれくらい効くか
  チップの出る順番だけを知るプレイヤーは、ふつう3人を相手に約85%
  勝ちます。すべて（手札・山札・チップの順）を知れば約99%。
  チップの順番が変わると勝者が変わる、運の大きいゲームです。""",
        "en": """\
The AI levels (choose one per seat; measured in games between AIs)
  random  any legal action: normal beats three random players 99 % of
          the time.
  easy    the normal player with a share of random moves: normal wins
          about 51 % against three easy players (fair share at 4: 25 %).
  normal  rules of thumb for every decision; draw-or-stop solved exactly.
  hard    plans draft, bids and build by a learned value and looks ahead
          in the battle: about 40 % against three normal players (fair
          share 25 %); about 47 % at 3 seats (33 %), 34 % at 5 (20 %).

The ladder (tactical ladder, 1,200 games of 3 to 5 seats; ratings ± 3.5)
  hard 32.1, normal 28.0, easy 23.5, random 20.8. Of the games that hard
  or normal won, hard won 62 %.

How much is luck
  A player that knew only the order of the chips to come would win
  about 85 % against three normal players; one that knew everything
  (hands, decks, chips) about 99 %. Which chips come out decides
  most games: skill moves the odds, it rarely settles them.""",
    },
}

ORDER = ("goal", "draft", "bidding", "build", "battle", "chips", "guilds", "keys", "levels")

TEXT = {
    "title": {"ja": "遊び方 {k}/{n}: {page}", "en": "How to play {k}/{n}: {page}"},
    "guilds.head": {"ja": "ギルドはゲームごとに配り直され、全員に公開されます。ギルド番号が最も\n"
                          "小さいプレイヤーがスタートプレイヤーです。",
                    "en": "Guilds are dealt anew each game, face up. The lowest guild number in\n"
                          "play is the start player."},
    "guilds.yours": {"ja": "あなたのギルド: {guild}", "en": "Your guild: {guild}"},
    "trait.material": {"ja": "利用可能マテリアル+{n}（装備コストの予算が増える）",
                       "en": "+{n} available material (a larger budget for equip costs)"},
    "trait.auction": {"ja": "武器入札中に1回だけ、同額入札があるとき落札判定の前に自分の"
                            "入札価値を1増やす（最大6）",
                      "en": "Once per game, when your bid ties another player's on a target: "
                            "before the winner is decided, raise it by 1 (up to 6)"},
    "trait.appraisal": {"ja": "最後の入札ラウンドの後、そのラウンドで誰も入札しなかった"
                              "入札対象を獲得できる",
                        "en": "After the last bid round, take a target nobody bid on in that "
                              "round"},
    "trait.other": {"ja": "（カードデータの特性: {kind}）", "en": "(a trait of kind {kind})"},
}

# Short forms for the draft and bid screens' side panels (≤ 36 cells).
SHORT = {
    "material": {"ja": "マテリアル+{n}", "en": "+{n} material"},
    "auction": {"ja": "同額入札に1回+1", "en": "+1 on a tie, once"},
    "appraisal": {"ja": "無入札の対象を獲得", "en": "takes an unbid target"},
}
# … and shorter still, for one line on a panel's border (guild_line) when SHORT does not fit
TIGHT = {
    "material": {"ja": "マ+{n}", "en": "M+{n}"},        # M: material, as the card lists say
    "auction": {"ja": "同額に1回+1", "en": "tie +1, once"},
    "appraisal": {"ja": "無入札を獲得", "en": "unbid target"},
}


def tx(key: str, lang: str, **kw: object) -> str:
    table = TEXT[key]
    return table.get(lang, table["en"]).format(**kw)


def wrap(text: str, width: int, lang: str, indent: str = "") -> list[str]:
    """`text` in lines of at most `width` cells: English at spaces; Japanese between
    any two characters, but never before 、。）」』》 nor after （「『《, and never inside
    a 《name》; continuation lines start with `indent`."""
    out: list[str] = []
    no_start = set("、。，．）」』》】・ー…：:")
    no_end = set("（「『《【")
    line = ""
    if lang == "en":
        for word in text.split(" "):
            cand = f"{line} {word}" if line else word
            if cell_len(cand) > width and line:
                out.append(line)
                line = indent + word
            else:
                line = cand
        out.append(line)
        return out
    for ch in text:
        if cell_len(line + ch) > width and line.strip():
            low = len(indent) + 1
            rest = line + ch

            def allowed(cut: int) -> bool:
                head = rest[:cut]
                inside = head.rfind("《") > head.rfind("》")     # a 《name》 is never split
                return not inside and rest[cut] not in no_start and rest[cut - 1] not in no_end
            cut = next((c for c in range(len(line), low, -1) if allowed(c)), len(line))
            out.append(line[:cut])
            line = indent + line[cut:]
        line += ch
    out.append(line)
    return out


def trait_text(cards, trait, lang: str) -> str:
    """What a guild trait does, one sentence (from the trait's kind and numbers)."""
    kind = trait.kind
    if ("trait." + kind) in TEXT:
        return tx("trait." + kind, lang, n=trait.amount)
    skill = getattr(trait, "skill", None)
    if skill is not None:                    # a battle trait: a skill, as on a card
        from tactical_tui.text.cardtext import skill_text
        return skill_text(cards, skill, lang)
    return tx("trait.other", lang, kind=kind)


def guild_lines(cards, guild_id: str, lang: str, width: int = 36) -> list[str]:
    """Your guild and its trait for a side panel: the name with 《trait》, then what the
    trait does in short (lines of at most `width` cells)."""
    g = cards.guild(guild_id)
    short = SHORT.get(g.trait.kind)
    body = short[lang if lang in short else "en"].format(n=g.trait.amount) if short \
        else trait_text(cards, g.trait, lang)
    return wrap(guild_name(g, lang), width, lang) + wrap(" " + plain(body), width, lang, indent=" ")


def guild_name(g, lang: str, short: bool = False) -> str:
    """A guild with its trait: 金鷹ギルド《競売》 / Golden Hawk Guild: Auction (`short`:
    without the word guild, 金鷹《競売》 / Golden Hawk: Auction)."""
    name = g.name.get(lang)
    if short:
        for word in ("ギルド", " Guild"):
            name = name[:-len(word)] if name.endswith(word) else name
    if lang == "ja":
        return plain(f"{name}《{g.trait.name.get(lang)}》")
    return plain(f"{name}: {g.trait.name.get(lang)}")


def guild_line(cards, guild_id: str, lang: str, width: int = 35) -> str:
    """Your guild and its trait in one line of at most `width` cells: the name with
    《trait》 and what it does in short when that fits."""
    g = cards.guild(guild_id)
    head = guild_name(g, lang)
    # the effect is kept before the word "Guild" (issue 32 point 8: the English line
    # was "Black Iron Guild: Ore Vein", the Japanese one said マテリアル+2)
    for table in (SHORT, TIGHT):
        short = table.get(g.trait.kind)
        if not short:
            continue
        what = (" " if lang == "ja" else ", ") + short[lang if lang in short else "en"].format(n=g.trait.amount)
        for name in (head, guild_name(g, lang, short=True)):
            if cell_len(name + what) <= width:
                return name + what
    if cell_len(head) <= width:
        return head
    from tactical_tui.text.i18n import pad
    return pad(head, width - 1).rstrip() + "…"


def _cards_of(app):
    """The card data of the game on the table, else the app's card set, else (lazily)
    the shipped cards.toml."""
    table = getattr(app, "table", None)
    if table is not None:
        return table.cards
    cards = getattr(app, "cards", None)
    if cards is not None:
        return cards
    from rules.cards import default_cards
    return default_cards()


def guild_page(app, lang: str) -> str:
    cards = _cards_of(app)
    lines = tx("guilds.head", lang).split("\n") + [""]
    table = getattr(app, "table", None)
    if table is not None:
        seat = getattr(app, "viewer", 0)
        mine = table.observe(seat).seats[seat].guild
        g = cards.guild(mine)
        lines.append(tx("guilds.yours", lang, guild=guild_name(g, lang)))
        lines.append("")
    for g in sorted(cards.guilds, key=lambda g: g.number):
        head = f"{g.number} {guild_name(g, lang)}" + (": " if lang == "ja" else " — ")
        lines += wrap(head + plain(trait_text(cards, g.trait, lang)), WIDTH, lang, indent="    ")
    return "\n".join(lines)


def page_text(app, key: str, lang: str) -> str:
    lang = lang if lang in ("ja", "en") else "en"
    if key == "guilds":
        return guild_page(app, lang)
    from tactical_tui.exitline import RESUME, resume_command
    return PAGES[key][lang].replace(RESUME, resume_command())   # (python3 run.py --resume)


class HowToScreen(Guarded, ModalScreen):
    """How to play, a page at a time (←/→, Tab, 1–9); Escape closes. Modal, so the game
    waits while it is read, as it does for the help."""

    KEYS = [("right", "page(1)", "key.next_page", True, True),
            ("left", "page(-1)", "key.prev_page", True, True),
            ("tab", "page(1)", "", False, True), ("shift+tab", "page(-1)", "", False, True),
            ("pagedown", "page(1)", "", False), ("pageup", "page(-1)", "", False),
            *((str(i + 1), f"goto({i})", "", False) for i in range(len(ORDER))),
            ("escape", "close", "key.close", True), ("q", "close", "", False),
            ("ctrl+c", "app.request_quit", "", False, True)]

    DEFAULT_CSS = """
    HowToScreen { align: left top; }
    HowToScreen #howto-page { padding: 0 2; height: 1fr; }
    """

    def __init__(self, start: str = "goal") -> None:
        super().__init__()
        self.k = ORDER.index(start) if start in ORDER else 0

    @property
    def lang(self) -> str:
        return self.app.lang

    def compose(self) -> ComposeResult:
        yield Static("", id="topbar")
        with Container(id="body"):
            yield Static("", id="howto-page")
        yield from self.compose_guard()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()
        self.check_size()

    @property
    def page(self) -> str:
        return ORDER[self.k]

    def show(self) -> None:
        lang = self.lang
        title = TITLES[self.page][lang if lang in ("ja", "en") else "en"]
        self.query_one("#topbar", Static).update(
            Text(tx("title", lang, k=self.k + 1, n=len(ORDER), page=title), style="bold"))
        self.query_one("#howto-page", Static).update(as_text(page_text(self.app, self.page, lang),
                                                             lines=True))

    def action_page(self, step: int) -> None:
        self.k = (self.k + step) % len(ORDER)
        self.show()

    def action_goto(self, k: int) -> None:
        self.k = k
        self.show()

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(TextScreen):
    """The help dialog, with `p` to How to play."""

    KEYS = TextScreen.KEYS + [("p", "howto", "key.howto", True)]

    def action_howto(self) -> None:
        self.dismiss(None)
        self.app.call_later(show_howto, self.app)


def show_howto(app, start: str = "goal") -> None:
    """Push How to play (in the app's language); the game goes on when it is closed."""
    from tactical_tui.widgets.base import localized
    app.push_screen(localized(HowToScreen, app.lang)(start),
                    lambda _: app.call_later(app.follow_table))   # the view follows the table again


def help_title(lang: str) -> str:
    return t("help.title", lang)
