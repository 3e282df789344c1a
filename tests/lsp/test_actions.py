"""Quick fixes on a memory diagnostic and the commands behind them change the memory file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import captured_exception_key

from recall import frontmatter
from recall.policy.usage import counters
from tests.lsp.conftest import SERVER, start
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


def fields(path: Path) -> dict[str, object]:
    """The front matter of a memory file as it is on disk now."""
    return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields


async def test_quick_fixes_on_a_memory_diagnostic(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    found = await lsp.actions(ws.store_py, diagnostic.range, [diagnostic])
    titles = [a.title for a in found]
    name = f"gotcha {ws.gotcha}"
    assert titles == [
        f"Tether: show details of {name}",
        f"Tether: pin {name}",
        f"Tether: guard {name}",
        f"Tether: supersede {name}…",
        f"Tether: mark {name} as followed",
        f"Tether: archive {name}",
        "Tether: remember something about save_session…",  # the definition under the cursor
        "Tether: remember something about this file…",
        "Tether: show memories for this file",
    ]
    elsewhere = await lsp.actions(
        ws.store_py, types.Range(types.Position(0, 0), types.Position(0, 1))
    )
    assert [a.title for a in elsewhere] == titles[-2:]  # `import os`: in no definition
    only_fixes = await lsp.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(ws.store_py.as_uri()),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic], only=["quickfix"]),
        )
    )
    assert len(only_fixes or []) == 6


async def test_pin_unpin_archive_restore_change_the_file(lsp: Session, ws: Workspace) -> None:
    memory_file = ws.memory_file(ws.gotcha)
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the index free: the usage counts are written, not postponed

    pinned = await lsp.command("tether.pin", {"memoryId": ws.gotcha})
    assert pinned["pinned"] is True
    assert fields(memory_file)["pinned"] is True
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    assert diagnostic.message.startswith(f'pinned gotcha "{GOTCHA}"')
    again = await lsp.command("tether.pin", {"memoryId": ws.gotcha})
    assert again == {"changed": False, "message": f"memory {ws.gotcha} is already pinned"}

    await lsp.command("tether.unpin", ws.gotcha)  # a bare id works too
    assert fields(memory_file)["pinned"] is False

    archived = await lsp.command("tether.archive", {"memoryId": ws.gotcha})
    assert archived["status"] == "archived"
    assert fields(memory_file)["status"] == "archived"
    assert lsp.diagnostics(ws.store_py) == []  # archived memories leave recall at once

    await lsp.command("tether.restore", {"memoryId": ws.gotcha})
    assert fields(memory_file)["status"] == "active"
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]

    followed = await lsp.command("tether.markFollowed", {"memoryId": ws.gotcha, "fromHint": True})
    assert followed["memoryId"] == ws.gotcha
    assert lsp.diagnostics(ws.store_py) == []  # acknowledged: quiet for the rest of the turn
    store = ws.open_store()
    try:  # every command run on the memory counted as acting on it
        assert counters(store.conn, ws.gotcha)["acted"] == followed["usage"]["acted"] == 5
    finally:
        store.close()


async def test_show_returns_the_memory_and_displays_it(lsp: Session, ws: Workspace) -> None:
    shown = await lsp.command("tether.show", {"memoryId": ws.gotcha, "display": True})
    assert shown["id"] == ws.gotcha
    assert shown["summary"] == GOTCHA
    assert Path(shown["path"]) == ws.memory_file(ws.gotcha)
    assert shown["usage"]["acted"] == 1
    if lsp.is_vscode:
        assert [d.uri for d in lsp.client.shown_documents] == [ws.memory_file(ws.gotcha).as_uri()]
    else:  # Neovim 0.7 has no showDocument: the card comes as a message
        assert lsp.client.shown_documents == []
        assert any(GOTCHA in m.message for m in lsp.client.messages)


async def test_command_errors_and_malformed_arguments(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    with pytest.raises(Exception, match="no memory 'deadbeef'"):
        await lsp.command("tether.pin", {"memoryId": "deadbeef"})
    with pytest.raises(JsonRpcException, match=r"tether\.pin: invalid arguments") as bad_id:
        await lsp.command("tether.pin", {"memoryId": 42})
    assert bad_id.value.code == -32602
    with pytest.raises(JsonRpcException, match=r"tether\.archive: invalid arguments"):
        await lsp.command("tether.archive", 1, 2)
    with pytest.raises(Exception, match="nothing to recall for"):
        await lsp.command("tether.recall")  # no file, no prompt
    assert fields(ws.memory_file(ws.gotcha))["pinned"] is False
    assert any("malformed" in m.message for m in lsp.client.log_messages)


def fail_client_requests(lsp: Session) -> None:
    """Make the client answer showDocument and applyEdit with a JSON-RPC error (as a client
    that fails at it does), not with a result saying it did not."""

    def failing(params: object) -> None:
        raise JsonRpcInternalError("the client could not do it")

    features = lsp.client.protocol.fm.features
    features[types.WINDOW_SHOW_DOCUMENT] = failing
    features[types.WORKSPACE_APPLY_EDIT] = failing


async def test_a_client_error_takes_the_same_fallback_as_a_refusal(
    lsp: Session, ws: Workspace, request: pytest.FixtureRequest
) -> None:
    fail_client_requests(lsp)
    shown = await lsp.command(
        "tether.show", {"memoryId": ws.gotcha, "display": True, "fromHint": True}
    )
    assert shown["id"] == ws.gotcha
    assert any(GOTCHA in m.message for m in lsp.client.messages)  # the card, as a message
    drafted = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri(), "fromHint": True})
    assert (drafted["applied"], drafted["shown"]) == (False, False)
    assert Path(drafted["draft"]).exists()  # written by the server itself, and announced
    assert any(drafted["draft"] in m.message for m in lsp.client.messages)
    # pytest-lsp keeps the errors the client's handlers raised, to fail the test with; these
    # were raised on purpose
    request.node.stash[captured_exception_key] = None


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["neovim@v0.7.0"])
async def client_plain(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[None]:
    """The server over a folder that is in no repository."""
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.py").write_text("x = 1\n", encoding="utf-8")
    lsp_client.tether_session = await start(lsp_client, request.param, [folder], request.node)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_no_remember_is_offered_where_it_could_only_fail(
    client_plain: LanguageClient, tmp_path: Path
) -> None:
    lsp: Session = client_plain.tether_session  # type: ignore[attr-defined]
    notes = tmp_path / "plain" / "notes.py"
    await lsp.open(notes)
    found = await lsp.actions(notes, types.Range(types.Position(0, 0), types.Position(0, 0)))
    assert [a.title for a in found] == ["Tether: show memories for this file"]


async def test_restoring_a_superseded_memory_unlinks_its_replacement(
    lsp_one: Session, ws: Workspace
) -> None:
    replaced = await lsp_one.command(
        "tether.supersede", {"memoryId": ws.gotcha, "summary": "save_session writes atomically"}
    )
    restored = await lsp_one.command("tether.restore", {"memoryId": ws.gotcha})
    assert restored["status"] == "active"
    assert restored["noLongerReplacedBy"] == [replaced["id"]]
    assert "supersedes" not in fields(ws.memory_file(replaced["id"]))
    assert "superseded_by" not in fields(ws.memory_file(ws.gotcha))
