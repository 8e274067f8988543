"""Running scenarios: `run_scenario` plays a scenario's steps through the rules engine
and checks its expectations into a `Result` (failures as diffs, and with `explain` the
event log step by step); `perft` counts the lines of play for perft expectations; `check`
is `tactical check`, the report of one line per scenario, a diff for each failure, then
`N passed, M failed`.

Like XMage's strict mode, a scenario fails when an action cannot be applied, when a
scripted die or chip is left unused, and when the engine needs a die roll or a chip draw
the scenario did not script."""

from __future__ import annotations

import sys
from typing import Any, Iterable, Optional, TextIO

import attrs

from rules import IllegalAction, apply, explain_illegal, legal_actions, pending
from rules import events as E
from rules.build import equip_cost, final_stats, hand_slots_used, violations
from rules.state import ChanceScriptError, GameState, Phase

from tactical_tui.text.safe import SafeStream
from tactical_tui.text.catalog import Describer, refusal_text
from tactical_tui.tools.scenario.compare import matches, plain
from tactical_tui.tools.scenario.expects import show_path
from tactical_tui.tools.scenario.format import (DERIVED_SEAT, HIDDEN, PERFT_NODES,
                                                PERFT_SCENARIO_NODES, V2_KINDS, Expect,
                                                Scenario, ScenarioError, show)
from tactical_tui.tools.scenario.loader import load_scenario, scenario_files


def _resolve(state: GameState, tokens: tuple) -> Any:
    """The plain value at `tokens` (None when the path goes through a None)."""
    if tokens[0] == "pending":
        value: Any = plain(pending(state))
        for t in tokens[1:]:
            value = value[t] if isinstance(value, dict) else (
                value[t] if isinstance(value, list) and t < len(value) else None)
        return value
    if len(tokens) >= 3 and tokens[0] == "seats" and tokens[2] in DERIVED_SEAT:
        if tokens[1] >= state.players:
            return None
        s = state.seats[tokens[1]]
        from rules.engine import available_of
        avail = available_of(state, tokens[1])
        value = {
            "final_stats": lambda: plain(final_stats(state.cards, s.race, s.equipped)),
            "available_material": lambda: avail,
            "equip_cost": lambda: equip_cost(state.cards, s.equipped),
            "hand_slots": lambda: hand_slots_used(state.cards, s.equipped),
            "violations": lambda: [v.code for v in violations(state.cards, s.race, s.equipped, avail)],
        }[tokens[2]]()
        for t in tokens[3:]:
            value = value[t] if isinstance(value, dict) else (
                value[t] if t < len(value) else None)
        return value
    return _walk_value(state, tokens)


def _action_text(action: Any) -> str:
    fields = ", ".join(f"{f.name}={show(getattr(action, f.name))}"
                       for f in attrs.fields(type(action)))
    return f"{type(action).__name__}({fields})"


