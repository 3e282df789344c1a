"""Memory files of a bulk write created on a thread of their own, while the caller goes on.

Creating a file (temp file, write, rename) is almost all kernel time, during which Python's
lock is released; a second thread can do it while the importing thread renders the next
memories and indexes the last ones. The files are written by :meth:`MemoryFolder.write_batch`
either way, so each appears whole under its name or not at all, and the caller still makes
them durable with one sync after the last.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from recall.memfiles import FileStat, MemoryFolder

CHUNK = 256
"""Memories rendered, handed to the writer and indexed per step: large enough that a step's
overhead is nothing beside its files, small enough that both threads start within a step."""

QUEUE_DEPTH = 4
"""Chunks handed over and not yet written at most: the importing thread runs ahead of the
files by this much, and a failure waits for at most this many chunks to be written."""

WRITE_BEHIND_FROM = 2 * CHUNK
"""New files from which they are written on a thread: below it there is at most one step to
overlap, and a small import (a hook's, a test's) keeps the plainest path."""

SWITCH_INTERVAL_S = 0.0005
"""Python's thread switch interval while the writer runs. At the default 5 ms the writer,
asking for Python's lock back after each system call, waits that long behind a busy
importing thread and falls behind it; at 0.5 ms it keeps up (see docs/benchmarks.md)."""

_DONE = None  # the end of the chunks


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C ignored for the length of the block, in the main thread (elsewhere Python gives
    signals no handler to change): a clean-up already under way for one interrupt is not cut
    short by the next, which would leave files of an abandoned batch behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class WriteBehind:
    """Write the files of each chunk :meth:`put` gives it, on a thread when ``threaded``,
    else at once in the caller's; :meth:`finish` waits for the last and returns every file's
    stat in order. A failure to write is raised to the caller, unchanged, by the next
    :meth:`put` or by :meth:`finish`; the stats of the files written before it stay in
    :attr:`written`, so the caller can take them away again.
    """

    def __init__(
        self, folder: MemoryFolder, *, threaded: bool, written: list[FileStat] | None = None
    ) -> None:
        """Start the writer for ``folder`` (on a thread of its own when ``threaded``); the
        stats of the files written go to ``written`` (a new list if not given)."""
        self.folder = folder
        self.written: list[FileStat] = [] if written is None else written
        self.error: BaseException | None = None
        self._stopping = False
        self._queue: queue.Queue[Sequence[tuple[str, str]] | None] | None = None
        self._thread: threading.Thread | None = None
        self._interval: float | None = None
        if threaded:
            self._queue = queue.Queue(maxsize=QUEUE_DEPTH)
            thread = threading.Thread(target=self._run, name="tether-writer", daemon=True)
            self._interval = sys.getswitchinterval()
            sys.setswitchinterval(min(self._interval, SWITCH_INTERVAL_S))
            try:
                thread.start()
            except BaseException:  # no thread to be had: the interval goes back at once
                self._restore_interval()
                raise
            self._thread = thread

    def _write(self, items: Sequence[tuple[str, str]]) -> None:
        self.written.extend(self.folder.write_batch(items))

    def _run(self) -> None:
        assert self._queue is not None
        while (items := self._queue.get()) is not _DONE:
            if self.error is not None or self._stopping:
                continue  # taken off the queue unwritten, so the caller never waits on it
            try:
                self._write(items)
            except BaseException as error:  # handed to the caller's thread, raised there
                self.error = error

    def put(self, items: Sequence[tuple[str, str]]) -> None:
        """Write the files ``(name, text)`` of one chunk (names plain and free, as
        :meth:`MemoryFolder.write_batch` wants); raise a failure of an earlier chunk."""
        if self.error is not None:
            raise self.error
        if self._queue is None:
            try:
                self._write(items)
            except BaseException as error:
                self.error = error
                raise
            return
        self._queue.put(items)

    def finish(self) -> list[FileStat]:
        """Wait for every chunk to be written; their stats in order, or the failure."""
        interrupted = self._end()
        if interrupted is not None:
            raise interrupted
        if self.error is not None:
            raise self.error
        return self.written

    def abandon(self, cause: BaseException) -> BaseException | None:
        """Stop after the caller failed with ``cause``: the chunks handed over are still
        written (a failure among them comes first, as it would have in one thread) unless
        ``cause`` is an interrupt, then waited for; return the writer's failure, if any."""
        if not isinstance(cause, Exception):
            self._stopping = True
        self._end()  # a further interrupt meanwhile: the caller is already unwinding from one
        return self.error

    def _end(self) -> KeyboardInterrupt | None:
        """Let the writer finish and wait until it has: an interrupt (a second Ctrl-C) does
        not cut the wait short, since files written after it would be left behind by the
        caller's clean-up; it makes the writer skip what is left, and is returned."""
        if self._thread is None:
            return None
        assert self._queue is not None
        interrupted: KeyboardInterrupt | None = None
        done = False
        while self._thread.is_alive():
            try:
                if not done:
                    self._queue.put(_DONE)
                    done = True
                self._thread.join()
            except KeyboardInterrupt as error:
                interrupted = error
                self._stopping = True
        self._thread = None
        self._restore_interval()
        return interrupted

    def _restore_interval(self) -> None:
        if self._interval is not None and sys.getswitchinterval() == SWITCH_INTERVAL_S:
            sys.setswitchinterval(self._interval)
