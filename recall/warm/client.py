"""The client's side: hand ``tether inject`` or ``tether hook EVENT`` to the project's warm
engine, if one answers, and write back what it printed and its exit code.

Runs before any heavy import (that is the point), so it imports only :mod:`recall.warm.protocol`,
:mod:`recall.cli.leading_options` and, for a hook, :mod:`json` to find the hook's folder.
Whenever the engine cannot be used (none running, a stale socket, another user's, another
project's or global store, another version of the code, ``TETHER_WARM=0``), :func:`served`
returns None and the command runs in this process exactly as it would have without an engine.

A request the engine accepted but did not answer (it died, or took longer than
:data:`ANSWER_TIMEOUT_S`) is run again in this process: an edit hook's guard question must not
be lost, and a hook's bookkeeping written twice (a turn counted again) costs less than that. An
error raised by the command itself is an answer like any other (its traceback and exit code 1,
as a fresh process would give), never a rerun.
"""

from __future__ import annotations

import io
import os
import sys
import time

from recall.cli.leading_options import command_word, without_directory
from recall.warm import protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

SERVED: Final = ("inject", "hook")
"""The commands an agent runs before every prompt and edit: the ones worth serving warm."""

HOOK_EVENTS: Final = ("prompt", "pre-edit", "post-edit", "session-start")
"""``tether hook`` events (recall.hooks.input.EVENTS, repeated here to stay import-free; a
test keeps them equal)."""

CONNECT_TIMEOUT_S: Final = 0.2
"""How long connecting may take: a live engine accepts at once (its backlog queues a
connection while it serves another), so a slow connect means something is wrong."""

ANSWER_TIMEOUT_S: Final = 4.0
"""How long a client waits for the engine's answer before running the command itself: a warm
answer takes well under a second even at 30k memories and behind one other request, and the
wait plus a cold run must stay well inside an agent's 10-second hook timeout."""


def _stream(stream: Any) -> list[Any]:
    """How a standard stream encodes text, and whether it is a terminal."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    return [
        getattr(stream, "encoding", None) or "utf-8",
        getattr(stream, "errors", None) or "strict",
        bool(tty),
    ]


def _stdout_columns() -> int:
    """The width of the terminal on stdout, 0 when it is no terminal: what the engine lays help
    out to when ``COLUMNS`` is not set (recall.cli.parser.stdout_columns, repeated here to stay
    import-free)."""
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 0


def _read_stdin() -> bytes | None:
    try:
        return sys.stdin.buffer.read()
    except (AttributeError, OSError, ValueError):
        return None


def _hook_folder(raw: bytes) -> str | None:
    """The ``cwd`` a hook's JSON names (the folder the hook acts on), None when it names none."""
    import json

    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # nested past the parser's depth: no folder either
        return None
    cwd = data.get("cwd") if isinstance(data, dict) else None
    if not isinstance(cwd, str) or not cwd or "\x00" in cwd or not os.path.isabs(cwd):
        return None
    try:
        os.fsencode(cwd)  # a lone surrogate names no file
    except UnicodeError:
        return None
    return cwd


def _put_back(raw: bytes) -> None:
    """Give the command run in this process the standard input this client already read."""
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(
        io.BytesIO(raw),
        encoding=getattr(old, "encoding", None) or "utf-8",
        errors=getattr(old, "errors", None) or "strict",
        newline="\n",
    )


def served(argv: list[str]) -> int | None:
    """Run ``argv`` on the project's warm engine: its exit code, or None when this process
    must run the command itself. ``inject`` may follow the options every command takes
    (``--json``, ``--wait``, ``-C DIR``: the engine runs it in DIR); an agent's ``hook
    EVENT`` is served as its settings write it, alone."""
    split = without_directory(argv)
    if split is None or protocol.disabled():
        return None
    words, directory = split
    command = command_word(words)
    if command not in SERVED:
        return None
    raw: bytes | None = None
    if command == "hook":
        if len(argv) != 2 or argv[1] not in HOOK_EVENTS:
            return None
        raw = _read_stdin()
        if raw is None:
            return None
        where = _hook_folder(raw)
    else:
        where = _inject_folder(directory)
    read = [raw]
    try:
        code = _ask(words, where, read) if where is not None else None
    except Exception:  # a fault of this client must never cost the command its run
        code = None
    if code is None and read[0] is not None:
        _put_back(read[0])
    return code


