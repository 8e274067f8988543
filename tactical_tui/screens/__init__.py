"""The Textual screens (docs/ARCHITECTURE.md): the menus before a game, one module per
phase of a game, the lobby of a table server, help, How to play and the replay. A screen
shows one seat's latest update and sends that seat's actions; it runs no game logic."""
