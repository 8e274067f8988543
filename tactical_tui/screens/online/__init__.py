"""The screens of a game at a table server (`tactical join`, the SSH door — docs/PROTOCOL.md,
docs/ARCHITECTURE.md), lowest first: `words` (the lobby's wording and choices), `status`
(the connection banner and its ticker), `chat` (the one-line input, chat lines in the log),
`remote` (a seat's phase screens at a server's table, the watcher's screen, the table's
help), `waiting` (the waiting room), `requests` (join, watch, create), `create` (the
create form) and `lobby` (the session's start, the list of tables, the way back)."""