def _inject_folder(directory: str | None) -> str | None:
    """The folder inject runs in: ``-C``'s (a folder; any other, and an empty name, is
    refused by the command run here), else this process's; None when there is none."""
    if directory == "":
        return None
    try:
        where = os.getcwd() if directory is None else os.path.join(os.getcwd(), directory)
    except OSError:
        return None
    return where if directory is None or os.path.isdir(where) else None


def command_folder(argv: list[str]) -> str | None:
    """The folder ``argv`` (``inject`` or ``hook EVENT``, run in this process) acts on: a
    hook's ``cwd``, else ``-C``'s or this process's; None when there is none. A hook's
    standard input is put back for the command to read."""
    if argv[:1] == ["hook"]:
        raw = _read_stdin()
        if raw is None:
            return None
        _put_back(raw)
        return _hook_folder(raw)
    split = without_directory(argv)
    return _inject_folder(split[1] if split is not None else None)


def _ask(argv: list[str], where: str, read: list[bytes | None]) -> int | None:
    """The engine's exit code for ``argv``, run in ``where`` (inject's folder; for a hook,
    this process's folder is its own, and ``where`` the folder its input names), or None;
    ``read`` holds the standard input once read (by the caller for a hook, here when the
    engine asks for it)."""
    raw = read[0]
    root = protocol.find_root(where)
    base = protocol.private_folder(create=False) if root is not None else None
    if root is None or base is None:
        return None
    environ = dict(os.environ)
    path = protocol.socket_path(base, protocol.project_id(root, environ))
    try:
        sock = protocol.connect(path, CONNECT_TIMEOUT_S)
    except OSError:
        return None
    mask = os.umask(0o022)
    os.umask(mask)
    request = {
        "op": "run",
        "protocol": protocol.PROTOCOL,
        "code": list(protocol.code_key()),
        "text": protocol.text_key(),
        "argv": list(argv),
        "cwd": os.getcwd() if argv[0] == "hook" else where,
        "env": environ,
        "umask": mask,
        "root": root,
        "streams": [_stream(sys.stdin), _stream(sys.stdout), _stream(sys.stderr)],
        "columns": _stdout_columns(),
    }
    if raw is not None:
        request["stdin"] = raw
    deadline = time.monotonic() + ANSWER_TIMEOUT_S  # one wait for the whole exchange
    try:
        sock.settimeout(ANSWER_TIMEOUT_S)
        protocol.send(sock, request)
        answer = protocol.receive(sock, deadline)
        if answer.get("status") == "stdin":  # the command reads its standard input
            if read[0] is None:
                read[0] = _read_stdin() or b""
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            protocol.send(sock, {"stdin": read[0]})
            answer = protocol.receive(sock, deadline)
    except OSError:  # refused, cut, or too slow: this process runs it
        return None
    finally:
        sock.close()
    if answer.get("status") != "done":
        return None
    try:
        return _write_back(answer)
    except Exception:  # the engine ran it: running it again here would do its work twice
        code = answer.get("code", 1)
        return code if isinstance(code, int) else 1


def _write_back(answer: dict[str, Any]) -> int:
    """Print the engine's stderr and stdout as this process's own; the command's exit code."""
    # the notices first: a command says them while it works, before it prints its answer, so a
    # terminal showing both streams shows them in the order a fresh process would
    for stream, key in ((sys.stderr, "stderr"), (sys.stdout, "stdout")):
        data = answer.get(key) or b""
        if data:
            try:
                stream.flush()
                stream.buffer.write(data)
                stream.buffer.flush()
            except BrokenPipeError:
                pass
    code = answer.get("code", 1)
    return code if isinstance(code, int) else 1
