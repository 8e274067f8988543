"""Interface text of the Textual app, in Japanese and English."""

from __future__ import annotations

from typing import Iterable

from rich.cells import cell_len
from rich.text import Text

def _ui() -> dict[str, dict[str, str]]:
    """The catalogue of text/catalog.py (it imports the rules for the event log: not loaded before
    a key of it is asked for, so the title screen starts without the rules)."""
    from tactical_tui.text.catalog import UI
    return UI


TUI: dict[str, dict[str, str]] = {
    # keys (Footer)
    "key.select": {"ja": "決定", "en": "Select"},
    "key.details": {"ja": "詳細", "en": "Details"},
    "key.skip_ai": {"ja": "AI早送り", "en": "Skip AI"},
    "skip.on": {"ja": "あなたの次の判断まで、AIの間をとばします。",
                "en": "Skipping the AI pauses up to your next decision."},
    "details.none": {"ja": "カーソルの位置にカードがありません（d はカーソルのあるカードの詳細を表示します）。",
                     "en": "No card under the cursor (d shows the details of the card under it)."},
    "key.targets": {"ja": "入札対象", "en": "Targets"},
    "key.help": {"ja": "ヘルプ", "en": "Help"},
    "key.quit": {"ja": "終了", "en": "Quit"},
    "key.pass": {"ja": "パス", "en": "Pass"},
    "key.switch": {"ja": "切替", "en": "Switch"},
    "key.equip": {"ja": "装備", "en": "Equip"},
    "key.materialize": {"ja": "マテ化", "en": "Material"},
    "key.unused": {"ja": "未使用", "en": "Unused"},
    "key.race": {"ja": "種族", "en": "Race"},
    "key.confirm": {"ja": "確定", "en": "Confirm"},
    "key.unconfirm": {"ja": "確定取消", "en": "Unconfirm"},
    "key.log": {"ja": "ログ", "en": "Log"},
    "key.hint": {"ja": "ヒント", "en": "Hint"},
    "key.auto": {"ja": "おまかせ", "en": "Auto"},
    "key.back": {"ja": "戻る", "en": "Back"},
    "key.close": {"ja": "閉じる", "en": "Close"},
    "key.new": {"ja": "新しいゲーム", "en": "New game"},
    "key.title": {"ja": "タイトル", "en": "Title"},
    "key.change": {"ja": "変更", "en": "Change"},
    "key.continue": {"ja": "続ける", "en": "Continue"},
    "key.yes": {"ja": "はい", "en": "Yes"},
    "key.no": {"ja": "いいえ", "en": "No"},
    "key.howto": {"ja": "遊び方", "en": "How to play"},
    "key.palette": {"ja": "コマンド", "en": "Commands"},
    "key.next_page": {"ja": "次のページ", "en": "Next page"},
    "key.prev_page": {"ja": "前のページ", "en": "Previous page"},
    # title / setup
    "title.new": {"ja": "新しいゲーム", "en": "New game"},
    "title.quick": {"ja": "クイックゲーム（あなた＋AI 3人、初めてのゲーム）",
                    "en": "Quick game (you + 3 AI, first-game mode)"},
    "title.continue": {"ja": "続きから", "en": "Continue"},
    "title.rules": {"ja": "ルール", "en": "Rules"},
    "title.howto": {"ja": "遊び方", "en": "How to play"},
    "title.lang": {"ja": "言語 / Language: 日本語", "en": "Language / 言語: English"},
    "title.quit": {"ja": "終了", "en": "Quit"},
    "title.tagline": {"ja": "ギルドマスターたちのドラフト・入札・バトル",
                      "en": "Draft, bid, build and battle as a guild master"},
    "title.no_save": {"ja": "続きのゲームはまだ保存されていません。",
                      "en": "There is no saved game to continue yet."},
    "title.all_finished": {"ja": "続きのゲームはありません。保存したゲームはどれも終わっています（新しいゲームを始めてください）。",
                           "en": "Nothing to continue: every saved game is finished. Start a new game."},
    # the SSH front door (tactical_tui/net/sshdoor.py)
    "ssh.no_pty": {"ja": "TACTICAL は端末で遊ぶゲームです。この接続には端末（pty）がありません。"
                         "コマンドも -T も付けずに「ssh -p ポート 名前@ホスト」で接続してください。",
                   "en": "TACTICAL is played in a terminal, and this session has none (no pty). "
                         "Connect with \"ssh -p PORT NAME@HOST\", without a command or -T."},
    "ssh.key_no_pty": {"ja": "この鍵（{fingerprint}）には、このホストでは端末（pty）が許されていません"
                             "（ホストの authorized_keys に no-pty か restrict があります）。"
                             "TACTICAL は端末で遊ぶゲームです。別の鍵で接続するか（ssh -i 鍵ファイル）、"
                             "ホストの管理者に頼んでください。",
                       "en": "This key ({fingerprint}) may not have a terminal (pty) at this "
                             "host (no-pty or restrict in the host's authorized keys), and "
                             "TACTICAL is played in one. Connect with another key (ssh -i "
                             "KEYFILE), or ask the host's operator."},
    "ssh.key_command": {"ja": "この鍵（{fingerprint}）は、このホストでは決められたコマンドにしか"
                              "使えません（ホストの authorized_keys に command=\"…\" があります）。"
                              "この入口はコマンドを実行しないので、この鍵では遊べません。"
                              "別の鍵で接続するか（ssh -i 鍵ファイル）、ホストの管理者に頼んでください。",
                        "en": "This key ({fingerprint}) may only run a set command at this "
                              "host (command=\"…\" in the host's authorized keys), and this "
                              "door runs no commands: there is no game for it. Connect with "
                              "another key (ssh -i KEYFILE), or ask the host's operator."},
    "ssh.idle": {"ja": "{n}分間キー入力がなかったので、接続を閉じました。もう一度接続すれば遊べます。",
                 "en": "No key for {n} minutes: the session is closed. Connect again to play."},
    "ssh.idle.one": {"ja": "1分間キー入力がなかったので、接続を閉じました。もう一度接続すれば遊べます。",
                     "en": "No key for a minute: the session is closed. Connect again to play."},
    "ssh.idle_s": {"ja": "{n}秒間キー入力がなかったので、接続を閉じました。もう一度接続すれば遊べます。",
                   "en": "No key for {n} seconds: the session is closed. Connect again to play."},
    "ssh.idle_s.one": {"ja": "1秒間キー入力がなかったので、接続を閉じました。もう一度接続すれば遊べます。",
                       "en": "No key for a second: the session is closed. Connect again to play."},
    "ssh.full": {"ja": "このホストは満員です（同時に{n}接続まで）。しばらくしてから接続してください。",
                 "en": "This host is full ({n} sessions at once). Try again later."},
    "ssh.full.one": {"ja": "このホストは満員です（同時に1接続まで）。しばらくしてから接続してください。",
                     "en": "This host is full (one session at a time). Try again later."},
    "ssh.conn_full": {"ja": "この接続ではすでに{n}つのゲームが動いています（1接続に{n}つまで）。"
                            "どれかを終えるか、新しく接続してください。",
                      "en": "This connection already runs {n} games ({n} at most on one "
                            "connection). End one of them, or connect again."},
    "ssh.conn_full.one": {"ja": "この接続ではすでにゲームが動いています（1接続に1つまで）。"
                                "それを終えるか、新しく接続してください。",
                          "en": "This connection already runs a game (one at most on one "
                                "connection). End it, or connect again."},
    "ssh.key_full": {"ja": "この鍵ではすでに{n}つのゲームが動いています（1つの鍵で同時に{n}つまで）。"
                           "どれかを終えてから接続してください。",
                     "en": "This key already runs {n} games at this host ({n} at most at "
                           "once). End one of them, then connect again."},
    "ssh.key_full.one": {"ja": "この鍵ではすでにゲームが動いています（1つの鍵で同時に1つまで）。"
                               "それを終えてから接続してください。",
                         "en": "This key already runs a game at this host (one at most at "
                               "once). End it, then connect again."},
    "ssh.peer_full": {"ja": "あなたのアドレスからはすでに{n}つのゲームが動いています"
                            "（1つのアドレスから同時に{n}つまで）。どれかを終えてから接続してください。",
                      "en": "Your address already runs {n} games at this host ({n} at most "
                            "at once). End one of them, then connect again."},
    "ssh.peer_full.one": {"ja": "あなたのアドレスからはすでにゲームが動いています"
                                "（1つのアドレスから同時に1つまで）。それを終えてから接続してください。",
                          "en": "Your address already runs a game at this host (one at most "
                                "at once). End it, then connect again."},
    "ssh.stopping": {"ja": "ホストが停止しました。再び動き出したら、同じsshで席に戻れます。",
                     "en": "The host has stopped. Once it runs again, the same ssh takes you back to your seat."},
    "ssh.start_failed": {"ja": "ゲームを起動できませんでした: {error}",
                         "en": "The game could not be started: {error}"},
    "ssh.listening": {"ja": "SSH: ssh -p {port} 名前@{host}（ホスト鍵 {fingerprint}）",
                      "en": "SSH: ssh -p {port} NAME@{host} (host key {fingerprint})"},
    "ssh.err.no_auth": {"ja": "--ssh-port には --authorized-keys ファイル か --open が必要です。",
                        "en": "--ssh-port needs --authorized-keys FILE or --open."},
    "ssh.err.keys": {"ja": "{path}: 公開鍵を読めません（{error}）",
                     "en": "{path}: cannot read the public keys ({error})"},
    "ssh.err.host_key": {"ja": "{path}: ホスト鍵を読めません（{error}）。"
                               "このファイルを別の場所へ移せば、次の起動で新しい鍵が作られます。",
                         "en": "{path}: cannot read the host key ({error}). Move the file away "
                               "and the next start makes a new key."},
    "cont.title": {"ja": "続きから: 保存中のゲーム（新しい順）",
                   "en": "Continue: your unfinished games (newest first)"},
    "cont.row": {"ja": "{date}  {seats}  {where}", "en": "{date}  {seats}  {where}"},
    "cont.seats": {"ja": "{n}人（{who}）", "en": "{n} seats ({who})"},
    "cont.you": {"ja": "あなた", "en": "you"},
    "cont.humans": {"ja": "人間{n}人", "en": "{n} humans"},
    "cont.round": {"ja": "{phase} ラウンド{r}", "en": "{phase}, round {r}"},
    "cont.elsewhere": {"ja": "↑ 別のウィンドウで使用中（プロセス{pid}）",
                       "en": "↑ open in another window (process {pid})"},
    "cont.damaged": {"ja": "{name}: 開けません", "en": "{name}: cannot be opened"},
    "cont.clean": {"ja": "整理: {what}を削除",
                   "en": "Clean up: delete {what}"},
    # what the clean-up deletes (issue 32: "4 old or finished games (the 5 newest stay)" was unclear)
    "cont.clean.finished": {"ja": "終わったゲーム{n}件", "en": "{n} finished games"},
    "cont.clean.finished.one": {"en": "1 finished game"},
    "cont.clean.older": {"ja": "新しい{keep}件より古い未完了のゲーム{n}件",
                         "en": "{n} unfinished games older than your {keep} newest"},
    "cont.clean.older.one": {"en": "1 unfinished game older than your {keep} newest"},
    "cont.clean.and": {"ja": "と", "en": " and "},
    "cont.clean_ask": {"ja": "保存したゲーム{n}件を削除しますか？元に戻せません。",
                       "en": "Remove {n} saved games? This cannot be undone."},
    "cont.cleaned": {"ja": "保存したゲームを{n}件削除しました。", "en": "Removed {n} saved games."},
    # English for n == 1 ("1 card", never "1 cards"): t() takes "<key>.one" when n is 1
    "cont.clean_ask.one": {"en": "Remove 1 saved game? This cannot be undone."},
    "cont.cleaned.one": {"en": "Removed 1 saved game."},
    "draft.left.one": {"en": "1 card left"},
    "cont.seats.one": {"en": "1 seat ({who})"},
    "cont.humans.one": {"en": "1 human"},
    "bid.face_down.one": {"en": "1 bid down"},
    "save.locked": {"ja": "このゲームは別のウィンドウ（プロセス{pid}）で開かれています。"
                          "そちらで続けるか、そちらを閉じてから開いてください: {path}",
                    "en": "This game is open in another window (process {pid}). "
                          "Continue it there, or close it there first: {path}"},
    "setup.title": {"ja": "新しいゲームの設定（←→・Enterで変更、▶の行でEnterを押すと開始）",
                    "en": "New game (←→ or Enter changes a row; Enter on ▶ starts)"},
    "setup.players": {"ja": "人数", "en": "Players"},
    "setup.seat": {"ja": "席{n}", "en": "Seat {n}"},
    "setup.human": {"ja": "人間", "en": "Human"},
    "setup.ai": {"ja": "AI（{level}）", "en": "AI ({level})"},
    "setup.first_game": {"ja": "初めてのゲーム（初期セットのみ）", "en": "First game (initial set only)"},
    "setup.lang": {"ja": "言語", "en": "Language"},
    "setup.seed": {"ja": "シード", "en": "Seed"},
    "setup.random": {"ja": "ランダム", "en": "random"},
    "setup.delay": {"ja": "AIの間（秒）", "en": "AI pause (s)"},
    "setup.start": {"ja": "▶ 開始", "en": "▶ Start"},
    "setup.on": {"ja": "はい", "en": "yes"},
    "setup.off": {"ja": "いいえ", "en": "no"},
    "level.random": {"ja": "ランダム", "en": "random"},
    "level.easy": {"ja": "やさしい", "en": "easy"},
    "level.normal": {"ja": "ふつう", "en": "normal"},
    "level.hard": {"ja": "つよい", "en": "hard"},
    # common
    "you": {"ja": "あなた", "en": "you"},
    "too_small": {"ja": "端末が小さすぎます。80×24以上に広げてください（現在 {w}×{h}）。",
                  "en": "The terminal is too small. Please enlarge it to at least 80×24 (now {w}×{h})."},
    # the same, where the whole sentence would not fit (a 20×5 window showed "The terminal is")
    "too_small.short": {"ja": "80×24以上に\n広げてください\n（現在{w}×{h}）", "en": "Enlarge to 80×24\n(now {w}×{h})"},
    "waiting": {"ja": "{who}を待っています…", "en": "Waiting for {who}…"},
    "your_turn": {"ja": "あなたの番です", "en": "Your turn"},
    "quit.ask": {"ja": "ゲームを終了しますか？", "en": "Quit the game?"},
    "handover": {"ja": "{seat}の番です。ほかの人は画面を見ないでください。\nEnterで開始。",
                 "en": "{seat}'s turn. Everyone else, look away.\nPress Enter to start."},
    "hint": {"ja": "ヒント: {text}", "en": "Hint: {text}"},
    "log.title": {"ja": "ログ", "en": "Log"},
    "illegal": {"ja": "できません: {reason}", "en": "Not allowed: {reason}"},
    "cost": {"ja": "コ", "en": "C"},
    "bid": {"ja": "入", "en": "B"},
    "mat": {"ja": "マ", "en": "M"},
    "legend.cbm": {"ja": "コ=装備コスト 入=入札価値 マ=獲得マテリアル",
                   "en": "C=equip cost B=bid value M=material"},
    # draft
    "draft.title": {"ja": "装備ドラフト", "en": "The draft"},
    "draft.hand": {"ja": "手札（1枚選ぶ）", "en": "Hand (pick one)"},
    "draft.left": {"ja": "残り{n}枚", "en": "{n} cards left"},
    "draft.info": {"ja": "情報", "en": "Info"},
    "draft.races": {"ja": "種族候補", "en": "Race candidates"},
    "draft.targets": {"ja": "入札対象 第{r}ラウンド", "en": "Bid round {r} targets"},
    "draft.picks": {"ja": "取得済み {n}枚:", "en": "Picked ({n}):"},
    "draft.tally": {"ja": "マテリアル計{m}／入札価値 {bids}", "en": "Material {m} / bid values {bids}"},
    "draft.chosen": {"ja": "選択済み: {card}（ほかの席を待っています）",
                     "en": "Picked {card} (waiting for the other seats)"},
    # bidding
    "bid.title": {"ja": "武器入札 第{r}/{n}ラウンド", "en": "Weapon bidding, round {r}/{n}"},
    "bid.targets": {"ja": "入札対象（今回）", "en": "Targets (this round)"},
    "bid.next": {"ja": "次回", "en": "Next"},
    "bid.marks": {"ja": "▼n=伏せた入札 ▷=次回", "en": "▼n=bids ▷=next"},
    "bid.hand": {"ja": "入札に使うカード", "en": "Card to bid"},
    "bid.seats": {"ja": "席", "en": "Seats"},
    "bid.leader": {"ja": "（開始）", "en": " (lead)"},
    "bid.face_down": {"ja": "伏せ{n}", "en": "{n} bids down"},
    "bid.passed": {"ja": "パス", "en": "passed"},
    "bid.turn": {"ja": "手番", "en": "to bid"},
    "bid.help": {"ja": "対象を選んでEnter、入札するカードを選んでEnter。pでパス。",
                 "en": "Choose a target and press Enter, then the card to bid. p passes."},
    "bid.no_cards": {"ja": "入札できるカードがありません（pでパス）", "en": "No card to bid (p to pass)"},
    "reveal.title": {"ja": "入札結果", "en": "Bid results"},
    "choice.auction": {"ja": "《競売》を使いますか？", "en": "Use Auction?"},
    "choice.payment": {"ja": "支払うカードを選んでください", "en": "Choose the card to pay"},
    "choice.appraisal": {"ja": "《鑑定》で獲得しますか？", "en": "Take a target by Appraisal?"},
    "choice.decline": {"ja": "使わない", "en": "No"},
    "choice.use_auction": {"ja": "{card}（{target}）の入札価値を+1", "en": "+1 to {card} (on {target})"},
    "choice.pay": {"ja": "{card}で支払う", "en": "Pay with {card}"},
    "choice.appraise": {"ja": "{target}を獲得", "en": "Take {target}"},
    # build
    "build.title": {"ja": "ビルド", "en": "The build"},
    "build.cards": {"ja": "カード", "en": "Cards"},
    "build.check": {"ja": "チェック", "en": "Check"},
    "build.race": {"ja": "種族: {race}（rで切替）", "en": "Race: {race} (r to switch)"},
    "build.no_race": {"ja": "種族: 未選択（rで選ぶ）", "en": "Race: none (r to choose)"},
    "build.slots": {"ja": "手の装備枠 {n}/2", "en": "Hand slots {n}/2"},
    "build.parts": {"ja": "防具", "en": "Armor"},
    "build.material": {"ja": "マテリアル {have}／コスト {cost}", "en": "Material {have} / cost {cost}"},
    "build.stats": {"ja": "最終能力値", "en": "Final stats"},
    "build.skills": {"ja": "使えるスキル", "en": "Usable skills"},
    "build.skill_cards": {"ja": "{skill}（{cards}）", "en": "{skill} ({cards})"},
    "build.ok": {"ja": "✓ 違反なし", "en": "✓ legal"},
    "build.bad": {"ja": "✗ {reason}", "en": "✗ {reason}"},
    "build.no_attack": {"ja": "注意: アタックカード未装備（バトルで行動不可）",
                        "en": "Note: no attack card (no actions in battle)"},
    "build.no_range": {"ja": "注意: {card}の距離スキルは発動条件を満たしません",
                       "en": "Note: {card}: no range skill meets its requirements"},
    "build.series_off": {"ja": "注意: {card}のスキルは{series}シリーズを2枚以上装備したときだけ使えます（今{have}枚）",
                         "en": "Note: {card}'s skills work only with 2 or more {series} series cards equipped (now {have})"},
    "build.refused": {"ja": "確定できません: {reason}", "en": "Cannot confirm: {reason}"},
    "build.waiting": {"ja": "確定しました。ほかの席を待っています…", "en": "Confirmed. Waiting for the other seats…"},
    "build.unconfirm": {"ja": "全員が確定するまでは、wで確定を取り消して変更できます",
                        "en": "Until everyone has confirmed, w takes it back to change the build"},
    "build.final": {"ja": "全員が確定しました。ビルドはもう変更できません",
                    "en": "Everyone has confirmed: the builds can no longer change"},
    "build.materialize_ask": {"ja": "{card}をマテリアル化しますか？（マテリアル+{material}）\n表向きで捨て山に置かれ、全員に見えます。元に戻せません。",
                              "en": "Materialize {card} (+{material} material)?\nIt goes face up to the discard, where every seat sees it. It cannot come back."},
    "build.materialized_final": {"ja": "{card}はマテリアル化済みです（捨て山にあり、戻せません）",
                                 "en": "{card} was materialized: it is in the discard and cannot come back"},
    "zone.equip": {"ja": "装", "en": "E"},
    "zone.materialize": {"ja": "マ", "en": "M"},
    "zone.unused": {"ja": "－", "en": "-"},
    "zone.legend": {"ja": "[装]=装備 [マ]=マテリアル化 [－]=未使用",
                    "en": "[E]=equipped [M]=materialized [-]=unused"},
    "reveal.builds": {"ja": "公開確認", "en": "The reveal check"},
    "reveal.fix": {"ja": "ビルドに違反があります。外すカードを選んでください。",
                   "en": "Your build breaks a rule. Choose a card to remove."},
    # battle
    "battle.title": {"ja": "バトル ラウンド{r}", "en": "Battle, round {r}"},
    "battle.title0": {"ja": "バトル 初期手番", "en": "Battle, initial turns"},
    "battle.field": {"ja": "フィールド", "en": "Field"},
    "battle.actions": {"ja": "行動", "en": "Actions"},
    "battle.info": {"ja": "情報", "en": "Info"},
    "battle.legend": {"ja": "[n]=アタックエリア !n!=クリティカル", "en": "[n]=attack area !n!=critical"},
    "battle.out": {"ja": "退場", "en": "out"},
    "battle.at": {"ja": "位置{area}", "en": "at {area}"},
    "battle.bag": {"ja": "バッグ", "en": "Bag"},
    "battle.bag_mine.attack": {"ja": "あなたのアタック用バッグ", "en": "your attack bag"},
    "battle.bag_mine.counter": {"ja": "あなたのカウンター用バッグ", "en": "your counter bag"},
    "battle.bag_of.attack": {"ja": "{who}のアタック用バッグ", "en": "{who}'s attack bag"},
    "battle.bag_of.counter": {"ja": "{who}のカウンター用バッグ", "en": "{who}'s counter bag"},
    "battle.drawn": {"ja": "引いた", "en": "Drawn"},
    "battle.total": {"ja": "合計{n}", "en": "total {n}"},
    "battle.odds": {"ja": "次の1枚: ミス{miss}/{n} 0が{zero}/{n} 1以上{pos}/{n}",
                    "en": "Next chip: miss {miss}/{n}, zero {zero}/{n}, 1+ {pos}/{n}"},
    "act.crit": {"ja": "★クリティカル", "en": "★critical"},
    "battle.mybuild": {"ja": "あなたのビルド", "en": "Your build"},
    "battle.trait": {"ja": "ギルド特性《{skill}》: {state}", "en": "Guild trait {skill}: {state}"},
    "battle.trait_unused": {"ja": "未使用（ゲーム中1回）", "en": "unused (once per game)"},
    "battle.trait_used": {"ja": "使用済み", "en": "used"},
    "act.move": {"ja": "移動 → エリア{area}", "en": "Move → area {area}"},
    "act.rest": {"ja": "休息（魔力+1、手番終了）", "en": "Rest (+1 mana, ends the turn)"},
    "act.rest_full": {"ja": "休息（魔力最大で回復なし、手番終了）",
                      "en": "Rest (mana full: no gain; ends turn)"},
    "act.end": {"ja": "手番終了", "en": "End the turn"},
    "act.attack": {"ja": "アタック: {card}《{skill}》", "en": "Attack: {card} ({skill})"},
    "act.counter": {"ja": "カウンター: {card}《{skill}》", "en": "Counter: {card} ({skill})"},
    # the card alone: its range skill is declared later, with the others (RULINGS R22)
    "act.attack_card": {"ja": "アタック: {card}（次に距離を選ぶ: {ranges}）",
                        "en": "Attack: {card} (then choose the range: {ranges})"},
    "act.counter_card": {"ja": "カウンター: {card}（次に距離を選ぶ: {ranges}）",
                         "en": "Counter: {card} (then choose the range: {ranges})"},
    "act.activate": {"ja": "継続スキル《{skill}》", "en": "Activate {skill}"},
    "act.declare": {"ja": "スキル宣言《{skill}》（魔力{mana}）", "en": "Declare {skill} (mana {mana})"},
    "act.declare_card": {"ja": "スキル宣言《{skill}》（{card}、魔力{mana}）",
                         "en": "Declare {skill} ({card}, mana {mana})"},
    "act.done": {"ja": "宣言終了", "en": "Done"},
    "act.done_targets": {"ja": "ターゲット決定", "en": "Done choosing targets"},
    # (the prompt says "choose targets": each option names the seat, so that it and its
    # ★critical mark fit on one line of the action list)
    "act.target": {"ja": "{seat}（エリア{area}・体力{hp}）", "en": "{seat} (area {area}, HP {hp})"},
    "act.area": {"ja": "エリア{area}を選ぶ", "en": "Choose area {area}"},
    "act.unluck": {"ja": "アンラックを使う（ミスなし、最大3枚）", "en": "Use unluck (no miss, at most 3 chips)"},
    "act.keep_unluck": {"ja": "使わない", "en": "Keep the unluck chips"},
    "act.draw": {"ja": "もう1枚引く", "en": "Draw another chip"},
    "act.stop": {"ja": "ここで止める", "en": "Stop here"},
    "act.no_counter": {"ja": "カウンターしない", "en": "Do not counter"},
    "stage.turn": {"ja": "手番: 行動を選んでください", "en": "Your turn: choose an action"},
    "stage.skills": {"ja": "使うスキルを宣言", "en": "Declare skills"},
    "stage.range": {"ja": "距離のスキルと使うスキルを宣言", "en": "Declare the range and skills"},
    "stage.targets": {"ja": "ターゲットを選ぶ", "en": "Choose targets"},
    "stage.defense": {"ja": "防御スキルを宣言", "en": "Declare defense skills"},
    "stage.unluck": {"ja": "アンラックを使いますか？", "en": "Use unluck?"},
    "stage.draw": {"ja": "引き続けますか？", "en": "Draw on?"},
    "stage.counter": {"ja": "カウンターしますか？", "en": "Counter?"},
    # game over
    "over.title": {"ja": "ゲーム終了", "en": "Game over"},
    "over.standings": {"ja": "順位", "en": "Standings"},
    "over.history": {"ja": "勝利点の推移", "en": "VP history"},
    "over.winner": {"ja": "勝者: {who}", "en": "Winner: {who}"},
    "over.gain": {"ja": " {n}. {seat} +{amount} → 計{vp}（{why}: {target}）",
                  "en": " {n}. {seat} +{amount} → {vp} ({why}: {target})"},
    "help.title": {"ja": "ヘルプ", "en": "Help"},
    "save.bad": {"ja": "保存ファイルを開けません: {problem}（ファイルはそのままです）",
                 "en": "Cannot open the save file: {problem} (the file is left as it is)"},
    "save.warn": {"ja": "保存できません: {problem}（ゲームは続けられます）",
                  "en": "Cannot save: {problem} (play goes on)"},
    "save.works": {"ja": "また保存できるようになりました（ここまでのゲームは保存済みです）",
                   "en": "Saving works again (the game so far is saved)"},
    "undo.done": {"ja": "あなたの前の判断まで戻しました", "en": "Back to your previous decision"},
    "undo.none": {"ja": "戻せる判断がありません（人間の席が1つのゲームだけ）",
                  "en": "Nothing to undo (only in games with one human seat)"},
    "replay.saved": {"ja": "リプレイを保存しました: {path}", "en": "Replay saved: {path}"},
    # the table (tactical_tui.table.live): undo refusals, the header, the recap
    "undo.undo_nothing": {"ja": "戻せる判断がありません", "en": "Nothing to undo: you have not decided anything yet"},
    "undo.undo_not_human": {"ja": "この席は戻せません（AIの席です）", "en": "This seat cannot undo (it is an AI seat)"},
    "undo.undo_game_over": {"ja": "ゲームは終了しています。戻せません", "en": "The game is over: nothing can be undone"},
    "undo.undo_other_human": {"ja": "戻せません: そのあと{seat}が判断しました",
                              "en": "Cannot undo: {seat} has decided since"},
    "undo.undo_another": {"ja": "戻せません: そのあとほかのプレイヤーが判断しました",
                          "en": "Cannot undo: another player has decided since"},
    "undo.undo_chip": {"ja": "戻せません: そのあとチップが引かれました（偶然の結果は取り消せません）",
                       "en": "Cannot undo: a chip has been drawn since (a chance outcome is final)"},
    "undo.undo_die": {"ja": "戻せません: そのあとダイスが振られました（偶然の結果は取り消せません）",
                      "en": "Cannot undo: a die has been rolled since (a chance outcome is final)"},
    "undo.undo_reshuffle": {"ja": "戻せません: そのあと山札が切り直されました",
                            "en": "Cannot undo: a deck has been reshuffled since"},
    "undo.undo_cards": {"ja": "戻せません: そのあと新しいカードが配られました（手札が回されました）",
                        "en": "Cannot undo: new cards have been dealt or passed since"},
    "undo.undo_targets": {"ja": "戻せません: そのあと新しい入札対象が公開されました",
                          "en": "Cannot undo: new bid targets have been revealed since"},
    "undo.undo_bids": {"ja": "戻せません: そのあと入札が公開されました",
                       "en": "Cannot undo: the bids have been revealed since"},
    "undo.undo_builds": {"ja": "戻せません: そのあとビルドが公開されました",
                         "en": "Cannot undo: the builds have been revealed since"},
    "undo.undo_materialized": {"ja": "戻せません: マテリアル化したカードは表向きで捨て山にあり、ほかの席にも見えています",
                               "en": "Cannot undo: a materialized card lies face up in the discard, seen by every seat"},
    "undo.table_closed": {"ja": "このゲームは閉じられています", "en": "This game is closed"},
    "refused.wrong_seat": {"ja": "この画面からは{seat}の行動は送れません",
                           "en": "This view cannot act for {seat}"},
    "end.ask": {"ja": "合意でゲームを終えますか？勝者なしで終わります。",
                "en": "End the game by agreement? It ends with no winner."},
    "end.ask_others": {"ja": "合意による終了を提案しますか？ほかの人間の席も全員同意すると、勝者なしで終わります。",
                       "en": "Propose to end the game by agreement? When every other human seat agrees too, it ends with no winner."},
    "end.proposal": {"ja": "{who}が合意による終了（勝者なし）を提案しています。同意するには Ctrl+P →「合意でゲームを終える」",
                     "en": "{who} proposes to end the game by agreement (no winner). To agree: Ctrl+P → End the game by agreement"},
    "end.proposed": {"ja": "合意による終了を提案しました。ほかの席の同意を待っています",
                     "en": "You proposed to end the game by agreement; waiting for the other seats"},
    "refused.end_not_now": {"ja": "合意による終了はバトル中だけ提案できます",
                            "en": "Ending by agreement can be proposed in the battle only"},
    "refused.table_closed": {"ja": "このゲームは閉じられています", "en": "This game is closed"},
    "status.waiting_for": {"ja": "{who}を待っています: {what}", "en": "Waiting for {who}: {what}"},
    "status.seats": {"ja": "{n}席", "en": "{n} seats"},
    "status.seats.one": {"ja": "{n}席", "en": "{n} seat"},
    "status.waiting_ai": {"ja": "{who}を待っています · AI: {what}", "en": "Waiting for {who} · AI: {what}"},
    "doing.draft_pick": {"ja": "カードを選択中", "en": "picking a card"},
    "doing.bid": {"ja": "入札中", "en": "bidding"},
    "doing.auction": {"ja": "《競売》を検討中", "en": "deciding on Auction"},
    "doing.payment": {"ja": "支払いを選択中", "en": "choosing a payment"},
    "doing.appraisal": {"ja": "《鑑定》を検討中", "en": "deciding on Appraisal"},
    "doing.build": {"ja": "ビルド中", "en": "building"},
    "doing.reveal_fix": {"ja": "ビルドを修正中", "en": "fixing the build"},
    "doing.turn": {"ja": "行動を選択中", "en": "choosing an action"},
    "doing.skills": {"ja": "スキルを宣言中", "en": "declaring skills"},
    "doing.targets": {"ja": "ターゲットを選択中", "en": "choosing targets"},
    "doing.defense": {"ja": "防御スキルを宣言中", "en": "declaring defense"},
    "doing.unluck": {"ja": "アンラックを検討中", "en": "deciding on unluck"},
    "doing.draw": {"ja": "チップを引いています", "en": "drawing chips"},
    "doing.counter": {"ja": "カウンターを検討中", "en": "deciding on a counter"},
    "doing.over": {"ja": "ゲーム終了", "en": "the game is over"},
    "recap": {"ja": "前回の判断から: {what}", "en": "Since your last decision: {what}"},
    "recap.damage": {"ja": "{seat}から{n}ダメージ（体力{hp}）", "en": "{seat} hit you for {n} (HP {hp})"},
    "recap.knocked_out": {"ja": "{seat}にノックアウトされた", "en": "knocked out by {seat}"},
    "recap.reentered": {"ja": "エリア{area}に再入場", "en": "re-entered at area {area}"},
    "recap.vp": {"ja": "{seat}が勝利点+{n}（計{vp}）", "en": "{seat} +{n} VP ({vp} in all)"},
    # `tactical join`: the lobby, the connection, the chat (tactical_tui/screens/online/lobby.py)
    "key.create": {"ja": "作成", "en": "Create"},
    "key.join": {"ja": "参加", "en": "Join"},
    "key.watch": {"ja": "観戦", "en": "Watch"},
    "key.refresh": {"ja": "更新", "en": "Refresh"},
    "key.chat": {"ja": "チャット", "en": "Chat"},
    "key.seats": {"ja": "席を選ぶ", "en": "Seats"},
    "key.lobby": {"ja": "ロビー", "en": "Lobby"},
    "key.retry": {"ja": "再試行", "en": "Retry"},
    "join.topbar": {"ja": "TACTICAL — ロビー  {name} @ {address}", "en": "TACTICAL — Lobby  {name} @ {address}"},
    "join.connecting": {"ja": "{address} に接続しています…", "en": "Connecting to {address}…"},
    "join.no_server": {"ja": "{address} で待ち受けているサーバーがありません（{why}）。"
                             "サーバーは {launcher} host で起動します。",
                       "en": "Nothing is listening at {address} ({why}). "
                             "Start a server with: {launcher} host"},
    "join.bad_name": {"ja": "名前は表示できる文字1〜24字です（前後に空白なし、結合文字で始めず、続けるのは8個まで）: 「{name}」",
                      "en": "A name is 1 to 24 printable characters, no spaces at either end, not "
                            "starting with a combining mark nor stacking more than 8: \"{name}\""},
    "join.bad_address": {"ja": "接続先が読めません: {address}（HOST、HOST:PORT、[IPv6]:PORT）",
                         "en": "Cannot read the address {address} (HOST, HOST:PORT or [IPv6]:PORT)"},
    "join.retry": {"ja": "r: 再試行", "en": "r: try again"},
    "join.hello_refused": {"ja": "サーバーに接続を断られました: {why}",
                           "en": "The server refused the connection: {why}"},
    "join.not_tactical": {"ja": "{address} はTACTICALのサーバーではありません",
                          "en": "{address} is not a TACTICAL server"},
    "join.no_tables": {"ja": "テーブルはまだありません。c で作成します。",
                       "en": "No tables yet. Press c to create one."},
    "join.tables": {"ja": "テーブル{n}件（Enter: 席を選ぶ・観戦）", "en": "{n} tables (Enter: choose a seat or watch)"},
    "join.tables.one": {"en": "1 table (Enter: choose a seat or watch)"},
    "join.table": {"ja": "テーブル {table}  {phase}", "en": "Table {table}  {phase}"},
    "join.private": {"ja": "非公開", "en": "private"},
    "join.code": {"ja": "参加コード {code}", "en": "join code {code}"},
    "join.waiting_mark": {"ja": "[参加者待ち・空席{n}]", "en": "[waiting for players · {n} open]"},
    "join.rules": {"ja": "持ち時間 {clock}・代行まで {grace}・代行AI {takeover}",
                   "en": "clock {clock} · AI after {grace} · takeover AI {takeover}"},
    "join.wait.title": {"ja": "テーブル {table}: 参加者を待っています", "en": "Table {table}: waiting for players"},
    "join.wait.code": {"ja": "参加コード: {code}（一緒に遊ぶ人に伝えてください）",
                       "en": "Join code: {code} (give it to the people you play with)"},
    "join.wait.owner": {"ja": "←→で席と設定を変更し、「開始」でEnter。全席が埋まると自動で始まります。"
                              "開始時の空席は代行AIがプレイし、あとから座れます。Esc: テーブルを離れる",
                        "en": "←→ changes a seat or a setting; Enter on Start begins the game. It "
                              "starts by itself once every seat is taken; seats still open are played "
                              "by the takeover AI and can be taken later. Esc leaves the table."},
    "join.wait.guest": {"ja": "{owner}が開始するか、全席が埋まるとゲームが始まります。"
                              "Esc: テーブルを離れる（席は空きます）",
                        "en": "The game begins when {owner} starts it, or once every seat is taken. "
                              "Esc leaves the table (your seat is open again)."},
    "join.wait.watcher": {"ja": "{owner}が開始するか、全席が埋まるとゲームが始まります（観戦中）。Esc: ロビーへ",
                          "en": "The game begins when {owner} starts it, or once every seat is taken "
                                "(you are watching). Esc: the lobby."},
    "join.wait.nobody": {"ja": "作成者", "en": "its creator"},
    "join.wait.start": {"ja": "▶ 開始（空席はAIが代行）", "en": "▶ Start (open seats: the AI plays)"},
    "join.wait.gone": {"ja": "テーブル {table} はなくなりました（開始されないまま時間が過ぎました）",
                       "en": "Table {table} is gone (nobody started it in time)"},
    "join.wait.begins": {"ja": "ゲームが始まります — {rules}", "en": "The game begins — {rules}"},
    "join.phase_over": {"ja": "終了", "en": "over"},
    "join.ai_level": {"ja": "AI（{level}）", "en": "AI ({level})"},
    "join.you": {"ja": "あなた", "en": "you"},
    "join.choose": {"ja": "テーブル {table}: 席を選ぶか観戦します", "en": "Table {table}: choose a seat, or watch"},
    "join.sit": {"ja": "席{n}に座る", "en": "Sit at seat {n}"},
    "join.watch": {"ja": "観戦する", "en": "Watch"},
    "join.back_to": {"ja": "自分の席{n}に戻る", "en": "Back to your seat {n}"},
    "join.back_at_seat": {"ja": "テーブル {table} の{seat}に戻りました", "en": "Back at {seat} of table {table}"},
    "join.no_open": {"ja": "このテーブルに空席はありません", "en": "This table has no open seat"},
    "join.code_ask": {"ja": "テーブル {table} の参加コード（Enterで決定、Escで取消）:",
                      "en": "Join code of table {table} (Enter: go on, Esc: cancel):"},
    "join.code_again": {"ja": "{why}。もう一度入力してください — テーブル {table} の参加コード（Escで取消）:",
                        "en": "{why}. Try again — join code of table {table} (Esc: cancel):"},
    "join.created": {"ja": "非公開テーブル {table} を作りました。参加コード: {code}",
                     "en": "Private table {table} created. Join code: {code}"},
    "join.create.title": {"ja": "テーブルの作成（←→・Enterで変更、▶の行でEnterを押すと作成）",
                          "en": "New table (←→ or Enter changes a row; Enter on ▶ creates it)"},
    "join.create.seats": {"ja": "席の数", "en": "Seats"},
    "join.create.open": {"ja": "空席（人が座る）", "en": "Open (for a person)"},
    "join.create.private": {"ja": "非公開（参加コードで参加）", "en": "Private (join by code)"},
    "join.create.clock": {"ja": "持ち時間（1判断）", "en": "Turn clock (per decision)"},
    "join.create.grace": {"ja": "切断した席をAIが代行するまで", "en": "AI plays a dropped seat after"},
    "join.create.takeover": {"ja": "代行するAI", "en": "Takeover AI"},
    "join.create.clock_off": {"ja": "なし", "en": "off"},
    "join.create.seconds": {"ja": "{n}秒", "en": "{n} s"},
    "join.create.go": {"ja": "▶ 作成して座る", "en": "▶ Create and sit down"},
    "join.create.watch": {"ja": "▶ 作成して観戦（空席なし）", "en": "▶ Create and watch (no open seat)"},
    "join.refused": {"ja": "サーバーが断りました: {why}", "en": "The server refused: {why}"},
    "join.refused.connection_lost": {"ja": "送れませんでした: サーバーとの接続が切れています",
                                     "en": "Not sent: the connection to the server is down"},
    "join.refused.no_answer": {"ja": "サーバーから応答がありません",
                               "en": "No answer from the server"},
    "join.refused.bad_answer": {"ja": "サーバーから、この版では読めない応答が届きました",
                                "en": "The server sent something this version cannot read"},
    "join.unreadable": {"ja": "サーバーから、この版では読めないメッセージが届き、捨てました。画面が最新でないかもしれません（TACTICALを更新してください。テーブルにいるなら、入り直すと最新になります）",
                        "en": "The server sent a message this version cannot read; it was dropped, so the screen may be out of date (update TACTICAL; at a table, leaving it and joining again brings it up to date)"},
    "join.list_refused": {"ja": "サーバーがテーブルの一覧を断りました: {why}",
                          "en": "The server refused the table list: {why}"},
    "join.lost": {"ja": "接続が切れました — {n}秒後に再接続します…",
                  "en": "Connection lost — reconnecting in {n} s…"},
    "join.host_stopped": {"ja": "ホストが停止しました。席はあなたのままです — 再接続を待っています（{n}秒後）…",
                          "en": "The host has stopped; your seat stays yours — reconnecting (next try in {n} s)…"},
    "join.lost_now": {"ja": "接続が切れました — 再接続しています…", "en": "Connection lost — reconnecting…"},
    "join.back": {"ja": "再接続しました", "en": "Reconnected"},
    "join.closed": {"ja": "{why} — 接続は終わりました（Ctrl+Cで終了）",
                    "en": "{why} — no longer connected (Ctrl+C quits)"},
    "join.rejoin_refused": {"ja": "テーブル {table} に戻れませんでした: {why}",
                            "en": "Could not go back to table {table}: {why}"},
    "join.chat_ask": {"ja": "チャット（Enterで送信、Escで取消）:", "en": "Chat (Enter sends, Esc cancels):"},
    "join.chat_bad": {"ja": "送れません: 制御文字を含む行です", "en": "Not sent: the line holds control characters"},
    "join.chat_long": {"ja": "送れません: 1行は{n}セル幅までです", "en": "Not sent: a line is at most {n} cells wide"},
    "join.chat_marks": {"ja": "送れません: 結合文字の連続は{n}個までです",
                        "en": "Not sent: at most {n} combining marks in a row"},
    "join.chat_clusters": {"ja": "送れません: 1行は{n}文字までです",
                           "en": "Not sent: a line is at most {n} characters"},
    "join.chat_line": {"ja": "» {who}（{mark}）: {text}", "en": "» {who} ({mark}): {text}"},
    "join.spectator": {"ja": "観戦者", "en": "spectator"},
    "join.watching": {"ja": "テーブル {table} を観戦中", "en": "Watching table {table}"},
    "join.help": {"ja": "ロビー: ↑↓でテーブルを選び、Enterで席を選ぶか観戦。j=最初の空席に座る  w=観戦  "
                        "c=テーブルを作る  r=一覧を更新  Ctrl+C=終了\n"
                        "非公開のテーブルには参加コードが要ります（作った人に表示されます）。\n"
                        "新しいテーブルは参加者を待ちます: 作った人が「開始」するか、全席が埋まると始まります"
                        "（開始時の空席は代行AIがプレイし、あとから座れます）。\n"
                        "ゲーム中: /=チャット（1行、Enterで送信）。ほかのキーはひとりで遊ぶときと同じです。"
                        "ヒント（h・H）はあなたの席に見えていることだけから計算されます。\n"
                        "接続が切れると上に表示が出て、自動でつなぎ直し、同じ席に戻ります。"
                        "戻るまでの間（テーブルの設定、ふつう60秒）を過ぎるとAIが代わりに打ち、"
                        "戻れば次の判断からまたあなたの番です。ターミナルを閉じても、同じ名前で "
                        "tactical join すれば（sshで入った場合は同じ鍵でもう一度sshすれば）席に戻れます。",
                  "en": "Lobby: ↑↓ to choose a table, Enter to choose a seat or watch. j = sit at the first "
                        "open seat  w = watch  c = create a table  r = refresh the list  Ctrl+C = quit\n"
                        "A private table needs its join code (shown to whoever created it).\n"
                        "A new table waits for its players: it begins when its creator starts it, or "
                        "once every seat is taken (seats still open are then played by the takeover "
                        "AI, and can be taken later).\n"
                        "In a game: / = chat (one line, Enter sends). Every other key is as in a game of "
                        "your own. Hints (h, H) come from what your seat may see only.\n"
                        "If the connection drops, a banner says so; the game reconnects by itself and "
                        "you are back at your seat. After the table's grace (60 s unless set) an AI plays "
                        "your seat until you are back, at your next decision. If your terminal went away, "
                        "tactical join again with the same name (or, if you came in by ssh, the same ssh "
                        "again) takes you back to your seat."},
    # the command goes on a line of its own (an 80-column terminal broke it in two)
    "join.exit_line": {"ja": "テーブル {table} の席はあなたのままです。戻るには:",
                       "en": "Your seat at table {table} is kept. Back to it with:"},
    "join.exit_line_ssh": {"ja": "テーブル {table} の席はあなたのままです。戻るには、もう一度ログインします:",
                           "en": "Your seat at table {table} is kept. Back to it: log in again with"},
    "join.seat_who": {"ja": "{who}（{state}）", "en": "{who} ({state})"},
    "join.seat_line": {"ja": "{who}  {what}", "en": "{who}  {what}"},
    "key.undo": {"ja": "戻す", "en": "Undo"},
    "key.prev": {"ja": "前へ", "en": "Back"},
    "key.next": {"ja": "次へ", "en": "Forward"},
    "key.export": {"ja": "書き出し", "en": "Export"},
    "key.replay_first": {"ja": "最初", "en": "First"},
    "key.replay_last": {"ja": "最後", "en": "Last"},
    "key.save_replay": {"ja": "リプレイ保存", "en": "Save replay"},
    # the table server (tactical host, tactical_tui/net/server.py): refusal codes of the
    # protocol (docs/PROTOCOL.md), bye codes, seat statuses, the host's own lines
    "net.refused.bad_frame": {"ja": "読めないメッセージです（JSONのオブジェクトではありません）",
                              "en": "Unreadable message (not a JSON object)"},
    "net.refused.bad_message": {"ja": "メッセージの形が正しくありません（{field}）",
                                "en": "Malformed message ({field})"},
    "net.refused.hello_first": {"ja": "最初に挨拶（hello）が必要です", "en": "Say hello first"},
    "net.refused.hello_twice": {"ja": "挨拶はもう済んでいます", "en": "Hello was already said"},
    "net.refused.bad_version": {"ja": "サーバーのプロトコルの版が違います（サーバー: {server}）",
                                "en": "The server speaks another protocol version ({server})"},
    "net.refused.bad_id": {"ja": "要求の番号は増えていく必要があります",
                           "en": "Request ids must increase"},
    "net.refused.no_table": {"ja": "そのテーブルはありません", "en": "There is no such table"},
    "net.refused.no_such_seat": {"ja": "その席はありません", "en": "There is no such seat"},
    "net.refused.bad_token": {"ja": "席の合言葉（トークン）が違います",
                              "en": "Wrong seat token"},
    "net.refused.bad_code": {"ja": "参加コードが違います", "en": "Wrong join code"},
    "net.refused.not_started": {"ja": "ゲームはまだ始まっていません", "en": "The game has not started yet"},
    "net.refused.started": {"ja": "ゲームはもう始まっています", "en": "The game has already started"},
    "net.refused.not_owner": {"ja": "テーブルを作った人だけができます",
                              "en": "Only the table's creator can do that"},
    "net.refused.already_seated": {"ja": "このテーブルにはもう席があります",
                                   "en": "You already have a seat at this table"},
    "net.refused.no_open_seat": {"ja": "空いている席がありません", "en": "No seat is open"},
    "net.refused.seat_taken": {"ja": "その席には別のプレイヤーがいます",
                               "en": "Another player has that seat"},
    "net.refused.seat_is_ai": {"ja": "その席はAIの席です", "en": "That seat is an AI seat"},
    "net.refused.not_seated": {"ja": "このテーブルに席がありません",
                               "en": "You have no seat at this table"},
    "net.refused.not_your_seat": {"ja": "あなたの席の行動ではありません",
                                  "en": "That action is not for your seat"},
    "net.refused.ai_playing": {"ja": "AIが代わりに判断中です。次の判断から戻れます",
                               "en": "The AI is playing your seat; it is yours again at your next decision"},
    "net.refused.not_at_table": {"ja": "このテーブルに参加していません",
                                 "en": "You are not at this table"},
    "net.refused.chat_too_fast": {"ja": "チャットが速すぎます", "en": "Chatting too fast"},
    "net.refused.chat_busy": {"ja": "このテーブルの観戦者のチャットが多すぎます。{retry}秒ほど待ってください",
                              "en": "Too much chat from this table's spectators; wait {retry} s or so"},
    "net.refused.rate_limited": {"ja": "要求が速すぎます。{retry}秒ほど待ってください",
                                 "en": "Too many requests; wait {retry} s or so"},
    "net.refused.too_many_guesses": {"ja": "参加コードの誤りが多すぎます。{retry}秒ほど待ってください",
                                     "en": "Too many wrong join codes; wait {retry} s or so"},
    "net.refused.too_many_tables": {"ja": "テーブルが多すぎます（最大{limit}）",
                                    "en": "Too many tables (at most {limit})"},
    "net.refused.frame_too_large": {"ja": "メッセージが大きすぎます（最大{limit}バイト）",
                                    "en": "Message too large (at most {limit} bytes)"},
    "net.refused.server_error": {"ja": "サーバーの内部エラーです", "en": "Internal server error"},
    "net.refused.save_failed": {"ja": "ホストがいまこのテーブルを保存できないため、受け付けられません"
                                      "（保存できるようになれば再開します）",
                                "en": "The host cannot save this table right now, so it takes "
                                      "nothing (play resumes once saving works again)"},
    "net.table.paused": {"ja": "* ホストがこのテーブルを保存できません。保存できるようになるまで"
                               "ゲームは止まります（ここまでの行動は失われず、持ち時間も進みません）",
                         "en": "* The host cannot save this table: play stops until it can "
                               "(nothing played so far is lost; no clock runs meanwhile)"},
    "net.table.paused_other": {"ja": "* このテーブルは一時停止しています（{code}）",
                               "en": "* This table is paused ({code})"},
    "net.table.resumed": {"ja": "* ホストが再びこのテーブルを保存できます。ゲームを再開します",
                          "en": "* The host can save this table again: play goes on"},
    "join.paused": {"ja": "一時停止: ホストがこのテーブルを保存できません（再試行中）",
                    "en": "Paused: the host cannot save this table (it keeps trying)"},
    "join.paused_other": {"ja": "一時停止中（{code}）", "en": "Paused ({code})"},
    "join.paused_mark": {"ja": "[一時停止中]", "en": "[paused]"},
    "net.bye.too_many_errors": {"ja": "不正なメッセージが多すぎるため切断されました",
                                "en": "Disconnected: too many bad messages"},
    "net.bye.server_stopping": {"ja": "サーバーが停止します", "en": "The server is stopping"},
    "net.bye.idle": {"ja": "応答がないため切断されました", "en": "Disconnected: idle"},
    "net.bye.server_full": {"ja": "サーバーの接続数が上限に達しています",
                            "en": "The server is full (too many connections)"},
    "net.bye.too_many_connections": {"ja": "この場所からの接続が多すぎます",
                                     "en": "Too many connections from this address"},
    "net.bye.unknown": {"ja": "サーバーに切断されました（{code}）",
                        "en": "Disconnected by the server ({code})"},
    "net.bye.none": {"ja": "サーバーとの接続が終わりました", "en": "The server ended the connection"},
    "net.bye.replaced": {"ja": "別の接続がこの席を引き継ぎました",
                         "en": "Another connection took this seat over"},
    "net.quit.seat": {"ja": "テーブルを離れますか？ {seat}はあなたのままです。戻るには{how}:\n  {command}\n"
                            "戻るまでの間、AIが代わりにプレイします。",
                      "en": "Leave the table? {seat} stays yours. To come back, {how}:\n  {command}\n"
                            "Until then, the AI plays it for you."},
    "net.quit.waiting": {"ja": "テーブルを離れますか？ ゲームはまだ始まっていないので、席は空きます。",
                         "en": "Leave the table? The game has not started: your seat is open again."},
    "net.quit.over": {"ja": "終了しますか？（このゲームは終わっています）", "en": "Quit? (This game is over.)"},
    "net.how.ssh": {"ja": "もう一度ログインします", "en": "log in again"},
    "net.how.join": {"ja": "次を実行します", "en": "run"},
    "net.seat.dropped": {"ja": "* {seat}（{who}）の接続が切れました。戻らなければAIが代行します",
                         "en": "* {seat} ({who}) lost the connection; the AI plays it if they are not back soon"},
    "net.seat.left": {"ja": "* {seat}（{who}）がテーブルを離れました。戻るまでAIが代行します",
                      "en": "* {seat} ({who}) left the table; the AI plays it until they come back"},
    "net.seat.left_over": {"ja": "* {seat}（{who}）がテーブルを離れました", "en": "* {seat} ({who}) left the table"},
    "net.seat.gave_up": {"ja": "* {who}が{seat}を離れました（空席になりました）",
                         "en": "* {who} left {seat} (it is open again)"},
    "net.seat.takeover": {"ja": "* {seat}（{who}）をAIが代行します（戻るまで）",
                          "en": "* The AI plays {seat} ({who}) until they come back"},
    "net.seat.back": {"ja": "* {seat}（{who}）が戻りました", "en": "* {seat} ({who}) is back"},
    "net.seat.sat": {"ja": "* {who}が{seat}に座りました", "en": "* {who} sits down at {seat}"},
    "net.status.open": {"ja": "空席", "en": "open"},
    "net.status.connected": {"ja": "接続中", "en": "connected"},
    "net.status.disconnected": {"ja": "切断中", "en": "disconnected"},
    "net.status.left": {"ja": "退席", "en": "left"},
    "net.status.ai_takeover": {"ja": "AIが代行中", "en": "AI takeover"},
    "net.status.ai": {"ja": "AI", "en": "AI"},
    "net.host.serving": {"ja": "tactical host: {address} で待ち受け中（再開したテーブル {n} 卓、保存先 {folder}）。Ctrl+C で停止",
                         "en": "tactical host: serving on {address} ({n} tables resumed, kept in {folder}). Ctrl+C stops"},
    "net.host.serving.one": {"ja": "tactical host: {address} で待ち受け中（再開したテーブル {n} 卓、保存先 {folder}）。Ctrl+C で停止",
                             "en": "tactical host: serving on {address} ({n} table resumed, kept in {folder}). Ctrl+C stops"},
    "net.host.locked": {"ja": "別の tactical host が {folder} を使っています",
                        "en": "Another tactical host serves {folder}"},
    "net.host.folder_owner": {"ja": "{folder} は別のユーザー（uid {uid}）のフォルダーです。"
                                    "ホストは自分のユーザーのフォルダーにだけテーブルを置きます（--dir で別のフォルダーを指定できます）",
                              "en": "{folder} belongs to another user (uid {uid}): the host keeps "
                                    "its tables only in a folder of its own user (--dir chooses another)"},
    "net.host.folder_open": {"ja": "{folder} には誰でも書き込めます（モード {mode}）。"
                                   "他のユーザーが置いたファイルがあるかもしれないので使いません。"
                                   "中身を確かめて chmod 700 するか、--dir で別のフォルダーを指定してください",
                             "en": "Anyone may write in {folder} (mode {mode}), so others may have "
                                   "put files there: it is not used. Check what is in it and "
                                   "chmod 700 it, or choose another folder with --dir"},
    "net.host.folder_error": {"ja": "{folder} をホストのフォルダーにできません: {detail}",
                              "en": "{folder} cannot be the host's folder: {detail}"},
    "net.host.bind_failed": {"ja": "{address} で待ち受けできません: {detail}",
                             "en": "Cannot listen on {address}: {detail}"},
    "net.host.no_ssh": {"ja": "SSHの入口を開けません: {detail}",
                        "en": "Cannot open the SSH front door: {detail}"},
}


