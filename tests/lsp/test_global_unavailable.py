"""A user-wide store that cannot be used (``TETHER_HOME`` inside the repository, a regular file,
a relative path): the project's memories are still served, the user is told once, naming the
path, that the user-wide ones are not, and a write to them is refused saying why."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, start
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


@pytest.fixture(params=["inside the repository", "a regular file", "a relative path"])
def bad_home(
    request: pytest.FixtureRequest, ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A ``TETHER_HOME`` the user-wide store cannot be opened at, set for the server."""
    if request.param == "inside the repository":
        home = ws.root / "home"
    elif request.param == "a relative path":
        home = Path("tether-home-relative")
    else:
        home = ws.root.parent / "tether-home"
        home.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("TETHER_HOME", str(home))
    return home


@pytest_asyncio.fixture
async def client_bad_home(ws: Workspace, bad_home: Path) -> AsyncIterator[LanguageClient]:
    """The server started with ``bad_home`` as its ``TETHER_HOME`` (set before it starts)."""
    client = await ClientServerConfig(server_command=SERVER).start()
    assert isinstance(client, LanguageClient)
    client.tether_session = await start(client, "neovim@v0.7.0", [ws.root])  # type: ignore[attr-defined]
    yield client
    await client.shutdown_session()
    await client.stop()


def _about(client: LanguageClient, home: Path) -> tuple[list[str], list[str]]:
    """The messages shown and logged that name ``home``."""
    shown = [m.message for m in client.messages if str(home) in m.message]
    logged = [m.message for m in client.log_messages if str(home) in m.message]
    return shown, logged


async def test_project_memories_are_served_and_the_missing_global_store_said_once(
    client_bad_home: LanguageClient, ws: Workspace, bad_home: Path
) -> None:
    lsp: Session = client_bad_home.tether_session  # type: ignore[attr-defined]
    await lsp.open(ws.store_py)
    await lsp.open(ws.app_py)
    await lsp.quiet()
    (gotcha,) = [d for d in lsp.diagnostics(ws.store_py) if GOTCHA in d.message]
    start = gotcha.range.start
    hover = await lsp.hover(ws.store_py, start.line, start.character + 2)
    assert hover is not None and GOTCHA in str(hover.contents)
    shown, logged = _about(client_bad_home, bad_home)
    assert len(shown) == 1, shown
    assert [m.type for m in client_bad_home.messages if str(bad_home) in m.message] == [
        types.MessageType.Warning
    ]
    assert "user-wide" in shown[0] and "TETHER_HOME" in shown[0]
    assert logged, client_bad_home.log_messages
    assert not (ws.root / "home").exists() and not Path("tether-home-relative").exists()


async def test_writing_a_global_memory_is_refused_naming_the_path(
    client_bad_home: LanguageClient, ws: Workspace, bad_home: Path
) -> None:
    lsp: Session = client_bad_home.tether_session  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="TETHER_HOME") as refused:
        await lsp.command(
            "tether.remember",
            {
                "summary": "prefer small commits",
                "category": "preference",
                "global": True,
                "files": [],
            },
        )
    assert str(bad_home) in str(refused.value)
    await lsp.open(ws.store_py)
    assert any(GOTCHA in d.message for d in lsp.diagnostics(ws.store_py))
