"""The warm engine's life: take the project's lock, bind the socket, warm up, then answer one
connection at a time until a reason to exit (:meth:`recall.warm.server.Engine.gone`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from typing import Any

from recall.kept_engine import keep_between_commands
from recall.warm import protocol
from recall.warm.server import CHECK_EVERY_S, REQUEST_IO_TIMEOUT_S, Engine, idle_limit

WARM_UP = ("inject", "--no-record", "warm up")
"""A first query run when the engine starts, its output dropped: it loads the modules a recall
imports on first use, so the first real request is as quick as the next. ``--no-record``
leaves every counter untouched; the store sync and genome check it does are what any command
run in the project does."""


def _lock(base: str, ident: str) -> int | None:
    """The project's engine lock, held until this process ends; None when another holds it."""
    fd = os.open(protocol.lock_path(base, ident), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def _take_over(base: str, ident: str, root: str) -> int | None:
    """The project's lock once the engine holding it ends without ever answering (it failed
    while starting): this engine then starts in its place. None as soon as that engine
    answers (it serves the project), or when it has not answered within the time a starter
    waits (:data:`recall.warm.control.START_WAIT_S`)."""
    from recall.warm import control

    deadline = time.monotonic() + control.START_WAIT_S
    while time.monotonic() < deadline:
        try:
            if control.ask(root, "status") is not None:
                return None
        except control.WarmError:
            return None
        time.sleep(control.POLL_S)
        fd = _lock(base, ident)
        if fd is not None:
            return fd
    return None


def _bind(path: str) -> socket.socket:
    # a stale socket of an engine that was killed: ours to replace, we hold the lock
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(16)
    return listener


def _warm_up(engine: Engine) -> None:
    from recall.cli.main import main
    from recall.warm import request

    env = dict(os.environ)
    spec = ["utf-8", "strict", False]
    warm = {
        "argv": list(WARM_UP),
        "env": env,
        "cwd": engine.root,
        "umask": os.umask(0o022),
        "streams": [spec, spec, spec],
        "stdin": b"",
    }
    os.umask(warm["umask"])
    request.run(warm, lambda: b"", main)
    import recall.hooks.events  # noqa: F401 - the hooks' own modules, loaded before they are asked


def _watch_folders(engine: Engine) -> None:
    """Watch the memory folders the requests sync, from before the warm-up's own sync."""
    from recall.folder_events import FolderEvents
    from recall.index import sync
    from recall.index.deferred_check import keep_checks_here

    engine.folder_events = FolderEvents.create()
    sync.use_folder_events(engine.folder_events)
    keep_checks_here()


def serve(root: str) -> int:
    """Run the engine of ``root`` until it has a reason to exit; the exit code."""
    base = protocol.private_folder(create=True)
    if base is None:
        return 1
    ident = protocol.project_id(root, os.environ)
    if _lock(base, ident) is None and _take_over(base, ident, root) is None:
        return 0  # another engine serves this project
    protocol.IN_ENGINE[0] = True
    os.chdir(root)  # never a folder that may be removed under it
    path = protocol.socket_path(base, ident)
    engine = Engine(root)
    _watch_folders(engine)
    keep_between_commands()  # the warm-up's stores and engine serve the first request
    _warm_up(engine)
    listener = _bind(path)
    st = os.lstat(path)
    engine.socket_id = (st.st_dev, st.st_ino)
    engine.last = time.monotonic()
    limit = idle_limit()
    mark = protocol.idle_mark_path(base, ident)
    with contextlib.suppress(OSError):  # running again: nothing to wake
        os.unlink(mark)
    try:
        while not engine.stopping:
            idle = time.monotonic() - engine.last
            if idle >= limit:
                _mark_idle(mark)
                break
            if engine.gone(path):
                break
            listener.settimeout(max(0.05, min(CHECK_EVERY_S, limit - idle)))
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                _answer(engine, conn, path)
    finally:
        listener.close()
        try:  # only our own socket: another engine may have replaced it
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) == engine.socket_id:
                os.unlink(path)
        except OSError:
            pass
    return 0


def _mark_idle(mark: str) -> None:
    """Say this engine left for want of requests (an empty file, this user's only)."""
    with contextlib.suppress(OSError):
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))


def _answer(engine: Engine, conn: socket.socket, path: str) -> None:
    """Answer one connection; a client that misbehaves is dropped, never raised about."""
    conn.settimeout(REQUEST_IO_TIMEOUT_S)
    if not protocol.peer_is_us(conn):
        return
    try:
        message = protocol.receive(conn)
        op = message.get("op")
        if op == "status":
            protocol.send(conn, engine.status())
        elif op == "stop":
            engine.stopping = True
            protocol.send(conn, engine.status())
        elif op == "run" and not protocol.peer_gone(conn):  # queued past its client's wait
            _run(engine, conn, message, path)
    except Exception:  # cut, too slow, or a malformed message: the client runs it itself
        return


def _run(engine: Engine, conn: socket.socket, message: dict[str, Any], path: str) -> None:
    gone = engine.gone(path)
    if gone is not None:
        engine.stopping = True
    reason = gone or engine.refusal(message)
    if reason is not None:
        engine.declined += 1
        protocol.send(conn, {"status": "declined", "reason": reason})
        return
    from recall.cli.main import main
    from recall.warm import request

    def fetch_stdin() -> bytes:
        protocol.send(conn, {"status": "stdin"})
        data = protocol.receive(conn).get("stdin")
        return data if isinstance(data, bytes) else b""

    code, out, err = request.run(message, fetch_stdin, main)
    engine.served += 1
    engine.last = time.monotonic()
    protocol.send(conn, {"status": "done", "code": code, "stdout": out, "stderr": err})


def _main(argv: list[str]) -> Any:
    if len(argv) != 1 or not os.path.isabs(argv[0]):
        return "usage: python -m recall.warm PROJECT_ROOT"
    return serve(argv[0])
