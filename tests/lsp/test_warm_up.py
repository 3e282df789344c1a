"""The files most memories name are ranked ahead once the start-up indexing ends: an open of
one publishes what it would have without that, and a memory written afterwards is shown. The
ones whose memories anchor a symbol are parsed as they are on disk, and an open of that text
places on that parse."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from lsprotocol import types

from lsp_server.doc_parse import parse_of
from lsp_server.documents import DocState
from lsp_server.roots import Root
from lsp_server.warm_up import needs_parse, parse_ahead
from lsp_server.watching import DISK_CHECK_SECONDS
from recall.genome import Genome
from recall.locations import project_location
from recall.ranking.fuse import DRIFT_NOTE
from recall.ranking.query import RecallQuery, Touch
from tests.lsp.session import Session
from tests.lsp.test_progress import wait_for_end
from tests.lsp.workspace import Workspace

RANKED_AHEAD = "files most memories name ranked ahead"


def write(ws: Workspace, summary: str, files: list[str]) -> str:
    """A gotcha written by another process (the CLI, say)."""
    store = ws.open_store()
    try:
        draft = store.prepare_memory(summary=summary, category="gotcha", files=files)
        return store.remember(draft).id
    finally:
        store.close()


def ranked_ahead(lsp: Session) -> list[str]:
    return [m.message for m in lsp.client.log_messages if RANKED_AHEAD in m.message]


@pytest.mark.asyncio
async def test_a_file_ranked_ahead_publishes_its_memories_and_a_new_one(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)  # the first document starts the start-up work
    await lsp.wait_until(lambda: ranked_ahead(lsp), seconds=30)
    assert ranked_ahead(lsp)[0].startswith("tether: 2 files")  # src/store.py and src/app.py
    assert ranked_ahead(lsp)[0].endswith(", 1 of them parsed")  # the anchored gotcha's file

    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    (shown,) = lsp.diagnostics(ws.store_py)
    assert shown.range.start.line == 7  # on ``save_session``'s definition, as parsed ahead
    await lsp.close(ws.store_py)

    # written after the ranking ahead: the next open ranks the file again
    new_id = write(ws, "saving twice in a tick loses the second write", ["src/store.py"])
    await lsp.settle()  # the next message sees the memory folder changed
    await lsp.open(ws.store_py)
    assert sorted(d.code for d in lsp.diagnostics(ws.store_py)) == sorted([ws.gotcha, new_id])


@pytest.mark.asyncio
@pytest.mark.init_options({"diagnosticCategories": ["gotcha", "decision"]})
async def test_a_file_ranked_ahead_is_ranked_again_on_a_genome_moved_since(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await lsp.wait_until(lambda: ranked_ahead(lsp), seconds=30)
    later = "2090-01-01T00:00:00+00:00"
    ws.commit_store_changes(21, later)  # past the spot-check's count of commits since the decision
    store = ws.open_store()  # a hook or the CLI refreshes the genome in another process
    try:
        Genome.load(ws.root, store.conn)
    finally:
        store.close()
    await asyncio.sleep(DISK_CHECK_SECONDS + 0.1)
    await lsp.settle()  # the next message follows the genome

    await lsp.open(ws.store_py)
    (shown,) = [d for d in lsp.diagnostics(ws.store_py) if d.code == ws.decision]
    card = await lsp.hover(ws.store_py, shown.range.start.line, shown.range.start.character)
    assert card is not None and isinstance(card.contents, types.MarkupContent)
    assert DRIFT_NOTE in card.contents.value.replace("\\", "")  # Markdown escapes taken out


@pytest.mark.asyncio
@pytest.mark.init_options({"warmFiles": 0})
async def test_nothing_is_ranked_ahead_when_turned_off(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.app_py)
    await wait_for_end(lsp)  # the start-up indexing ended: a warm-up would start now
    await lsp.quiet()
    await lsp.open(ws.store_py)
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]
    assert ranked_ahead(lsp) == []


def test_the_warm_up_constants_are_pinned() -> None:
    from lsp_server.configuration import WARM_FILES, Settings
    from lsp_server.warm_up import WARM_GAP_SECONDS

    assert WARM_FILES == 10 and Settings().warm_files == WARM_FILES
    assert WARM_GAP_SECONDS == 0.05


@pytest.mark.parametrize("value", [101, 2**62])
def test_a_warm_count_past_the_cap_is_refused_by_name(value: int) -> None:
    from lsp_server.configuration import WARM_FILES, merge

    warnings: list[str] = []
    settings = merge([("init", {"warmFiles": value})], warnings.append)
    assert settings.warm_files == WARM_FILES  # the default stays, nothing ranks past the cap
    assert len(warnings) == 1 and "warmFiles" in warnings[0] and "0 to 100" in warnings[0]


def test_the_warm_cap_is_pinned() -> None:
    from lsp_server.configuration import WARM_FILES_MAX, merge

    assert WARM_FILES_MAX == 100
    assert merge([("init", {"warmFiles": WARM_FILES_MAX})], print).warm_files == WARM_FILES_MAX


def open_hits(root: Root, rel: str) -> bool:
    """Whether the hits an open of ``rel`` ranks may ask for the document's parse."""
    query = RecallQuery((Touch(rel, "open"),), None, limit=6)
    return needs_parse(root.recaller().recall(query).hits)