@attrs.define
class Result:
    scenario: Optional[Scenario]
    path: str
    failures: list[str] = attrs.Factory(list)
    log: list[str] = attrs.Factory(list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def title(self) -> str:
        if self.scenario is None:
            return ""
        rule = f" ({self.scenario.rule})" if self.scenario.rule else ""
        return self.scenario.name + rule


_EXPLAIN = {
    "step": {"ja": "手順{n}: {action}", "en": "step {n}: {action}"},
    "start": {"ja": "開始局面: {phase}、次は{pending}（ログの席番号は1から、ファイルは0から）",
              "en": "start: {phase}, next {pending} (the log numbers seats from 1, the file from 0)"},
    "next": {"ja": "  → 次: {pending}", "en": "  → next: {pending}"},
    "refused": {"ja": "  ✗ 拒否（想定どおり）: {reason}", "en": "  ✗ refused, as expected: {reason}"},
    "failed": {"ja": "  ✗ 適用できません: {reason}", "en": "  ✗ cannot be applied: {reason}"},
}


def _pending_text(state: GameState, describe: Optional[Describer] = None) -> str:
    """The pending decision; with `describe`, seats are named as players see them (from 1)."""
    d = pending(state)
    name = describe.seat if describe else (lambda s: f"seat {s}")
    return f"{d.kind} ({', '.join(name(s) for s in d.seats) or '-'})"


def run_scenario(sc: Scenario, explain: bool = False, lang: str = "en") -> Result:
    """Play the scenario's actions and check its expectations."""
    res = Result(sc, sc.path)
    describe = Describer(sc.state.cards, lang)
    lang = describe.lang

    def log(key: str, **kw: Any) -> None:
        if explain:
            res.log.append(_EXPLAIN[key][lang].format(**kw))

    state = sc.state
    states: list[GameState] = [state]
    step_events: list[list[E.Event]] = [[]]
    log("start", phase=state.phase, pending=_pending_text(state, describe))
    stopped: Optional[int] = None
    perft_left = [PERFT_SCENARIO_NODES]     # shared by the scenario's perfts
    for step in sc.steps:
        log("step", n=step.number, action=_action_text(step.action))
        what = f"action #{step.number} {_action_text(step.action)} ({step.place})"
        try:
            new, events = apply(state, step.action)
        except IllegalAction as exc:
            if step.illegal:
                problems = []
                if step.reason_contains and step.reason_contains.lower() not in exc.reason.lower():
                    problems.append(f"{what} was refused, but its reason does not contain the "
                                    f"expected text\n    expected reason containing: "
                                    f"{step.reason_contains!r}\n    actual reason: {exc.reason!r}")
                if step.code and step.code != exc.code:
                    problems.append(f"{what} was refused with another code\n"
                                    f"    expected code: {step.code!r}\n    actual code:   {exc.code!r}")
                res.failures.extend(problems)
                log("refused", reason=refusal_text(state.cards, exc.code, exc.params, lang))
                states.append(state)
                step_events.append([])
                continue
            legal = legal_actions(state)
            shown = "; ".join(_action_text(a) for a in legal[:12]) + (" …" if len(legal) > 12 else "")
            res.failures.append(f"{what} cannot be applied: {exc.reason}\n"
                                f"    waiting for: {_pending_text(state)}\n"
                                f"    legal now: {shown or 'nothing'}")
            log("failed", reason=refusal_text(state.cards, exc.code, exc.params, lang))
            stopped = step.number
            break
        except ChanceScriptError as exc:
            res.failures.append(f"{what}: the scripted chance cannot happen: {exc}")
            log("failed", reason=str(exc))
            stopped = step.number
            break
        except Exception as exc:  # noqa: BLE001 - an engine error is a failure, not a crash
            res.failures.append(f"{what}: the engine raised {type(exc).__name__}: {exc}")
            log("failed", reason=f"{type(exc).__name__}: {exc}")
            stopped = step.number
            break
        if step.illegal:
            res.failures.append(f"{what} should have been refused, but it was applied")
            for e in events:
                log_event = describe.describe(e)
                if explain:
                    res.log.append("  " + log_event)
            stopped = step.number
            break
        for e in events:
            if explain:
                res.log.append("  " + describe.describe(e))
        wrong = _dice_seat_problem(sc, state, new, events)
        if wrong:
            res.failures.append(f"{what}: {wrong}")
            stopped = step.number
            states.append(new)
            step_events.append(list(events))
            break
        rolled = sum(1 for e in events if isinstance(e, E.DieRolled))
        drawn = sum(1 for e in events if isinstance(e, E.ChipDrawn))
        dice_used = len(state.script.dice) - len(new.script.dice)
        chips_used = len(state.script.chips) - len(new.script.chips)
        state = new
        states.append(state)
        step_events.append(list(events))
        if rolled > dice_used or drawn > chips_used:
            need = []
            if rolled > dice_used:
                need.append(f"{rolled - dice_used} die roll(s)")
            if drawn > chips_used:
                need.append(f"{drawn - chips_used} chip draw(s)")
            res.failures.append(f"{what} needed {' and '.join(need)} that [chance] does not "
                                "script (add them to [chance] dice / chips)")
            stopped = step.number
            break
        if explain and state.phase != Phase.OVER:
            log("next", pending=_pending_text(state, describe))
    if stopped is None:
        left = []
        if state.script.dice:
            left.append(f"dice {show(list(state.script.dice))}")
        if state.script.chips:
            left.append(f"chips {show(list(state.script.chips))}")
        if left:
            res.failures.append("scripted chance left unused: " + ", ".join(left))
    done = len(states) - 1
    for ex in sc.expects:
        at = len(sc.steps) if ex.at is None else ex.at
        when = "at the start" if at == 0 else f"after action #{at}"
        if at > done:
            res.failures.append(f"expect #{ex.number} ({ex.place}) not checked: the scenario "
                                f"stopped at action #{stopped}")
            continue
        st = states[at]
        if ex.kind == "state":
            for key, tokens, value in ex.paths:
                actual = _resolve(st, tokens)
                if not matches(value, actual):
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {show_path(tokens)}\n"
                        f"    expected: {show(value)}\n    actual:   {show(actual)}")
        elif ex.kind == "event":
            pool = [e for evs in (step_events[1:] if ex.at is None else [step_events[at]])
                    for e in evs]
            same = [plain(e) for e in pool if type(e).__name__ == ex.name]
            hits = [p for p in same if matches(ex.fields, p)]
            want = f"{ex.name} {show(ex.fields)}" if ex.fields else ex.name
            scope = "in all actions" if ex.at is None else f"in action #{at}"
            if ex.times is None and not hits:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}): no event {want} {scope}\n"
                    f"    expected: {want}\n"
                    f"    actual {ex.name} events: "
                    + ("none" if not same else "\n      " + "\n      ".join(show(p) for p in same)))
            elif ex.times is not None and len(hits) != ex.times:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}): event {want} {scope}\n"
                    f"    expected: {ex.times} time(s)\n    actual:   {len(hits)} time(s)"
                    + ("" if not same else "\n    actual " + ex.name + " events:\n      "
                       + "\n      ".join(show(p) for p in same)))
        elif ex.kind == "illegal":
            action = ex.action
            if action in legal_actions(st):
                res.failures.append(f"expect #{ex.number} ({ex.place}), {when}: "
                                    f"{_action_text(action)} should be refused, but it is legal")
            else:
                code, reason = explain_illegal(st, action)
                if ex.reason and ex.reason.lower() not in reason.lower():
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {_action_text(action)} is "
                        f"refused for another reason\n    expected reason containing: "
                        f"{ex.reason!r}\n    actual reason: {reason!r}")
                if ex.code and ex.code != code:
                    res.failures.append(
                        f"expect #{ex.number} ({ex.place}), {when}: {_action_text(action)} is "
                        f"refused with another code\n    expected code: {ex.code!r}\n"
                        f"    actual code:   {code!r}")
        elif ex.kind in V2_KINDS:
            pool = [e for evs in (step_events[1:] if ex.at is None else [step_events[at]])
                    for e in evs]
            res.failures.extend(_check_v2(ex, st, when, pool, ex.at is None, perft_left))
        else:
            actual = [plain(a) for a in legal_actions(st) if type(a).__name__ == ex.name]
            problem = _legal_problem(ex.mode, ex.fields, actual)
            if problem:
                res.failures.append(
                    f"expect #{ex.number} ({ex.place}), {when}: legal {ex.name} actions "
                    f"({ex.mode})\n    expected: {show(ex.fields)}\n"
                    f"    actual:   {show([{k: v for k, v in a.items()} for a in actual])}"
                    f"\n    {problem}")
    return res


