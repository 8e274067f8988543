"""The `tactical` command."""

from __future__ import annotations

import argparse
import sys

from tactical_tui.tools.cards_cmd import TYPES
from tactical_tui.text.langs import LANGS, default_lang
from tactical_tui.text.safe import plain
from tactical_tui.table.seeds import SEED_LIMIT, new_seed, valid_seed

# The rules, the card data and text/catalog.py (the event log's catalogue, which imports the rules)
# are imported where they are used: `tactical --help` and the title screen need none.


def ui(key: str, lang: str, **kw: object) -> str:
    from tactical_tui.text.catalog import ui as text_ui
    return text_ui(key, lang, **kw)


def load_cards(path, for_game: bool = True):
    from tactical_tui.table.cardcache import load_cards as load      # rules.cards.load_cards + the user cache
    return load(path, for_game=for_game)


def _card_data_error() -> type:
    """rules.cards.CardDataError, for an `except` clause (evaluated only when something
    was raised: nothing is imported for it on the way in)."""
    from rules.cards import CardDataError
    return CardDataError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tactical", description="TACTICAL — a terminal game for 3–5 guild masters.")
    p.add_argument("--players", type=int, choices=(3, 4, 5), default=4, help="number of seats (3–5)")
    p.add_argument("--seed", type=int, default=None, help="seed for a reproducible game")
    p.add_argument("--lang", choices=LANGS, default=None, help="ja or en (default: from the locale)")
    p.add_argument("--first-game", action="store_true", help="only the initial set (cards without the star)")
    p.add_argument("--cards", default=None, help="card data file (default: the shipped cards.toml)")
    p.add_argument("--quick", action="store_true", help="skip the title: you + 3 normal AI, first game")
    p.add_argument("--ai-delay", type=float, default=None, metavar="SECONDS",
                   help="the AI pause: after an AI action that shows a change (bids, moves, "
                        "damage, VP), the next AI action waits this long (default: the "
                        "settings file, else 0.4)")
    p.add_argument("--resume", nargs="?", const="", default=None, metavar="FILE",
                   help="continue the last unfinished game (or the given save file)")
    p.add_argument("--seats", default=None,
                   help="start at once with these seats, e.g. human,normal,easy,random")
    p.add_argument("--headless", action="store_true",
                   help="no interface: play a game between random players and print it")
    sub = p.add_subparsers(dest="command")
    sim = sub.add_parser("simulate", help="play AI games headless and report win rates")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, choices=(3, 4, 5), default=None, dest="sim_players",
                     help="seats (default: the number of --seats)")
    sim.add_argument("--seats", default="normal,random,random,random",
                     help="comma-separated AI levels, one per seat (random, easy, normal)")
    sim.add_argument("--seed", type=int, default=0, dest="sim_seed")
    sim.add_argument("--jobs", type=int, default=1, help="parallel processes")
    lad = sub.add_parser("ladder", help="rate the AI levels from seeded games among them")
    lad.add_argument("--games", type=int, default=200)
    lad.add_argument("--levels", default="random,easy,normal,hard",
                     help="comma-separated AI levels to rate (random, easy, normal, hard)")
    lad.add_argument("--players", default="3,4,5", dest="ladder_players", metavar="N,...",
                     help="seat counts, cycled game by game (default 3,4,5)")
    lad.add_argument("--seed", type=int, default=0, dest="ladder_seed", metavar="SEED",
                     help="game g plays seed SEED + g (default 0)")
    lad.add_argument("--jobs", type=int, default=1, help="parallel processes")
    lad.add_argument("--sims", type=int, default=28,
                     help="hard's simulations per decision, no clock (0: its 0.5 s clock)")
    lad.add_argument("--log", default=None, metavar="FILE",
                     help="append each game to this file; a run started again skips them")
    rep = sub.add_parser("replay", help="step through a saved game, every seat visible")
    rep.add_argument("file", help="a save or replay file")
    rep.add_argument("--step", type=int, default=None, metavar="N",
                     help="the position after N actions (0 = the deal); with --export "
                          "the default is the last")
    rep.add_argument("--export", default=None, metavar="OUT.toml",
                     help="write that position as a scenario file for 'tactical check' "
                          "instead of opening the viewer")
    rep.add_argument("--force", action="store_true", help="with --export: replace OUT.toml")
    rep.add_argument("--lang", choices=LANGS, default=None, dest="sub_lang", help="ja or en")
    bal = sub.add_parser("balance", help="win rate by race, guild and card from AI games")
    bal.add_argument("--games", type=int, default=400)
    bal.add_argument("--players", type=int, choices=(3, 4, 5), default=4, dest="bal_players")
    bal.add_argument("--seed", type=int, default=0, dest="bal_seed")
    bal.add_argument("--jobs", type=int, default=1)
    bal.add_argument("--csv", default=None, help="also write the figures to this CSV file")
    bal.add_argument("--min-plays", type=int, default=20, help="hide rows with fewer plays")
    c = sub.add_parser("cards", help="print the card set as tables")
    c.add_argument("--lang", choices=LANGS, default=None, dest="sub_lang", help="ja or en")
    c.add_argument("--type", action="append", choices=TYPES, default=None,
                   help="only this kind (repeatable): race, guild, family, defense, attack")
    c.add_argument("--initial", action="store_true", help="only the initial set (no star)")
    c.add_argument("--cards", default=None, dest="sub_cards", help="card data file")
    c.add_argument("--summary", action="store_true",
                   help="print the generated count tables of docs/CARDS.md (Markdown)")
    cw = c.add_mutually_exclusive_group()
    cw.add_argument("--write", default=None, metavar="FILE",
                    help="with --summary: rewrite the generated blocks of FILE in place")
    cw.add_argument("--check", default=None, metavar="FILE",
                    help="with --summary: exit 1 if the generated blocks of FILE differ from the data")
    jn = sub.add_parser("join", help="play at a table server (tactical host): the lobby, then your seat")
    jn.add_argument("address", nargs="?", default=None, metavar="HOST[:PORT]",
                    help="the server (default 127.0.0.1:7411)")
    jn.add_argument("--name", default=None, help="your name at the tables (default: $USER)")
    jn.add_argument("--lang", choices=LANGS, default=None, dest="sub_lang", help="ja or en")
    jn.add_argument("--socket", default=None, metavar="PATH",
                    help="connect through this Unix socket of the host (HOST:PORT then only "
                         "names it); the SSH front door's sessions do")
    k = sub.add_parser("check", help="run rule scenario files (docs/scenarios.md)",
                       description="Run rule scenarios: one line per scenario, a diff for each "
                                   "failure, then 'N passed, M failed'. Exit 1 if any failed.")
    k.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or folders of them")
    k.add_argument("--explain", action="store_true", help="print each scenario's event log step by step")
    k.add_argument("--lang", choices=LANGS, default=None, dest="sub_lang", help="ja or en (for --explain)")
    h = sub.add_parser("host", help="serve tables to players on their own terminals (tactical join)",
                       description="Serve tables (docs/PROTOCOL.md) until Ctrl+C. Loopback only "
                                   "unless --bind says otherwise: from outside, players come in "
                                   "through the SSH front door (--ssh-port).")
    h.add_argument("--bind", default="127.0.0.1", help="address to listen on (default: loopback)")
    h.add_argument("--port", type=int, default=7411, help="table port (0: any free port)")
    h.add_argument("--dir", default=None, dest="host_dir", metavar="FOLDER",
                   help="folder of the tables (default: TACTICAL_HOST_DIR or the user data folder)")
    h.add_argument("--workers", type=int, default=None,
                   help="AI processes (default: one per core; 0: think in the host process)")
    h.add_argument("--ai-delay", type=float, default=0.6, dest="host_ai_delay", metavar="SECONDS",
                   help="pause after each AI action in bidding and battle")
    h.add_argument("--max-tables", type=int, default=100, help="unfinished tables at most")
    # the limits of a public service (docs/PROTOCOL.md "Fair service"); defaults: server.py
    h.add_argument("--rate", type=float, default=20.0, metavar="N",
                   help="requests a second one connection may send (default 20; a burst of 2 s)")
    h.add_argument("--peer-rate", type=float, default=50.0, metavar="N",
                   help="requests a second from one address, an IPv6 /64 (default 50)")
    h.add_argument("--local-rate", type=float, default=400.0, metavar="N",
                   help="requests a second from this machine's local clients, and apart from "
                        "them from the SSH door's sessions together (default 400)")
    h.add_argument("--queue-kib", type=int, default=256, metavar="KIB",
                   help="KiB waiting for a slow reader at no seat (lobby, spectator) before it "
                        "is dropped (default 256)")
    h.add_argument("--seated-queue-kib", type=int, default=4096, metavar="KIB",
                   help="... for a seated player (default 4096)")
    h.add_argument("--tables-per-peer", type=int, default=5, metavar="N",
                   help="unfinished tables one address (IPv6: /64) may have created (default 5)")
    h.add_argument("--tables-per-local", type=int, default=50, metavar="N",
                   help="... this machine's local clients, and apart from them the SSH door's "
                        "players together (default 50)")
    h.add_argument("--retire-after", type=float, default=60.0, metavar="MINUTES",
                   help="retire an unfinished table with no player seated for this long; its "
                        "save is kept in retired/ (0: never; default 60)")
    h.add_argument("--waiting-max", type=float, default=30.0, metavar="MINUTES",
                   help="retire a table waiting for its players that nobody started for this "
                        "long (0: never; default 30)")
    h.add_argument("--finished-listed", type=int, default=20, metavar="N",
                   help="finished tables the lobby lists at most (default 20)")
    h.add_argument("--code-guesses", type=int, default=10, metavar="N",
                   help="wrong join codes a minute from one address (default 10)")
    h.add_argument("--spectator-chat", type=int, default=6, metavar="N",
                   help="chat lines in 10 s from all spectators of a table together (default 6)")
    h.add_argument("--log-every", type=float, default=60.0, metavar="SECONDS",
                   help="seconds between two log lines about one address (default 60)")
    h.add_argument("--ssh-port", type=int, default=None, help="also run the SSH front door here")
    h.add_argument("--authorized-keys", default=None, metavar="FILE",
                   help="SSH front door: public keys allowed in")
    h.add_argument("--open", action="store_true", dest="ssh_open",
                   help="SSH front door: anyone may come in (a LAN party)")
    h.add_argument("--ssh-idle", type=float, default=30.0, metavar="MINUTES",
                   help="SSH front door: close a session after this long without a key "
                        "(0: never; default 30)")
    h.add_argument("--ssh-max-sessions", type=int, default=64, metavar="N",
                   help="SSH front door: games running at once (default 64)")
    h.add_argument("--ssh-sessions-per-key", type=int, default=3, metavar="N",
                   help="SSH front door: games of one key at once (an open door: of one "
                        "address) (default 3)")
    h.add_argument("--ssh-sessions-per-connection", type=int, default=2, metavar="N",
                   help="SSH front door: games on one SSH connection (default 2)")
    h.add_argument("--ssh-login-timeout", type=float, default=20.0, metavar="SECONDS",
                   help="SSH front door: time from connecting to a game running, login "
                        "included (default 20)")
    h.add_argument("--ssh-max-startups", type=int, default=32, metavar="N",
                   help="SSH front door: connections without a game yet, in all (default 32)")
    h.add_argument("--ssh-startups-per-peer", type=int, default=8, metavar="N",
                   help="SSH front door: connections without a game yet from one address "
                        "(IPv6: one /64) (default 8)")
    h.add_argument("--ssh-max-cols", type=int, default=500, metavar="N",
                   help="SSH front door: a wider terminal is given this many columns (default 500)")
    h.add_argument("--ssh-max-rows", type=int, default=200, metavar="N",
                   help="SSH front door: a taller terminal is given this many rows (default 200)")
    h.add_argument("--ssh-zygote", action=argparse.BooleanOptionalAction, default=True,
                   help="SSH front door: fork each session's game from one process that "
                        "imported it once (default; lighter, and sooner in the lobby: "
                        "docs/SSH.md); --no-ssh-zygote starts a new Python for each")
    h.add_argument("--lang", choices=LANGS, default=None, dest="sub_lang",
                   help="ja or en: the host's own messages (players choose theirs)")
    return p