def t(key: str, lang: str, **kw: object) -> str:
    if kw.get("n") == 1 and lang in TUI.get(key + ".one", {}):
        key += ".one"
    table = TUI.get(key) or _ui()[key]
    return table.get(lang, table["en"]).format(**kw)


ELLIPSIS = "…"


def clip(text: str, width: int, marker: str = ELLIPSIS) -> str:
    """`text` in at most `width` terminal cells (Japanese is double-width): whole if it
    fits, else cut by cell width and ended with `marker`, so a cut is always visible."""
    if cell_len(text) <= width:
        return text
    limit = width - cell_len(marker)
    if limit < 0:
        return marker[:max(0, width)]
    out = []
    used = 0
    for ch in text:
        w = cell_len(ch)
        if used + w > limit:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + marker


def pad(text: str, width: int) -> str:
    """`text` padded to exactly `width` cells, or cut with a visible "…" (see `clip`)."""
    text = clip(text, width)
    return text + " " * (width - cell_len(text))


# ------------------------------------------------------------------ line breaking
# Japanese line breaking (禁則処理, after JIS X 4051): no line starts with a closing
# bracket, a comma or full stop, a small kana, a prolonged-sound mark, an iteration mark or
# a middle dot; no line ends with an opening bracket. A run of katakana (a loan word such
# as カード), a kanji compound (入札対象) and a run of Latin letters and digits (Enter,
# HP6, 1/2) are never split, and neither is a phrase given in `keep` (card and skill
# names, the glossary's terms) that fits on one line.
NO_START = frozenset("、。，．,.）)」』】〕〉》］]｝}〙〗・･:：;；?？!！‼ー―‐…‥ぁぃぅぇぉっゃゅょゎゕゖ"
                     "ァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ々〻ゝゞヽヾ〜～%％’”=＝")
