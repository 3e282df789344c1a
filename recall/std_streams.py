"""The command's standard streams: stdin read as text, and a command started with one closed
(``<&-``, ``>&-``), for which Python has no ``sys.stdin`` or ``sys.stdout`` at all and the
first look at one would be a traceback.

A closed standard input stands in as :class:`ClosedStdin`: never a terminal (so a command that
asks a person says so as it does for a pipe), and any read of it refused by name. A closed
standard output stops the command before it does anything (:func:`closed_stdout`).
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any, NoReturn, TextIO

from recall.errors import BadInput, TetherError

STDIN_CLOSED = (
    "standard input is closed (the command was started with <&-): give it the input it reads "
    "(a terminal, a file or a pipe), or the text as an argument"
)
STDOUT_CLOSED = (
    "standard output is closed (the command was started with >&-): nothing was done; give it "
    "somewhere to write (>/dev/null to throw its output away)"
)


class StdinClosed(BadInput, ValueError):
    """A read of a standard input that is closed. A ``ValueError`` too, as reading a closed
    file is, so a reader that treats an unreadable input as none (a hook) still does."""


class ClosedStdin:
    """What stands for ``sys.stdin`` when the command was started without one."""

    closed = True
    encoding = "utf-8"
    errors = "strict"

    @property
    def buffer(self) -> ClosedStdin:
        """Itself: its bytes are as unreadable as its text."""
        return self

    def isatty(self) -> bool:
        """Never a terminal."""
        return False

    def fileno(self) -> NoReturn:
        """No file descriptor: it is closed."""
        raise StdinClosed(STDIN_CLOSED)

    def read(self, size: int = -1) -> NoReturn:
        """Refused: there is nothing to read."""
        raise StdinClosed(STDIN_CLOSED)

    def readline(self, size: int = -1) -> NoReturn:
        """Refused: there is nothing to read (``input()`` reads through this)."""
        raise StdinClosed(STDIN_CLOSED)

    def __iter__(self) -> NoReturn:
        raise StdinClosed(STDIN_CLOSED)

    def __enter__(self) -> ClosedStdin:
        """Itself, so a reader that closes what it read (``with handle:``) refuses by name."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Nothing to close."""


BOM = "\ufeff"
"""A byte-order mark: an editor's mark at the start of a file, not part of its text."""


def stdin_text() -> str:
    """Standard input as text, a leading byte-order mark dropped (as ``import`` drops it)."""
    return sys.stdin.read().removeprefix(BOM)


def input_text(data: bytes) -> str:
    """Bytes given as UTF-8 text (a file or standard input), a leading byte-order mark
    dropped. A byte that is not UTF-8 survives as a lone surrogate, so the line holding it is
    refused by number while the others are still read."""
    return data.decode("utf-8", "surrogateescape").removeprefix(BOM)


def stdin_input_text() -> str:
    """Standard input read as :func:`input_text` reads a file's bytes, whatever the locale's
    text encoding and error handling."""
    return input_text(sys.stdin.buffer.read())


def stand_in_for_closed_stdin() -> None:
    """Put a :class:`ClosedStdin` where a closed standard input left ``sys.stdin`` empty."""
    if sys.stdin is None:
        sys.stdin = ClosedStdin()  # type: ignore[assignment]


def closed_stdout() -> bool:
    """Whether the command was started with its standard output closed; says so on stderr,
    when stderr is open."""
    if sys.stdout is not None:
        return False
    if sys.stderr is not None:
        print(f"tether: error: {STDOUT_CLOSED}", file=sys.stderr)
    return True


class OutputFailed(TetherError):
    """Standard output could not be written (a full disk, a quota, an I/O error): what was
    printed is incomplete, so the command fails (exit 3) instead of ending as if it were whole."""


class GuardedStdout:
    """``sys.stdout`` whose write errors other than a reader gone (a broken pipe, handled
    where the command ends) are :class:`OutputFailed`, said in one line, not a traceback."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        """Write ``text``; :class:`OutputFailed` when the output cannot take it."""
        try:
            return self._inner.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._failed(error) from None

    def flush(self) -> None:
        """Flush; :class:`OutputFailed` when the output cannot take what is pending."""
        try:
            self._inner.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._failed(error) from None

    def _failed(self, error: OSError) -> OutputFailed:
        """The error to raise, with the output's descriptor pointed at the null device, so
        that what is still pending does not fail again as the process exits."""
        with _suppressed():
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._inner.fileno())
            os.close(null)
        reason = error.strerror or errno.errorcode.get(error.errno or 0, str(error))
        return OutputFailed(
            f"could not write standard output ({reason}): what was printed is incomplete; "
            "free some space where it goes (or send it elsewhere) and run the command again"
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _suppressed() -> Any:
    import contextlib

    return contextlib.suppress(OSError, ValueError)


def guard_stdout() -> None:
    """Put a :class:`GuardedStdout` in front of ``sys.stdout`` (once)."""
    if sys.stdout is not None and not isinstance(sys.stdout, GuardedStdout):
        sys.stdout = GuardedStdout(sys.stdout)  # type: ignore[assignment]