# The numbers an option takes (inclusive): what is outside is refused with a message
# before anything starts (`--ai-delay inf` froze the game at the first AI turn,
# `simulate --games -1` printed a table of nothing).
RANGES = {
    "ai_delay": ("--ai-delay", 0, 3),                # seconds, as the settings file allows
    "host_ai_delay": ("--ai-delay", 0, 3),
    "games": ("--games", 1, 1_000_000),
    "jobs": ("--jobs", 1, 1000),                     # and never more than games or cores
    "min_plays": ("--min-plays", 0, 1_000_000_000),
    "port": ("--port", 0, 65535),                    # 0: any free port
    "ssh_port": ("--ssh-port", 0, 65535),
    "workers": ("--workers", 0, 1000),
    "max_tables": ("--max-tables", 1, 100_000),
    "ssh_idle": ("--ssh-idle", 0, 10_080),           # minutes (a week); 0: never
    "rate": ("--rate", 0.1, 100_000),
    "peer_rate": ("--peer-rate", 0.1, 100_000),
    "local_rate": ("--local-rate", 0.1, 1_000_000),
    "queue_kib": ("--queue-kib", 16, 1_048_576),     # a GiB
    "seated_queue_kib": ("--seated-queue-kib", 16, 1_048_576),
    "tables_per_peer": ("--tables-per-peer", 1, 100_000),
    "tables_per_local": ("--tables-per-local", 1, 100_000),
    "retire_after": ("--retire-after", 0, 10_080),   # minutes (a week); 0: never
    "waiting_max": ("--waiting-max", 0, 10_080),     # minutes (a week); 0: never
    "finished_listed": ("--finished-listed", 0, 100_000),
    "code_guesses": ("--code-guesses", 1, 100_000),
    "spectator_chat": ("--spectator-chat", 1, 1000),
    "log_every": ("--log-every", 0, 86_400),
    "ssh_max_sessions": ("--ssh-max-sessions", 1, 10_000),
    "ssh_sessions_per_key": ("--ssh-sessions-per-key", 1, 10_000),
    "ssh_sessions_per_connection": ("--ssh-sessions-per-connection", 1, 64),
    "ssh_login_timeout": ("--ssh-login-timeout", 1, 600),       # seconds
    "ssh_max_startups": ("--ssh-max-startups", 1, 10_000),
    "ssh_startups_per_peer": ("--ssh-startups-per-peer", 1, 10_000),
    "ssh_max_cols": ("--ssh-max-cols", 80, 10_000),
    "ssh_max_rows": ("--ssh-max-rows", 24, 10_000),
}