def test_the_parse_made_ahead_is_the_one_an_open_of_the_same_text_places_on(
    ws: Workspace,
) -> None:
    root = Root(ws.root, project_location(ws.root), session="lsp-test", notice=print)
    assert open_hits(root, "src/store.py")  # its gotcha anchors ``save_session``
    assert not open_hits(root, "src/app.py")  # nothing anchored: no parse asked
    assert not parse_ahead(root, "docs/notes.md")  # no grammar reads it: nothing kept

    assert parse_ahead(root, "src/store.py")
    ahead = root.parsed_ahead["src/store.py"]
    doc = DocState(ws.store_py.as_uri(), ws.store_py, root, "src/store.py")
    text = ws.store_py.read_text(encoding="utf-8")
    assert parse_of(doc, text) is ahead and doc.parse is ahead  # the open takes it
    assert root.parsed_ahead == {}

    # a document holding other text than the disk's parses its own; the one ahead is dropped
    assert parse_ahead(root, "src/store.py")
    edited = DocState(ws.store_py.as_uri(), ws.store_py, root, "src/store.py")
    found = parse_of(edited, "\n" + text)
    assert found.text == "\n" + text and found.lines_of("save_session") == (9, 10)
    assert root.parsed_ahead == {}


def test_a_file_past_the_document_cap_is_not_parsed_ahead(ws: Workspace) -> None:
    root = Root(ws.root, project_location(ws.root), session="lsp-test", notice=print)
    root.settings = replace(root.settings, max_document_chars=10)
    assert not parse_ahead(root, "src/store.py")
    assert root.parsed_ahead == {}


def test_a_file_past_the_parse_ahead_cap_is_parsed_only_when_opened(ws: Workspace) -> None:
    from lsp_server.configuration import PARSE_AHEAD_MAX_BYTES

    assert PARSE_AHEAD_MAX_BYTES == 256 * 1024
    root = Root(ws.root, project_location(ws.root), session="lsp-test", notice=print)
    text = ws.store_py.read_text(encoding="utf-8")
    padding = "\n# padding\n" * (PARSE_AHEAD_MAX_BYTES // 11 + 1)
    ws.store_py.write_text(text + padding, encoding="utf-8")
    assert not parse_ahead(root, "src/store.py")  # a parse this long would hold the messages
    ws.store_py.write_text(text, encoding="utf-8")
    assert parse_ahead(root, "src/store.py")


def test_the_parses_made_ahead_go_with_the_rankings(ws: Workspace) -> None:
    root = Root(ws.root, project_location(ws.root), session="lsp-test", notice=print)
    assert parse_ahead(root, "src/store.py")
    root.bump()  # a memory written, the genome moved, the settings changed
    assert root.parsed_ahead == {}
