"""Writing and superseding from the editor: a draft memory file, filled in, saved, indexed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from recall import frontmatter
from tests.conftest import run_tether
from tests.lsp.conftest import SERVER, start
from tests.lsp.session import Session
from tests.lsp.test_store_busy import ANSWER_BOUND
from tests.lsp.workspace import GOTCHA, Workspace

pytestmark = pytest.mark.asyncio

NEW = "app start must warm the cache first"


def fill_summary(path: Path, summary: str) -> str:
    """The draft's text with ``summary`` written on its summary line (after the front matter)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    closing = lines.index("---", 1)
    lines[closing + 1] = summary
    return "\n".join(lines)


async def fill_and_save(lsp: Session, draft: Path, summary: str) -> None:
    """What a person does with a draft: open it, type the summary, save."""
    await lsp.open(draft, language="markdown")
    text = fill_summary(draft, summary)
    await lsp.change(draft, text)
    await lsp.save(draft, text)


async def test_remember_flow_end_to_end(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.app_py)
    await lsp.indexing_ended()  # the store free: the draft is read in as it is saved
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    assert draft.parent == ws.root / ".tether" / "drafts"  # where no store reads it
    assert draft.exists()
    if lsp.is_vscode:  # created through applyEdit and brought up with showDocument
        assert result["applied"] and result["shown"]
        (edit,) = lsp.client.applied_edits  # type: ignore[attr-defined]
        kinds = [type(c).__name__ for c in edit.edit.document_changes]
        assert kinds == ["CreateFile", "TextDocumentEdit"]
        assert lsp.client.shown_documents[-1].uri == draft.as_uri()
    else:  # Neovim 0.7: no resource operations, no showDocument: on disk plus a message
        assert not result["applied"] and not result["shown"]
        assert lsp.client.applied_edits == []  # type: ignore[attr-defined]
        assert any(str(draft) in m.message for m in lsp.client.messages)
    fields = frontmatter.parse(draft.read_text(), draft).fields
    assert fields["category"] == "gotcha"
    assert fields["files"] == ["src/app.py"]

    # the empty draft is not a memory yet, and its document says why
    await lsp.open(draft, language="markdown")
    problems = lsp.diagnostics(draft)
    assert [d.severity for d in problems] == [types.DiagnosticSeverity.Error]
    assert "missing summary" in problems[0].message

    text = fill_summary(draft, NEW)
    await lsp.change(draft, text)
    assert lsp.diagnostics(draft) == []
    await lsp.save(draft, text)
    assert ws.memory_file(result["id"]).read_text(encoding="utf-8") == text  # saved: a memory

    shown = await lsp.command("tether.show", {"memoryId": result["id"]})
    assert shown["summary"] == NEW
    recalled = await lsp.command("tether.recall", {"uri": ws.app_py.as_uri()})
    assert NEW in [r["summary"] for r in recalled["results"]]
    # writing a memory is reading memory on one's own: proactive hints stop (hint rule 1)
    assert lsp.diagnostics(ws.app_py) == []