def range_problem(args, lang: str):
    """The message for the first option of `args` outside its `RANGES` (None: all fit).
    NaN and infinities are outside every range."""
    import math
    for name, (option, lo, hi) in RANGES.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        if not (math.isfinite(value) and lo <= value <= hi):
            given = plain(str(value))[:40]
            return ui("err.range", lang, option=option, lo=f"{lo:,}", hi=f"{hi:,}", given=given)
    return None


def join_args(args, lang: str):
    """`tactical join`: (host, port, name) — or the message saying what is wrong (the
    address unreadable, the name not 1–24 printable characters, nothing listening)."""
    import os
    import socket
    from tactical_tui.text.i18n import t
    from tactical_tui.net.client import parse_address
    try:
        host, port = parse_address(args.address)
    except ValueError:
        return None, t("join.bad_address", lang, address=plain(args.address))
    name = args.name if args.name is not None else (os.environ.get("USER") or "guest")
    from tactical_tui.net.protocol import name_ok
    if not name_ok(name):
        if args.name is not None:
            return None, t("join.bad_name", lang, name=plain(name))
        name = "guest"
    unix_path = getattr(args, "socket", None)
    try:                                     # said here, before the app takes the terminal
        if unix_path:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.settimeout(5)
                probe.connect(unix_path)
        else:
            socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        from tactical_tui.text.catalog import os_error_text
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if unix_path:
            address = f"{address} ({unix_path})"
        from tactical_tui.exitline import launcher
        return None, t("join.no_server", lang, address=plain(address), why=os_error_text(exc, lang),
                       launcher=plain(launcher()))
    return (host, port, name, unix_path), None


