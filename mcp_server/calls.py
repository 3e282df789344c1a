"""The tool calls whose worker threads have not ended, so that a cancelled one is honoured
where it can be and still bounded by the end of the input.

A client's cancel (``notifications/cancelled``) ends the session's wait for a call, which then
gets no answer; its worker thread cannot be stopped from outside. So the thread looks at the
cancel before its operation begins, and while a write waits for a store another process holds
(:meth:`Workspace.run_write`): a call cancelled by then does nothing. One cancelled after its
operation began runs to its end (a write is then made). Either way, how it ended is said on
stderr. Until its thread ends, a cancelled call is waited for at the end of the input like a
request in flight, and named among those abandoned when the wait runs out
(:mod:`mcp_server.in_flight`), so the process still ends within the bound.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[Call | None] = ContextVar("tether_mcp_call", default=None)


class Call:
    """One tool call: what it is (for stderr) and whether the client cancelled it."""

    def __init__(self, calls: Calls, what: str) -> None:
        self.what = what
        """The request as named on stderr: its id, method and tool."""
        self._calls = calls
        self._cancelled = threading.Event()
        self._thread_ended = threading.Event()
        self._lock = threading.Lock()
        self._began = False  # its worker thread runs
        self._given_up = False  # cancelled before its worker thread ran: it never will

    def cancelled(self) -> bool:
        """Whether the client cancelled the call (read from its worker thread)."""
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Note the client's cancel; its thread, if it still runs, is waited for as one in
        flight until it ends."""
        self._cancelled.set()

    def started(self) -> bool:
        """Note that the call's worker thread runs (called on that thread); False when the
        call was given up before (:meth:`give_up`): the thread then does nothing at all."""
        with self._lock:
            if self._given_up:
                return False
            self._began = True
        self._calls.started(self)
        return True

    def give_up(self) -> None:
        """The session stopped waiting for the call (the client's cancel, or the end of the
        input's wait). A worker thread already running sees the cancel and says how it ended
        (:meth:`thread_ended`); one not begun yet, which the cancel may have kept from ever
        being started, never does anything, and that is said here."""
        self.cancel()
        with self._lock:
            if self._began:
                return
            self._given_up = True
        self._thread_ended.set()
        print(
            f"tether mcp: request {self.what} was cancelled; it had not begun: nothing was done",
            file=sys.stderr,
            flush=True,
        )

    def thread_ended(self, *, stopped: bool, writes: bool) -> None:
        """Note that the call's worker thread ended, ``stopped`` by the cancel before its
        operation began or not; a cancelled call says on stderr which (and, for one that
        ``writes``, where to see whether it wrote)."""
        self._thread_ended.set()
        self._calls.ended(self)
        if not self.cancelled():
            return
        if stopped:
            how = "it had not begun: nothing was done"
        else:
            how = "it had begun, so it ran to its end"
            how += " (`tether list` shows whether it wrote)" if writes else ""
        print(f"tether mcp: request {self.what} was cancelled; {how}", file=sys.stderr, flush=True)

    def still_cancelled_running(self) -> bool:
        """Whether the call was cancelled and its worker thread still runs."""
        return self.cancelled() and not self._thread_ended.is_set()


class Calls:
    """The calls whose worker threads have not ended yet (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[int, Call] = {}

    @contextmanager
    def calling(self, what: str) -> Iterator[Call]:
        """A call being handled, found by :func:`current` in the handler's task until it
        returns; it is counted as running from its thread's start (:meth:`started`)."""
        call = Call(self, what)
        token = _current.set(call)
        try:
            yield call
        finally:
            _current.reset(token)

    def started(self, call: Call) -> None:
        """Note that ``call``'s worker thread is about to start."""
        with self._lock:
            self._running[id(call)] = call

    def ended(self, call: Call) -> None:
        """Note that ``call``'s worker thread ended."""
        with self._lock:
            self._running.pop(id(call), None)

    def running(self) -> list[str]:
        """The calls whose worker threads still run, as named on stderr."""
        with self._lock:
            return [call.what for call in self._running.values()]

    def cancelled_running(self) -> list[str]:
        """The cancelled calls whose worker threads still run, as named on stderr."""
        with self._lock:
            calls = list(self._running.values())
        return [call.what for call in calls if call.still_cancelled_running()]


def current() -> Call | None:
    """The call the running handler serves, or None outside a tool call."""
    return _current.get()
