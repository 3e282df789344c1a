"""Errors a user can see, each carrying the exit code the CLI reports for it."""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_NOT_FOUND = 1
EXIT_BAD_INPUT = 2
EXIT_FAILURE = 3


class TetherError(Exception):
    """Base for every failure that is reported to a user instead of a traceback."""

    exit_code = EXIT_FAILURE


class BadInput(TetherError):
    """The caller gave an argument or file that cannot be used; the message says which."""

    exit_code = EXIT_BAD_INPUT


class NotFound(TetherError):
    """A memory, file or store that was asked for does not exist."""

    exit_code = EXIT_NOT_FOUND


class NothingToDo(TetherError):
    """The request was valid but there was nothing to act on."""

    exit_code = EXIT_NOT_FOUND


class StoreUnavailable(TetherError):
    """The store could not be written (read-only, disk full, locked past the retry budget)."""

    exit_code = EXIT_FAILURE


class StoreBusy(StoreUnavailable):
    """Another writer held the store past the wait a short-lived caller (a hook) allows."""


class EmbedderFailed(TetherError):
    """The configured provider embedder raised or returned unusable data while embedding."""

    exit_code = EXIT_FAILURE


class MalformedMemory(BadInput):
    """A memory file that cannot be loaded; carries its path and the offending line."""

    def __init__(self, path: Path | str, line: int, problem: str) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        super().__init__(f"{self.path}:{line}: {problem}")
