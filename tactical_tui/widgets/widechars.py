"""Keep wide characters whole where they cross the edge of a widget beneath them.

Textual's compositor divides every screen line into "chops" at every visible widget's
left and right edge (`Compositor.cuts`), cuts each widget's rendered line at every cut
inside it (`Strip.divide`), and gives each chop to the front-most widget that covers
it. `Segment.split_cells` replaces a double-width character cut in two by two spaces, so
a toast or a tooltip whose Japanese character lies across the edge of a panel beneath it
lost that character although the toast covers both cells (Textual issue #6357; issue 32
point 7: `ーブル 6884e9ac…` for `テーブル 6884e9ac…`).

`apply()` makes the compositor cut a line only where the front-most widget changes: a cut
whose chops on both sides belong to the same widget (an "internal cut", made by a widget
that is hidden there) is dropped, for the renders (`_render_chops`: full updates,
`render_strips`, partial updates) and for the chop ends that a partial update
(`ChopsUpdate`) uses to find the chops crossing a dirty span — a merged chop ends where
its run ends, so a dirty span that starts inside it is redrawn. Which widget owns a chop
depends on the layout only (not on which widgets a partial update renders), so full and
partial updates divide alike. The merged cuts are cached with Textual's cuts (they are
recomputed when the layout changes).

Applied once, when the app is created (`TacticalApp.__init__`: the terminal game and the
SSH door), and only to a Textual whose methods are the ones this was written against
(their source is checked); any other Textual is left alone.
"""

from __future__ import annotations

import hashlib
import inspect
import textwrap
from bisect import bisect_left
from typing import Callable, Mapping, Sequence

# sha256 of the dedented source of the Compositor members this replaces or relies on,
# as in Textual 8.2.8.
KNOWN_SOURCES = {
    "_render_chops": "08dba28b936cc6c0cc588472376e701d9121857b6446f898efcb87423b2f7883",
    "render_partial_update": "342f61fb3b24dffee21df7d7dc1ded2be4f4065a6e23f3a1e6ab2743faa32f77",
    "cuts": "fc71e70e4d54ffebf53991e20bb1f43af4849c10ab201b23249013c84e9d50b9",
}


def _digest(obj) -> str:
    return hashlib.sha256(textwrap.dedent(inspect.getsource(obj)).encode()).hexdigest()


def _members(compositor_cls) -> dict:
    """Textual's own members (kept aside by `apply`)."""
    return {"_render_chops": getattr(compositor_cls, "_textual_render_chops",
                                     compositor_cls._render_chops),
            "render_partial_update": getattr(compositor_cls, "_textual_render_partial_update",
                                             compositor_cls.render_partial_update),
            "cuts": compositor_cls.cuts.fget}


def matches(compositor_cls) -> bool:
    """Whether this Textual's compositor is the code the fix was written against."""
    try:
        members = _members(compositor_cls)
        return all(_digest(members[name]) == digest for name, digest in KNOWN_SOURCES.items())
    except (AttributeError, OSError, TypeError):
        return False


def merged_cuts(compositor) -> list[list[int]]:
    """Each line's cuts without the internal ones: a cut stays where the front-most widget
    (the first in render order covering a chop) differs on its two sides, or where nothing
    covers a side. Cached until Textual recomputes its cuts or visible widgets."""
    cuts = compositor.cuts
    visible = compositor.visible_widgets
    cache = getattr(compositor, "_wide_merged", None)
    if cache is not None and cache[0] is cuts and cache[1] is visible:
        return cache[2]
    owners: list[list] = [[None] * (len(line) - 1) for line in cuts]
    height = len(cuts)
    unsure = set()           # lines where a widget's edge is not a cut: Textual's cuts kept
    for index, (region, clip) in enumerate(visible.values()):
        x, y, width, rows = region.intersection(clip)
        if not (width and rows):
            continue
        for line in range(max(y, 0), min(y + rows, height)):
            line_cuts = cuts[line]
            first = bisect_left(line_cuts, x)
            last = bisect_left(line_cuts, x + width)
            if line_cuts[first:first + 1] != [x] or line_cuts[last:last + 1] != [x + width]:
                unsure.add(line)
                continue
            line_owners = owners[line]
            for bucket in range(first, last):
                if line_owners[bucket] is None:
                    line_owners[bucket] = index
    merged = []
    for line, (line_cuts, line_owners) in enumerate(zip(cuts, owners)):
        if line in unsure:
            merged.append(line_cuts)
            continue
        kept = [line_cuts[0]]
        for i in range(1, len(line_cuts) - 1):
            left, right = line_owners[i - 1], line_owners[i]
            if left is None or left != right:
                kept.append(line_cuts[i])
        kept.append(line_cuts[-1])
        merged.append(kept)
    compositor._wide_merged = (cuts, visible, merged)
    return merged


def _render_chops(self, crop, is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping]:
    """Textual's `Compositor._render_chops` on the merged cuts: a render is divided only at
    the merged cuts inside it (and its own edges); a piece that starts at a dropped cut lies
    inside a chop of a widget in front of it and is left out."""
    cuts = merged_cuts(self)
    chops = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    for region, clip, strips in self._get_renders(crop):
        render_region = region.intersection(clip)
        render_x = render_region.x
        first_cut, last_cut = render_region.column_span
        if last_cut <= first_cut:
            continue
        for y, strip in zip(render_region.line_range, strips):
            if not is_rendered_line(y):
                continue
            chops_line = chops[y]
            inner = [cut for cut in cuts[y] if first_cut < cut < last_cut]
            starts = [first_cut, *inner]
            pieces = strip.divide([cut - render_x for cut in (*inner, last_cut)])
            # Painting front to back: the first piece for a chop wins.
            for cut, piece in zip(starts, pieces):
                if cut in chops_line and chops_line[cut] is None:
                    chops_line[cut] = piece
    return chops


def render_partial_update(self):
    """Textual's `Compositor.render_partial_update` with each chop ending where its merged
    run ends (the end of a chop decides whether it crosses a dirty span)."""
    from textual._compositor import ChopsUpdate
    from textual.geometry import Region

    screen_region = self.size.region
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    crop = Region.from_union(update_regions).intersection(screen_region)
    spans = list(self._regions_to_spans(update_regions))
    is_rendered_line = {y for y, _, _ in spans}.__contains__
    chops = self._render_chops(crop, is_rendered_line)
    chop_ends = [cut_set[1:] for cut_set in merged_cuts(self)]
    return ChopsUpdate(chops, spans, chop_ends)


def apply() -> bool:
    """Patch Textual's Compositor once; True when the fix is in place. A Textual whose
    compositor differs from the one this was written for is left alone (False)."""
    try:
        from textual._compositor import Compositor
    except ImportError:
        return False
    if getattr(Compositor, "_wide_chars_kept", False):
        return True
    if not matches(Compositor):
        return False
    Compositor._textual_render_chops = Compositor._render_chops
    Compositor._textual_render_partial_update = Compositor.render_partial_update
    Compositor._render_chops = _render_chops
    Compositor.render_partial_update = render_partial_update
    Compositor._wide_chars_kept = True
    return True


def undo() -> None:
    """Put Textual's own methods back (for tests that show the bug without the fix)."""
    from textual._compositor import Compositor
    if getattr(Compositor, "_wide_chars_kept", False):
        Compositor._render_chops = Compositor._textual_render_chops
        Compositor.render_partial_update = Compositor._textual_render_partial_update
        Compositor._wide_chars_kept = False
