"""The command palette (Ctrl+P, Textual's convention): the game's commands by name, in
the player's language — new game, continue, language, AI pause, rules (the help), how to
play, theme, save replay, quit.

A command that makes no sense at the moment is absent (continue during a game), or is
listed with the reason it cannot run now (save replay before the game is over); running
it says that reason. The palette is not opened while the "please enlarge" overlay is up
(game keys do nothing there), Ctrl+C in it asks before quitting as everywhere else, and
when it closes the view follows the table again (`app.follow_table`).

Everything shown is plain text: the prompts are `rich.text.Text` (never parsed as
markup) and the help lines are escaped.

This module imports nothing from `rules` or `ai`: the title screen can open it.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Iterator, Optional

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from tactical_tui.text.safe import plain
from tactical_tui.settings import TEXTUAL_THEME, remember

DELAYS = (0.0, 0.3, 0.4, 0.6, 1.0, 2.0)

TEXT = {
    "placeholder": {"ja": "コマンドを検索…（Escで閉じる）", "en": "Search for a command… (Esc closes)"},
    "new": {"ja": "新しいゲーム", "en": "New game"},
    "new.help": {"ja": "設定画面へ（今のゲームは保存されたまま）",
                 "en": "To the setup screen (the current game stays saved)"},
    "continue": {"ja": "続きから", "en": "Continue"},
    "continue.help": {"ja": "保存中のゲームを選んで再開", "en": "Choose a saved game to take up again"},
    "lang": {"ja": "言語: English に切り替え", "en": "Language: switch to 日本語"},
    "lang.help": {"ja": "Language / 言語（設定に保存）", "en": "Language / 言語 (kept in the settings)"},
    "lang.done": {"ja": "言語: 日本語", "en": "Language: English"},
    "delay": {"ja": "AIの間: {s:.1f}秒", "en": "AI pause: {s:.1f} s"},
    "delay.help": {"ja": "入札とバトルで、変化が見えるAIの行動（入札・移動・ダメージ・勝利点）の後に待つ時間（今は{now:.1f}秒。fでとばせます）",
                   "en": "The wait after an AI action that shows a change (a bid, a move, damage, VP) in bidding and battle (now {now:.1f} s; f skips it)"},
    "delay.done": {"ja": "AIの間を{s:.1f}秒にしました", "en": "AI pause set to {s:.1f} s"},
    "rules": {"ja": "ルール（ヘルプ）", "en": "Rules (help)"},
    "rules.help": {"ja": "クイックリファレンスとこの画面のキー",
                   "en": "The quick reference and this screen's keys"},
    "howto": {"ja": "遊び方", "en": "How to play"},
    "howto.help": {"ja": "フェーズごとの説明（ゲームの目的・ドラフト・入札・ビルド・バトル・ギルド）",
                   "en": "A page per phase: goal, draft, bidding, build, battle, guilds"},
    "theme": {"ja": "テーマ: {name}", "en": "Theme: {name}"},
    "theme.dark": {"ja": "ダーク", "en": "dark"},
    "theme.light": {"ja": "ライト", "en": "light"},
    "theme.help": {"ja": "画面の配色（設定に保存）", "en": "The colours of the screens (kept in the settings)"},
    "theme.done": {"ja": "テーマ: {name}", "en": "Theme: {name}"},
    "replay": {"ja": "リプレイ保存", "en": "Save replay"},
    "replay.help": {"ja": "終わったゲームをリプレイファイルとして保存",
                    "en": "Keep the finished game as a replay file"},
    "replay.not_yet": {"ja": "リプレイ保存はゲーム終了後にできます",
                       "en": "A replay can be saved once the game is over"},
    "replay.no_game": {"ja": "リプレイ保存: 遊んでいるゲームがありません",
                       "en": "Save replay: there is no game being played"},
    "quit": {"ja": "終了", "en": "Quit"},
    "quit.help": {"ja": "TACTICALを終了（ゲームは保存済み）", "en": "Leave TACTICAL (the game is saved)"},
    "end": {"ja": "合意でゲームを終える", "en": "End the game by agreement"},
    "end.help": {"ja": "全員の人間の席が同意すると、勝者なしで終わります（ルールでは勝利点5だけがゲームを終えます）",
                 "en": "When every human seat agrees, the game ends with no winner (the rules end it only at 5 VP)"},
    "title": {"ja": "タイトルへ", "en": "Back to the title"},
    "title.help": {"ja": "今のゲームは保存されたまま", "en": "The current game stays saved"},
}


def ct(key: str, lang: str, **kw: object) -> str:
    table = TEXT[key]
    return table.get(lang, table["en"]).format(**kw)


# ---------------------------------------------------------------- the commands' effects

def apply_theme(app, name: str) -> None:
    """Our theme name ("dark"/"light") → Textual's built-in theme of that name."""
    app.theme = TEXTUAL_THEME.get(name, TEXTUAL_THEME["dark"])


