"""The language server on a read-only ``.tether``: diagnostics and hover still served, a write
command answered with an error that says what to do, and not one byte changed on disk.

The server runs under the same privilege drop as the CLI tests (see ``procs``), so file modes
bind it when the tests run as root.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lifecycle.aging import archive_by_disuse
from tests.lsp import workspace
from tests.lsp.conftest import start
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace
from tests.reliability.procs import make_read_only, make_writable, tree, unprivileged

pytestmark = pytest.mark.asyncio


def _server_command() -> list[str]:
    try:
        prefix = unprivileged()
    except pytest.skip.Exception:
        prefix = ["false"]  # the fixture skips before this would ever run
    return [*prefix, sys.executable, "-m", "recall", "lsp"]


@pytest.fixture
def ro_ws(tmp_path: Path) -> AsyncIterator[Workspace]:
    """The LSP test repository with its whole ``.tether`` made read-only; its decision was
    archived by disuse before."""
    unprivileged()  # skips here, with the reason, when permissions cannot be enforced
    ws = workspace.build(tmp_path / "repo")
    store = ws.open_store()
    try:
        archive_by_disuse(store, ws.decision)
    finally:
        store.close()
    tether = ws.root / ".tether"
    make_read_only([tether, *tether.rglob("*")])
    yield ws
    make_writable(tether)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=_server_command()), params=["neovim@v0.7.0"]
)
async def ro_client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ro_ws: Workspace
) -> AsyncIterator[None]:
    """A session on the read-only repository (its driver is ``lsp_client.tether_session``)."""
    session = await start(lsp_client, request.param, [ro_ws.root], request.node)
    lsp_client.tether_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_read_only_store_keeps_diagnostics_and_hover(
    ro_client: LanguageClient, ro_ws: Workspace
) -> None:
    lsp: Session = ro_client.tether_session  # type: ignore[attr-defined]
    tether = ro_ws.root / ".tether"
    before = tree(tether)
    await lsp.open(ro_ws.store_py)
    await lsp.wait_until(lambda: lsp.diagnostics(ro_ws.store_py))
    (diagnostic,) = lsp.diagnostics(ro_ws.store_py)
    assert diagnostic.code == ro_ws.gotcha
    start_at = diagnostic.range.start
    hover = await lsp.hover(ro_ws.store_py, start_at.line, start_at.character + 1)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert GOTCHA in hover.contents.value.replace("\\", "")
    await lsp.change(ro_ws.store_py, ro_ws.store_py.read_text() + "\n# edited\n")
    assert lsp.diagnostics(ro_ws.store_py), "diagnostics withdrawn after a change"

    with pytest.raises(Exception, match="read-only") as failed:
        await lsp.command("tether.pin", {"memoryId": ro_ws.gotcha})
    assert "chmod -R u+w" in str(failed.value)
    notices = [m.message for m in lsp.client.log_messages if "read-only store" in m.message]
    assert notices, "the server never said the store is read-only"
    assert tree(tether) == before, "the server wrote to a read-only store"


async def test_restore_from_disuse_is_refused_not_done_in_the_copy(
    ro_client: LanguageClient, ro_ws: Workspace
) -> None:
    lsp: Session = ro_client.tether_session  # type: ignore[attr-defined]
    tether = ro_ws.root / ".tether"
    before = tree(tether)
    with pytest.raises(Exception, match="read-only") as failed:
        await lsp.command("tether.restore", {"memoryId": ro_ws.decision})
    assert "chmod -R u+w" in str(failed.value) and str(tether) in str(failed.value)
    listed = await lsp.command("tether.list", {"status": "archived"})
    assert [m["id"] for m in listed["memories"]] == [ro_ws.decision]  # still archived
    assert tree(tether) == before
