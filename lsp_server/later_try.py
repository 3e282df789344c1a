"""One more try, a while later, on the server's event loop: for the bookkeeping the server keeps
while another process holds the index (usage counts, hint choices), so that it is written
soon after the index is free even when no message comes to write it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class LaterTry:
    """Calls ``attempt`` once, ``seconds`` after :meth:`schedule` (a schedule while one is
    pending is the same try), on the running loop."""

    def __init__(self, seconds: float, attempt: Callable[[], None]) -> None:
        self._seconds = seconds
        self._attempt = attempt
        self._handle: asyncio.TimerHandle | None = None

    @property
    def pending(self) -> bool:
        """Whether a try is scheduled and not yet made."""
        return self._handle is not None

    def schedule(self) -> None:
        """Try again in ``seconds``, unless a try is pending already; without a running loop
        (a script), nothing: the caller's next write tries again."""
        if self._handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._handle = loop.call_later(self._seconds, self._run)

    def _run(self) -> None:
        self._handle = None
        self._attempt()

    def cancel(self) -> None:
        """Drop the pending try, if any."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