def headless_game(players: int, seed: int, lang: str, first_game: bool, cards_path: str | None,
                  out=None) -> int:
    """Play a game between random players and print every public event (to `out`, by
    default the standard output of the moment)."""
    from ai import RandomPlayer
    from ai.selfplay import ROUND_CAP, unfinished
    from rules import Config, apply, legal_actions, new_game, observe

    from tactical_tui.text.catalog import Describer
    out = out if out is not None else sys.stdout

    cards = load_cards(cards_path)
    describe = Describer(cards, lang)
    state, events = new_game(Config(players=players, first_game=first_game), cards, seed)
    print(ui("headless.title", lang, n=players, seed=seed), file=out)
    bots = [RandomPlayer(seed * 31 + i) for i in range(players)]
    while True:
        for e in events:
            if line := describe.describe(e):
                print(plain(line), file=out)
        legal = legal_actions(state)
        if not legal:
            break
        if unfinished(state):       # the rules end a game only at 5 VP (RULINGS R19)
            print(ui("headless.unfinished", lang, rounds=ROUND_CAP), file=out)
            return 0
        seat = legal[0].seat
        obs = observe(state, seat)
        action = bots[seat].choose(obs, obs.legal)
        state, events = apply(state, action)
    print(ui("headless.over", lang), file=out)
    return 0


