"""Keeping Python's cycle collector out of a recall.

A recall on a crowded file makes thousands of small objects (one fused score per candidate,
with its signals and evidence) that reference counting frees when the recall ends. If the
cycle collector runs while they live, it promotes them to its oldest generation, and every
few dozen such recalls that triggers a full collection over the whole process, caches
included: 150-200 ms on a 25k-memory store, paid by whichever recall happens to be running.
Pausing the collector for the length of a recall leaves those objects to reference counting;
the collector runs as usual between recalls (nothing is left uncollected, only deferred).
An import pauses it too (:func:`recall.importer.import_lines`): its drafts, memories and
results all live to its end, so every collection would walk a growing heap for nothing.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_active = 0
_resume = False


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cycle collector inside the block, when it was running; recalls on several
    threads share one pause, and the collector resumes when the last of them ends."""
    global _active, _resume
    with _lock:
        if _active == 0:
            _resume = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _resume:
                gc.enable()
