"""Player-facing text in Japanese and English (docs/ARCHITECTURE.md): the languages,
the interface catalogue, the event log's descriptions, card text, and the escaping that
keeps data from becoming markup or terminal control. Imports nothing itself: the title
screen loads only what it needs."""
