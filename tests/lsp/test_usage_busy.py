"""Usage counts made while another connection holds the index (a genome refresh, an import,
another editor's server) are kept and written once it is free: the hover or the publish that
made them does not wait for the lock, and no count is lost."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from lsp_server.usage_counts import COUNT_WAIT_MS, KEPT_MAX, RETRY_SECONDS, UsageCounts
from recall.store import MemoryStore
from tests.lsp.session import Session
from tests.lsp.test_store_busy import ANSWER_BOUND, index_held
from tests.lsp.workspace import Workspace


def counts(ws: Workspace, memory_id: str) -> tuple[int, int]:
    """(surfaced, acted) of a memory as the index holds them, read beside any lock."""
    conn = sqlite3.connect(ws.root / ".tether" / "index.db")
    try:
        row = conn.execute(
            "SELECT surfaced, acted FROM usage WHERE memory_id = ?", (memory_id,)
        ).fetchone()
    finally:
        conn.close()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def test_the_retry_and_the_bound_are_pinned() -> None:
    assert COUNT_WAIT_MS == 100
    assert RETRY_SECONDS == 1.0
    assert KEPT_MAX == 10_000


@pytest.mark.asyncio
async def test_counts_made_while_the_index_is_held_are_written_once_it_is_free(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)  # opens the store on the index itself
    assert counts(ws, ws.app_gotcha) == (1, 0)
    with index_held(ws):
        await asyncio.wait_for(lsp.open(ws.store_py), ANSWER_BOUND)
        [gotcha] = lsp.diagnostics(ws.store_py)  # shown, not failed for want of the index
        assert gotcha.code == ws.gotcha
        start = gotcha.range.start
        hover = await asyncio.wait_for(
            lsp.hover(ws.store_py, start.line, start.character), ANSWER_BOUND
        )
        assert hover is not None
        assert counts(ws, ws.gotcha) == (0, 0)  # nothing could be written meanwhile
    await lsp.wait_until(lambda: counts(ws, ws.gotcha)[1] == 1, ANSWER_BOUND)  # the hover
    await lsp.change(ws.store_py, ws.store_py.read_text() + "\n")  # the first publish after
    await lsp.wait_until(lambda: counts(ws, ws.gotcha) == (1, 1), ANSWER_BOUND)
    assert counts(ws, ws.app_gotcha) == (1, 0)  # each count once


def _store(ws: Workspace) -> MemoryStore:
    store = ws.open_store()
    assert store.exists
    assert store.conn is not None  # opened on the index itself, before any lock is held
    return store


def test_counts_kept_for_a_held_index_are_written_at_close(ws: Workspace) -> None:
    store = _store(ws)
    warned: list[str] = []
    usage = UsageCounts(lambda scope: store, lambda: None, warned.append)
    try:
        store.conn.execute("PRAGMA busy_timeout = 50")  # the wait at close, kept short here
        with index_held(ws):
            usage.acted(store, ws.gotcha)
            usage.surfaced(store, [ws.gotcha, ws.decision])
            assert usage.kept == 2
        usage.acted(store, ws.decision)  # free again: written at once, the kept ones too
        assert usage.kept == 0
        assert counts(ws, ws.gotcha) == (1, 1)
        assert counts(ws, ws.decision) == (1, 1)
        with index_held(ws):
            usage.acted(store, ws.app_gotcha)
            assert usage.kept == 1
        usage.close()  # nothing else came: shutdown writes it
        assert usage.kept == 0
        assert counts(ws, ws.app_gotcha) == (0, 1)
        assert warned == []
    finally:
        store.close()


def test_counts_for_an_index_held_to_the_end_are_said_lost(ws: Workspace) -> None:
    store = _store(ws)
    warned: list[str] = []
    usage = UsageCounts(lambda scope: store, lambda: None, warned.append)
    try:
        store.conn.execute("PRAGMA busy_timeout = 50")
        with index_held(ws):
            usage.acted(store, ws.gotcha)
            usage.close()
        assert usage.kept == 0
        assert [w for w in warned if "1 counts, the index stayed busy" in w] == warned != []
        assert counts(ws, ws.gotcha) == (0, 0)
    finally:
        store.close()


def test_counts_past_the_bound_let_the_oldest_go_said_once(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lsp_server.usage_counts as module

    monkeypatch.setattr(module, "KEPT_MAX", 3)
    store = _store(ws)
    warned: list[str] = []
    usage = UsageCounts(lambda scope: store, lambda: None, warned.append)
    try:
        with index_held(ws):
            for memory_id in (ws.gotcha, ws.decision, ws.app_gotcha, ws.gotcha, ws.gotcha):
                usage.acted(store, memory_id)
            assert usage.kept == 3
        usage.flush()
        assert usage.kept == 0
        assert counts(ws, ws.decision) == (0, 0)  # the oldest two were let go
        assert counts(ws, ws.app_gotcha) == (0, 1)
        assert counts(ws, ws.gotcha) == (0, 2)
        assert len([w for w in warned if "the oldest are let go" in w]) == 1
    finally:
        store.close()


def test_a_store_gone_takes_no_count(ws: Workspace) -> None:
    store = _store(ws)
    usage = UsageCounts(lambda scope: None, lambda: None, lambda message: None)
    try:
        usage.acted(store, ws.gotcha)
        assert usage.kept == 0
        assert counts(ws, ws.gotcha) == (0, 0)
    finally:
        store.close()
