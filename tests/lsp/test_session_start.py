"""A server lifetime is a session: the session-start pass runs once per root in the background,
disuse-archived gotchas leave the diagnostics, ``tether.restore`` brings them back, the cleanup
hint is shown once, and a misspelt settings key is told (``TETHER_NOW`` sets the clock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from recall.clock import format_timestamp
from recall.locations import project_location
from recall.policy.usage import record_surfacings
from recall.store import MemoryStore
from tests.conftest import run_tether
from tests.lsp import workspace
from tests.lsp.conftest import PROFILES, SERVER, start
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

DAY0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
ARCHIVED_LOG = "ignored memory archived"
CLEANUP = "memory cleanup due"
EAGER_CLEANUP = "cleanup_min_sessions = 1\ncleanup_min_active = 1\ncleanup_min_stale = 1\n"
"""Thresholds a test store of a few memories can cross (the defaults need 30 memories)."""


def at(day: float) -> str:
    """The ISO time ``day`` days after DAY0."""
    return format_timestamp(DAY0 + timedelta(days=day))


def surface(root: Path, memory_id: str, days: list[float]) -> None:
    """Count one showing of the memory on each of ``days``, never acted on."""
    store = MemoryStore(project_location(root), notice=lambda message: None)
    try:
        for day in days:
            record_surfacings(store.conn, [memory_id], when=at(day))
    finally:
        store.close()


@pytest.fixture
def aged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The test repository, written on day 0; its store.py gotcha shown six times by day 40
    and never acted on. The clock then stands at day 45, when disuse archives it."""
    monkeypatch.setenv("TETHER_NOW", at(0))
    ws = workspace.build(tmp_path / "repo")
    surface(ws.root, ws.gotcha, [0, 8, 16, 24, 32, 40])
    monkeypatch.setenv("TETHER_NOW", at(45))
    return ws


def build_aged_second(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another repository written on day 0, its gotcha shown four times (a stale candidate),
    with thresholds it crosses; the clock is left at day 45."""
    monkeypatch.setenv("TETHER_NOW", at(0))
    root = workspace.build_second(path)
    store = MemoryStore(project_location(root), notice=lambda message: None)
    try:
        (memory,) = store.list()
    finally:
        store.close()
    surface(root, memory.id, [1, 2, 3, 4])
    (root / ".tether" / "config.toml").write_text(EAGER_CLEANUP, encoding="utf-8")
    monkeypatch.setenv("TETHER_NOW", at(45))
    return root


@pytest.fixture
def second(aged: Workspace, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A second aged repository, due a cleanup."""
    return build_aged_second(aged.root.parent / "second", monkeypatch)


async def _session(
    request: pytest.FixtureRequest, client: LanguageClient, roots: list[Path]
) -> AsyncIterator[None]:
    client.tether_session = await start(client, request.param, roots, request.node)  # type: ignore[attr-defined]
    yield
    await client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=list(PROFILES))
async def client_aged(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, aged: Workspace
) -> AsyncIterator[None]:
    """The server started on day 45 over the aged repository, once per client profile."""
    async for _ in _session(request, lsp_client, [aged.root]):
        yield


@pytest.fixture
def lsp(aged: Workspace, client_aged: LanguageClient) -> Session:
    """The driver of the aged session (``aged`` first: pytest-lsp starts the server before it
    asks for the fixtures of its own, and the server must inherit the clock)."""
    return client_aged.tether_session  # type: ignore[attr-defined]


@pytest.fixture
def both(aged: Workspace, second: Path) -> list[Path]:
    """Both aged repositories, each due a cleanup."""
    (aged.root / ".tether" / "config.toml").write_text(EAGER_CLEANUP, encoding="utf-8")
    surface(aged.root, aged.app_gotcha, [1, 2, 3, 4])  # a stale candidate here too
    return [aged.root, second]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["neovim@v0.7.0"])
async def client_two(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, both: list[Path]
) -> AsyncIterator[None]:
    """The server over both aged repositories."""
    async for _ in _session(request, lsp_client, both):
        yield


@pytest.fixture
def lsp_two(both: list[Path], client_two: LanguageClient) -> Session:
    """The driver of the two-repository session (``both`` first, as for ``lsp``)."""
    return client_two.tether_session  # type: ignore[attr-defined]


def codes(lsp: Session, path: Path) -> list[str]:
    """The memory ids published as diagnostics on a file."""
    return [str(d.code) for d in lsp.diagnostics(path)]


def logged(lsp: Session, text: str) -> list[str]:
    """The server's log lines holding ``text``."""
    return [m.message for m in lsp.client.log_messages if text in m.message]


def shown(lsp: Session, text: str) -> list[types.ShowMessageParams]:
    """The messages shown to the user holding ``text``."""
    return [m for m in lsp.client.messages if text in m.message]


async def test_an_ignored_gotcha_is_archived_when_the_server_starts(
    lsp: Session, aged: Workspace
) -> None:
    await lsp.wait_until(lambda: logged(lsp, ARCHIVED_LOG))
    assert logged(lsp, ARCHIVED_LOG) == [
        f"tether: 1 {ARCHIVED_LOG} (tether list --status archived): {aged.gotcha}"
    ]
    await lsp.open(aged.store_py)
    await lsp.open(aged.app_py)
    assert aged.gotcha not in codes(lsp, aged.store_py)
    assert codes(lsp, aged.app_py) == [aged.app_gotcha]  # the others are still published

    listed = run_tether("list", "--status", "archived", "--json", cwd=aged.root)
    assert listed.code == 0
    (entry,) = listed.json()
    assert (entry["id"], entry["archived_by"]) == (aged.gotcha, "disuse")
    assert entry["archived_at"] == at(45)
    assert "status: active" in aged.memory_file(aged.gotcha).read_text()  # per user: untouched
    assert shown(lsp, CLEANUP) == []  # a store this young is not due a cleanup


