"""Memory files written by other processes and code written straight to disk are seen, with
watchers where the client registers them and by the server's own look otherwise."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

CLI_GOTCHA = "store writes must hold the lock"


def notify_changed(lsp: Session, *uris: str) -> None:
    """What a client with watchers sends after files change on disk."""
    lsp.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=u, type=types.FileChangeType.Changed) for u in uris]
        )
    )


async def test_memory_written_by_another_process(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    if lsp.is_vscode:
        await lsp.wait_until(lambda: lsp.client.registrations)  # type: ignore[attr-defined]
        (registration,) = lsp.client.registrations  # type: ignore[attr-defined]
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        globs = [w["globPattern"] for w in registration.register_options["watchers"]]
        assert "**/.tether/memories/*.md" in globs
    else:
        assert lsp.client.registrations == []  # type: ignore[attr-defined]
    store = ws.open_store()  # the CLI, say, in another process
    try:
        draft = store.prepare_memory(summary=CLI_GOTCHA, category="gotcha", files=["src/store.py"])
        new_id = store.remember(draft).id
    finally:
        store.close()
    if lsp.is_vscode:
        notify_changed(lsp, ws.memory_file(new_id).as_uri())
    await lsp.settle()  # Neovim 0.7 has no watchers: the next message is enough
    assert new_id in [d.code for d in lsp.diagnostics(ws.store_py)]


async def test_code_written_straight_to_disk(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    # an agent rewrites the file with a shell command; the editor is never told
    await asyncio.sleep(0.05)
    ws.app_py.write_text(ws.app_py.read_text() + "print('more')\n")
    if lsp.is_vscode:
        notify_changed(lsp, ws.app_py.as_uri(), ws.store_py.as_uri())
        await lsp.settle()
        # a file the editor never opened gets its memories published too
        assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    else:
        await asyncio.sleep(1.1)  # the server looks at most once a second
        await lsp.settle()
    # the write was a turn: the gotcha hinted before it is quiet now
    assert lsp.diagnostics(ws.app_py) == []
