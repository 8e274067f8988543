"""The log widget: a RichLog whose lines break by the Japanese rules. Its own module:
RichLog pulls in rich.pretty and attrs, which the title screen does not need."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from .i18n import Wrapped
from .widgets import _keep


class LogView(RichLog):
    """A log whose lines break by the Japanese line-breaking rules (i18n.line_spans):
    no line starts with 、。）」, a card name is not split across lines."""

    def write(self, content, *args, **kw):
        if isinstance(content, Text):
            content = Wrapped(content, self.keep())
        return super().write(content, *args, **kw)

    def keep(self):
        return _keep(self.app)
