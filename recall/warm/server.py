"""The warm engine: one long-lived process per project (and global store) that keeps Tether's
modules loaded and serves ``tether inject`` and ``tether hook EVENT`` over a Unix socket.

Requests are served one at a time, each as its own fresh process would run it
(:mod:`recall.warm.request`): the settings read, the clock read, each store checked and synced
against its memory folder and the genome's staleness checked before anything is read. What is
saved is the imports, what the interpreter keeps warm (compiled patterns, a filled page cache)
and the open stores and recall engine the previous request left (:mod:`recall.kept_engine`).

The engine exits by itself after :data:`IDLE_EXIT_S` without a request, when its project's
store folder disappears, when its own code changes on disk, when its socket is taken away, and
on ``tether warm --stop``. It holds a lock for its whole life, so one project never has two.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Final

from recall.kept_engine import reused_engines
from recall.warm import protocol

IDLE_EXIT_S: Final = 15 * 60
"""An engine with no request for this long exits: an agent waits minutes on its person between
prompts, but a quarter of an hour of silence means the session ended or paused for good, and
the engine's memory (its modules and caches, tens of MB) goes back to the machine; the next
session start starts it again."""

CHECK_EVERY_S: Final = 30.0
"""How often an idle engine wakes to see whether its store folder, its code or its socket is
gone or changed."""

REQUEST_IO_TIMEOUT_S: Final = 5.0
"""How long the engine waits on a client's read or write: a client that stalls is dropped
rather than holding the engine from the next request."""


def idle_limit() -> float:
    """:data:`IDLE_EXIT_S`, or ``TETHER_WARM_IDLE`` seconds when set (tests, and users who
    want it shorter or longer)."""
    from recall.env_values import seconds

    value = seconds(protocol.ENV_IDLE)  # an unreadable value is refused by name
    return IDLE_EXIT_S if value is None else value


def code_fingerprint() -> tuple[tuple[str, int, int], ...]:
    """Every file of the installed package (modules and the data files they read, such as
    the shipped weights) with its modification time and size, and every installed
    distribution on the module search path (:func:`installed_distributions`): an engine whose
    code or libraries changed under it exits rather than answer with the old ones."""
    package = Path(__file__).resolve().parent.parent
    found: list[tuple[str, int, int]] = []
    stack = [str(package)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat()
                    found.append((entry.path, st.st_mtime_ns, st.st_size))
    found.extend(installed_distributions(SEARCH_PATH))
    return tuple(sorted(found))


SEARCH_PATH: Final = tuple(sys.path)
"""The module search path as the engine started with it: a library that changes ``sys.path``
when imported later must not look like an installation changed."""


def installed_distributions(search_path: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """The ``NAME-VERSION.dist-info`` (or ``.egg-info``) entries of every folder on
    ``search_path``, each with its inode: an upgrade, a downgrade, a removal or a reinstall of
    the same version renames, drops or makes anew one. One listing per folder, nothing read."""
    found: list[tuple[str, int, int]] = []
    for entry in search_path:
        try:
            with os.scandir(entry or ".") as entries:
                found.extend(
                    (item.path, item.inode(), 0)
                    for item in entries
                    if item.name.endswith((".dist-info", ".egg-info"))
                )
        except OSError:  # a zip file, a folder that does not exist
            continue
    return found


class Engine:
    """One project's engine: its identity, its counters and its checks."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.home = protocol.home_key(os.environ)
        self.imports = protocol.import_key(os.environ)
        self.code = list(protocol.code_key())
        self.fingerprint = code_fingerprint()
        self.started = time.time()
        self.last = time.monotonic()
        self.served = 0
        self.declined = 0
        self.stopping = False
        self.socket_id: tuple[int, int] | None = None
        self.folder_events: Any = None
        """The watches on the memory folders (:mod:`recall.folder_events`), if any."""

    def gone(self, socket_path: str) -> str | None:
        """Why this engine should exit now, or None."""
        if not os.path.isdir(os.path.join(self.root, ".tether")):
            return "the project's store folder is gone"
        if code_fingerprint() != self.fingerprint:
            return "Tether's code changed"
        try:
            st = os.lstat(socket_path)
        except OSError:
            return "its socket was removed"
        if (st.st_dev, st.st_ino) != self.socket_id:
            return "its socket was replaced"
        return None

    def refusal(self, request: dict[str, Any]) -> str | None:
        """Why a request is not this engine's to serve (its client then runs it), or None."""
        if request.get("protocol") != protocol.PROTOCOL:
            return "another protocol version"
        if request.get("code") != self.code:
            return "another installation of Tether"
        if request.get("text") != protocol.text_key():
            return "another locale or file-name encoding"
        env = request.get("env")
        if not isinstance(env, dict) or protocol.home_key(env) != self.home:
            return "another global store"
        if protocol.import_key(env) != self.imports:
            return "another module search path"
        if request.get("root") != self.root:
            return "another project"
        folder = _acted_on(request)
        if folder is None:
            return "no folder to act on"
        from recall.repo import find_root

        found = find_root(Path(folder))
        if found is None or str(found) != self.root:
            return "a folder outside this engine's project"
        return None

    def status(self) -> dict[str, Any]:
        """What ``tether warm --status`` shows."""
        return {
            "status": "done",
            "running": True,
            "pid": os.getpid(),
            "root": self.root,
            "requests": self.served,
            "declined": self.declined,
            "idle_s": round(time.monotonic() - self.last, 1),
            "idle_limit_s": idle_limit(),
            "uptime_s": round(time.time() - self.started, 1),
            "folder_checks": self._folder_checks(),
            "engine_reused": reused_engines(),
            "protocol": protocol.PROTOCOL,
        }

    def _folder_checks(self) -> dict[str, Any]:
        events = self.folder_events
        if events is None:
            return {"watched": False, "full": None, "skipped": None}
        full = events.looks - events.skipped
        return {"watched": True, "full": full, "skipped": events.skipped}


def _acted_on(request: dict[str, Any]) -> str | None:
    """The folder the command acts on: a hook's is the ``cwd`` of its JSON, inject's is the
    working folder."""
    argv = request.get("argv") or []
    if argv[:1] == ["hook"]:
        import json

        raw = request.get("stdin")
        try:
            data = json.loads(raw.decode("utf-8", errors="replace")) if raw else None
        except ValueError:
            return None
        cwd = data.get("cwd") if isinstance(data, dict) else None
        return cwd if isinstance(cwd, str) and os.path.isabs(cwd) and "\x00" not in cwd else None
    cwd = request.get("cwd")
    return cwd if isinstance(cwd, str) else None