def set_theme(app, name: str) -> None:
    apply_theme(app, name)
    remember(app, theme=name)
    app.notify(ct("theme.done", app.lang, name=ct("theme." + name, app.lang)))


def current_theme(app) -> str:
    return "light" if app.theme == TEXTUAL_THEME["light"] else "dark"


def switch_language(app) -> None:
    """The other language, for every screen: the menus are rebuilt by `app.set_lang`;
    a phase screen is shown anew (its keys and texts in the new language)."""
    new = "en" if app.lang == "ja" else "ja"
    app.set_lang(new)
    remember(app, lang=new)
    if app.phase_screen() is not None and app.viewer in app.feeds:
        app.show_update(app.feeds[app.viewer].latest, fresh=True)   # the viewer's seat, anew
    app.notify(ct("lang.done", new))


def resume_hook(app) -> Optional[Callable[[], None]]:
    """What the app runs when a dialog closes: the viewer's screen follows the table."""
    return app.follow_table


def set_delay(app, seconds: float) -> None:
    app.ai_delay = seconds
    if app.live is not None:                 # the table running now pauses so too
        app.live.ai_delay = seconds
    remember(app, ai_delay=seconds)
    app.notify(ct("delay.done", app.lang, s=seconds))


def in_game(app) -> bool:
    return getattr(app, "table", None) is not None


def game_over(app) -> bool:
    table = getattr(app, "table", None)
    return table is not None and bool(getattr(table, "over", False))


def in_battle(app) -> bool:
    """A game in its battle, not over, played from this terminal (not watched): where
    ending by agreement is offered."""
    feeds = getattr(app, "feeds", None) or {}
    if getattr(app, "viewer", None) is None:            # a spectator has no say
        return False
    latest = getattr(feeds.get(app.viewer), "latest", None)
    return latest is not None and not latest.over and latest.observation.phase == "battle" \
        and hasattr(getattr(app, "live", None), "agree_end")


def commands(app) -> Iterator[tuple[str, str, Callable[[], None], str]]:
    """(name, help, run, English name) of every command that means something now, in
    app.lang (the English name is searched too: "rules" finds ルール)."""
    lang = app.lang

    def item(key: str, run: Callable[[], None], help_: Optional[str] = None, **kw):
        return (ct(key, lang, **kw), help_ if help_ is not None else ct(key + ".help", lang, **kw),
                run, ct(key, "en", **kw))
    yield item("howto", partial(_howto, app))
    yield item("rules", app.action_help)
    yield item("new", app.action_new_game)
    if not in_game(app):
        yield item("continue", app.show_continue)
    else:
        yield item("title", app.action_back_to_title)
    yield item("lang", partial(switch_language, app))
    other = "light" if current_theme(app) == "dark" else "dark"
    name = ct("theme", lang, name=ct("theme." + other, lang))
    yield name, ct("theme.help", lang), partial(set_theme, app, other), \
        ct("theme", "en", name=ct("theme." + other, "en"))
    for s in DELAYS:
        if abs(s - app.ai_delay) > 1e-9:
            yield item("delay", partial(set_delay, app, s),
                       ct("delay.help", lang, now=app.ai_delay), s=s)
    if in_battle(app):
        yield item("end", app.action_end_by_agreement)
    if game_over(app):
        yield item("replay", app.action_save_replay)
    else:
        why = ct("replay.not_yet" if in_game(app) else "replay.no_game", lang)
        yield item("replay", partial(app.notify, why), why)
    yield item("quit", app.action_request_quit)


