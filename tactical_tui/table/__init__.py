"""The game loop, outside any screen (docs/ARCHITECTURE.md): `live` — one running game
(GameTable: apply, undo, the log; LiveTable: AI seats, autosave, updates to every seat's
view), `views` — what one seat's view has received, `saves`/`savefiles` — save files and
their folder, `seeds` — a new game's seed, `cardcache` — the card data, cached."""
