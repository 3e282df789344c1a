"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp with the recorded
capabilities of VS Code 1.65 and Neovim 0.7 (``LspSpecificationWarning`` is an error here)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp import workspace
from tests.lsp.session import Session, apply_workspace_edit

SERVER = [sys.executable, "-m", "recall", "lsp"]
PROFILES = {"visual-studio-code": "Visual Studio Code", "neovim@v0.7.0": "Neovim"}


def pytest_configure(config: pytest.Config) -> None:
    """Markers that shape the session a test gets."""
    config.addinivalue_line("markers", "init_options(dict): initializationOptions to send")
    config.addinivalue_line("markers", "client_name(str): clientInfo.name to send")
    config.addinivalue_line("markers", "extra_root: open a second repository as a folder")
    config.addinivalue_line(
        "markers", "folders(list): open these folders of the repository instead of its root"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here fails on a request the client did not declare it supports."""
    for item in items:
        if "tests/lsp/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"))


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository with its memories."""
    return workspace.build(tmp_path / "repo")


def add_client_handlers(client: LanguageClient) -> None:
    """What a real editor answers that pytest-lsp leaves out: applyEdit and (un)registrations
    (``registrations`` holds those in force)."""

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        apply_workspace_edit(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: types.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        client.registrations[:] = [  # type: ignore[attr-defined]
            r
            for r in client.registrations  # type: ignore[attr-defined]
            if r.id not in gone
        ]


def capabilities_of(profile: str) -> types.ClientCapabilities:
    """A recorded client profile; ``NAME/no-showDocument`` takes that feature away."""
    name, _, without = profile.partition("/")
    caps = client_capabilities(name)
    if without == "no-showDocument" and caps.window is not None:
        caps.window.show_document = None
    return caps


async def start(
    client: LanguageClient,
    profile: str,
    roots: list[Path],
    node: pytest.Item | None = None,
) -> Session:
    """Initialize a session for ``roots`` with the capabilities of ``profile``; markers on
    the test ``node`` choose initializationOptions and the client name."""
    client.applied_edits = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]
    add_client_handlers(client)
    options = node.get_closest_marker("init_options") if node else None
    named = node.get_closest_marker("client_name") if node else None
    name = named.args[0] if named else PROFILES.get(profile.partition("/")[0], profile)
    params = types.InitializeParams(
        capabilities=capabilities_of(profile),
        client_info=types.ClientInfo(name=name),
        root_uri=roots[0].as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
        initialization_options=options.args[0] if options else None,
    )
    await client.initialize_session(params)
    return Session(client, profile)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=list(PROFILES))
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ws: workspace.Workspace
) -> AsyncIterator[None]:
    """The server with the test repository open, once per client profile."""
    roots = [ws.root]
    if request.node.get_closest_marker("extra_root"):
        roots.append(workspace.build_second(ws.root.parent / "second"))
    session = await start(lsp_client, request.param, roots, request.node)
    lsp_client.tether_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp(client: LanguageClient) -> Session:
    """The driver of the session started by ``client``."""
    return client.tether_session  # type: ignore[attr-defined]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["neovim@v0.7.0"])
async def client_one(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ws: workspace.Workspace
) -> AsyncIterator[None]:
    """One profile only, for behaviour that does not depend on what the client supports."""
    folders = request.node.get_closest_marker("folders")
    roots = [ws.root / name for name in folders.args[0]] if folders else [ws.root]
    if request.node.get_closest_marker("extra_root"):
        roots.append(workspace.build_second(ws.root.parent / "second"))
    session = await start(lsp_client, request.param, roots, request.node)
    lsp_client.tether_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp_one(client_one: LanguageClient) -> Session:
    """The driver of the single-profile session."""
    return client_one.tether_session  # type: ignore[attr-defined]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER), params=["visual-studio-code/no-showDocument"]
)
async def client_without_show_document(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, ws: workspace.Workspace
) -> AsyncIterator[None]:
    """VS Code's capabilities less ``window/showDocument``."""
    session = await start(lsp_client, request.param, [ws.root], request.node)
    lsp_client.tether_session = session  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def lsp_no_show(client_without_show_document: LanguageClient) -> Session:
    """The driver of a session whose client cannot show documents."""
    return client_without_show_document.tether_session  # type: ignore[attr-defined]
