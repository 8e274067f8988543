"""A zygote for the SSH front door's sessions (issue 30, capacity): one process that has
imported what `tactical join` needs (Textual, the app, the rules, the card data) once,
and forks a session's process from itself, instead of a new Python that imports it all
again.

Why: a session's `tactical join` is a Python process of ~47 MB RSS, most of it the
same modules in every one of them. A forked child shares the zygote's pages until it
writes to them (copy on write); `gc.freeze()` before forking keeps the collector from
touching, and so copying, every object the zygote made. A child is also in the lobby
sooner: nothing is imported again.

What a child is, is what the door's exec path makes (sshdoor._CTTY): a session leader
(setsid) whose controlling terminal is the pty, with the pty as its standard input,
output and error, the session's environment, and the command the door would have run,
``python -m MODULE ARGV…``, run in it as Python runs it (`runpy.run_module`, as
``__main__``; the door's is ``tactical_tui.cli``'s `tactical join`); its exit status is
the module's. The zygote knows no module of the game by name but those it preloads:
what a session runs is the door's to say (the command it names). The door signals its
process group as before (killpg). Only the zygote can reap it, so the zygote says when
each child ends.

The protocol, on a Unix socket pair between the host and the zygote (JSON, one object a
line): the host sends ``{"id", "module", "argv", "env"}`` with the pty's slave end attached
(SCM_RIGHTS); the zygote answers ``{"id", "pid"}`` (or ``{"id", "error"}``), and
``{"exit": pid, "status": n}`` when a child ends (n < 0: killed by signal -n). When the
host's end closes, the zygote leaves (its children go on until the door hangs them up).

Host side: ``Zygote`` (start, spawn → a process object with ``pid``, ``returncode`` and
``await wait()``, as asyncio's, close). If the zygote is gone, spawn raises OSError and
the door starts the session the usual way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
from typing import Optional

log = logging.getLogger("tactical.ssh")

# What `tactical join` imports on its way to the lobby and the table screens: the
# `tactical` command's own imports, then the app's (the command module itself is run
# anew in each child, as ``python -m`` runs it: a few milliseconds, its code cached).
PRELOAD = ("textual.app", "textual.widgets", "textual.drivers.linux_driver", "textual.screen",
           "rich.console", "rules", "rules.cards", "ai", "tactical_tui.tools.cards_cmd",
           "tactical_tui.text.langs", "tactical_tui.text.safe", "tactical_tui.table.seeds",
           "tactical_tui.exitline", "tactical_tui.settings",
           "tactical_tui.app", "tactical_tui.screens.online.lobby", "tactical_tui.text.catalog",
           "tactical_tui.net.remote", "tactical_tui.net.client", "tactical_tui.net.wire",
           "tactical_tui.screens.game", "tactical_tui.screens.draft", "tactical_tui.screens.bid",
           "tactical_tui.screens.build", "tactical_tui.screens.battle",
           "tactical_tui.screens.gameover", "tactical_tui.table.live")


# ------------------------------------------------------------------ the zygote's side

def _preload() -> None:
    import importlib
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    try:                                   # the shipped card data, parsed once for all
        from tactical_tui.table.cardcache import load_cards
        load_cards(None)
    except Exception:  # noqa: BLE001 - the child loads it itself then
        pass


def _child(module: str, argv: list, env: dict, slave: int) -> None:
    """In the forked child: become the pty's session, run ``python -m module *argv``."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)       # as Python sets it at start
        os.setsid()
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        if slave > 2:
            os.close(slave)
        import fcntl
        import termios
        try:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        except OSError:
            pass
        os.environ.clear()
        os.environ.update(env)
        sys.stdin = sys.__stdin__ = open(0, "r", encoding="utf-8", closefd=False)
        sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False,
                                           buffering=1)
        sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace",
                                           closefd=False, buffering=1)
        sys.argv = [module, *argv]            # (argv[0]: the module's file, as -m sets it)
        import runpy
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # noqa: BLE001 - said on the terminal, as Python would
            import traceback
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code if isinstance(code, int) else 1)


