"""The log widget: a RichLog whose lines break by the Japanese rules. Its own module:
RichLog pulls in rich.pretty and attrs, which the title screen does not need."""

from __future__ import annotations

from rich.text import Text
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import RichLog

from tactical_tui.text.i18n import Wrapped, app_keep_names


class LogView(RichLog):
    """A log whose lines break by the Japanese line-breaking rules (i18n.line_spans):
    no line starts with 、。）」, a card name is not split across lines."""

    def write(self, content, *args, **kw):
        if isinstance(content, Text):
            content = Wrapped(content, self.keep())
        return super().write(content, *args, **kw)

    def keep(self):
        return app_keep_names(self.app)


# ---------------------------------------------------------------------- the whole log

class LogBook:
    """One seat's whole log as the lines the log screen (`l`) shows, kept up to date as
    the seat's updates arrive (App.log_book): each entry is described once, in order
    (text.Describer follows the events: an attack's targets explain its damage), so that
    opening the log costs nothing that grows with the game. `lines` are the lines as
    shown (safe.plain: str, which the garbage collector does not have to walk, unlike
    a Text), `cells` their widths in cells (-1: a line of several paragraphs)."""

    def __init__(self) -> None:
        self.key = None                  # (the feed's log epoch, language, card set, names)
        self.lines: list[str] = []
        self.cells: list[int] = []
        self.done = 0                    # entries of the feed's log described
        self._describer = None

    def catch_up(self, feed, app, seat: int) -> "LogBook":
        """Describe the entries `feed` (views.SeatFeed) received since the last call; the
        whole log again after the feed's log was rewritten (an undo) or the language,
        card set or the players' names (App.seat_names) changed. A log screen already
        open keeps the lists it was given."""
        from rich.cells import cell_len
        from tactical_tui.text.safe import plain
        key = (feed.epoch, app.lang, id(app.cards), tuple(sorted(app.seat_names().items())))
        if key != self.key or self.done > len(feed.log):
            self.key = key
            self.lines, self.cells, self.done = [], [], 0
            self._describer = app.describer()
        for entry in feed.log[self.done:]:
            line = app.log_line(entry, self._describer, seat=seat)
            if line:
                line = plain(line)                 # as safe.as_text(line) shows it
                self.lines.append(line)
                self.cells.append(-1 if "\n" in line else cell_len(line))
        self.done = len(feed.log)
        return self