def _dice_seat_problem(sc: Scenario, before: GameState, after: GameState,
                       events: list) -> Optional[str]:
    """A scripted die that names its seat but was rolled for another one. The script is
    used first, so the action's first rolls are the scripted ones."""
    first = len(sc.state.script.dice) - len(before.script.dice)
    used = len(before.script.dice) - len(after.script.dice)
    rolls = [e for e in events if isinstance(e, E.DieRolled)][:used]
    for k, e in enumerate(rolls):
        index = first + k
        want = sc.dice_seats[index] if index < len(sc.dice_seats) else None
        if want is not None and e.seat != want:
            return (f"scripted die #{index + 1} ({e.value}) is for seat {want}, but the "
                    f"engine rolled it for seat {e.seat} ({e.reason})")
    return None


def _check_v2(ex: Expect, st: GameState, when: str, pool: list, everywhere: bool,
              perft_left: Optional[list[int]] = None) -> list[str]:
    """The failures of one format-v2 expectation at state `st` (`pool`: the events it
    may look at; `perft_left`: the positions the scenario's perfts may still visit, one
    number in a list that a perft counts down)."""
    head = f"expect #{ex.number} ({ex.place}), {when}"
    out: list[str] = []
    if ex.kind == "legal_count":
        legal = legal_actions(st, ex.seat)
        if not matches(ex.value, len(legal)):
            whose = "" if ex.seat is None else f" of seat {ex.seat}"
            out.append(f"{head}: the number of legal actions{whose}\n"
                       f"    expected: {show(ex.value)}\n    actual:   {len(legal)}"
                       + _listing(legal))
    elif ex.kind == "legal_set":
        legal = legal_actions(st, ex.seat)
        missing = [a for a in ex.actions if a not in legal]
        extra = [a for a in legal if a not in ex.actions]
        if missing or extra:
            whose = "" if ex.seat is None else f" of seat {ex.seat}"
            lines = [f"{head}: the legal actions{whose} (the exact set, any order)"]
            if missing:
                lines.append("    expected but not legal: " +
                             "; ".join(_action_text(a) for a in missing))
            if extra:
                lines.append("    legal but not expected: " +
                             "; ".join(_action_text(a) for a in extra))
            lines.append("    actual: " + ("; ".join(_action_text(a) for a in legal)
                                           or "nothing is legal"))
            out.append("\n".join(lines))
    elif ex.kind == "perft":
        left = perft_left if perft_left is not None else [PERFT_SCENARIO_NODES]
        limit = min(PERFT_NODES, left[0])
        if limit <= 0:
            out.append(f"{head}: perft {ex.depth} not counted: the scenario's perfts have "
                       f"visited {PERFT_SCENARIO_NODES} positions, the most one scenario may")
            return out
        visited = [0]
        try:
            start = st if ex.script is None else attrs.evolve(st, script=ex.script)
            count = perft(start, ex.depth, ex.until, limit=limit, visited=visited)
        except PerftTooBig:
            left[0] -= visited[0]
            if limit < PERFT_NODES:
                out.append(f"{head}: perft {ex.depth} not counted: the scenario's perfts "
                           f"would visit more than {PERFT_SCENARIO_NODES} positions, the most "
                           "one scenario may; give smaller depths or `until` events")
            else:
                out.append(f"{head}: perft {ex.depth} visits more than {PERFT_NODES} "
                           "positions; give a smaller depth or an `until` event")
            return out
        except ChanceScriptError as exc:
            left[0] -= visited[0]
            out.append(f"{head}: perft {ex.depth}: the scripted chance cannot happen: {exc}")
            return out
        left[0] -= visited[0]
        if not matches(ex.value, count):
            until = f" until {ex.until}" if ex.until else ""
            out.append(f"{head}: perft {ex.depth}{until} (lines of play)\n"
                       f"    expected: {show(ex.value)}\n    actual:   {count}")
    elif ex.kind == "event_order":
        problem = _order_problem(ex, pool)
        if problem:
            scope = "in all actions" if everywhere else f"in action #{ex.at}"
            shown = [f"{type(e).__name__} {show(plain(e))}" for e in pool]
            out.append(f"{head}: the order of events {scope}\n    {problem}\n"
                       "    actual events:" + ("".join("\n      " + x for x in shown[:80])
                                               or " none")
                       + ("\n      …" if len(shown) > 80 else ""))
    else:   # observe
        from rules.observe import observe
        obs = observe(st, ex.seat)
        for key, tokens, value in ex.paths:
            actual = _walk_value(obs, tokens)
            ok = _hidden(actual) if value == HIDDEN else matches(value, actual)
            if not ok:
                out.append(f"{head}: what seat {ex.seat} sees at {show_path(tokens)}\n"
                           f"    expected: {show(value)}\n    actual:   {show(actual)}")
    return out


