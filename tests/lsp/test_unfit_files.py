"""A folder, or one of git's own files, named in a memory document's ``files:``: a warning on
that entry in a memory file, an error in a draft, whose save refuses it in the words of the
direct write (said on screen) rather than writing a memory ``tether.remember`` refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.conftest import run_tether
from tests.lsp.session import Session
from tests.lsp.test_drafts import fill_summary
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

FOLDER = "files[0] 'src' is a folder; name the files it is about (src/app.py, src/store.py)"
GIT_OWN = "files[1] '.git/config' is one of git's own files, not a file of the repository"


def entries(lsp: Session, path: Path, text: str) -> list[tuple[str, str, int]]:
    """Each diagnostic of ``path``: the text it covers, its message, its severity."""
    lines = text.split("\n")
    return [
        (
            lines[d.range.start.line][d.range.start.character : d.range.end.character],
            d.message,
            int(d.severity or 0),
        )
        for d in lsp.diagnostics(path)
    ]


async def test_a_memory_file_naming_a_folder_or_a_git_file_is_warned_on_each_entry(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    path = ws.memory_file(ws.decision)
    original = path.read_text(encoding="utf-8")
    text = original.replace("files:\n  - src/store.py\n", "files: [src, .git/config]\n")
    await lsp.open(path, text, language="markdown")
    warning = int(types.DiagnosticSeverity.Warning)
    surface = "; this memory will not surface for it"
    assert entries(lsp, path, text) == [
        ("src", FOLDER + surface, warning),
        (
            ".git/config",
            GIT_OWN + "; name the files of the repository the memory is about" + surface,
            warning,
        ),
    ]


async def test_a_draft_naming_a_folder_is_not_saved_and_says_why(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await lsp.indexing_ended()
    direct = {"uri": ws.app_py.as_uri(), "summary": "x", "files": ["src"]}
    with pytest.raises(Exception, match="is a folder") as refused:
        await lsp.command("tether.remember", direct)
    assert FOLDER in str(refused.value)
    made = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(made["draft"])
    text = fill_summary(draft, "the whole src tree is generated")
    text = text.replace("  - src/app.py\n", "  - src\n")
    await lsp.open(draft, text, language="markdown")
    assert entries(lsp, draft, text) == [
        ("src", FOLDER + "; saving writes nothing", int(types.DiagnosticSeverity.Error))
    ]
    await lsp.save(draft, text)
    assert not ws.memory_file(made["id"]).exists()
    assert draft.exists()  # kept: nothing typed is lost
    shown = [m.message for m in lsp.client.messages]
    said = f"tether: the draft {draft} was not remembered: {FOLDER}; nothing written"
    assert said in shown
    doctor = run_tether("doctor", cwd=ws.root)
    assert made["id"] not in doctor.stdout