async def test_a_file_opened_before_the_pass_ends_loses_the_gotcha_too(
    lsp: Session, aged: Workspace
) -> None:
    await lsp.open(aged.store_py)  # at once: the pass may well still be running
    await lsp.wait_until(lambda: logged(lsp, ARCHIVED_LOG))
    await lsp.settle()
    assert aged.gotcha not in codes(lsp, aged.store_py)


async def test_restore_command_clears_the_disuse_flag(lsp: Session, aged: Workspace) -> None:
    await lsp.wait_until(lambda: logged(lsp, ARCHIVED_LOG))
    await lsp.open(aged.store_py)
    assert aged.gotcha not in codes(lsp, aged.store_py)

    restored = await lsp.command("tether.restore", {"memoryId": aged.gotcha})
    assert restored["restoredFrom"] == "disuse" and restored["status"] == "active"
    assert aged.gotcha in codes(lsp, aged.store_py)  # published again at once
    store = aged.open_store()
    try:
        row = store.conn.execute(
            "SELECT archived_by_disuse, acted, first_surfaced FROM usage WHERE memory_id = ?",
            (aged.gotcha,),
        ).fetchone()
    finally:
        store.close()
    # the count starts afresh (one showing: the diagnostic just published); not an action
    assert (row[0], row[1], row[2]) == (0, 0, at(45))
    again = await lsp.command("tether.restore", {"memoryId": aged.gotcha})
    assert again["changed"] is False and "active" in again["message"]
    listed = run_tether("list", "--status", "archived", "--json", cwd=aged.root)
    assert listed.code == 1  # nothing archived any more


async def test_restore_after_a_person_archived_it_too(lsp: Session, aged: Workspace) -> None:
    await lsp.wait_until(lambda: logged(lsp, ARCHIVED_LOG))
    archived = await lsp.command("tether.archive", {"memoryId": aged.gotcha})
    assert archived["status"] == "archived"
    restored = await lsp.command("tether.restore", {"memoryId": aged.gotcha})
    assert restored["status"] == "active" and "restoredFrom" not in restored
    await lsp.open(aged.store_py)
    assert aged.gotcha in codes(lsp, aged.store_py)  # the old disuse flag went with it


async def test_the_cleanup_hint_is_shown_once_per_server_lifetime(
    lsp_two: Session, aged: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    lsp = lsp_two
    await lsp.wait_until(lambda: len(logged(lsp, CLEANUP)) == 2)  # both roots are due
    await lsp.settle()
    (message,) = shown(lsp, CLEANUP)
    assert message.type == types.MessageType.Info
    assert message.message.startswith(f"tether: {CLEANUP}: 1 sessions since the last pass")
    assert "Run `tether cleanup`" in message.message

    # a folder added later is set up like the others (its pass runs), but no second hint
    third = build_aged_second(aged.root.parent / "third", monkeypatch)
    lsp.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(third.as_uri(), "third")], removed=[]
            )
        )
    )
    await lsp.wait_until(lambda: logged(lsp, str(third)))
    await lsp.settle()
    assert len(shown(lsp, CLEANUP)) == 1
    sessions = run_tether("session", "start", "--session", "cli", "--json", cwd=third).json()
    assert sessions["cleanup"]["sessions_since_last_pass"] == 2  # the server's session, and this


@pytest.mark.init_options({"hintSessionBudget": 0})
async def test_no_cleanup_hint_when_hints_are_off(
    lsp_two: Session, aged: Workspace, second: Path
) -> None:
    lsp = lsp_two
    await lsp.wait_until(lambda: len(logged(lsp, CLEANUP)) == 2)  # judged and logged
    await lsp.settle()
    assert shown(lsp, CLEANUP) == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=["neovim@v0.7.0"])
async def client_misspelt(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[None]:
    """The server over a repository whose settings hold two misspelt keys and two good ones."""
    ws = workspace.build(tmp_path / "repo")
    (ws.root / "pyproject.toml").write_text(
        "[tool.tether]\nmax-per-fle = 0\narchive-window-days = 60\n", encoding="utf-8"
    )
    (ws.root / ".tether" / "config.toml").write_text(
        "archiveWindowDay = 60\nindexOnStart = true\n", encoding="utf-8"
    )
    async for _ in _session(request, lsp_client, [ws.root]):
        yield


async def test_a_misspelt_settings_key_is_told_once(
    client_misspelt: LanguageClient, tmp_path: Path
) -> None:
    lsp: Session = client_misspelt.tether_session  # type: ignore[attr-defined]
    root = tmp_path / "repo"
    await lsp.open(root / "src" / "store.py")
    assert len(lsp.diagnostics(root / "src" / "store.py")) == 1  # max-per-fle did nothing
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await lsp.settle()
    warnings = [m for m in lsp.client.messages if "unknown key" in m.message]
    assert [(m.type, m.message) for m in warnings] == [
        (
            types.MessageType.Warning,
            f"tether: {root / 'pyproject.toml'}:2: unknown key 'max-per-fle' "
            "ignored; did you mean max-per-file?",
        ),
        (
            types.MessageType.Warning,
            f"tether: {root / '.tether' / 'config.toml'}:1: unknown key 'archiveWindowDay' "
            "ignored; did you mean archiveWindowDays?",
        ),
    ]
    assert len([m for m in lsp.client.log_messages if "unknown key" in m.message]) == 2
