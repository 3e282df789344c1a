"""Memory files written by other processes and code written straight to disk are seen, with
watchers where the client registers them and by the server's own look otherwise."""

from __future__ import annotations

import asyncio
import os

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_server.watching import DISK_CHECK_SECONDS
from recall.genome import Genome
from recall.ranking.fuse import DRIFT_NOTE
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
    # ... unless the session's own indexing still holds the index: then the first message
    # after it lets go reads the file (docs/editors.md), so a few more messages are sent
    for _ in range(MESSAGES_AFTER):
        if new_id in [d.code for d in lsp.diagnostics(ws.store_py)]:
            break
        await asyncio.sleep(0.2)
        await lsp.settle()
    assert new_id in [d.code for d in lsp.diagnostics(ws.store_py)]


MESSAGES_AFTER = 50
"""Messages sent, 0.2 s apart, for the server to read a memory written meanwhile: ten seconds,
far longer than the session's indexing of this small repository holds the index."""


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


def write_elsewhere(ws: Workspace, summary: str) -> str:
    """A gotcha on src/store.py written by another process (the CLI, say)."""
    store = ws.open_store()
    try:
        return store.remember(
            store.prepare_memory(summary=summary, category="gotcha", files=["src/store.py"])
        ).id
    finally:
        store.close()


@pytest.mark.init_options({"maxPerFile": 10})
async def test_a_write_within_one_tick_of_the_folder_clock(lsp_one: Session, ws: Workspace) -> None:
    """File times come from a coarse clock: two writes in one tick leave the folder's mtime
    where the first put it. The second is still published on the next message."""
    lsp = lsp_one
    folder = ws.memory_file("x").parent
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the store free: each write is read at the next message
    first = write_elsewhere(ws, "the first write of this tick")
    tick = os.stat(folder).st_mtime_ns
    await lsp.hover(ws.store_py, 0, 0)  # the server looks at the folder: mtime ``tick``
    await lsp.settle()
    assert first in [d.code for d in lsp.diagnostics(ws.store_py)]
    second = write_elsewhere(ws, "the second write of the same tick")
    os.utime(folder, ns=(tick, tick))  # as a coarse clock would have stamped it
    await lsp.hover(ws.store_py, 0, 0)
    await lsp.settle()
    assert second in [d.code for d in lsp.diagnostics(ws.store_py)]


@pytest.mark.parametrize("how", ["hover", "codeAction", "executeCommand"])
async def test_every_request_publishes_a_write_made_before_it(
    lsp_one: Session, ws: Workspace, how: str
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the store free: the write is read at the next message
    new_id = write_elsewhere(ws, f"written before a {how}")
    start = lsp.publishes[ws.store_py.as_uri()]
    if how == "hover":
        await lsp.hover(ws.store_py, 0, 0)
    elif how == "codeAction":
        await lsp.actions(ws.store_py, types.Range(types.Position(0, 0), types.Position(0, 0)))
    else:
        # run from a hint: a command the agent runs itself ends the hints by design
        await lsp.command("tether.show", {"memoryId": ws.gotcha, "fromHint": True})
    await lsp.settle()
    assert lsp.publishes[ws.store_py.as_uri()] > start
    assert new_id in [d.code for d in lsp.diagnostics(ws.store_py)]


async def test_a_write_before_the_first_message(client_one: LanguageClient, ws: Workspace) -> None:
    """Written after initialize and before any document is opened: the first look at the
    memory folder happens when the root is made, so this write is a change, not the baseline."""
    lsp: Session = client_one.tether_session  # type: ignore[attr-defined]
    new_id = write_elsewhere(ws, "written before the first open")
    await lsp.open(ws.store_py)
    assert new_id in [d.code for d in lsp.diagnostics(ws.store_py)]


async def test_a_genome_refreshed_by_another_process_is_followed(
    lsp_one: Session, ws: Workspace
) -> None:
    """A hook or the CLI refreshes the genome in the shared index after commits the editor
    never saw: the server's recall follows it (here: the spot-check mark of a memory whose
    file has changed in 21 commits since), without waiting for a save to end a turn."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    uri = ws.store_py.as_uri()

    async def decision_receipt() -> str:
        listed = await lsp.command("tether.list", {"uri": uri})
        (entry,) = [m for m in listed["memories"] if m["id"] == ws.decision]
        return entry["receipt"]

    assert DRIFT_NOTE not in await decision_receipt()
    later = "2090-01-01T00:00:00+00:00"
    ws.commit_store_changes(21, later)  # past the spot-check's count of commits since the decision
    store = ws.open_store()  # the CLI, say, in another process
    try:
        Genome.load(ws.root, store.conn)
    finally:
        store.close()
    await asyncio.sleep(DISK_CHECK_SECONDS + 0.1)
    assert DRIFT_NOTE in await decision_receipt()


def skipped_lines(lsp: Session) -> list[str]:
    """The client's log lines about memory files that cannot be loaded."""
    return [
        m.message
        for m in lsp.client.log_messages
        if m.type == types.MessageType.Warning and "skipped" in m.message
    ]


async def test_a_broken_memory_file_is_told_once_per_change(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await lsp.indexing_ended()  # the store free: the broken file is read at the next message
    broken = ws.root / ".tether" / "memories" / "0badf11e.md"
    broken.write_text("---\ncategory: gotcha\nfiles: [src/app.py\n---\nbroken by a merge\n")
    for step in range(3):  # keystrokes, each a look at the folder
        await lsp.change(ws.app_py, ws.app_py.read_text() + "#" * (step + 1) + "\n")
    (told,) = skipped_lines(lsp)
    assert told.startswith(f"tether: skipped {broken}:4: bad YAML")  # file and line, as the CLI
    ws.memory_file(ws.app_gotcha).write_text(ws.memory_file(ws.app_gotcha).read_text() + "\n")
    notify_changed(lsp, ws.memory_file(ws.app_gotcha).as_uri())  # another file changed
    await lsp.change(ws.app_py, ws.app_py.read_text() + "# more\n")
    assert len(skipped_lines(lsp)) == 1  # not again
    broken.write_text("---\ncategory: gotch\nfiles: [src/app.py]\n---\nbroken another way\n")
    notify_changed(lsp, broken.as_uri())  # rewritten in place: seen through the client's watch
    await lsp.change(ws.app_py, ws.app_py.read_text() + "# again\n")
    assert len(skipped_lines(lsp)) == 2 and "gotch" in skipped_lines(lsp)[1]
