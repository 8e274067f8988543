"""`tactical host`, the command (issue 17; docs/HOSTING.md): its options made the
Server's fields (`limits`, docs/PROTOCOL.md "Fair service"), the log, the limit of open
files, the card data, the folder of tables locked, the AI pool, the Server listening,
the SSH front door beside it (`_ssh_door`, sshdoor.py: `ssh -p PORT NAME@host` runs
`tactical join` to this server through its Unix socket), serving until SIGINT, SIGTERM
or SIGHUP, then stopping both.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Optional

from rules.cards import default_cards, parse_cards

from tactical_tui.net.aipool import make_executor
from tactical_tui.net.limits import quiet_accept_errors, raise_nofile
from tactical_tui.net.persist import FolderProblem, host_dir
from tactical_tui.net.server import MAX_PER_PEER, WAITING_MAX, Server

log = logging.getLogger("tactical.host")


def limits(args: Any) -> dict:
    """The Server fields `tactical host`'s options set (docs/PROTOCOL.md "Fair service")."""
    return dict(rate=args.rate, peer_rate=args.peer_rate, local_rate=args.local_rate,
                queued=args.queue_kib * 1024, queued_seated=args.seated_queue_kib * 1024,
                tables_per_peer=args.tables_per_peer, tables_per_local=args.tables_per_local,
                retire_after=args.retire_after * 60, finished_listed=args.finished_listed,
                waiting_max=getattr(args, "waiting_max", WAITING_MAX / 60) * 60,
                code_guesses=args.code_guesses, spectator_chat=args.spectator_chat,
                log_every=args.log_every)


def host_cli(args: Any, lang: str) -> int:
    """`tactical host`: serve until SIGINT / SIGTERM."""
    import signal
    import sys

    from tactical_tui.text.i18n import t
    from tactical_tui.text.safe import plain
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # asyncssh says ~260 bytes at INFO for every TCP connection (accepted, peer, lost,
    # auth): a flood of connections floods the log. The door's own lines about
    # connections are at DEBUG; its refusals are counted, a line a minute per peer.
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    before, now = raise_nofile()
    if now != before:
        log.info("open files: at most %d (was %d)", now, before)
    folder = Path(args.host_dir) if args.host_dir else host_dir() / "tables"
    cards_toml = None
    if args.cards:
        try:
            cards_toml = Path(args.cards).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            from tactical_tui.text.catalog import os_error_text, ui
            detail = os_error_text(exc, lang) if isinstance(exc, OSError) else str(exc)
            print(plain(f"{ui('err.cards', lang)}: {args.cards}: {detail}"), file=sys.stderr)
            return 2
        cards = parse_cards(cards_toml, str(args.cards))     # CardDataError: said by main
    else:
        cards = default_cards()

    async def main() -> int:
        quiet_accept_errors(asyncio.get_running_loop())
        server = Server(folder, cards, cards_toml, ai_delay=args.host_ai_delay,
                        max_tables=args.max_tables, **limits(args))
        try:
            server.lock_folder()
        except RuntimeError:
            print(t("net.host.locked", lang, folder=plain(str(folder))), file=sys.stderr)
            return 2
        except FolderProblem as exc:
            print(t(exc.key, lang, **{k: plain(str(v)) for k, v in exc.params.items()}),
                  file=sys.stderr)
            return 2
        server.pool_factory = lambda: make_executor(args.workers, cards_toml)
        server.executor = server.pool_factory()
        try:
            host, port = await server.start(args.bind, args.port)
        except OSError as exc:
            print(t("net.host.bind_failed", lang, address=plain(f"{args.bind}:{args.port}"),
                    detail=plain(exc.strerror or str(exc))), file=sys.stderr)
            return 2
        door = None
        if args.ssh_port is not None:
            door = await _ssh_door(args, port, lang, await server.listen_door())
            if door is None:
                await server.stop()
                return 2
            # every SSH session is a `tactical join` through the door's own socket
            server.max_per_door = getattr(door, "max_sessions", 0) + MAX_PER_PEER
        print(t("net.host.serving", lang, address=f"{host}:{port}", folder=plain(str(folder)),
                n=len(server.tables)), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        if door is not None:
            door.close()
            await door.wait_closed()
        await server.stop()
        if server.executor is not None:
            server.executor.shutdown(wait=False, cancel_futures=True)
        return 0

    return asyncio.run(main())


async def _ssh_door(args: Any, table_port: int, lang: str, unix_path: Optional[str] = None):
    """The SSH front door beside the table server (tactical_tui/net/sshdoor.py, issue 17
    point 6): `ssh -p PORT NAME@host` runs `tactical join` to this server, through its
    Unix socket `unix_path` (Server.listen_door) when given."""
    import sys

    from tactical_tui.text.i18n import t
    try:
        from tactical_tui.net import sshdoor
    except ImportError as exc:
        print(t("net.host.no_ssh", lang, detail=str(exc)), file=sys.stderr)
        return None
    target = "127.0.0.1" if args.bind in ("0.0.0.0", "::", "") else args.bind
    try:
        door = await sshdoor.serve(
            args.bind, args.ssh_port,
            command_for=sshdoor.join_command(table_port, target, unix_path),
            authorized_keys=args.authorized_keys, open_door=args.ssh_open,
            idle=max(0.0, args.ssh_idle) * 60, max_sessions=args.ssh_max_sessions,
            login_timeout=args.ssh_login_timeout, max_startups=args.ssh_max_startups,
            startups_per_peer=args.ssh_startups_per_peer,
            sessions_per_connection=args.ssh_sessions_per_connection,
            sessions_per_key=args.ssh_sessions_per_key,
            max_size=(args.ssh_max_cols, args.ssh_max_rows), zygote=args.ssh_zygote)
    except Exception as exc:  # noqa: BLE001 - DoorError, OSError: said, the host stops
        from tactical_tui.text.safe import plain
        detail = exc.text(lang) if isinstance(exc, sshdoor.DoorError) else plain(str(exc))
        print(t("net.host.no_ssh", lang, detail=detail), file=sys.stderr)
        return None
    print(door.listening(lang), flush=True)       # how to ssh in, the host key's fingerprint
    return door
