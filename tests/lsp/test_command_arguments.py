"""``workspace/executeCommand`` arguments as a person types them in an editor's config: a key
no command reads is refused (-32602) naming it, the closest key and the known ones, before
anything is written or opened; and every refusal names the command's own argument, never a
CLI flag, on one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

INVALID_PARAMS = -32602


async def _refused(lsp: Session, command: str, arguments: dict[str, object]) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as raised:
        await lsp.command(command, arguments)
    return raised.value


def _memory_files(ws: Workspace) -> list[str]:
    return sorted(p.name for p in (ws.root / ".tether" / "memories").iterdir())


def _drafts(ws: Workspace) -> list[Path]:
    folder = ws.root / ".tether" / "drafts"
    return sorted(folder.glob("*.md")) if folder.exists() else []


async def test_unknown_keys_are_refused_with_the_closest(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    before = _memory_files(ws)
    cases = [
        ("tether.remember", {"summary": "s", "detials": "IMPORTANT DETAILS"}, "detials", "details"),
        ("tether.remember", {"summary": "s", "pin": True}, "pin", "pinned"),
        ("tether.remember", {"allow_missing": True}, "allow_missing", "allowMissing"),
        ("tether.supersede", {"memoryId": ws.gotcha, "sumary": "new"}, "sumary", "summary"),
        ("tether.pin", {"memoryID": ws.gotcha}, "memoryID", "memoryId"),
        ("tether.list", {"limt": 3}, "limt", "limit"),
    ]
    for command, arguments, key, near in cases:
        error = await _refused(lsp, command, arguments)
        message = str(error)
        assert error.code == INVALID_PARAMS, message
        assert f"unknown argument '{key}'; did you mean {near}?" in message
        assert "the arguments are" in message and "\n" not in message
    assert _memory_files(ws) == before  # nothing written
    assert _drafts(ws) == []  # and no draft opened
    unrelated = str(await _refused(lsp, "tether.recall", {"prompt": "x", "zzzzzz": 1}))
    assert "unknown argument 'zzzzzz'; the arguments are prompt, limit, display" in unrelated


async def test_what_the_server_itself_sends_is_still_read(lsp_one: Session, ws: Workspace) -> None:
    """The keys the code actions carry (``fromHint``, ``display``, ``uri``) are known."""
    lsp = lsp_one
    shown = await lsp.command("tether.show", {"memoryId": ws.gotcha, "fromHint": True})
    assert shown["id"] == ws.gotcha
    found = await lsp.command("tether.recall", {"uri": ws.store_py.as_uri(), "fromHint": True})
    assert found["results"]


async def test_refusals_name_the_argument_on_one_line(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    before = _memory_files(ws)
    outside = str(await _refused(lsp, "tether.remember", {"files": ["../../etc/passwd"]}))
    assert "files[0] '../../etc/passwd'" in outside and "--file" not in outside
    anchored = {"summary": "s", "anchors": ["../../x.py::f"]}
    outside_anchor = str(await _refused(lsp, "tether.remember", anchored))
    assert "anchors[0]" in outside_anchor and "--file" not in outside_anchor

    secret = {"summary": "the key is AKIA" + "KTAIPPAT6CVJJEEV", "files": ["src/store.py"]}
    refused = str(await _refused(lsp, "tether.remember", secret))
    assert "looks like a credential" in refused and "in summary" in refused
    assert "allow_secret" not in refused and "tether remember --allow-secret" in refused
    assert "\n" not in refused

    folder = str(await _refused(lsp, "tether.remember", {"summary": "s", "files": ["src"]}))
    assert "files[0] 'src' is a folder" in folder and "\n" not in folder
    typo = str(await _refused(lsp, "tether.remember", {"summary": "s", "files": ["src/stor.py"]}))
    assert "nothing written" in typo and "\n" not in typo
    assert _memory_files(ws) == before


async def test_a_credential_anywhere_a_command_would_write_it_is_refused_the_editors_way(
    lsp_one: Session, ws: Workspace
) -> None:
    """One check of every write refuses it, masked, saying how to write it from the editor
    (never an import line's key): in a file named, in a draft's details before its file is
    written (split by a character no one sees too), in a replacement's summary."""
    lsp = lsp_one
    memories, drafts = _memory_files(ws), _drafts(ws)
    key = "AKIA" + "KTAIPPAT6CVJJEEV"
    cases = [
        ("tether.remember", {"summary": "s", "files": [f"src/{key}.py"], "allowMissing": True}),
        ("tether.remember", {"uri": ws.app_py.as_uri(), "details": f"key AKIA\u200b{key[4:]}"}),
        ("tether.supersede", {"memoryId": ws.gotcha, "summary": f"the key is {key}"}),
    ]
    for (command, arguments), where in zip(cases, ["file 1", "details", "summary"], strict=True):
        refused = str(await _refused(lsp, command, arguments))
        assert "looks like a credential: AWS access key id (AKIAKTAI…[" in refused
        assert f"]) in {where}" in refused and key not in refused
        assert "allow_secret" not in refused and "tether remember --allow-secret" in refused
    assert (_memory_files(ws), _drafts(ws)) == (memories, drafts)


async def test_a_summary_of_two_lines_is_told_to_use_details(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    before = _memory_files(ws)
    cases = [
        ("tether.remember", {"uri": ws.app_py.as_uri(), "summary": "a\nb"}),
        ("tether.supersede", {"memoryId": ws.app_gotcha, "summary": "a\r\nb"}),
    ]
    for command, arguments in cases:
        refused = str(await _refused(lsp, command, arguments))
        assert "summary must be one line; put the rest in the 'details' argument" in refused
        assert "--details" not in refused and "\n" not in refused
    assert _memory_files(ws) == before
