"""Issue 17, `bench/host_load.py`'s path: what the table server does after every action —
the autosave's text (tactical_tui.saves.SaveText), the updates written to the
connections (tactical_tui/net/server.py: the watchers' one shared frame, a slow reader)
and the AI pool's workers. No test asserts wall-clock time.
"""

from __future__ import annotations

import json
import random

from rules import Config
from tactical_tui.saves import SaveText, parse, to_json
from tactical_tui.table import GameTable, SeatSetup


def test_the_save_text_is_to_json_s_save_after_every_action_and_undo():
    """SaveText keeps each action's JSON; after appends and undos (history cut back, AI
    decisions made again) its text is the same save as to_json's, and parses back — also
    when several actions, an undo among them, came between two saves (the host's Saver
    writes the newest position only)."""
    rnd = random.Random(3)
    game = GameTable(Config(players=4), (SeatSetup(True),) + (SeatSetup(False, "easy"),) * 3, 4242)
    saves = SaveText()
    undos = checked = 0
    while not game.over and len(game.history) < 400:
        if game.undo_refusal(0) is None and rnd.random() < 0.15:
            assert game.undo(0)
            undos += 1
        elif (seat := game.ai_to_act()) is not None:
            action, reason = game.ai_decide(seat)
            game.submit_ai(seat, action, reason)
        else:
            game.submit(rnd.choice(game.observe(0).legal))
        if rnd.random() < 0.6:
            continue
        data = game.save_data()
        text = saves.text(data)
        assert json.loads(text) == json.loads(to_json(data))
        assert parse(text, "test") == data
        checked += 1
    assert undos >= 3 and checked > 50 and data.ai, (undos, checked)