def _howto(app) -> None:
    from tactical_tui.screens.howto import show_howto
    show_howto(app)


class GameCommands(Provider):
    """The game's commands for Textual's command palette."""

    def _highlight(self, matcher, text: str) -> Text:
        """`text` as plain Text with the matched letters reversed (Matcher.highlight
        would parse it as markup)."""
        out = Text(plain(text))
        score, offsets = matcher.fuzzy_search.match(matcher.query, text)
        if score:
            for i in offsets:
                if i < len(text) and not text[i].isspace():
                    out.stylize(Style(reverse=True, bold=True), i, i + 1)
        return out

    async def discover(self) -> Hits:
        for name, help_, run, _ in commands(self.app):
            yield DiscoveryHit(Text(plain(name)), run, text=name, help=escape(plain(help_)))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_, run, english in commands(self.app):
            score = max(matcher.match(name), matcher.match(english) * 0.9)
            if score > 0:
                yield Hit(score, self._highlight(matcher, name), run, text=name,
                          help=escape(plain(help_)))


class GamePalette(CommandPalette):
    """Textual's palette with the game's Ctrl+C (asks before quitting) and the size
    guard: below 80×24 it shows the "please enlarge" message instead of the commands,
    and its search box takes no key (no Enter runs a command) until the terminal is
    large enough again. (It is not closed by itself: a screen dismissed in the middle of
    a resize left the screen below without its next resize, in Textual 8.2.)"""

    BINDINGS = [Binding("ctrl+c", "app.request_quit", show=False, priority=True),
                Binding("ctrl+q", "app.request_quit", show=False, priority=True)]

    DEFAULT_CSS = """
    GamePalette #too-small { display: none; height: 1fr; content-align: center middle;
                             padding: 1 2; background: $surface; }
    GamePalette.small #--container { display: none; }
    GamePalette.small #too-small { display: block; }
    """

    def compose(self):
        yield from super().compose()
        from textual.widgets import Static
        yield Static("", id="too-small")

    def on_mount(self) -> None:
        self.check_size()

    def on_resize(self, event) -> None:
        self.check_size()

    def check_size(self) -> None:
        small = too_small(self.app)
        self.set_class(small, "small")
        from textual.command import CommandInput
        for box in self.query(CommandInput):     # no typing, no Enter while small
            box.disabled = small
            if not small:
                box.focus()
        if small:
            from textual.widgets import Static
            from tactical_tui.text.i18n import t
            w, h = self.app.size
            self.query_one("#too-small", Static).update(
                Text(plain(t("too_small", self.app.lang, w=w, h=h))))



def localize_palette_key(app) -> None:
    """The Footer shows the palette key (Ctrl+P) on every screen, with the description
    of the app's binding: in the player's language (Textual's own is "palette")."""
    import dataclasses
    from tactical_tui.text.i18n import t
    try:
        # private: no public API changes a binding's description (App.bind only adds one)
        table = app._bindings.key_to_bindings
        key = app.COMMAND_PALETTE_BINDING
        table[key] = [dataclasses.replace(b, description=t("key.palette", app.lang))
                      if b.action == "command_palette" else b for b in table.get(key, [])]
        app.refresh_bindings()
    except (AttributeError, TypeError):     # another Textual: its own word stays
        pass


def too_small(app) -> bool:
    from tactical_tui.widgets.base import MIN_H, MIN_W
    w, h = app.size
    return w < MIN_W or h < MIN_H


def open_palette(app) -> None:
    """Ctrl+P: the palette, unless it is open already or the terminal is too small."""
    if too_small(app) or CommandPalette.is_open(app):
        return
    resume = resume_hook(app)
    app.push_screen(GamePalette(providers=[GameCommands], placeholder=ct("placeholder", app.lang),
                                id="--command-palette"),
                    (lambda _: app.call_later(resume)) if resume else None)
