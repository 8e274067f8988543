"""Rule scenarios: a position, actions, scripted chance and expectations in one TOML file
(``docs/scenarios.md``). `tactical check PATH...` loads every scenario file given (folders
are searched for ``*.toml``), plays its actions through the rules engine and compares the
result with its expectations; the replay viewer and `tactical simulate --export` write a
position out as a scenario file.

The package is cut along what a scenario is and what is done with one — the seams the
single module had as its own sections (loading, cards, position, actions, expectations,
comparisons, running, full positions, writing TOML, exporting, the command). Lowest first;
a module imports only modules above it in this list, by full path, never this
``__init__``:

- `format`    — what a scenario is: `Scenario`, `Step`, `Expect`, `ScenarioError`, the
                format's words and limits (`MAX_SCENARIO_BYTES`, `MAX_ROUND`, the perft
                limits, the v2 expectation kinds), `show`.
- `compare`   — how an expected value matches an actual one: `plain`, `matches`, the v2
                comparison tables (`OPS`) and `value_problem`.
- `reader`    — `Reader`, typed access to one table of a file with errors naming the
                place; `entry_places`; `read_chance` (the ``[chance]`` table).
- `positions` — a whole GameState as the ``[position]`` table, both ways
                (`position_data`, `position_state`), and the strict cattrs converter.
- `cards`     — the card set a scenario plays with (shipped + inline cards).
- `start`     — `StartBuilder`: the start position from the v1 tables ([[seat]],
                [bidding], [battle], [table]).
- `expects`   — the [[action]] and [[expect]] tables, with state paths checked by type.
- `loader`    — `load_scenario` (one file, into a `Scenario`) and `scenario_files`.
- `runner`    — `run_scenario`, `Result`, `perft`, and `check`: `tactical check`'s report.
- `export`    — writing a position out: `scenario_text`, TOML writing, `write_new_file`,
                `export_position`, `ExportError` and its messages.

Reading a file was one section of about 1,070 lines; it is five modules under the loader
(reader, positions, cards, start, expects), one job each. The comparisons sit low
because the loader refuses a malformed expected value with them and the runner compares
with them. The export depends on neither the loader nor the runner (only on format,
compare and positions). Every import that was inside a function (cattrs, rules.observe,
the OS-error texts, os, …) is still inside its function.

This ``__init__`` re-exports the names other code and the tests use from
``tactical_tui.tools.scenario``.
"""

from tactical_tui.tools.scenario.format import ACTIONS, MAX_SCENARIO_BYTES, ScenarioError
from tactical_tui.tools.scenario.positions import position_data, position_state
from tactical_tui.tools.scenario.loader import load_scenario
from tactical_tui.tools.scenario.runner import check, perft, run_scenario
from tactical_tui.tools.scenario.export import (ExportError, export_message, export_position,
                                                scenario_text, toml_table, writable_target,
                                                write_new_file)

__all__ = ["ACTIONS", "MAX_SCENARIO_BYTES", "ExportError", "ScenarioError", "check",
           "export_message", "export_position", "load_scenario", "perft", "position_data",
           "position_state", "run_scenario", "scenario_text", "toml_table", "writable_target",
           "write_new_file"]
