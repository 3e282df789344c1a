"""The cycle collector waits while a recall runs and is back as it was afterwards."""

from __future__ import annotations

import gc
import threading

import pytest

from recall.ranking import collector
from recall.ranking.query import RecallQuery, Touch

from .world import World


def test_a_recall_runs_with_the_collector_paused_and_resumes_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.history([["src/ring.c"]])
    world.remember("ring buffer wraps at the end", "src/ring.c")
    recaller = world.recaller()
    seen: list[bool] = []
    real = recaller._recall_or_recover

    def watched(query: RecallQuery) -> object:
        seen.append(gc.isenabled())
        return real(query)

    monkeypatch.setattr(recaller, "_recall_or_recover", watched)
    assert gc.isenabled()
    hits = recaller.recall(RecallQuery((Touch("src/ring.c", "edit"),), None)).hits
    assert hits and seen == [False]
    assert gc.isenabled()


def test_the_collector_resumes_after_an_error_and_stays_off_when_it_was_off() -> None:
    with pytest.raises(RuntimeError), collector.paused():
        assert not gc.isenabled()
        raise RuntimeError("a recall that failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # the caller's choice is kept
    finally:
        gc.enable()


def test_overlapping_recalls_share_one_pause() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector.paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    with collector.paused():
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other recall still runs
    release.set()
    thread.join(10)
    assert gc.isenabled()
