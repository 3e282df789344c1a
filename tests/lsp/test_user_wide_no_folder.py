"""The user-wide store's drafts and memory files are served by a server with no workspace
folder, as Neovim 0.11 starts one for a buffer with no root marker above it (a draft under
``TETHER_HOME``): saving a draft there remembers it, and a memory file gets its front-matter
diagnostics. A saved draft of a store no root serves is said on screen, never ignored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from recall.locations import global_location
from recall.store import MemoryStore
from tests.conftest import make_repo
from tests.lsp.conftest import SERVER, add_client_handlers, capabilities_of
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

OLD = "use the v2 API"
NEW = "use the v3 API"
NEW_ID = "5e0f1a2b"


def _global_store(tether_home: Path) -> MemoryStore:
    """The user-wide store, as the CLI run outside any repository opens it."""
    return MemoryStore(global_location(tether_home), notice=lambda message: None)


@pytest.fixture
def old_id(tether_home: Path) -> str:
    """A user-wide gotcha, written before the server starts."""
    store = _global_store(tether_home)
    try:
        memory = store.prepare_memory(summary=OLD, category="gotcha", files=["app.py"])
        return store.remember(memory).id
    finally:
        store.close()


@pytest_asyncio.fixture
async def no_folder(old_id: str) -> AsyncIterator[Session]:
    """A server initialized with no root and no workspace folder (rootUri and workspaceFolders
    null), as Neovim 0.11 starts one for a buffer no root marker is above."""
    client = await ClientServerConfig(server_command=SERVER).start()
    assert isinstance(client, LanguageClient)
    client.applied_edits = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    add_client_handlers(client)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities_of("neovim@v0.7.0"),
            client_info=types.ClientInfo(name="Neovim"),
            root_uri=None,
            workspace_folders=None,
        )
    )
    yield Session(client, "neovim@v0.7.0")
    await client.shutdown_session()
    await client.stop()


def _shown(lsp: Session) -> list[str]:
    return [m.message for m in lsp.client.messages]


async def test_saving_a_supersede_draft_of_a_user_wide_memory_supersedes_it(
    no_folder: Session, tether_home: Path, old_id: str
) -> None:
    lsp = no_folder
    draft = tether_home / "drafts" / f"{NEW_ID}.md"
    draft.parent.mkdir(parents=True, exist_ok=True)
    text = f"---\nid: {NEW_ID}\ncategory: gotcha\nfiles:\n  - app.py\nsupersedes: {old_id}\n---\n"
    draft.write_text(text, encoding="utf-8")
    await lsp.open(draft, language="markdown")
    await lsp.change(draft, text + NEW + "\n")
    await lsp.save(draft, text + NEW + "\n")
    memory_file = tether_home / "memories" / f"{NEW_ID}.md"
    assert memory_file.read_text(encoding="utf-8") == text + NEW + "\n"
    store = _global_store(tether_home)
    try:
        store.refresh()
        old, new = store.find(old_id), store.find(NEW_ID)
    finally:
        store.close()
    assert old is not None and (old.status, old.superseded_by) == ("superseded", NEW_ID)
    assert new is not None and (new.status, new.summary) == ("active", NEW)
    assert any(f"remembered in {memory_file}" in m for m in _shown(lsp)), _shown(lsp)
    await lsp.close(draft)
    assert not draft.exists()  # saved as a memory: nothing of the person's is left in it


async def test_a_user_wide_memory_file_gets_its_front_matter_diagnostics(
    no_folder: Session, tether_home: Path, old_id: str
) -> None:
    lsp = no_folder
    memory_file = tether_home / "memories" / f"{old_id}.md"
    text = memory_file.read_text(encoding="utf-8").replace("---\n", "---\npined: true\n", 1)
    await lsp.open(memory_file, text, language="markdown")
    (diagnostic,) = lsp.diagnostics(memory_file)
    assert "pined is not a key Tether reads" in diagnostic.message
    assert "did you mean pinned?" in diagnostic.message
    assert diagnostic.range.start.line == 1


async def test_a_saved_draft_of_a_store_no_root_serves_is_said_on_screen(
    lsp_one: Session, tmp_path: Path
) -> None:
    """The server has the test repository open; the draft is of another repository's store.
    Its save remembers nothing, and the person is told so, with what to do."""
    other = make_repo(tmp_path / "other", {"lib.py": "x = 1\n"})
    draft = other / ".tether" / "drafts" / f"{NEW_ID}.md"
    (other / ".tether" / "memories").mkdir(parents=True)
    draft.parent.mkdir()
    text = f"---\nid: {NEW_ID}\ncategory: gotcha\nfiles:\n  - lib.py\n---\n{NEW}\n"
    draft.write_text(text, encoding="utf-8")
    await lsp_one.open(draft, language="markdown")
    await lsp_one.save(draft)
    (said,) = [m for m in _shown(lsp_one) if str(draft) in m]
    assert "saved but not remembered" in said and "open that repository" in said
    assert not (other / ".tether" / "memories" / f"{NEW_ID}.md").exists()
