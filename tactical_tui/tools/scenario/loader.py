"""Loading a scenario file: `load_scenario` reads one file (bounded in size, UTF-8, TOML),
checks its sections and builds its start — a whole ``[position]`` or the v1 tables — then
its steps and expectations, into a `Scenario`; `scenario_files` finds the files under the
paths `tactical check` is given. Anything wrong with a file is a `ScenarioError` that
names the file, the place in it and the problem; never a traceback."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Iterable, Optional

from rules import Config, legal_actions, pending
from rules.files import (DIGIT_LIMIT, NUMBER_LIMIT_TEXT, FileProblem, huge_number_at,
                         is_digit_limit_error, read_bounded)
from rules.state import GameState

from tactical_tui.tools.scenario.cards import card_set, inline_cards_only
from tactical_tui.tools.scenario.expects import read_expects, read_steps
from tactical_tui.tools.scenario.format import (CARD_SECTIONS, FORMAT_VERSION,
                                                MAX_SCENARIO_BYTES, PHASES, POSITION_ONLY,
                                                SECTIONS, Scenario, error_at)
from tactical_tui.tools.scenario.positions import position_state
from tactical_tui.tools.scenario.reader import Reader, entry_places, read_chance
from tactical_tui.tools.scenario.start import StartBuilder


def load_scenario(path: str | Path) -> Scenario:
    """Read and check one scenario file; the initial state is built here.
    Raises ScenarioError for anything wrong with the file."""
    path = str(path)
    try:
        text = read_bounded(path, MAX_SCENARIO_BYTES).decode("utf-8")
    except FileProblem as exc:
        raise error_at(path, "", f"cannot read the file: {exc}") from None
    except UnicodeDecodeError as exc:
        raise error_at(path, "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error_at(path, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise error_at(path, "", "not valid TOML: nested too deeply") from None
    except ValueError as exc:
        if not is_digit_limit_error(exc):
            raise
        raise error_at(path, "", f"a number with more than {DIGIT_LIMIT} digits") from None
    huge = huge_number_at(raw)
    if huge is not None:
        raise error_at(path, huge, f"the number is too large (the limit is {NUMBER_LIMIT_TEXT})")
    unknown = [k for k in raw if k not in SECTIONS]
    if unknown:
        raise error_at(path, "", f"unknown section or key {unknown[0]!r} at the top level "
                                 f"(sections: {', '.join(SECTIONS)})")
    for name in ("seat", "action", "expect") + CARD_SECTIONS:
        if name in raw and not isinstance(raw[name], list):
            raise error_at(path, f"[[{name}]]", "must be an array of tables ([[" + name + "]])")
    for name in ("seat", "action", "expect") + CARD_SECTIONS:
        for k, entry in enumerate(raw.get(name, [])):
            if not isinstance(entry, dict):
                raise error_at(path, entry_places(text, name, len(raw[name]))[k], "must be a table")
    for name in ("scenario", "bidding", "battle", "table", "position", "chance"):
        if name in raw and not isinstance(raw[name], dict):
            raise error_at(path, f"[{name}]", "must be a table")
    if "scenario" not in raw:
        raise error_at(path, "", "the [scenario] table is missing")

    setup = ("players", "phase", "seed", "start_seat", "first_game", "reveal_swap")
    head = Reader(path, "[scenario]", raw["scenario"],
                  ("version", "name", "description", "rule", "cards") + setup)
    version = head.get("version", int, 1)
    if not 1 <= version <= FORMAT_VERSION:
        raise head.error(f"format version {version} is not one this TACTICAL reads (1 to "
                         f"{FORMAT_VERSION})" + (": update TACTICAL" if version > 1 else ""),
                         "version")
    if "position" in raw:
        state, dice_seats = _position_start(path, text, raw, head, setup)
    else:
        state, dice_seats = _v1_start(path, text, raw, head)
    try:
        pending(state)
        legal_actions(state)
    except Exception as exc:  # noqa: BLE001 - a position the rules cannot go on from
        raise error_at(path, "", f"the rules cannot go on from this position ({type(exc).__name__}"
                                 f"{': ' + str(exc) if str(exc) else ''}); check the bid, "
                                 "attack or step it describes") from None
    players = state.players
    for k, seat in enumerate(dice_seats):
        if seat is not None and seat >= players:
            raise error_at(path, f"[chance] dice[{k}], seat",
                           f"there is no seat {seat} (seats 0..{players - 1})")
    steps = read_steps(path, text, raw.get("action", []), players)
    expects = read_expects(path, text, raw.get("expect", []), len(steps), players)
    if not expects and not any(s.illegal for s in steps):
        raise error_at(path, "", "no [[expect]] and no action expected to be illegal: "
                                 "a scenario must be able to fail")
    return Scenario(path=path, name=head.get("name", str, Path(path).stem),
                    description=head.get("description", str, ""),
                    rule=head.get("rule", str, ""), state=state, steps=steps, expects=expects,
                    dice_seats=dice_seats)


def _position_start(path: str, text: str, raw: dict, head: Reader,
                    setup: tuple[str, ...]) -> tuple[GameState, tuple]:
    """The start of a file with a whole `[position]` (format v2, e.g. an export)."""
    for name in POSITION_ONLY:
        if name in raw:
            bracket = f"[[{name}]]" if name == "seat" else f"[{name}]"
            raise error_at(path, bracket, "not with [position]: the position already gives it")
    for key in setup:
        if head.has(key):
            raise head.error("not with [position]: the position already gives it", key)
    cards = card_set(path, raw, text, inline_cards_only(head))
    script, dice_seats = read_chance(path, raw)
    return position_state(raw["position"], cards, script, path), dice_seats


def _v1_start(path: str, text: str, raw: dict, head: Reader) -> tuple[GameState, tuple]:
    """The start of a file that describes its position table by table."""
    seats_raw = raw.get("seat", [])
    players = head.get("players", int, max(3, len(seats_raw)), 3, 5)
    if len(seats_raw) > players:
        raise error_at(path, "[[seat]]", f"{len(seats_raw)} seats for {players} players")
    phase = head.get("phase", str)
    if phase not in PHASES:
        raise head.error(f"must be one of {', '.join(PHASES)}" +
                         ("" if phase is None else f", not {phase!r}"), "phase")
    if phase not in ("draft", "bidding") and "bidding" in raw:
        raise error_at(path, "[bidding]", f"only for phase = \"bidding\" or \"draft\" (this is "
                                          f"{phase!r})")
    if phase != "battle" and "battle" in raw:
        raise error_at(path, "[battle]", f"only for phase = \"battle\" (this is {phase!r})")
    cards = card_set(path, raw, text, inline_cards_only(head))
    config = Config(players=players, first_game=head.get("first_game", bool, False),
                    reveal_swap=head.get("reveal_swap", bool, False))
    builder = StartBuilder(path, text, raw, cards, config, phase, head)
    return builder.build()


def scenario_files(paths: Iterable[str]) -> list[tuple[str, Optional[str]]]:
    """(file, problem) for every scenario file under `paths`, folders searched for
    ``*.toml`` in name order. A path that does not exist is returned with its problem."""
    import os
    import stat
    from tactical_tui.text.catalog import os_error_text
    out: list[tuple[str, Optional[str]]] = []
    for p in paths:
        path = Path(p)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            out.append((p, "no such file or folder"))
            continue
        except (OSError, ValueError) as exc:    # a loop of links, a name too long, a NUL
            if isinstance(exc, ValueError):
                exc = OSError(22, "invalid file name")
            out.append((p, os_error_text(exc, "en")))
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                found = sorted(path.rglob("*.toml"))
            except OSError as exc:
                out.append((p, os_error_text(exc, "en")))
                continue
            if not found:
                out.append((p, "no scenario files (*.toml) in this folder"))
            out.extend((str(f), None) for f in found)
        else:                          # a pipe or device: load_scenario says what it is
            out.append((p, None))
    return out