class FullLog(ScrollView, can_focus=True):
    """The whole log, drawn as LogView (a RichLog of Wrapped lines, min_width 20) draws
    it — the same rows, scrolled to the end when shown, and the same rows after every
    scrolling key — but only the lines that come into view are broken into rows.

    A line's height is known from its width in cells when it fits on one row (most do)
    and estimated from it otherwise, until the line comes into view, where it is broken
    exactly. Nothing in view moves when a height is settled: a line in view is settled
    before it is drawn (the rows above it do not depend on it), a move up settles the
    rows it passes over first (and keeps the rows in view where they are), the end is
    the end of settled lines. Only the scroll bar's thumb, which counts the estimated
    rows too, can be a row off. Shows the first `len(lines)` lines it is given (str,
    drawn as safe.as_text draws them; later lines appended to the lists are not shown,
    like a log written once)."""

    DEFAULT_CSS = """
    FullLog {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        &:focus {
            background-tint: $foreground 5%;
        }
    }
    """

    MIN_WIDTH = 20                       # as LogView(min_width=20)

    def __init__(self, lines: list, cells: list, keep=(), *, id: str | None = None) -> None:
        super().__init__(id=id)
        from textual.cache import LRUCache
        self.lines, self.cells, self.n = lines, cells, len(lines)
        self.keep = tuple(keep)
        self.width_ = 0                  # the width the lines are broken at (0: not yet)
        self._heights: list[int] = []
        self._exact: list[bool] = []
        self._ends: list[int] = []       # rows up to and including line i
        self._rows: LRUCache = LRUCache(1024)     # (line, width) -> its rows (Strips)
        self.broken = 0                  # lines broken into rows so far (tests)

    # -- rows ------------------------------------------------------------------
    def rows_of(self, i: int, width: int) -> list:
        """Line `i` broken into rows at `width`, as LogView renders a Wrapped line."""
        key = (i, width)
        rows = self._rows.get(key)
        if rows is None:
            from rich.segment import Segment
            console = self.app.console
            segments = console.render(Wrapped(Text(self.lines[i]), self.keep),
                                      console.options.update_width(width))
            rows = [Strip(line).adjust_cell_length(width) for line in Segment.split_lines(segments)]
            rows = rows or [Strip.blank(width)]
            self._rows[key] = rows
            self.broken += 1
        return rows

    def _settle(self, i: int) -> bool:
        """Line `i`'s height made exact; True if it changed."""
        if self._exact[i]:
            return False
        h = len(self.rows_of(i, self.width_))
        self._exact[i] = True
        if h == self._heights[i]:
            return False
        self._heights[i] = h
        return True

    def _start(self, i: int) -> int:
        return self._ends[i - 1] if i else 0

    def line_at(self, row: int) -> int:
        from bisect import bisect_right
        return min(bisect_right(self._ends, row), self.n - 1)

    # -- layout ----------------------------------------------------------------
    def _layout(self, width: int) -> None:
        """Heights at `width`: exact for a line that fits on a row, else estimated."""
        self.width_ = width
        cells = self.cells[:self.n]
        self._heights = [1 if 0 <= c <= width else -(-c // width) if c > 0 else
                         self.lines[i].count("\n") + 1 for i, c in enumerate(cells)]
        self._exact = [0 <= c <= width for c in cells]
        self._sum()

    def _sum(self) -> None:
        from itertools import accumulate
        self._ends = list(accumulate(self._heights))
        from textual.geometry import Size
        self.virtual_size = Size(self.width_, self._ends[-1] if self._ends else 0)

    def _wrap_width(self) -> int:
        return max(self.scrollable_content_region.width, self.MIN_WIDTH)

    def on_resize(self, event) -> None:
        width = self._wrap_width()
        if not self.n or width == self.width_:
            return
        first = self.width_ == 0
        at_end = first or self.scroll_y >= self.max_scroll_y
        top = None if at_end else self.line_at(round(self.scroll_y))
        self._rows.clear()
        self._layout(width)
        if at_end:                       # the last rows in view, settled from the end
            self._settle_end()
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        else:                            # the line at the top stays at the top
            self._sum()
            self.scroll_to(y=self._start(top), animate=False, immediate=True)
        self._settle_view()

    def _settle_view(self) -> None:
        """Every line in view broken exactly (those above the first row in view are not
        looked at, so nothing in view moves)."""
        if not self.width_ or not self.n:
            return
        top = round(self.scroll_y)
        bottom = top + self.scrollable_content_region.height
        changed = False
        i = self.line_at(top)
        while i < self.n and self._start(i) < bottom:
            changed |= self._settle(i)
            i += 1
        if changed:
            self._sum()

    def _settle_end(self) -> None:
        """The lines of the last rows in view settled, from the end up."""
        rows, i = 0, self.n - 1
        changed = False
        while i >= 0 and rows < self.scrollable_content_region.height:
            changed |= self._settle(i)
            rows += self._heights[i]
            i -= 1
        if changed:
            self._sum()

    def _settle_above(self, top: int, rows: int) -> int:
        """Settle the lines of the `rows` rows above row `top`; returns where the row
        at `top` is now (lines above it changed height)."""
        i = self.line_at(top)
        covered = top - self._start(i)
        shift = 0
        while i > 0 and covered < rows:
            i -= 1
            before = self._heights[i]
            if self._settle(i):
                shift += self._heights[i] - before
            covered += self._heights[i]
        if shift:
            self._sum()
        return top + shift

    def _scroll_to(self, x=None, y=None, **kw) -> bool:
        """Every scroll comes here (keys, wheel, scroll bar, scroll_end): the end is the
        end of settled lines; a move up by up to two pages settles the rows it passes
        over, keeping the rows in view where they are, so that it lands as far up as
        it would with every line broken."""
        if y is not None and self.width_ and self.n:
            height = self.scrollable_content_region.height
            if y >= self.max_scroll_y:
                self._settle_end()
                y = self.max_scroll_y
                kw["animate"] = False        # (an animation would aim at an older end)
            elif 0 < y < self.scroll_y and self.scroll_y - y <= 2 * height:
                top = round(self.scroll_y)
                moved = top - y
                now = self._settle_above(top, int(moved + 0.999))
                if now != top:
                    self.set_reactive(ScrollView.scroll_y, float(now))
                    self.set_reactive(ScrollView.scroll_target_y, float(now))
                    self.vertical_scrollbar.position = now
                y = now - moved
        return super()._scroll_to(x, y, **kw)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        self._settle_view()
        super().watch_scroll_y(old_value, new_value)

    # -- drawing ---------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        if not self.width_ or not self._ends or row >= self._ends[-1]:
            return Strip.blank(width, self.rich_style).apply_style(self.rich_style)
        i = self.line_at(row)
        rows = self.rows_of(i, self.width_)
        k = row - self._start(i)
        strip = rows[k] if k < len(rows) else Strip.blank(self.width_)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(self.rich_style)
