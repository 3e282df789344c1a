"""Another Tether process holding the store's writers' lock (a reindex, an import) never
stops the server: hovers and diagnostics go on from the index as last committed, a write
waits for the lock off the message loop, and what changed meanwhile is read once it is free."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_server.store_busy import CHECK_SECONDS, STORE_WAIT_SECONDS, WRITE_WAIT_SECONDS
from recall.hooks.events import GUARD_BUSY_MS
from recall.index.db import BUSY_TIMEOUT_MS
from tests.lsp.session import Session
from tests.lsp.workspace import APP_GOTCHA, Workspace

ANSWER_BOUND = 30.0
"""How long a test waits for an answer the server owes (a guard against hanging, far above
any wait of the server's own: an answer at all, while the lock is held, is what counts)."""

PULLED = "a gotcha pulled while the store was busy"


@contextlib.contextmanager
def held(ws: Workspace) -> Iterator[None]:
    """The project store's writers' lock, held by this process as another Tether would."""
    fd = os.open(ws.root / ".tether" / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def pulled_memory(ws: Workspace) -> Path:
    """A memory file arriving from outside (a git pull) on src/app.py."""
    path = ws.root / ".tether" / "memories" / "feedbeef.md"
    path.write_text(f"---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\n{PULLED}\n")
    return path


def test_the_waits_are_pinned() -> None:
    assert STORE_WAIT_SECONDS == GUARD_BUSY_MS / 1000 == 1.0
    assert WRITE_WAIT_SECONDS == BUSY_TIMEOUT_MS / 1000 == 15.0
    assert CHECK_SECONDS == 0.05


@pytest.mark.asyncio
async def test_a_held_lock_costs_no_answer_and_a_write_waits_for_it(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await lsp.indexing_ended()  # the lock this test holds is the only one: free once let go
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    with held(ws):
        pulled_memory(ws)
        hover = await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert hover is not None and APP_GOTCHA in str(hover.contents)  # as last committed
        before = lsp.publishes[ws.app_py.as_uri()]
        await asyncio.wait_for(lsp.change(ws.app_py, ws.app_py.read_text() + "\n"), ANSWER_BOUND)
        assert lsp.publishes[ws.app_py.as_uri()] > before  # diagnostics go on meanwhile

        pin = asyncio.ensure_future(
            lsp.client.workspace_execute_command_async(
                types.ExecuteCommandParams("tether.pin", [{"memoryId": ws.app_gotcha}])
            )
        )
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert not pin.done()  # the write waits for the lock, the hover did not wait for it
    pinned = await asyncio.wait_for(pin, ANSWER_BOUND)
    assert pinned["pinned"] is True
    await lsp.change(ws.app_py, ws.app_py.read_text() + "\n\n")
    assert PULLED in " ".join(d.message for d in lsp.diagnostics(ws.app_py))  # read once free


@pytest.mark.asyncio
async def test_a_store_opened_while_held_is_opened_again_once_free(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    with held(ws):
        pulled_memory(ws)  # the index is behind the folder: opening it would sync under the lock
        await asyncio.wait_for(lsp.open(ws.app_py), ANSWER_BOUND)
        assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    pinned = await asyncio.wait_for(
        lsp.command("tether.pin", {"memoryId": ws.app_gotcha, "fromHint": True}), ANSWER_BOUND
    )
    assert pinned["pinned"] is True  # written to the index itself, not refused as a copy
    assert "pinned: true" in ws.memory_file(ws.app_gotcha).read_text()


@contextlib.contextmanager
def index_held(ws: Workspace) -> Iterator[None]:
    """The project index's SQLite write lock, held without the writers' file lock, as a
    genome refresh or the server's indexer thread holds it."""
    other = sqlite3.connect(ws.root / ".tether" / "index.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
    finally:
        other.close()


@pytest.mark.asyncio
async def test_the_index_held_by_another_connection_is_waited_for_not_failed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await lsp.indexing_ended()  # the lock this test holds is the only one: free once let go
    with index_held(ws):
        pulled_memory(ws)  # a folder change the server cannot sync while the index is held
        hover = await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert hover is not None and APP_GOTCHA in str(hover.contents)
        before = lsp.publishes[ws.app_py.as_uri()]
        await asyncio.wait_for(lsp.change(ws.app_py, ws.app_py.read_text() + "\n"), ANSWER_BOUND)
        assert lsp.publishes[ws.app_py.as_uri()] > before  # diagnostics go on meanwhile
        pin = asyncio.ensure_future(
            lsp.client.workspace_execute_command_async(
                types.ExecuteCommandParams("tether.pin", [{"memoryId": ws.app_gotcha}])
            )
        )
        await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert not pin.done()  # waiting for the index, not failed by it
    pinned = await asyncio.wait_for(pin, ANSWER_BOUND)
    assert pinned["pinned"] is True
    await lsp.change(ws.app_py, ws.app_py.read_text() + "\n\n")
    assert PULLED in " ".join(d.message for d in lsp.diagnostics(ws.app_py))  # synced once free


@pytest.mark.asyncio
async def test_a_copy_served_while_the_index_is_held_is_not_reopened_every_message(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one

    def busy_said() -> int:
        return sum("is busy" in m.message for m in lsp.client.log_messages)

    with index_held(ws):
        pulled_memory(ws)  # the index is behind the folder: opening it would sync under the lock
        await asyncio.wait_for(lsp.open(ws.app_py), ANSWER_BOUND)
        assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
        said = busy_said()
        assert said >= 1  # served from a copy, said
        for _ in range(3):
            await asyncio.wait_for(lsp.hover(ws.app_py, 0, 0), ANSWER_BOUND)
        assert busy_said() == said  # the copy kept while the index stays held
    pinned = await asyncio.wait_for(
        lsp.command("tether.pin", {"memoryId": ws.app_gotcha, "fromHint": True}), ANSWER_BOUND
    )
    assert pinned["pinned"] is True  # written to the index itself once free, not refused
    assert "pinned: true" in ws.memory_file(ws.app_gotcha).read_text()


@contextlib.contextmanager
def held_once_swapped(swapped: Path, lock: Path) -> Iterator[threading.Event]:
    """Take ``lock`` (a writers' lock) as soon as the index ``swapped`` is replaced by a
    reindex, as another Tether process starting then would; yields the event set once taken."""
    taken, done = threading.Event(), threading.Event()
    before = os.stat(swapped).st_ino

    def watch() -> None:
        while not done.is_set():
            if os.stat(swapped).st_ino != before:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(fd, fcntl.LOCK_EX)
                taken.set()
                done.wait()
                os.close(fd)
                return
            time.sleep(0.001)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield taken
    finally:
        done.set()
        watcher.join()


@pytest.mark.extra_root
@pytest.mark.asyncio
async def test_a_reindex_busy_after_its_first_root_says_what_it_did(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    second = ws.root.parent / "second" / ".tether"
    with held_once_swapped(ws.root / ".tether" / "index.db", second / "write.lock") as taken:
        with pytest.raises(Exception, match="busy") as failed:
            await asyncio.wait_for(lsp.command("tether.reindex", {}), ANSWER_BOUND)
        assert taken.is_set()
    message = str(failed.value)
    assert f"reindexed before it: {ws.root / '.tether'}" in message  # the first root was done
    assert "nothing was written" not in message


@pytest.mark.asyncio
async def test_a_draft_opens_while_the_store_is_held(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    with held(ws):  # a draft writes nothing to the store: it does not wait for its lock
        drafted = await asyncio.wait_for(
            lsp.command("tether.remember", {"uri": ws.app_py.as_uri()}), ANSWER_BOUND
        )
        assert Path(drafted["draft"]).is_file()
        superseding = await asyncio.wait_for(
            lsp.command("tether.supersede", {"memoryId": ws.app_gotcha, "fromHint": True}),
            ANSWER_BOUND,
        )
        assert APP_GOTCHA in Path(superseding["draft"]).read_text()
