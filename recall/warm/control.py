"""Starting, asking after and stopping a project's warm engine (``tether warm``, and the
session-start hook, which starts one in the background)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Final

from recall.warm import protocol

START_WAIT_S: Final = 30.0
"""How long ``tether warm`` waits for a new engine to answer: its warm-up runs one recall,
which on a large store whose index or genome must first be brought up to date takes seconds."""

ASK_TIMEOUT_S: Final = 2.0
"""How long a status or stop question waits: an engine answers between two requests."""

POLL_S: Final = 0.05
"""How often a starting engine is looked at (its answer, its exit, its lock): a tenth of a
second or less goes unnoticed at a prompt, and each look costs one connect."""


class WarmError(Exception):
    """The warm engine cannot be used here (its folder is unsafe)."""


class StartFailed(Exception):
    """The engine this call started exited with an error before it answered."""


def _socket(root: str, *, create: bool = False) -> str:
    base = protocol.private_folder(create=create)
    if base is None:
        reason = protocol.unsafe_reason() or f"{protocol.folder()} cannot be created"
        raise WarmError(f"the warm engine's folder is not safe to use: {reason}")
    return protocol.socket_path(base, protocol.project_id(root, os.environ))


def ask(root: str, op: str) -> dict[str, Any] | None:
    """Send ``op`` (``status`` or ``stop``) to the engine of ``root``; its answer, or None
    when no engine answers."""
    try:
        path = _socket(root)
    except WarmError:
        if protocol.unsafe_reason() is None:  # the folder does not exist: nothing runs
            return None
        raise
    try:
        sock = protocol.connect(path, ASK_TIMEOUT_S)
    except OSError:
        return None
    try:
        protocol.send(sock, {"op": op, "protocol": protocol.PROTOCOL})
        answer = protocol.receive(sock)
    except OSError:
        return None
    finally:
        sock.close()
    return answer if answer.get("status") == "done" else None


def spawn(root: str) -> int:
    """Start the engine of ``root`` detached (its own session, no terminal, output dropped);
    its pid."""
    _socket(root, create=True)
    null = os.devnull
    actions = [(os.POSIX_SPAWN_OPEN, fd, null, os.O_RDWR, 0) for fd in (0, 1, 2)]
    # posix_spawn rather than subprocess, whose import a session-start hook would pay for;
    # Python's own descriptors are not inherited (PEP 446), the standard ones go to null.
    return os.posix_spawn(
        sys.executable,
        # -P: the folder it starts in (a repository, untrusted) is not put on the import path
        [sys.executable, "-P", "-m", "recall.warm", root],
        dict(os.environ),
        file_actions=actions,
        setsid=True,
    )


def start(root: str) -> tuple[bool, dict[str, Any] | None]:
    """Make sure the engine of ``root`` runs: (whether this call started it, its status, None
    when it did not answer within :data:`START_WAIT_S`); :class:`StartFailed` when the engine
    this call started exited with an error before answering.

    Several calls at once each spawn an engine; one takes the project's lock, the others wait
    to take it over (:func:`recall.warm.loop.serve`): when the one that won exits before it
    answers (it failed while starting), the next takes its place and starts again, so no call
    waits out :data:`START_WAIT_S` for an engine that is gone. A call whose engine saw another
    answer (and ended, with 0) reports that one as already running."""
    running = ask(root, "status")
    if running is not None:
        return False, running
    pid = spawn(root)
    deadline = time.monotonic() + START_WAIT_S
    ours = True  # our engine has not ended (it may be warming up, or waiting to take over)
    while time.monotonic() < deadline:
        time.sleep(POLL_S)
        status = ask(root, "status")
        if status is not None:
            return status.get("pid") == pid, status
        if ours:
            done, code = os.waitpid(pid, os.WNOHANG)
            exit_code = os.waitstatus_to_exitcode(code) if done == pid else 0
            if exit_code != 0:  # it failed: no engine will answer
                raise StartFailed(
                    f"the warm engine did not start: it exited with code {exit_code}; "
                    "hooks and inject run without it, each in its own process"
                )
            # ended with 0: another engine answered, or is still warming up; wait for it
            ours = done != pid
    return ours, None


def stop(root: str) -> dict[str, Any] | None:
    """Stop the engine of ``root``; its last status, or None when none ran. Waits until its
    socket stops answering."""
    last = ask(root, "stop")
    if last is None:
        return None
    deadline = time.monotonic() + ASK_TIMEOUT_S
    while time.monotonic() < deadline and _alive(last.get("pid")):
        time.sleep(0.02)
    return last


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # our own child (an engine started by this process) is reaped, not left a zombie
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == 0


def start_in_background(root: str) -> None:
    """The session-start hook's part: start the engine of ``root`` unless one answers,
    without waiting for it. Nothing is said: a hook's output goes to the agent."""
    if protocol.disabled():
        return
    if protocol.IN_ENGINE[0]:
        return
    try:
        if ask(root, "status") is None:
            spawn(root)
    except (WarmError, OSError):
        return


def wake_after_idle(folder: str) -> None:
    """A hook run in its own process, in a session whose engine exited for want of requests
    (a person away for a while): start the engine again in the background, as the session's
    start did, so the hooks after this one answer warm. One ``unlink`` when there is nothing
    to wake; an engine stopped by hand, or one that failed, is not started again here."""
    if protocol.disabled() or protocol.IN_ENGINE[0]:
        return
    root = protocol.find_root(folder)
    base = protocol.private_folder(create=False) if root is not None else None
    if root is None or base is None:
        return
    try:  # claimed by one hook only: the mark is gone for the others
        os.unlink(protocol.idle_mark_path(base, protocol.project_id(root, os.environ)))
    except OSError:
        return
    from pathlib import Path

    from recall.settings import engine_settings

    if engine_settings(Path(root), lambda _text: None).warm_engine:
        start_in_background(root)
