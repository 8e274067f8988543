"""The command palette (Ctrl+P, Textual's convention): the game's commands by name, in
the player's language — new game, continue, language, AI pause, rules (the help), how to
play, theme, save replay, quit.

A command that makes no sense at the moment is absent (continue during a game), or is
listed with the reason it cannot run now (save replay before the game is over); running
it says that reason. The palette is not opened while the "please enlarge" overlay is up
(game keys do nothing there), Ctrl+C in it asks before quitting as everywhere else, and
when it closes the game goes on (`app.advance`).

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

from .safe import plain
from .settings import TEXTUAL_THEME

DELAYS = (0.0, 0.3, 0.6, 1.0, 2.0)

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
    "delay.help": {"ja": "入札とバトルでAIの各行動の後に待つ時間（今は{now:.1f}秒）",
                   "en": "The wait after each AI action in bidding and battle (now {now:.1f} s)"},
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
    "title": {"ja": "タイトルへ", "en": "Back to the title"},
    "title.help": {"ja": "今のゲームは保存されたまま", "en": "The current game stays saved"},
}


def ct(key: str, lang: str, **kw: object) -> str:
    table = TEXT[key]
    return table.get(lang, table["en"]).format(**kw)


# ---------------------------------------------------------------- the commands' effects

def remember(app, **changes) -> None:
    """Keep a changed setting (app.store, settings.Store); a write problem is told once."""
    store = getattr(app, "store", None)
    if store is None:
        return
    problem = store.update(**changes)
    if problem is not None and getattr(app, "_settings_warned", None) != problem.code:
        app._settings_warned = problem.code
        app.notify(problem.text(app.lang), severity="warning", timeout=10)


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
    phase_screen = getattr(app, "_phase_screen", None)
    show = getattr(app, "_show_phase", None)
    if phase_screen is not None and show is not None and phase_screen() is not None:
        show(app._phase, force=True)
    app.notify(ct("lang.done", new))


def set_delay(app, seconds: float) -> None:
    app.ai_delay = seconds
    remember(app, ai_delay=seconds)
    app.notify(ct("delay.done", app.lang, s=seconds))


def in_game(app) -> bool:
    return getattr(app, "table", None) is not None


def game_over(app) -> bool:
    table = getattr(app, "table", None)
    return table is not None and table.state.phase == "over"


def commands(app) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """(name, help, run) of every command that means something now, in app.lang."""
    lang = app.lang
    yield ct("howto", lang), ct("howto.help", lang), partial(_howto, app)
    yield ct("rules", lang), ct("rules.help", lang), app.action_help
    yield ct("new", lang), ct("new.help", lang), app.action_new_game
    if not in_game(app):
        yield ct("continue", lang), ct("continue.help", lang), app.show_continue
    else:
        yield ct("title", lang), ct("title.help", lang), app.action_back_to_title
    yield ct("lang", lang), ct("lang.help", lang), partial(switch_language, app)
    other = "light" if current_theme(app) == "dark" else "dark"
    yield (ct("theme", lang, name=ct("theme." + other, lang)), ct("theme.help", lang),
           partial(set_theme, app, other))
    for s in DELAYS:
        if abs(s - app.ai_delay) > 1e-9:
            yield ct("delay", lang, s=s), ct("delay.help", lang, now=app.ai_delay), \
                partial(set_delay, app, s)
    if game_over(app):
        yield ct("replay", lang), ct("replay.help", lang), app.action_save_replay
    else:
        why = ct("replay.not_yet" if in_game(app) else "replay.no_game", lang)
        yield ct("replay", lang), why, partial(app.notify, why)
    yield ct("quit", lang), ct("quit.help", lang), app.action_request_quit


def _howto(app) -> None:
    from .howto import show_howto
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
        for name, help_, run in commands(self.app):
            yield DiscoveryHit(Text(plain(name)), run, text=name, help=escape(plain(help_)))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_, run in commands(self.app):
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, self._highlight(matcher, name), run, text=name,
                          help=escape(plain(help_)))


class GamePalette(CommandPalette):
    """Textual's palette with the game's Ctrl+C (asks before quitting) and the size
    guard: it closes when the terminal becomes smaller than 80×24."""

    BINDINGS = [Binding("ctrl+c", "app.request_quit", show=False, priority=True),
                Binding("ctrl+q", "app.request_quit", show=False, priority=True)]

    def on_resize(self, event) -> None:
        if too_small(self.app):
            self.dismiss()


def localize_palette_key(app) -> None:
    """The Footer shows the palette key (Ctrl+P) on every screen, with the description
    of the app's binding: in the player's language (Textual's own is "palette")."""
    import dataclasses
    from .i18n import t
    try:
        table = app._bindings.key_to_bindings
        key = app.COMMAND_PALETTE_BINDING
        table[key] = [dataclasses.replace(b, description=t("key.palette", app.lang))
                      if b.action == "command_palette" else b for b in table.get(key, [])]
        app.refresh_bindings()
    except (AttributeError, TypeError):     # another Textual: its own word stays
        pass


def too_small(app) -> bool:
    from .widgets import MIN_H, MIN_W
    w, h = app.size
    return w < MIN_W or h < MIN_H


def open_palette(app) -> None:
    """Ctrl+P: the palette, unless it is open already or the terminal is too small."""
    if too_small(app) or CommandPalette.is_open(app):
        return
    resume: Optional[Callable[[], None]] = getattr(app, "advance", None)
    app.push_screen(GamePalette(providers=[GameCommands], placeholder=ct("placeholder", app.lang),
                                id="--command-palette"),
                    (lambda _: app.call_later(resume)) if resume else None)