async def test_supersede_flow_end_to_end(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the store free: the old memory is marked as the draft is saved
    result = await lsp.command("tether.supersede", {"memoryId": ws.gotcha, "fromHint": True})
    draft = Path(result["draft"])
    fields = frontmatter.parse(draft.read_text(), draft).fields
    assert fields["supersedes"] == ws.gotcha
    assert fields["anchor"] == "save_session"

    await lsp.open(draft, language="markdown")  # still the old text: said before saving
    assert any("same text as" in d.message for d in lsp.diagnostics(draft))
    await lsp.save(draft)  # saved as it is: it repeats the old memory, so it is none yet
    with pytest.raises(Exception, match="no memory"):
        await lsp.command("tether.show", {"memoryId": result["id"]})

    await fill_and_save(lsp, draft, "session save goes through safeRename and an fsync")
    old = frontmatter.parse(ws.memory_file(ws.gotcha).read_text(), "old").fields
    assert old["status"] == "superseded"
    assert old["superseded_by"] == result["id"]
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    assert diagnostic.code == result["id"]
    assert "fsync" in diagnostic.message


async def test_direct_writes_for_tools(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    written = await lsp.command(
        "tether.remember",
        {"uri": ws.app_py.as_uri(), "summary": NEW, "details": "cold caches time out"},
    )
    assert ws.memory_file(written["id"]).exists()
    recalled = await lsp.command("tether.recall", {"uri": ws.app_py.as_uri(), "limit": 5})
    assert written["id"] in [r["id"] for r in recalled["results"]]
    await lsp.command("tether.guard", {"memoryId": ws.gotcha})
    replaced = await lsp.command(
        "tether.supersede", {"memoryId": ws.gotcha, "summary": GOTCHA + " (and fsync)"}
    )
    assert replaced["supersedes"] == ws.gotcha
    old = frontmatter.parse(ws.memory_file(ws.gotcha).read_text(), "old").fields
    assert old["superseded_by"] == replaced["id"]
    # superseding does not lift a guard (unguard does), written or drafted
    new = frontmatter.parse(ws.memory_file(replaced["id"]).read_text(), "new").fields
    assert new["guard"] is True
    drafted = await lsp.command("tether.supersede", {"memoryId": replaced["id"]})
    assert frontmatter.parse(Path(drafted["draft"]).read_text(), "draft").fields["guard"] is True


async def test_an_anchor_its_file_does_not_define_is_said_in_the_answer(
    lsp_one: Session, ws: Workspace
) -> None:
    """As the CLI and MCP say it: kept (a symbol still to come), without a recorded body."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    anchors = ["src/store.py::Nope.nothing"]
    written = await lsp.command(
        "tether.remember", {"uri": ws.store_py.as_uri(), "summary": NEW, "anchors": anchors}
    )
    [note] = written["anchor_notes"]
    assert "src/store.py::Nope.nothing" in note and "without a body hash" in note
    replaced = await lsp.command(
        "tether.supersede",
        {"memoryId": written["id"], "summary": NEW + " again", "anchors": anchors},
    )
    assert replaced["anchor_notes"] == [note]
    found = await lsp.command(
        "tether.remember",
        {
            "uri": ws.store_py.as_uri(),
            "summary": "saves go through one place",
            "anchors": ["src/store.py::save_session"],
        },
    )
    assert "anchor_notes" not in found


async def test_supersede_carries_the_pin_and_anchors_unless_told_otherwise(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    written = await lsp.command(
        "tether.remember",
        {"summary": NEW, "pinned": True, "anchors": ["src/store.py::save_session"]},
    )
    kept = await lsp.command("tether.supersede", {"memoryId": written["id"], "summary": NEW + "!"})
    new = frontmatter.parse(ws.memory_file(kept["id"]).read_text(), "new").fields
    assert new["pinned"] is True
    assert [a["symbol"] for a in new["anchors"]] == ["src/store.py::save_session"]
    drafted = await lsp.command("tether.supersede", {"memoryId": kept["id"]})
    fields = frontmatter.parse(Path(drafted["draft"]).read_text(), "draft").fields
    assert fields["pinned"] is True and fields["anchors"][0]["symbol"].endswith("save_session")
    dropped = await lsp.command(
        "tether.supersede",
        {"memoryId": kept["id"], "summary": NEW + "?", "pinned": False, "anchors": []},
    )
    last = frontmatter.parse(ws.memory_file(dropped["id"]).read_text(), "last").fields
    assert "pinned" not in last or last["pinned"] is False
    assert "anchors" not in last


async def test_client_without_show_document(lsp_no_show: Session, ws: Workspace) -> None:
    result = await lsp_no_show.command("tether.remember", {"uri": ws.app_py.as_uri()})
    assert result["applied"] is True  # applyEdit with a CreateFile still works
    assert result["shown"] is False
    assert lsp_no_show.client.shown_documents == []
    assert any(result["draft"] in m.message for m in lsp_no_show.client.messages)
    await lsp_no_show.indexing_ended()  # the store free: the draft is read in as it is saved
    await fill_and_save(lsp_no_show, Path(result["draft"]), NEW)
    shown = await lsp_no_show.command("tether.show", {"memoryId": result["id"]})
    assert shown["summary"] == NEW


async def test_a_null_keeps_the_old_value_and_a_refused_supersede_is_no_action(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    written = await lsp.command(
        "tether.remember",
        {"summary": NEW, "pinned": True, "anchors": ["src/store.py::save_session"]},
    )
    kept = await lsp.command(
        "tether.supersede",
        {"memoryId": written["id"], "summary": NEW + "!", "anchors": None, "pinned": None},
    )
    new = frontmatter.parse(ws.memory_file(kept["id"]).read_text(), "new").fields
    assert new["pinned"] is True
    assert [a["symbol"] for a in new["anchors"]] == ["src/store.py::save_session"]
    refused = {"memoryId": kept["id"], "summary": "x", "category": "pref", "guard": True}
    with pytest.raises(Exception, match='drop the "guard": true argument') as error:
        await lsp.command("tether.supersede", refused)
    assert "--guard" not in str(error.value)
    store = ws.open_store()
    try:
        query = "SELECT acted FROM usage WHERE memory_id = ?"
        row = store.conn.execute(query, (kept["id"],)).fetchone()
    finally:
        store.close()
    assert row is None or row[0] == 0


async def test_a_dropped_draft_leaves_nothing_behind(lsp: Session, ws: Workspace) -> None:
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri(), "fromHint": True})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    await lsp.save(draft)  # saved without a summary: still a draft, in no store
    assert not ws.memory_file(result["id"]).exists()
    doctor = run_tether("doctor", cwd=ws.root)
    assert doctor.code == 0 and result["id"] not in doctor.stdout + doctor.stderr
    listed = run_tether("list", cwd=ws.root)
    assert "skipped" not in listed.stderr
    ignored = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", ".tether"],
        cwd=ws.root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "drafts" not in ignored.stdout  # never committed by accident
    if lsp.is_vscode:  # as VS Code leaves a draft never saved: created empty on disk
        draft.write_text("", encoding="utf-8")
    await lsp.close(draft)
    assert not draft.exists()


async def test_a_finished_draft_goes_once_closed_and_the_memory_stays(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    await fill_and_save(lsp, draft, NEW)
    await lsp.close(draft)
    assert not draft.exists()
    assert NEW in ws.memory_file(result["id"]).read_text(encoding="utf-8")


async def test_a_draft_with_words_of_its_own_is_kept_when_closed(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    half = draft.read_text(encoding="utf-8").replace("files:", "files: [", 1) + "\nthe why\n"
    await lsp.save(draft, half)  # broken front matter: not a memory, yet the person's words
    await lsp.close(draft)
    assert draft.read_text(encoding="utf-8") == half
    assert not ws.memory_file(result["id"]).exists()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["neovim@v0.7.0"])
async def client_ended(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ws: Workspace
) -> AsyncIterator[None]:
    """A session the test itself shuts down."""
    lsp_client.tether_session = await start(lsp_client, request.param, [ws.root], request.node)  # type: ignore[attr-defined]
    yield


async def test_a_draft_never_opened_goes_at_shutdown(
    client_ended: LanguageClient, ws: Workspace
) -> None:
    lsp: Session = client_ended.tether_session  # type: ignore[attr-defined]
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    assert draft.exists()  # Neovim 0.7: written by the server, its path said
    await lsp.client.shutdown_session()
    assert not draft.exists()


@contextlib.contextmanager
def unremovable(path: Path) -> Iterator[None]:
    """``path`` made a file its folder will not let go: immutable for root (who may remove
    anything else), its folder read-only for anyone else."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("root without chattr: no way to make a file unremovable")
        if subprocess.run(["chattr", "+i", str(path)], check=False).returncode != 0:
            pytest.skip("this file system has no immutable files")
        undo = ["chattr", "-i", str(path)]
    else:
        path.parent.chmod(0o555)
        undo = ["chmod", "755", str(path.parent)]
    try:
        yield
    finally:
        subprocess.run(undo, check=True)


async def test_a_draft_that_cannot_be_removed_does_not_stop_shutdown(
    client_ended: LanguageClient, ws: Workspace
) -> None:
    lsp: Session = client_ended.tether_session  # type: ignore[attr-defined]
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    with unremovable(draft):
        # answered, not failed: the sweep goes on to close the stores
        await asyncio.wait_for(lsp.client.shutdown_session(), ANSWER_BOUND)
        assert draft.exists()
    said = " ".join(m.message for m in lsp.client.log_messages)
    assert f"the draft {draft} could not be removed" in said
