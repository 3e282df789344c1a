"""A memory anchored to a symbol that moved to another file: opening the new file shows it on
the symbol's definition there, and the hover card says where the symbol went."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from lsprotocol import types

from recall import frontmatter
from recall.anchors.write import record_anchors
from recall.genome import Genome
from recall.genome.symbols.model import CODE_HASH_CHARS
from recall.store import MemoryStore
from tests.conftest import git
from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

LOADER_GOTCHA = "session loading must tolerate a missing file"
GUARDED = "the app loads the session before it serves"
LOADER_PY = "import os\n\n\ndef load_session(path):\n    return open(path).read()\n"


def remember_loader_gotcha(store: MemoryStore, root: Path) -> str:
    """Write the gotcha anchored to ``src/store.py::load_session`` into ``store`` (of the
    test repository at ``root``); its id."""
    anchors, notes = record_anchors(root, [("src/store.py", "load_session")])
    assert notes == []
    draft = store.prepare_memory(
        summary=LOADER_GOTCHA, category="gotcha", files=["src/store.py"], author="Dana"
    )
    return store.remember(draft.with_changes(anchors=anchors)).id


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository, plus a memory anchored to load_session, which then moves from
    src/store.py to src/loader.py in a commit (the genome indexed before the server starts)."""
    built = workspace.build(tmp_path / "repo")
    store = built.open_store()
    try:
        memory_id = remember_loader_gotcha(store, built.root)
        guarded = store.prepare_memory(
            summary=GUARDED, category="decision", files=["src/app.py"], author="Dana"
        )
        store.remember(guarded.with_changes(guard=True))
        text = built.store_py.read_text().replace(
            "def load_session(path):\n    return open(path).read()\n\n\n", ""
        )
        built.store_py.write_text(text)
        (built.root / "src" / "loader.py").write_text(LOADER_PY)
        git(built.root, "add", "-A")
        git(built.root, "commit", "-q", "-m", "loading moves to its own module")
        Genome(built.root, store.conn).refresh()
    finally:
        store.close()
    return replace(built, decision=memory_id)  # the anchored memory's id, under a spare name


