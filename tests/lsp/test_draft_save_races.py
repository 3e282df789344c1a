"""A draft saved over its memory file while someone edits that file by hand: the edit is kept.
The save checks the memory file still holds what the draft last wrote, then replaces it only
while it still holds the bytes that check read (as the CLI's rewrites do), so an edit saved
between the two is never written over; the person is told nothing was written and what to do.

The edit lands at the moment that matters (the new text synced to its temp file, not renamed in
place yet) through the real server run by :mod:`tests.lsp.edit_at_sync`."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import start
from tests.lsp.edit_at_sync import ARM
from tests.lsp.session import Session
from tests.lsp.test_diagnostics_cache import NO_INDEXING
from tests.lsp.test_drafts import NEW, fill_and_save, fill_summary
from tests.lsp.workspace import Workspace

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.init_options(NO_INDEXING),
    pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd"),
]

SERVER_EDITING = [sys.executable, "-m", "tests.lsp.edit_at_sync", "lsp"]
HAND_NOTE = "a note typed by hand while the draft was saved\n"


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER_EDITING), params=["neovim@v0.7.0"]
)
async def client_editing(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ws: Workspace
) -> AsyncIterator[None]:
    """The server with the hand edit at its rewrite's sync (armed by the test)."""
    session = await start(lsp_client, request.param, [ws.root], request.node)
    lsp_client.tether_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp(client_editing: LanguageClient) -> Session:
    return client_editing.tether_session  # type: ignore[attr-defined]


def shown(lsp: Session) -> str:
    """Every message shown to the user so far, one per line."""
    return "\n".join(m.message for m in lsp.client.messages)


def arm(ws: Workspace, text: str) -> None:
    """The next memory file the server replaces gets ``text`` appended by hand first."""
    (ws.root.parent / ARM).write_text(text, encoding="utf-8")


async def test_a_hand_edit_saved_while_a_draft_is_saved_over_its_memory_is_kept(
    lsp: Session, ws: Workspace
) -> None:
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft, memory = Path(result["draft"]), ws.memory_file(result["id"])
    await fill_and_save(lsp, draft, NEW)
    written = memory.read_text(encoding="utf-8")
    assert NEW in written

    arm(ws, HAND_NOTE)
    text = fill_summary(draft, f"{NEW}, on every start")
    await lsp.change(draft, text)
    await lsp.save(draft, text)
    assert not (ws.root.parent / ARM).exists()  # the edit was made, during the save
    assert memory.read_text(encoding="utf-8") == written + HAND_NOTE
    said = shown(lsp)
    assert f"the draft {draft} was not saved over {memory}" in said
    assert "changed on disk while the draft was saved" in said
    assert "nothing written" in said
    assert f"Open {memory} to see the change" in said
    assert not any(p.name.startswith(".tmp-") for p in memory.parent.iterdir())
    await lsp.close(draft)
    assert draft.read_text(encoding="utf-8") == text  # the draft's words are kept too


async def test_a_file_put_in_the_memory_files_place_while_a_draft_is_saved_is_kept(
    lsp: Session, ws: Workspace
) -> None:
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft, memory = Path(result["draft"]), ws.memory_file(result["id"])
    arm(ws, HAND_NOTE)
    await fill_and_save(lsp, draft, NEW)
    assert not (ws.root.parent / ARM).exists()
    assert memory.read_text(encoding="utf-8") == HAND_NOTE
    said = shown(lsp)
    assert f"the draft {draft} was not saved over {memory}" in said
    assert "nothing written" in said
    assert draft.exists()