def _hidden(value: Any) -> bool:
    """Nothing to see: none, or an empty list."""
    return value is None or value == []


def _walk_value(value: Any, tokens: tuple) -> Any:
    """The plain value at `tokens` of a state or an observation (None through a None)."""
    for t in tokens:
        if value is None:
            return None
        if isinstance(t, int):
            value = value[t] if t < len(value) else None
        else:
            value = getattr(value, t)
    return plain(value)


def _listing(legal: list) -> str:
    if not legal:
        return ""
    shown = "; ".join(_action_text(a) for a in legal[:12]) + (" …" if len(legal) > 12 else "")
    return f"\n    legal now: {shown}"


def _order_problem(ex: Expect, pool: list) -> Optional[str]:
    """Why the events do not show `ex.sequence` in order (then none of `ex.then_none`)."""
    def hit(pattern: tuple[str, dict], e: Any) -> bool:
        return type(e).__name__ == pattern[0] and matches(pattern[1], plain(e))

    def name(pattern: tuple[str, dict]) -> str:
        return f"{pattern[0]} {show(pattern[1])}" if pattern[1] else pattern[0]

    k = 0
    last = -1
    for i, e in enumerate(pool):
        if k < len(ex.sequence) and hit(ex.sequence[k], e):
            k += 1
            last = i
    if k < len(ex.sequence):
        got = " → ".join(name(p) for p in ex.sequence[:k]) or "nothing"
        return (f"expected in this order: {' → '.join(name(p) for p in ex.sequence)}\n"
                f"    found in order only: {got}; missing from there: {name(ex.sequence[k])}")
    if ex.then_none is not None:
        after = [e for e in pool[last + 1:] if hit(ex.then_none, e)]
        if after:
            return (f"expected no {name(ex.then_none)} after {name(ex.sequence[-1])}, "
                    f"but there is: {type(after[0]).__name__} {show(plain(after[0]))}")
    return None