NO_END = frozenset("（(「『【〔〈《［[｛{〘〖‘“=＝")


def _katakana(ch: str) -> bool:
    return ("\u30a0" <= ch <= "\u30ff" and ch != "・") or "\uff66" <= ch <= "\uff9f" \
        or "\u31f0" <= ch <= "\u31ff"


def _kanji(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or ch in "々〆"


def _breaks(text: str, keep: Iterable[str], width: int) -> list[bool]:
    """allowed[i]: a line may break before text[i] (0 < i < len(text))."""
    n = len(text)
    allowed = [False] * (n + 1)
    for i in range(1, n):
        a, b = text[i - 1], text[i]
        if a == " " or b == " ":
            ok = True
        elif cell_len(a) == 2 or cell_len(b) == 2:     # next to a wide (CJK) character
            # not inside a katakana word, nor between a number and its word (3枚, 体力6)
            # nor inside a kanji compound (入札, 武器入札)
            ok = not (_katakana(a) and _katakana(b)) and not (_kanji(a) and _kanji(b)) \
                and not (a.isdigit() or b.isdigit())
        else:                                          # inside a Latin word
            ok = False
        if a in NO_END:
            ok = False
        elif b in NO_START:                            # (after a space, "!n!" or "(x)"
            ok = a == " " and cell_len(b) == 1         # is a word of its own)
        allowed[i] = ok
    for phrase in sorted(set(keep), key=len, reverse=True):
        if not phrase or cell_len(phrase) > width:
            continue
        start = text.find(phrase)
        while start >= 0:
            for i in range(start + 1, start + len(phrase)):
                allowed[i] = False
            start = text.find(phrase, start + len(phrase))
    return allowed


def line_spans(text: str, width: int, keep: Iterable[str] = ()) -> list[tuple[int, int, int]]:
    """Break one paragraph into lines of at most `width` cells: (start, end, indent) per
    line, `indent` the spaces a continuation line starts with (the paragraph's own
    indent). Trailing spaces are dropped; a piece wider than a line is cut by cells."""
    if width <= 0 or cell_len(text) <= width:
        return [(0, len(text), 0)]
    lead = len(text) - len(text.lstrip(" "))
    indent = lead if lead * 2 < width else 0
    allowed = _breaks(text, keep, width - indent)
    chunks, start = [], 0
    for i in range(1, len(text)):
        if allowed[i]:
            chunks.append((start, i))
            start = i
    chunks.append((start, len(text)))
    spans: list[tuple[int, int, int]] = []
    line_start = line_end = None
    used, ind = 0, 0

    def emit() -> None:
        nonlocal line_start, line_end, used, ind
        if line_start is not None:
            end = line_end
            while end > line_start and text[end - 1] == " ":
                end -= 1
            spans.append((line_start, end, ind))
        line_start = line_end = None
        used, ind = 0, indent

    for a, b in chunks:
        piece = text[a:b]
        blank = not piece.strip(" ")
        if line_start is None and spans and blank:
            continue                                   # no spaces at a continuation's start
        w = cell_len(piece)
        if used + w <= width or (blank and line_start is not None):
            if line_start is None:
                line_start = a
            if used + w > width:                       # spaces past the edge: break here
                line_end = a
                emit()
                continue
            line_end = b
            used += w
            continue
        emit()
        while cell_len(text[a:b]) > width - ind:       # wider than a line: fold by cells
            cut, u = a, 0
            while cut < b and u + cell_len(text[cut]) <= width - ind:
                u += cell_len(text[cut])
                cut += 1
            while a + 1 < cut < b and (text[cut] in NO_START or text[cut - 1] in NO_END):
                cut -= 1                               # the fold keeps the rules too
            cut = max(cut, a + 1)
            spans.append((a, cut, ind))
            ind = indent
            a = cut
        line_start, line_end, used = a, b, ind + cell_len(text[a:b])
    emit()
    return spans or [(0, 0, 0)]


def break_lines(text: str, width: int, keep: Iterable[str] = ()) -> list[str]:
    """`text` (several paragraphs, one a line) as lines of at most `width` cells."""
    out = []
    for para in text.split("\n"):
        out += [" " * ind + para[a:b] for a, b, ind in line_spans(para, width, keep)]
    return out


class Wrapped:
    """A rich renderable: `text` broken into lines by `line_spans` at the width it is
    drawn in (Japanese line-breaking rules; `keep` phrases such as card names stay on one
    line), with its styles kept."""

    def __init__(self, text: Text, keep: Iterable[str] = ()) -> None:
        self.text = text
        self.keep = tuple(keep)

    def __str__(self) -> str:
        return self.text.plain

    @property
    def plain(self) -> str:
        return self.text.plain

    def lines(self, width: int) -> list[Text]:
        out = []
        for para in self.text.split("\n", allow_blank=True):
            for a, b, ind in line_spans(para.plain, width, self.keep):
                out.append(Text(" " * ind) + para[a:b] if ind else para[a:b])
        return out

    def widest(self) -> int:
        return max((cell_len(p) for p in self.text.plain.split("\n")), default=0)

    def visualize(self):
        """Textual's side (Static.update): a Visual that breaks the lines at the width
        the widget gets, and whose str() is the text."""
        return _visual_type()(self)

    def __rich_console__(self, console, options):
        body = Text("\n").join(self.lines(options.max_width))
        body.stylize(self.text.style)
        body.no_wrap = True
        body.overflow = "crop"
        yield body

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement
        widest = max((cell_len(p) for p in self.text.plain.split("\n")), default=0)
        return Measurement(min(widest, 8), widest)


_VISUAL: list = []


def _visual_type():
    """The Textual Visual of `Wrapped` (Textual imported only when a widget draws it)."""
    if _VISUAL:
        return _VISUAL[0]
    from textual.content import Content
    from textual.visual import Visual

    class WrappedVisual(Visual):
        def __init__(self, wrapped: Wrapped) -> None:
            self.wrapped = wrapped
            self._cache: tuple = (None, None)

        def content(self, width: int):
            if self._cache[0] != width:
                body = Text("\n").join(self.wrapped.lines(width))
                self._cache = (width, Content.from_rich_text(body))
            return self._cache[1]

        def render_strips(self, width, height, style, options):
            return self.content(width).render_strips(width, height, style, options)

        def get_optimal_width(self, rules, container_width: int) -> int:
            return self.wrapped.widest()

        def get_minimal_width(self, rules) -> int:
            return min(self.wrapped.widest(), 8)

        def get_height(self, rules, width: int) -> int:
            return self.content(width).get_height(rules, width)

        def __str__(self) -> str:
            return self.wrapped.plain

    _VISUAL.append(WrappedVisual)
    return WrappedVisual


def keep_names(cards, lang: str) -> frozenset:
    """The card, skill, race and guild names of `cards` in `lang` (kept whole on a line)."""
    key = (id(cards), lang)
    if key not in _KEEP:
        names = set()
        for group in (cards.defense, cards.attack, cards.races, cards.guilds):
            names.update(x.name.get(lang) for x in group)
        for c in cards.defense + cards.attack:
            names.update(s.name.get(lang) for s in c.skills)
        names.update(TERMS.get(lang, ()))
        _KEEP[key] = frozenset(n for n in names if n)
    return _KEEP[key]


def app_keep_names(app) -> frozenset:
    """The names kept whole on a line in `app`'s views: its card set in its language."""
    cards = getattr(app, "cards", None)
    return keep_names(cards, app.lang) if cards is not None else frozenset()


_KEEP: dict = {}
# the glossary's compound terms, kept whole on a line like the card names
TERMS = {"ja": ("開始プレイヤー", "獲得マテリアル", "利用可能マテリアル", "装備コスト", "入札価値", "入札対象", "アタックエリア",
                "クリティカルエリア", "クリティカルチップ", "アンラックチップ", "チップバッグ",
                "アタックカード", "ディフェンスカード", "ギルド特性", "最終能力値", "手の装備枠"),
         "en": ()}
