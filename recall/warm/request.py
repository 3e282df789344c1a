"""Running one client's command inside the warm engine, as its own fresh process would have.

For the length of the request the engine takes on the client's state: its arguments, working
folder, environment (all of it: ``TETHER_*``, ``GIT_*`` and whatever git reads), umask,
standard streams with their encodings (its input read only if the command reads it), and the
width of the terminal on its stdout (help is laid out to it). What a
fresh process would read anew and this one keeps between requests is reset first
(:func:`forget`). Afterwards the engine's own state is put back.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any


class _LazyInput(io.RawIOBase):
    """The client's standard input, fetched from it on the first read only: a command that
    never reads it (``inject PROMPT``) must not make the client read its terminal."""

    def __init__(self, fetch: Callable[[], bytes]) -> None:
        self._fetch = fetch
        self._data: io.BytesIO | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._data is None:
            self._data = io.BytesIO(self._fetch())
        return self._data.readinto(buffer)


class _Stream(io.TextIOWrapper):
    """A standard stream as the client's: its encoding, and whether it is a terminal."""

    def __init__(self, raw: Any, spec: list[Any], *, write_through: bool = False) -> None:
        encoding, errors, tty = spec
        super().__init__(raw, encoding=encoding, errors=errors, newline="\n")
        if write_through:
            self.reconfigure(write_through=True)
        self._tty = bool(tty)

    def isatty(self) -> bool:
        return self._tty


def forget() -> None:
    """Drop what a fresh process would not have: resolved folders (a folder may have become
    a link since), the hooks' log handler (its file may be gone, or belong to another store's
    folder), the hook call's folder, the embedder a provider setting built (the setting may
    have changed), which warnings were already shown (a fresh process shows each again), and
    the time zone (read from ``TZ``)."""
    import time
    import warnings

    from recall import paths
    from recall.ranking import embedders

    paths._realpath.cache_clear()
    embedders._PROVIDERS.clear()
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:  # empties every module's record of warnings shown
        mutated()
    time.tzset()
    from recall.hooks import logfile

    logfile._notice_cwd[0] = None
    log = logfile._logger()
    for handler in list(log.handlers):
        log.removeHandler(handler)
        handler.close()


def exit_code(error: SystemExit, stderr: Any) -> int:
    """The exit code Python gives for ``sys.exit(value)``, printing a non-number as it does."""
    value = error.code
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=stderr)
    return 1


def run(
    request: dict[str, Any], fetch_stdin: Callable[[], bytes], command: Callable[[list[str]], int]
) -> tuple[int, bytes, bytes]:
    """Run ``command(argv)`` as the client's process; its exit code, stdout and stderr."""
    from recall.cli import parser

    streams = request["streams"]
    columns = request.get("columns")
    stdin_bytes = request.get("stdin")
    source = (lambda: stdin_bytes) if isinstance(stdin_bytes, bytes) else fetch_stdin
    out, err = io.BytesIO(), io.BytesIO()
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv, dict(os.environ), os.getcwd())
    saved_mask = os.umask(request["umask"])
    gc_was = gc.isenabled()
    try:
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = ["tether", *request["argv"]]
        # help and usage errors laid out to the client's terminal, not the engine's (none)
        parser.CLIENT_COLUMNS[0] = columns if isinstance(columns, int) and columns >= 0 else 0
        sys.stdin = _Stream(io.BufferedReader(_LazyInput(source)), streams[0])
        sys.stdout = _Stream(out, streams[1])
        sys.stderr = _Stream(err, streams[2], write_through=True)
        forget()
        gc.disable()  # as the one-shot process runs (recall.cli.main.ONE_SHOT)
        try:
            code = command(list(request["argv"]))
        except SystemExit as error:
            code = exit_code(error, sys.stderr)
        except BaseException:  # what a fresh process would print before dying
            traceback.print_exc(file=sys.stderr)
            code = 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        return code, out.getvalue(), err.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv, environ, cwd = saved
        parser.CLIENT_COLUMNS[0] = None
        os.environ.clear()
        os.environ.update(environ)
        with contextlib.suppress(OSError):  # the engine's own folder removed: restore the rest
            os.chdir(cwd)
        os.umask(saved_mask)
        forget()
        if gc_was:
            gc.enable()