class _Hangup:
    """SIGHUP and SIGTERM before the app has taken them over (it saves, then leaves).

    Before the app runs, either one ends the process at once: nothing is open yet, so
    nothing is lost. Once the app runs, raising SystemExit in the middle of its start-up
    would leave Textual's input thread (not a daemon) running and the process hanging for
    ever; the signal is handed to the app instead, which leaves as soon as it is mounted."""

    app = None

    def install(self) -> None:
        import signal
        for sig in (getattr(signal, "SIGHUP", None), signal.SIGTERM):
            if sig is not None:
                signal.signal(sig, self._leave)

    def _leave(self, signum, frame) -> None:
        if self.app is None:
            raise SystemExit(0)
        self.app.hangup_before_mount()


def _print_exit_line(app) -> None:
    """After the app has exited: one line saying the game is saved and how to go on (for
    `tactical join`: that the seat is kept, and the command that goes back to it)."""
    from tactical_tui.exitline import exit_line
    line = exit_line(app)
    command = None
    table, seat = getattr(app, "exit_seat", (None, None))
    session = getattr(app, "session", None)
    if session is not None and isinstance(seat, int) and table in session.saved_seats():
        import os
        import shlex
        from tactical_tui.text.i18n import t
        if os.environ.get("TACTICAL_SSH_BACK"):      # through the SSH front door: ssh again
            line = t("join.exit_line_ssh", app.lang, table=table)
            command = os.environ["TACTICAL_SSH_BACK"]
        else:
            line = t("join.exit_line", app.lang, table=table)
            from tactical_tui.screens.online.lobby import join_command
            command = join_command(session)
    if line:
        try:
            print(plain(line))
            if command:
                print("  " + plain(command))
        except (OSError, ValueError):    # the terminal is gone (a hang-up)
            pass


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    lang = args.lang or default_lang()
    if args.seed is not None and not valid_seed(args.seed):
        print(ui("err.seed", lang, limit=SEED_LIMIT - 1), file=sys.stderr)
        return 2
    problem = range_problem(args, getattr(args, "sub_lang", None) or lang)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    try:
        if args.command == "check":
            from tactical_tui.tools.scenario import check
            return check(args.paths, explain=args.explain, lang=args.sub_lang or lang)
        if args.command == "cards":
            from tactical_tui.tools.cards_cmd import print_cards
            lang = args.sub_lang or lang
            if args.summary or args.write or args.check:
                from tactical_tui.tools.cards_summary import summary_cli
                return summary_cli(load_cards(args.sub_cards or args.cards, for_game=False), lang,
                                   write=args.write, check=args.check)
            print_cards(load_cards(args.sub_cards or args.cards, for_game=False), lang,
                        tuple(args.type or TYPES), args.initial)
            return 0
        if args.command in ("balance", "simulate", "ladder") and args.cards:
            # their worker processes deal from the shipped card data: say so rather than
            # play other cards than the ones named
            print(ui("err.sim_cards", lang, command=args.command), file=sys.stderr)
            return 2
        if args.command == "balance":
            from tactical_tui.tools.simulate import run_balance_cli
            return run_balance_cli(args.games, args.bal_players, args.bal_seed, args.jobs,
                                   args.csv, args.min_plays, lang)
        if args.command == "simulate":
            from tactical_tui.tools.simulate import run_cli
            return run_cli(args.games, args.sim_players, args.seats, args.sim_seed, args.jobs)
        if args.command == "ladder":
            from tactical_tui.tools.ladder import run_cli as ladder_cli
            return ladder_cli(args.games, args.ladder_seed, args.levels, args.ladder_players,
                              args.jobs, args.sims, args.log)
        if args.command == "host":
            from tactical_tui.net.host import host_cli
            return host_cli(args, args.sub_lang or lang)
        if args.command == "replay":
            lang = args.sub_lang or lang
        if args.command == "replay" and args.export is not None:
            from tactical_tui.screens.replay import export_replay
            return export_replay(args.file, args.step, args.export, lang, load_cards(args.cards),
                                 force=args.force)
        if args.headless:
            seed = args.seed if args.seed is not None else new_seed()
            return headless_game(args.players, seed, lang, args.first_game, args.cards)
        if not sys.stdout.isatty():
            print(ui("err.no_tty", lang), file=sys.stderr)
            return 2
        if args.command == "replay":
            from tactical_tui.screens.replay import run_replay
            return run_replay(args.file, lang, load_cards(args.cards), args.step)
        join = None
        if args.command == "join":
            lang = args.sub_lang or lang
            join, problem = join_args(args, lang)
            if problem:
                print(plain(problem), file=sys.stderr)
                return 2
            from tactical_tui.screens.online import lobby
            # the way back to a seat keeps the options the player connected with
            lobby.JOIN_OPTIONS[:] = ["--lang", args.sub_lang or args.lang] \
                if (args.sub_lang or args.lang) else []
        seats = None
        if args.seats:
            seats = tuple(x.strip() for x in args.seats.split(",") if x.strip())
            if not 3 <= len(seats) <= 5 or any(x not in ("human", "random", "easy", "normal", "hard") for x in seats):
                print(ui("err.seats", lang), file=sys.stderr)
                return 2
        hangup = _Hangup()
        hangup.install()
        from tactical_tui.app import TacticalApp
        # the shipped card data is loaded when a game needs it (from the cache); a file
        # named with --cards is read now, so that a problem with it is said before the app
        from tactical_tui.settings import Store
        store = Store.from_file()            # the remembered settings; options override them
        app = TacticalApp(lang=(getattr(args, "sub_lang", None) if join else None) or args.lang
                          or store.settings.lang or lang, cards=load_cards(args.cards) if args.cards else None,
                          ai_delay=args.ai_delay if args.ai_delay is not None
                          else store.settings.ai_delay,
                          quick=args.quick, seed=args.seed, resume=args.resume, seats=seats,
                          store=store, join=join)
        hangup.app = app
        app.run()
        _print_exit_line(app)
        return 0
    except _card_data_error() as exc:
        from tactical_tui.text.catalog import card_error_text
        print(plain(f"{ui('err.cards', lang)}: {card_error_text(exc, lang)}", lines=True),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(ui("interrupted", lang), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
