"""What a publish keeps between keystrokes (the hits each file may show, the count of memories
per category) is forgotten when the memories change, and asking recall for fewer hits first
never hides a memory the full ranking would show."""

from __future__ import annotations

import os

import pytest

from lsp_server.diagnostics import first_limit
from tests.conftest import git
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

PREF = "store paths are always absolute"


def write(ws: Workspace, summary: str, category: str, files: list[str], **extra: object) -> str:
    """A memory written by another process (the CLI, say)."""
    store = ws.open_store()
    try:
        draft = store.prepare_memory(summary=summary, category=category, files=files, **extra)
        return store.remember(draft).id
    finally:
        store.close()


async def test_a_gotcha_ranked_below_the_first_ask_is_still_shown(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    # Pinned context memories on src/app.py rank above its gotcha; gotchas on a file that never
    # changes with it make gotchas most of the store, so the first ask for src/app.py is small.
    pinned = [write(ws, f"app note {n}", "context", ["src/app.py"], pinned=True) for n in range(12)]
    other = ws.root / "docs" / "other.md"
    other.write_text("# other\n", encoding="utf-8")
    git(ws.root, "add", "docs/other.md")
    git(ws.root, "commit", "-q", "-m", "other")
    for n in range(30):
        write(ws, f"other gotcha {n}", "gotcha", ["docs/other.md"])
    await lsp.settle()

    listed = await lsp.command("tether.list", {"uri": ws.app_py.as_uri(), "limit": 100})
    ranked = [m["id"] for m in listed["memories"]]
    assert ranked.index(ws.app_gotcha) > max(ranked.index(p) for p in pinned)
    gotchas, total = 2 + 30, 3 + 12 + 30
    assert ranked.index(ws.app_gotcha) >= first_limit(3, gotchas / total)  # past the first ask

    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]


@pytest.mark.init_options({"diagnosticCategories": ["pref"]})
async def test_a_memory_of_a_category_the_store_lacked_is_shown_once_written(
    lsp: Session, ws: Workspace
) -> None:
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the store free: the memory written is read at the next message
    assert lsp.diagnostics(ws.store_py) == []  # no pref anywhere: nothing to show
    text = ws.store_py.read_text()
    await lsp.change(ws.store_py, text + "# edited\n")
    assert lsp.diagnostics(ws.store_py) == []

    new_id = write(ws, PREF, "pref", ["src/store.py"])
    await lsp.settle()  # the next message sees the memory folder changed
    await lsp.change(ws.store_py, text + "# edited again\n")
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [new_id]


@pytest.mark.init_options({"diagnosticCategories": ["pref"]})
async def test_a_memory_rewritten_to_a_shown_category_is_shown(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.store_py)
    assert lsp.diagnostics(ws.store_py) == []
    text = ws.store_py.read_text()
    await lsp.change(ws.store_py, text + "# edited\n")

    path = ws.memory_file(ws.decision)  # rewritten whole by another process, as editors save
    rewritten = path.read_text(encoding="utf-8").replace("category: decision", "category: pref")
    temporary = path.with_suffix(".tmp")
    temporary.write_text(rewritten, encoding="utf-8")
    os.replace(temporary, path)
    await lsp.settle()
    await lsp.change(ws.store_py, text + "# edited again\n")
    # at once, or (the session's own indexing holding the store then) once it lets go
    await lsp.wait_until(lambda: [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.decision])

    path.write_text(rewritten.replace("status: active", "status: archived"), encoding="utf-8")
    os.utime(path.parent)  # in place, then the folder touched: as a watcher-less client sees it
    await lsp.settle()
    await lsp.change(ws.store_py, text + "# and again\n")
    await lsp.wait_until(lambda: lsp.diagnostics(ws.store_py) == [])


# The background indexing started with the session republishes every open file when it ends;
# these tests count publishes and compare rankings around one keystroke, so they leave it off.
NO_INDEXING = {"indexOnStart": False}


@pytest.mark.init_options(NO_INDEXING)
async def test_the_first_change_after_an_open_publishes_once_when_its_ranking_agrees(
    lsp: Session, ws: Workspace
) -> None:
    await lsp.open(ws.store_py)
    await lsp.quiet()  # the session's own start-up publishes are not this keystroke's
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    uri = ws.store_py.as_uri()
    before = lsp.publishes[uri]
    await lsp.change(ws.store_py, "# edited\n" + ws.store_py.read_text())
    assert lsp.publishes[uri] == before + 1  # the edit's own ranking found nothing new
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


@pytest.mark.init_options({"maxPerFile": 1, **NO_INDEXING})
async def test_after_the_first_change_the_edit_ranking_is_shown(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    write(ws, "app and store change together", "gotcha", ["src/app.py", "src/store.py"])
    write(ws, "app start is order-sensitive", "gotcha", ["src/app.py"], created="2018-01-01")
    await lsp.settle()
    await lsp.open(ws.app_py)
    await lsp.quiet()  # the session's start-up republish would rank the file afresh
    # a request right behind the change: whatever the change left to do is done before it
    await lsp.change(ws.app_py, "# edited\n" + ws.app_py.read_text(), settle=False)
    listed = await lsp.command("tether.list", {"uri": ws.app_py.as_uri()})
    best = [m["id"] for m in listed["memories"] if m["category"] == "gotcha"][:1]
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == best
