"""The commands besides the game (docs/ARCHITECTURE.md): rule scenarios (`tactical
check`), the card tables (`tactical cards`), simulate/balance and the AI ladder."""
