"""The editor's ``tether.remember`` and ``tether.supersede`` refuse what ``tether remember``
refuses among the files a memory names: a folder, one of git's own files, a path the
repository never had (unless ``allowMissing``), an anchor holding a control character, a
summary another memory holds with another category or details. And a
commit message being written (a file in ``.git/``) is offered no "remember" action."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace

pytestmark = pytest.mark.asyncio

TYPO = {"summary": "x", "files": ["src/stor.py"]}
TYPO_REFUSED = "files[0] 'src/stor.py' is not in the repository's files"


async def _refused(lsp: Session, command: str, arguments: dict[str, object]) -> str:
    with pytest.raises(JsonRpcException) as raised:
        await lsp.command(command, arguments)
    return str(raised.value)


async def test_remember_refuses_what_the_cli_refuses(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    cases = {
        "files[0] 'src' is a folder": {"summary": "x", "files": ["src"]},
        "files[0] '.git/HEAD' is one of git's own files": {"summary": "x", "files": [".git/HEAD"]},
        TYPO_REFUSED: TYPO,
        "anchors[0] must be one line of text without control characters": {
            "summary": "x",
            "anchors": ["src/store.py::a\x00b"],
        },
    }
    for expected, arguments in cases.items():
        assert expected in await _refused(lsp, "tether.remember", arguments)
    typo = await _refused(lsp, "tether.remember", TYPO)
    assert "src/store.py" in typo and '"allowMissing": true' in typo  # the close name, the way
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written

    ahead = {"summary": "the loader will live here", "files": ["src/loader.py"]}
    written = await lsp.command("tether.remember", {**ahead, "allowMissing": True})
    assert (await lsp.command("tether.show", {"memoryId": written["id"]}))["files"] == [
        "src/loader.py"
    ]
    # the open document's own file, when no files are given, is checked as well
    git_file = ws.root / ".git" / "COMMIT_EDITMSG"
    git_file.write_text("a commit message\n")
    refused = await _refused(lsp, "tether.remember", {"uri": git_file.as_uri(), "summary": "x"})
    assert "'.git/COMMIT_EDITMSG' is one of git's own files" in refused


async def test_supersede_checks_the_files_it_is_given(lsp_one: Session, ws: Workspace) -> None:
    moved = {"memoryId": ws.gotcha, "summary": "y", "files": ["src/stor.py"]}
    assert "files[0] 'src/stor.py' is not in the repository's files" in await _refused(
        lsp_one, "tether.supersede", moved
    )
    kept = await lsp_one.command("tether.supersede", {"memoryId": ws.gotcha, "summary": "y"})
    assert kept["supersedes"] == ws.gotcha  # its own files carried over: not checked again


async def test_no_remember_action_in_a_commit_message(lsp_one: Session, ws: Workspace) -> None:
    message = ws.root / ".git" / "COMMIT_EDITMSG"
    message.write_text("a commit message\n")
    await lsp_one.open(message)
    start = types.Position(0, 0)
    titles = [a.title for a in await lsp_one.actions(message, types.Range(start, start))]
    assert not [t for t in titles if "remember" in t]
    code = [a.title for a in await lsp_one.actions(ws.store_py, types.Range(start, start))]
    assert "Tether: remember something about this file…" in code


async def test_remember_refuses_a_summary_another_memory_holds_differently(
    lsp_one: Session, ws: Workspace
) -> None:
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    same = {"summary": GOTCHA, "category": "decision", "files": ["src/store.py"]}
    answer = await lsp_one.command("tether.remember", same)
    assert answer["changed"] is False  # nothing to do, said as every such command says it
    said = answer["message"]
    assert f"{ws.gotcha} already has this summary, but its category is gotcha" in said
    assert f'tether.supersede with {{"memoryId": "{ws.gotcha}"}}' in said
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written


async def test_whitespace_only_details_are_refused_not_dropped(
    lsp_one: Session, ws: Workspace
) -> None:
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    blank = {"summary": "the loader reads the config twice", "details": " \n\t "}
    refused = await _refused(lsp_one, "tether.remember", {**blank, "files": ["src/store.py"]})
    assert "'details' holds only whitespace; nothing written" in refused
    refused = await _refused(lsp_one, "tether.supersede", {**blank, "memoryId": ws.gotcha})
    assert "'details' holds only whitespace; nothing written" in refused
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written
    shown = await lsp_one.command("tether.show", {"memoryId": ws.gotcha})
    assert shown["status"] == "active"
    # with no summary the command opens a draft to write in, as before
    draft = await lsp_one.command("tether.remember", {"uri": ws.app_py.as_uri(), "details": " "})
    assert draft["draft"].endswith(f"{draft['id']}.md")


async def test_supersede_refuses_a_summary_another_memory_holds_differently(
    lsp_one: Session, ws: Workspace
) -> None:
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    same = {"memoryId": ws.decision, "summary": GOTCHA}
    answer = await lsp_one.command("tether.supersede", same)
    assert answer["changed"] is False
    said = answer["message"]
    assert f"{ws.gotcha} already has this summary, but its category is gotcha" in said
    assert f'tether.supersede with {{"memoryId": "{ws.gotcha}"}}' in said
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written
    shown = await lsp_one.command("tether.show", {"memoryId": ws.decision})
    assert shown["status"] == "active"
    # its own summary, with another category: the way to correct a memory
    own = {"memoryId": ws.gotcha, "summary": GOTCHA, "category": "decision"}
    assert (await lsp_one.command("tether.supersede", own))["supersedes"] == ws.gotcha
