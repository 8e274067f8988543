"""A seed and the actions replay a game exactly — also across processes with different
string-hash seeds (no decision may depend on set iteration order)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = """
from ai import make_player
from ai.selfplay import running
from rules import Config, apply, new_game, observe, pending
state, _ = new_game(Config(players=4), seed=5)
players = [make_player(l, i) for i, l in enumerate(["normal", "easy", "normal", "random"])]
actions = []
while running(state):
    seat = pending(state).seats[0]
    obs = observe(state, seat)
    a = players[seat].choose(obs, obs.legal)
    actions.append(repr(a))
    state, _ = apply(state, a)
print(len(actions), "|".join(actions), state.winners)
"""


def test_same_game_under_different_hash_seeds():
    outs = []
    for hs in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hs, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        outs.append(out)
    assert outs[0] == outs[1] == outs[2]
