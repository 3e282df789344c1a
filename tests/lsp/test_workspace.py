"""Configuration from the repository and the editor, per-client severity, and multi-root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from recall.locations import project_location
from recall.store import MemoryStore
from tests.lsp.session import Session
from tests.lsp.workspace import SECOND_GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


@pytest.mark.client_name("opencode")
async def test_opencode_gets_errors(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    (diagnostic,) = lsp.diagnostics(ws.store_py)
    assert diagnostic.severity == types.DiagnosticSeverity.Error


@pytest.mark.init_options({"tether": {"diagnosticCategories": ["gotcha", "decision"]}})
async def test_initialization_options_show_more_categories(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    by_code = {d.code: d for d in lsp.diagnostics(ws.store_py)}
    assert by_code[ws.gotcha].severity == types.DiagnosticSeverity.Warning
    assert by_code[ws.decision].severity == types.DiagnosticSeverity.Information
    assert "a decision recorded for this file" in by_code[ws.decision].message


async def test_settings_change_from_the_editor(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py)
    settings = {"severity": {"gotcha": "off"}}
    if lsp.is_vscode:  # pulled with workspace/configuration
        lsp.client.set_configuration(settings, section="tether")
        pushed: object = None
    else:  # Neovim 0.7 cannot be asked: it pushes
        pushed = {"tether": settings}
    lsp.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=pushed)
    )
    await lsp.wait_until(lambda: lsp.diagnostics(ws.store_py) == [])  # a pull is a round trip


async def test_pyproject_settings(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    (ws.root / "pyproject.toml").write_text("[tool.tether]\nmax-per-file = 0\n")
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await lsp.open(ws.store_py)
    await lsp.wait_until(lambda: lsp.diagnostics(ws.store_py) == [])


@pytest.mark.extra_root
async def test_two_repositories_two_stores(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    second = ws.root.parent / "second" / "billing" / "total.py"
    await lsp.open(ws.store_py)
    await lsp.open(second)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    (billing,) = lsp.diagnostics(second)
    assert SECOND_GOTCHA in billing.message
    pinned = await lsp.command("tether.pin", {"memoryId": str(billing.code), "fromHint": True})
    assert pinned["pinned"] is True
    memory_file = ws.root.parent / "second" / ".tether" / "memories" / f"{billing.code}.md"
    assert "pinned: true" in memory_file.read_text()


async def test_a_repository_nested_in_the_folder_with_a_store_of_its_own_owns_its_files(
    lsp_one: Session, ws: Workspace
) -> None:
    """The innermost store owns a file, as for the CLI run beside it: the nested repository's
    gotcha shows on its file, and a memory written for that file goes to its store, where a
    listing for the file finds it."""
    from tests.lsp.workspace import build_second

    lsp = lsp_one
    nested = build_second(ws.root / "vendor" / "billing")
    total = nested / "billing" / "total.py"
    await lsp.open(total)
    (billing,) = lsp.diagnostics(total)
    assert SECOND_GOTCHA in billing.message
    written = await lsp.command(
        "tether.remember", {"uri": total.as_uri(), "summary": "totals round half to even"}
    )
    assert Path(written["path"]).parent == nested / ".tether" / "memories"
    listed = await lsp.command("tether.list", {"uri": total.as_uri()})
    assert written["id"] in {m["id"] for m in listed["memories"]}
    await lsp.open(ws.store_py)  # the outer repository's files are its own still
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


async def test_a_command_by_id_finds_a_memory_of_a_nested_repository_before_its_files_open(
    lsp_one: Session, ws: Workspace
) -> None:
    """docs/editors.md: the nested repository's store owns its files, and its memories are
    reached by id before any of its files is opened (shown, then archived in its store)."""
    from tests.lsp.workspace import build_second

    lsp = lsp_one
    nested = build_second(ws.root / "vendor" / "billing")
    (memory_file,) = (nested / ".tether" / "memories").glob("*.md")
    shown = await lsp.command("tether.show", {"memoryId": memory_file.stem})
    assert (shown["summary"], shown["scope"]) == (SECOND_GOTCHA, "project")
    assert Path(shown["path"]) == memory_file
    archived = await lsp.command("tether.archive", {"memoryId": memory_file.stem})
    assert archived["status"] == "archived"
    assert "status: archived" in Path(shown["path"]).read_text(encoding="utf-8")


async def test_a_nested_repository_set_up_after_a_look_is_found_by_id(
    lsp_one: Session, ws: Workspace
) -> None:
    """The look for nested repositories is made again when an id is in no store known: one
    whose store was set up after a command by id looked (and found nothing) is reached."""
    from tests.lsp.workspace import build_second

    lsp = lsp_one
    with pytest.raises(JsonRpcException):
        await lsp.command("tether.show", {"memoryId": "0badc0de"})
    nested = build_second(ws.root / "vendor" / "billing")
    (memory_file,) = (nested / ".tether" / "memories").glob("*.md")
    shown = await lsp.command("tether.show", {"memoryId": memory_file.stem})
    assert (shown["summary"], Path(shown["path"])) == (SECOND_GOTCHA, memory_file)


async def test_a_command_by_an_unknown_id_says_where_the_look_for_nested_ones_stopped(
    lsp_one: Session, ws: Workspace
) -> None:
    """A repository with more folders than the look for nested ones goes through: a command
    by an id found nowhere says so, naming the repository and how to reach the rest."""
    from lsp_server.nested_look import NESTED_LOOK_FOLDERS

    for n in range(NESTED_LOOK_FOLDERS):
        (ws.root / "build" / f"d{n}").mkdir(parents=True)
    with pytest.raises(JsonRpcException) as raised:
        await lsp_one.command("tether.show", {"memoryId": "0badc0de"})
    message = str(raised.value)
    assert "no memory '0badc0de' in this workspace" in message
    assert f"repositories nested deep in {ws.root} were not all looked through" in message
    assert "open one of their files" in message


async def _both_open(lsp: Session, ws: Workspace) -> Path:
    """Open the second root's file, then the first root's; return the second's."""
    total = ws.root.parent / "second" / "billing" / "total.py"
    await lsp.open(total)
    await lsp.open(ws.store_py)
    return total


