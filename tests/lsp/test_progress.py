"""Indexing on start runs in the background with $/progress and can be cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time

import pytest
from lsprotocol import types

from lsp_server.lifecycle import START_UP_WAIT_SECONDS, shutdown
from lsp_server.progress import IndexCancelled, refresh_genome
from lsp_server.setup import build as build_server
from recall.genome import Genome
from recall.genome.symbols.lookup import defined_in
from recall.locations import project_location
from tests.lsp.raw import RawClient, raw_server
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace, build


async def wait_for_end(lsp: Session, seconds: float = 15.0) -> list[object]:
    """The reports of the first progress token that ended."""
    for _ in range(int(seconds / 0.05)):
        for reports in lsp.client.progress_reports.values():
            if reports and isinstance(reports[-1], types.WorkDoneProgressEnd):
                return reports
        await asyncio.sleep(0.05)
    raise AssertionError(f"no progress ended: {lsp.client.progress_reports}")


@pytest.mark.asyncio
async def test_indexing_reports_progress(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)  # diagnostics do not wait for the index
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    reports = await wait_for_end(lsp)
    begin, end = reports[0], reports[-1]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.cancellable is True
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message is not None and end.message.startswith("done")
    store = ws.open_store()
    try:
        assert not Genome(ws.root, store.conn).is_stale()
    finally:
        store.close()


def test_cancelled_refresh_leaves_the_genome_alone(tmp_path) -> None:
    ws = build(tmp_path / "repo")
    location = project_location(ws.root)
    with pytest.raises(IndexCancelled):
        refresh_genome(location, lambda: True, lambda *args: None)
    calls: list[int] = []

    def cancel_midway() -> bool:
        calls.append(1)
        return len(calls) > 1  # let it start, then cancel at the first report

    with pytest.raises(IndexCancelled):
        refresh_genome(location, cancel_midway, lambda *args: None)
    store = ws.open_store()
    try:
        assert Genome(ws.root, store.conn).is_stale()  # nothing was written
    finally:
        store.close()
    summary = refresh_genome(location, lambda: False, lambda *args: None)
    assert summary is not None and summary.files_tracked >= 3


def test_the_server_catches_up_on_symbols_a_hook_left(tmp_path) -> None:
    ws = build(tmp_path / "repo")
    location = project_location(ws.root)
    store = ws.open_store()
    try:
        Genome(ws.root, store.conn, symbols=False).refresh()  # as a hook's recall does
        assert not Genome(ws.root, store.conn, symbols=False).is_stale()
        assert defined_in(store.conn, "src/store.py") == []
    finally:
        store.close()
    summary = refresh_genome(location, lambda: False, lambda *args: None)
    assert summary is not None and summary.symbol_files_parsed == 2
    store = ws.open_store()
    try:
        names = [d.name for d in defined_in(store.conn, "src/store.py")]
        assert names == ["load_session", "save_session"]
        assert refresh_genome(location, lambda: False, lambda *args: None) is None
    finally:
        store.close()


def test_an_up_to_date_genome_is_told_from_the_index_alone(tmp_path) -> None:
    # The start-up check must not read the memory folder: in a large store that is a stat of
    # every memory file, on every server start, for a genome that reads none of them.
    ws = build(tmp_path / "repo")
    location = project_location(ws.root)
    assert refresh_genome(location, lambda: False, lambda *args: None) is not None
    ws.memory_file(ws.decision).unlink()  # a change only a sync of the folder would see
    assert refresh_genome(location, lambda: False, lambda *args: None) is None
    with contextlib.closing(sqlite3.connect(location.index_path)) as conn:
        rows = conn.execute("SELECT count(*) FROM memories WHERE id = ?", (ws.decision,))
        assert rows.fetchone()[0] == 1  # the index was not synced with the folder
    store = ws.open_store()
    try:
        assert store.find(ws.decision) is None  # the store's own opening still syncs it
    finally:
        store.close()


def start_with_progress(client: RawClient, ws: Workspace) -> None:
    """Initialize a raw client that accepts work-done progress."""
    init = {
        "processId": None,
        "rootUri": ws.root.as_uri(),
        "capabilities": {"window": {"workDoneProgress": True}},
    }
    client.response(client.request("initialize", init))
    client.notify("initialized", {})


def wait_for_progress_create(client: RawClient) -> None:
    """Wait up to 5 s for the server to ask for a progress token."""
    for _ in range(100):
        client.barrier()
        if any(m.get("method") == "window/workDoneProgress/create" for m in client.received):
            return
        time.sleep(0.05)


def test_start_up_work_waits_for_the_first_documents_diagnostics(ws: Workspace) -> None:
    # The first diagnostics of a session are not to share the CPU with the start-up work (the
    # session-start pass and the indexing, whose progress token is the visible part of it).
    with raw_server(ws.root) as client:
        start_with_progress(client, ws)
        item = {"uri": ws.store_py.as_uri(), "languageId": "python", "version": 1}
        item["text"] = ws.store_py.read_text()
        client.notify("textDocument/didOpen", {"textDocument": item})
        wait_for_progress_create(client)
        order = [
            m.get("method")
            for m in client.received
            if m.get("method") in ("window/workDoneProgress/create", "$/progress")
            or (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"])
        ]
        assert order[0] == "textDocument/publishDiagnostics"
        assert "window/workDoneProgress/create" in order


def test_start_up_work_starts_without_a_document_too(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        start_with_progress(client, ws)
        wait_for_progress_create(client)
        assert any(m.get("method") == "window/workDoneProgress/create" for m in client.received)


def test_the_start_up_wait() -> None:
    # long enough for an editor's first didOpen after initialized, short enough that a
    # session that opens nothing is indexed at once
    assert START_UP_WAIT_SECONDS == 0.5


@pytest.mark.parametrize("version", ["99", "5"])
def test_an_index_of_another_schema_version_is_indexed_again(tmp_path, version) -> None:
    # The store's opening rebuilds a newer index and migrates an older one; judged from the
    # bare index, the genome would count as up to date and be lost to the rebuild.
    ws = build(tmp_path / "repo")
    location = project_location(ws.root)
    assert refresh_genome(location, lambda: False, lambda *args: None) is not None
    with contextlib.closing(sqlite3.connect(location.index_path)) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
        conn.commit()
    refresh_genome(location, lambda: False, lambda *args: None)
    store = ws.open_store()
    try:
        assert not Genome(ws.root, store.conn).is_stale()
    finally:
        store.close()


def test_a_document_opened_while_settings_are_pulled_starts_the_work_at_once(
    ws: Workspace,
) -> None:
    # A client that answers workspace/configuration: the first document can be opened and
    # answered while ``initialized`` still waits for the settings. The start-up work then
    # starts as soon as the settings are in, before a shutdown that follows at once.
    with raw_server(ws.root) as client:
        init = {
            "processId": None,
            "rootUri": ws.root.as_uri(),
            "capabilities": {
                "window": {"workDoneProgress": True},
                "workspace": {"configuration": True},
            },
        }
        client.answers["workspace/configuration"] = [{}]
        client.response(client.request("initialize", init))
        client.notify("initialized", {})
        item = {"uri": ws.store_py.as_uri(), "languageId": "python", "version": 1}
        item["text"] = ws.store_py.read_text()
        client.notify("textDocument/didOpen", {"textDocument": item})
        client.barrier()  # answers the settings request, after the document was handled
        client.barrier()
        stop = client.request("shutdown", None, with_params=False)
        client.response(stop)
        methods = [m.get("method") for m in client.received]
        answered = [m.get("id") for m in client.received].index(stop)
        assert "workspace/configuration" in methods
        assert "window/workDoneProgress/create" in methods[:answered]


@pytest.mark.asyncio
async def test_a_second_deferral_cancels_the_first_timer() -> None:
    ls = build_server()
    ran: list[str] = []
    ls.defer(lambda: ran.append("first"), 0.01)
    ls.defer(lambda: ran.append("second"), 60)
    await asyncio.sleep(0.2)
    assert ran == []
    ls.run_deferred()
    assert ran == ["second"]


@pytest.mark.asyncio
async def test_shutdown_drops_the_start_up_work_still_waiting() -> None:
    ls = build_server()
    ran: list[str] = []
    ls.defer(lambda: ran.append("work"), 0.01)
    shutdown(ls, None)
    await asyncio.sleep(0.2)
    ls.run_deferred()
    assert ran == []


@pytest.mark.asyncio
async def test_work_deferred_after_shutdown_never_runs() -> None:
    ls = build_server()
    ran: list[str] = []
    ls.run_deferred()  # the first document was answered while initialized still waited
    shutdown(ls, None)  # then shutdown came, before initialized deferred the start-up work
    ls.defer(lambda: ran.append("work"), 0.01)
    await asyncio.sleep(0.2)
    ls.run_deferred()
    assert ran == []


@pytest.mark.asyncio
async def test_an_early_run_makes_only_the_next_deferral_immediate() -> None:
    ls = build_server()
    ran: list[str] = []
    ls.run_deferred()
    ls.defer(lambda: ran.append("first"), 60)
    ls.defer(lambda: ran.append("second"), 60)
    assert ran == ["first"]
    ls.cancel_deferred()