def serve(fd: int) -> None:
    """The zygote: preload, then fork a child for every request on socket `fd`."""
    import gc
    import select
    sock = socket.socket(fileno=fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)           # the host says when to go
    _preload()
    gc.collect()
    gc.freeze()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    buf = b""

    def say(obj: dict) -> None:
        sock.sendall(json.dumps(obj).encode() + b"\n")

    while True:
        try:
            ready, _, _ = select.select([sock, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in ready:
            os.read(wake_r, 4096)
        while True:                                        # reap and report
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            say({"exit": pid, "status": code})
        if sock not in ready:
            continue
        data, fds, _, _ = socket.recv_fds(sock, 65536, 4)
        if not data:
            return                                         # the host is gone
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = json.loads(line)
            slave = fds.pop(0) if fds else None
            if slave is None:
                say({"id": req["id"], "error": "no terminal"})
                continue
            try:
                pid = os.fork()
            except OSError as exc:
                os.close(slave)
                say({"id": req["id"], "error": exc.strerror or str(exc)})
                continue
            if pid == 0:
                sock.close()
                os.close(wake_r)
                os.close(wake_w)
                _child(req["module"], req["argv"], req["env"], slave)
            os.close(slave)
            say({"id": req["id"], "pid": pid})
        for extra in fds:
            os.close(extra)


# ------------------------------------------------------------------ the host's side

class Child:
    """A session's process forked by the zygote: pid, returncode, await wait()."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: Optional[int] = None
        self._done = asyncio.get_running_loop().create_future()

    def _exited(self, status: int) -> None:
        if self.returncode is None:
            self.returncode = status
            if not self._done.done():
                self._done.set_result(status)

    async def wait(self) -> int:
        return await asyncio.shield(self._done)


class Zygote:
    """The host's end of the zygote (module docstring)."""

    def __init__(self) -> None:
        self.proc: Optional[asyncio.subprocess.Process] = None
        self._sock: Optional[socket.socket] = None
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._task: Optional[asyncio.Task] = None
        self._next = 0
        self._asked: dict[int, asyncio.Future] = {}
        self._children: dict[int, Child] = {}
        self._early: dict[int, int] = {}                   # exits reported before the pid
        self.alive = False

    async def start(self, env: Optional[dict] = None) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", "import sys; from tactical_tui.net.zygote import serve; "
                "serve(int(sys.argv[1]))", str(theirs.fileno()), pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                start_new_session=True, env=env)
        finally:
            theirs.close()
        self._sock = ours
        # (the writer kept: a StreamWriter that is collected closes its transport)
        self._reader, self._writer = await asyncio.open_unix_connection(sock=ours)
        self.alive = True
        self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self._reader is not None
        try:
            while line := await self._reader.readline():
                msg = json.loads(line)
                if "exit" in msg:
                    child = self._children.pop(msg["exit"], None)
                    if child is not None:
                        child._exited(int(msg["status"]))
                    else:
                        self._early[msg["exit"]] = int(msg["status"])
                elif msg.get("id") in self._asked:
                    fut = self._asked.pop(msg["id"])
                    if not fut.done():
                        fut.set_result(msg)
        except (OSError, ValueError) as exc:
            log.error("the session zygote's answer is unreadable: %s", exc)
        finally:
            self.alive = False
            for fut in self._asked.values():
                if not fut.done():
                    fut.set_exception(OSError("the session zygote is gone"))
            self._asked.clear()
            for pid, child in list(self._children.items()):   # nobody reports them now
                asyncio.get_running_loop().create_task(self._watch(pid, child))

    async def _watch(self, pid: int, child: Child) -> None:
        """A child whose zygote is gone: wait until its pid is gone (status unknown)."""
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                pass
            await asyncio.sleep(0.5)
        self._children.pop(pid, None)
        child._exited(0)

    async def spawn(self, module: str, argv: list, env: dict, slave: int) -> Child:
        """Fork a child running ``python -m module *argv`` on the pty `slave`."""
        if not self.alive or self._sock is None:
            raise OSError("the session zygote is not running")
        self._next += 1
        rid = self._next
        fut = asyncio.get_running_loop().create_future()
        self._asked[rid] = fut
        data = json.dumps({"id": rid, "module": module, "argv": list(argv),
                           "env": env}).encode() + b"\n"
        while True:
            try:
                socket.send_fds(self._sock, [data], [slave])
                break
            except BlockingIOError:
                await asyncio.sleep(0.01)
        answer = await asyncio.wait_for(fut, 30.0)
        if "error" in answer:
            raise OSError(answer["error"])
        child = Child(int(answer["pid"]))
        if child.pid in self._early:
            child._exited(self._early.pop(child.pid))
        else:
            self._children[child.pid] = child
        return child

    async def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        if self.proc is not None:
            try:
                await asyncio.wait_for(self.proc.wait(), 5.0)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self._task is not None:
            self._task.cancel()
        if self._sock is not None:
            self._sock.close()
        self.alive = False
