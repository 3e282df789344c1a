"""The timing and progress plumbing of a genome refresh: the wall time of each phase, and a
progress callback the history and the tree thread may both call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from recall.genome.summary import IndexSummary

Progress = Callable[[str, int, int | None], None]
T = TypeVar("T")


class Phases:
    """Records the wall time of each refresh phase into a summary, in milliseconds."""

    def __init__(self, summary: IndexSummary) -> None:
        self.summary = summary
        self.started = time.perf_counter()

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.summary.elapsed_ms[name] = round((time.perf_counter() - start) * 1000, 1)

    def close(self) -> None:
        """Record the time since the refresh started as ``total``."""
        self.summary.elapsed_ms["total"] = round((time.perf_counter() - self.started) * 1000, 1)


def serialized(progress: Progress | None) -> Progress | None:
    """The progress callback, made safe to call from the history and the tree thread."""
    if progress is None:
        return None
    lock = threading.Lock()

    def update(description: str, completed: int, total: int | None) -> None:
        """Forward one progress report while holding the lock."""
        with lock:
            progress(description, completed, total)

    return update


def timed(function: Callable[..., T], *args: object) -> tuple[T, float]:
    """Call ``function`` and return its result with its wall time in milliseconds."""
    start = time.perf_counter()
    result = function(*args)
    return result, round((time.perf_counter() - start) * 1000, 1)
