"""Pieces the screens share (docs/ARCHITECTURE.md): the base screen and its key handling,
question lists, the log widget, and the wide-character fix of Textual's compositor."""