async def test_a_moved_symbol_brings_its_memory_to_the_new_file(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    loader = ws.root / "src" / "loader.py"
    await lsp_one.open(loader)
    found = [d for d in lsp_one.diagnostics(loader) if d.code == ws.decision]
    assert len(found) == 1, lsp_one.diagnostics(loader)
    line = LOADER_PY.splitlines().index("def load_session(path):")
    assert (found[0].range.start.line, found[0].range.start.character) == (line, 4)
    hover = await lsp_one.hover(loader, line, 6)
    assert hover is not None
    card = str(hover.contents.value if hasattr(hover.contents, "value") else hover.contents)
    card = card.replace("\\", "")
    assert "via symbol load_session, moved from src/store.py" in card
    assert "src/store.py::load_session: relocated to src/loader.py:4-5" in card


async def test_remember_on_a_definition_anchors_the_memory_to_it(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await lsp_one.open(ws.store_py)
    line = ws.store_py.read_text().splitlines().index("def save_session(path, data):")
    cursor = types.Range(types.Position(line + 1, 4), types.Position(line + 1, 4))
    titles = [a.title for a in await lsp_one.actions(ws.store_py, cursor)]
    assert "Tether: remember something about save_session…" in titles
    result = await lsp_one.command(
        "tether.remember", {"uri": ws.store_py.as_uri(), "anchors": ["src/store.py::save_session"]}
    )
    draft = Path(result["draft"])
    fields = frontmatter.parse(draft.read_text(), draft).fields
    [anchor] = fields["anchors"]
    # the hash is of the form written now (12 or 16 digits: an earlier version's)
    assert anchor["symbol"] == "src/store.py::save_session"
    assert len(anchor["body"]) == CODE_HASH_CHARS
    written = await lsp_one.command(
        "tether.remember",
        {"summary": "save_session must stay atomic", "anchors": ["src/store.py::save_session"]},
    )
    shown = await lsp_one.command("tether.show", {"memoryId": written["id"]})
    assert shown["anchors"][0]["symbol"] == "src/store.py::save_session"
    assert shown["files"] == ["src/store.py"]


async def test_a_guarded_memory_is_an_error_whatever_its_category(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await lsp_one.open(ws.app_py)
    guarded = [d for d in lsp_one.diagnostics(ws.app_py) if GUARDED in d.message]
    assert len(guarded) == 1, lsp_one.diagnostics(ws.app_py)
    assert guarded[0].severity == types.DiagnosticSeverity.Error
    assert guarded[0].message.startswith(f'guarded decision "{GUARDED}"')


async def test_the_guard_quick_fix_guards_and_unguards(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await lsp_one.open(ws.store_py)
    (diagnostic,) = [d for d in lsp_one.diagnostics(ws.store_py) if d.code == ws.gotcha]
    titles = [a.title for a in await lsp_one.actions(ws.store_py, diagnostic.range, [diagnostic])]
    assert f"Tether: guard gotcha {ws.gotcha}" in titles
    guarded = await lsp_one.command("tether.guard", {"memoryId": ws.gotcha})
    assert guarded["guard"] is True
    path = ws.memory_file(ws.gotcha)
    assert frontmatter.parse(path.read_text(), path).fields["guard"] is True
    unguarded = await lsp_one.command("tether.unguard", {"memoryId": ws.gotcha})
    assert unguarded["guard"] is False
    assert "guard" not in frontmatter.parse(path.read_text(), path).fields
    again = await lsp_one.command("tether.unguard", {"memoryId": ws.gotcha})
    assert again == {"changed": False, "message": f"memory {ws.gotcha} is already unguarded"}


async def test_files_named_in_the_command_are_recorded_as_named_beside_their_anchors(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    anchor = "src/store.py::save_session"
    written = await lsp_one.command(
        "tether.remember",
        {
            "summary": "save_session must stay atomic",
            "files": ["src/store.py"],
            "anchors": [anchor],
        },
    )
    replaced = await lsp_one.command(
        "tether.supersede", {"memoryId": written["id"], "summary": "save_session stays atomic"}
    )
    by_uri = await lsp_one.command(
        "tether.remember", {"uri": ws.store_py.as_uri(), "anchors": [anchor]}
    )

    def given(path: str | Path) -> object:
        return frontmatter.parse(Path(path).read_text(), path).fields.get("given_files")

    assert given(written["path"]) == ["src/store.py"]
    assert given(replaced["path"]) == ["src/store.py"]
    assert given(by_uri["draft"]) is None  # the file of uri is where the cursor was, not named


async def test_new_anchors_leave_the_files_only_old_anchors_were_in(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    written = await lsp_one.command(
        "tether.remember",
        {
            "summary": "save_session is read by the app",
            "files": ["src/app.py"],
            "anchors": ["src/store.py::save_session"],
        },
    )
    replaced = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": written["id"],
            "summary": "load_session is read by the app",
            "anchors": ["src/loader.py::load_session"],
        },
    )
    path = Path(replaced["path"])
    files = frontmatter.parse(path.read_text(), path).fields["files"]
    assert files == ["src/app.py", "src/loader.py"]


async def test_new_anchors_narrowing_a_carried_guard_are_said(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    written = await lsp_one.command(
        "tether.remember",
        {
            "summary": "save_session writes through a temp file",
            "category": "decision",
            "guard": True,
            "anchors": ["src/store.py::save_session"],
        },
    )
    replaced = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": written["id"],
            "summary": "load_session reads the whole file",
            "anchors": ["src/loader.py::load_session"],
        },
    )
    path = Path(replaced["path"])
    fields = frontmatter.parse(path.read_text(), path).fields
    assert (fields["files"], fields["guard"]) == (["src/loader.py"], True)
    assert replaced["guard_note"].startswith(
        f"the guard of {written['id']} is carried, but narrowed: src/store.py is no longer guarded"
    )


async def test_a_bare_anchor_name_the_one_file_defines_is_its_symbol_anchor(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    written = await lsp_one.command(
        "tether.remember",
        {"summary": "save_session is atomic", "files": ["src/store.py"], "anchor": "save_session"},
    )
    replaced = await lsp_one.command(
        "tether.supersede",
        {
            "memoryId": written["id"],
            "summary": "load_session reads it all",
            "files": ["src/loader.py"],
            "anchor": "load_session",
            "anchors": [],
        },
    )
    kept = await lsp_one.command(
        "tether.remember",
        {"summary": "the app starts here", "files": ["src/app.py"], "anchor": "start"},
    )

    def fields(path: str) -> dict[str, object]:
        return frontmatter.parse(Path(path).read_text(), path).fields

    assert "anchor" not in fields(written["path"])
    assert fields(written["path"])["anchors"][0]["symbol"] == "src/store.py::save_session"
    assert "anchor" not in fields(replaced["path"])
    assert [a["symbol"] for a in fields(replaced["path"])["anchors"]] == [
        "src/loader.py::load_session"
    ]
    assert fields(kept["path"])["anchor"] == "start"
    assert kept["anchor_notes"] == [
        "'anchor' 'start' is kept as a name inside src/app.py (src/app.py defines no start): it "
        "will not follow the code; give the symbol where it is as \"PATH::NAME\" in 'anchors'"
    ]