class PerftTooBig(Exception):
    pass


def perft(state: GameState, depth: int, until: str = "", limit: Optional[int] = None,
          visited: Optional[list[int]] = None) -> int:
    """The number of lines of play of `depth` actions from `state` (perft): every legal
    action is taken in turn. A line also ends when the game is over, when no action is
    legal, or after an action that produced an `until` event (e.g. "TurnEnded": whole
    turn sequences). Each line uses the scripted chance `state` carries, on its own;
    where a line needs more, the state's seeded generator decides (so the count is
    always the same). Raises PerftTooBig past `limit` positions; ChanceScriptError when
    a scripted chip is not in the bag. `visited`: a one-number list that ends up holding
    the positions visited (also when it raises)."""
    seen = visited if visited is not None else [0]
    limit = PERFT_NODES if limit is None else limit

    def count(st: GameState, d: int) -> int:
        seen[0] += 1
        if seen[0] > limit:
            raise PerftTooBig()
        if d == 0:
            return 1
        legal = legal_actions(st)
        if not legal:
            return 1
        total = 0
        for a in legal:
            nxt, events = apply(st, a)
            if until and any(type(e).__name__ == until for e in events):
                seen[0] += 1
                total += 1
            else:
                total += count(nxt, d - 1)
        return total

    return count(state, depth)


def _legal_problem(mode: str, wanted: list[dict], actual: list[dict]) -> Optional[str]:
    missing = [w for w in wanted if not any(matches(w, a) for a in actual)]
    if mode == "excludes":
        present = [w for w in wanted if any(matches(w, a) for a in actual)]
        return f"legal but expected not to be: {show(present)}" if present else None
    if missing:
        return f"missing: {show(missing)}"
    if mode == "exactly":
        extra = [a for a in actual if not any(matches(w, a) for w in wanted)]
        if extra:
            return f"not expected: {show(extra)}"
    return None


# =========================================================================== the command

def check(paths: Iterable[str], explain: bool = False, lang: str = "en",
          out: Optional[TextIO] = None) -> int:
    """`tactical check`: one line per scenario, a diff for each failure, then
    `N passed, M failed`. Returns the exit code: 0 if all passed, else 1."""
    out = SafeStream(out if out is not None else sys.stdout)   # data is never terminal control
    passed = failed = 0
    for path, problem in scenario_files(paths):
        if problem is not None:
            print(f"FAIL  {path}: {problem}", file=out)
            failed += 1
            continue
        try:
            sc = load_scenario(path)
        except ScenarioError as exc:
            print(f"FAIL  {path}: malformed scenario\n      {exc}", file=out)
            failed += 1
            continue
        except Exception as exc:  # noqa: BLE001 - never a traceback for a scenario file
            print(f"FAIL  {path}: malformed scenario\n      {path}: cannot be read as a "
                  f"scenario ({type(exc).__name__}: {exc})", file=out)
            failed += 1
            continue
        try:
            res = run_scenario(sc, explain=explain, lang=lang)
        except Exception as exc:  # noqa: BLE001
            res = Result(sc, path, [f"the scenario could not be run: {type(exc).__name__}: {exc}"])
        mark = "pass" if res.passed else "FAIL"
        print(f"{mark}  {path}  {res.title}", file=out)
        if explain:
            if sc.description:
                print("      " + sc.description.strip().replace("\n", "\n      "), file=out)
            for line in res.log:
                print(f"      {line}", file=out)
        for f in res.failures:
            print("      " + f.replace("\n", "\n      "), file=out)
        if res.passed:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 else 1