@pytest.mark.extra_root
async def test_a_write_to_the_second_root_is_published_at_its_next_message(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    second = ws.root.parent / "second"
    total = await _both_open(lsp, ws)
    await lsp.indexing_ended(roots=2)  # both stores free: a write is read at the next message
    store = MemoryStore(project_location(second), notice=lambda message: None)
    try:  # written by another process (the CLI, say)
        draft = store.prepare_memory(
            summary="totals round half up since the 2.3 release",
            category="gotcha",
            files=["billing/total.py"],
        )
        written = store.remember(draft).id
    finally:
        store.close()
    await lsp.hover(total, 0, 0)
    await lsp.settle()
    assert written in [d.code for d in lsp.diagnostics(total)]
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


def _folders_changed(
    lsp: Session, added: list[types.WorkspaceFolder], removed: list[types.WorkspaceFolder]
) -> None:
    lsp.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=added, removed=removed)
        )
    )


@pytest.mark.extra_root
async def test_a_folder_removed_takes_its_diagnostics_along(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    second = ws.root.parent / "second"
    total = await _both_open(lsp, ws)
    assert lsp.diagnostics(total) and lsp.diagnostics(ws.store_py)
    folder = types.WorkspaceFolder(uri=second.as_uri(), name="second")
    _folders_changed(lsp, [], [folder])
    await lsp.settle()
    assert lsp.diagnostics(total) == []
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # the other stays
    # added again: its open file is published at once, before any edit of it
    _folders_changed(lsp, [folder], [])
    await lsp.settle()
    (back,) = lsp.diagnostics(total)
    assert SECOND_GOTCHA in back.message


def settings_warnings(lsp: Session) -> list[str]:
    """The settings problems shown to the user (``window/showMessage``, Warning), in order."""
    return [
        m.message
        for m in lsp.client.messages
        if m.type == types.MessageType.Warning and "ignor" in m.message
    ]


async def push(lsp: Session, settings: object) -> None:
    """Settings pushed as a client without ``workspace/configuration`` does."""
    lsp.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=settings)
    )
    await lsp.settle()


@pytest.mark.init_options(
    {"maxPerFle": 1, "diagnosticCategory": ["gotcha"], "archiveWindowDays": 3}
)
async def test_setting_problems_from_the_editor_are_shown_once_each(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # defaults apply
    assert settings_warnings(lsp) == [
        "tether: initializationOptions: archiveWindowDays ignored: the editor's settings are the "
        "language server's; Tether reads it from .tether/config.toml, [tool.tether] in "
        f"pyproject.toml or your own {Path(os.environ['TETHER_HOME']) / 'config.toml'}",
        "tether: initializationOptions: unknown key 'maxPerFle' ignored; did you mean maxPerFile?",
        "tether: initializationOptions: unknown key 'diagnosticCategory' ignored; did you mean "
        "diagnosticCategories?",
    ]
    await push(lsp, {"tether": {"maxPerFile": -1}})
    await push(lsp, {"tether": {"maxPerFile": -1}})  # the same again: nothing new to say
    await push(lsp, {"tether": "x"})
    await push(lsp, [1, 2])
    assert settings_warnings(lsp)[3:] == [
        "tether: editor settings: ignoring maxPerFile = -1: give a whole number, 0 or more",
        "tether: editor settings: ignored: settings must be a table (an object of key: value), "
        "got str; the other settings apply",
        "tether: editor settings: ignored: settings must be a table (an object of key: value), "
        "got list; the other settings apply",
    ]
    logged = [m.message for m in lsp.client.log_messages if "ignor" in m.message]
    assert len(logged) == len(set(logged)) == 6  # in the log too, each once
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]  # still at work


@pytest.mark.init_options(
    {"tether": {"categories": ["pref"]}, "pylsp": {"plugins": {}}, "gopls": {}}
)
async def test_other_servers_settings_beside_tethers_are_left_alone(
    lsp_one: Session, ws: Workspace
) -> None:
    """Clients such as eglot send every server's settings: under ``tether``, only that section
    is Tether's; the others are not unknown keys to warn about."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []  # the section applies: gotchas are not shown
    await push(lsp, {"tether": {"categories": ["gotcha"]}, "rust-analyzer": {"cargo": {}}})
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    assert settings_warnings(lsp) == []
    assert not [m.message for m in lsp.client.log_messages if "ignor" in m.message]
