"""A memory's diagnostic lands on the definition its anchor names, as the open document's own
parse finds it: the qualified name, not any definition sharing its last part; nowhere in a file
the parse says does not define it; by the regular expression only where no grammar reads the
file."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from lsp_server.typing_pause import PARSE_PAUSE_SECONDS
from recall.anchors.symbols import SymbolAnchor
from tests.conftest import git
from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

RECORDS_PY = """\
class Other:
    def save(self, row):
        return row


class Store:
    def save(self, row):
        self.rows.append(row)
"""
CALLS_PY = "from src.records import Store\n\n\ndef run():\n    return finish(Store())\n"
APP_PY = "import os\n\n\ndef save(row):\n    return row\n"
MAIN_KT = 'package demo\n\nclass Main\n\nfun greet(name: String) = "hi $name"\n'

ON_SAVE = "Store.save appends before it counts"
ELSEWHERE = "rows are saved in the order they come"
NOT_DEFINED = "finish must run once per store"
KOTLIN = "greet is shown on the start screen"
LEGACY = "the older anchor names the method by its class"


@pytest.fixture
def ws(tmp_path: Path) -> workspace.Workspace:
    """The test repository plus files defining same-named functions, and a memory anchored to
    a symbol in each."""
    built = workspace.build(tmp_path / "repo")
    files = {
        "src/records.py": RECORDS_PY,
        "src/calls.py": CALLS_PY,
        "src/app.py": APP_PY,
        "src/Main.kt": MAIN_KT,
    }
    for name, text in files.items():
        (built.root / name).write_text(text, encoding="utf-8")
    git(built.root, "add", "-A")
    git(built.root, "commit", "-q", "-m", "records, calls, a Kotlin entry point")
    store = built.open_store()
    try:
        for summary, paths, anchor in (
            (ON_SAVE, ["src/records.py"], "src/records.py::Store.save"),
            (ELSEWHERE, ["src/app.py", "src/records.py"], "src/records.py::Store.save"),
            (NOT_DEFINED, ["src/calls.py"], "src/calls.py::finish"),
            (KOTLIN, ["src/Main.kt"], "src/Main.kt::greet"),
        ):
            draft = store.prepare_memory(
                summary=summary, category="gotcha", files=paths, author="Dana"
            )
            path, _, name = anchor.partition("::")
            store.remember(draft.with_changes(anchors=(SymbolAnchor(path, name),)))
        legacy = store.prepare_memory(
            summary=LEGACY,
            category="gotcha",
            files=["src/records.py"],
            author="Dana",
            anchor="Store::save",  # the C++ way of qualifying
        )
        store.remember(legacy)
    finally:
        store.close()
    return replace(built, app_py=built.root / "src" / "app.py")


def start_of(session: Session, path: Path, summary: str) -> tuple[int, int]:
    [found] = [d for d in session.diagnostics(path) if summary in d.message]
    return found.range.start.line, found.range.start.character


def line_of(text: str, wanted: str, nth: int = 0) -> int:
    return [n for n, line in enumerate(text.splitlines()) if line == wanted][nth]


def places_since(session: Session, path: Path, seen: int) -> list[tuple[int, int]]:
    """Where each publish after the first ``seen`` put the ON_SAVE diagnostic on ``path``."""
    return [
        (d.range.start.line, d.range.start.character)
        for sent in session.published[seen:]
        if sent.uri == path.as_uri()
        for d in sent.diagnostics
        if ON_SAVE in d.message
    ]


async def test_the_qualified_name_not_a_same_named_method(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records)
    assert start_of(lsp_one, records, ON_SAVE) == (
        line_of(RECORDS_PY, "    def save(self, row):", 1),
        8,
    )
    assert start_of(lsp_one, records, LEGACY) == start_of(lsp_one, records, ON_SAVE)
    # the open document's text is parsed, not the file on disk: the method moves up
    edited = RECORDS_PY.replace("class Other:", "class Store2:").replace(
        "class Store:", "class Other2:"
    )
    edited = "class Store:\n    def save(self, row):\n        pass\n\n\n" + edited
    await lsp_one.change(records, edited)
    assert start_of(lsp_one, records, ON_SAVE) == (1, 8)


async def test_another_file_s_same_named_function_is_not_the_anchor(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    await lsp_one.open(ws.app_py)
    assert start_of(lsp_one, ws.app_py, ELSEWHERE) == (0, 0)


async def test_a_name_the_parse_does_not_find_here_is_not_placed_on_a_mention(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    calls = ws.root / "src" / "calls.py"
    await lsp_one.open(calls)
    assert start_of(lsp_one, calls, NOT_DEFINED) == (0, 0)


async def test_the_regex_finds_the_name_where_no_grammar_reads_the_file(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    main = ws.root / "src" / "Main.kt"
    await lsp_one.open(main, language="kotlin")
    assert start_of(lsp_one, main, KOTLIN) == (4, 4)


async def test_the_older_anchor_places_the_memory_on_its_file_renamed(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    git(ws.root, "mv", "src/records.py", "src/kept.py")
    git(ws.root, "commit", "-q", "-m", "records.py becomes kept.py")
    kept = ws.root / "src" / "kept.py"
    await lsp_one.open(kept)
    await lsp_one.wait_until(lambda: any(LEGACY in d.message for d in lsp_one.diagnostics(kept)))
    assert start_of(lsp_one, kept, LEGACY) == (
        line_of(RECORDS_PY, "    def save(self, row):", 1),
        8,
    )


async def test_a_lone_surrogate_in_the_document_still_gets_its_diagnostics(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records, RECORDS_PY.replace("return row", "return '\ud800'"))
    await lsp_one.wait_until(
        lambda: any(ON_SAVE in d.message for d in lsp_one.diagnostics(records))
    )
    assert start_of(lsp_one, records, ON_SAVE) == (
        line_of(RECORDS_PY, "    def save(self, row):", 1),
        8,
    )


async def test_lines_typed_above_move_the_diagnostic_with_its_definition(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records)
    line = line_of(RECORDS_PY, "    def save(self, row):", 1)
    await lsp_one.type(records, (0, 0), (0, 0), "import os\n\n")
    assert start_of(lsp_one, records, ON_SAVE) == (line + 2, 8)
    await lsp_one.type(records, (1, 0), (2, 0), "")  # one of them taken out again
    assert start_of(lsp_one, records, ON_SAVE) == (line + 1, 8)
    await asyncio.sleep(PARSE_PAUSE_SECONDS * 3)
    await lsp_one.settle()
    # the parse once typing paused finds it where the moved lines did
    assert start_of(lsp_one, records, ON_SAVE) == (line + 1, 8)


async def test_an_edit_of_the_definitions_is_placed_by_a_parse_once_typing_pauses(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records)
    line = line_of(RECORDS_PY, "    def save(self, row):", 1)
    seen = len(lsp_one.published)
    # the first class is renamed Store too: a parse finds the anchored method there first
    await lsp_one.type(records, (0, 6), (0, 11), "Store")
    await lsp_one.wait_until(lambda: start_of(lsp_one, records, ON_SAVE) == (1, 8))
    places = places_since(lsp_one, records, seen)
    # the keystroke was answered from the last parse, its lines moved by the edit (none)
    assert places[0] == (line, 8)


async def test_a_keystroke_after_another_process_wrote_moves_the_diagnostic_once(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    # The change's handler first picks up the other process's memory and publishes every
    # document, on the text after the keystroke; the keystroke must not move that again.
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records)
    await lsp_one.indexing_ended()  # the store free: the keystroke's handler reads the write
    await lsp_one.quiet()
    line = line_of(RECORDS_PY, "    def save(self, row):", 1)
    store = ws.open_store()
    try:
        draft = store.prepare_memory(summary="unrelated", category="gotcha", files=["src/app.py"])
        store.remember(draft)
    finally:
        store.close()
    seen = len(lsp_one.published)
    await lsp_one.type(records, (0, 0), (0, 0), "import os\n\n")
    await asyncio.sleep(PARSE_PAUSE_SECONDS / 3)  # past the burst's publish, before the pause
    await lsp_one.settle()
    places = places_since(lsp_one, records, seen)
    # (a client's file watcher may report the write first, with a publish on the old text)
    assert places[-1] == (line + 2, 8)
    assert (line + 4, 8) not in places  # the two lines counted twice


async def test_a_document_closed_before_typing_pauses_gets_nothing_more(
    lsp_one: Session, ws: workspace.Workspace
) -> None:
    records = ws.root / "src" / "records.py"
    await lsp_one.open(records)
    await lsp_one.quiet()
    await lsp_one.type(records, (0, 6), (0, 11), "Store")
    await lsp_one.close(records)
    await lsp_one.settle()
    published = lsp_one.publishes[records.as_uri()]
    await asyncio.sleep(PARSE_PAUSE_SECONDS * 3)
    await lsp_one.settle()
    assert lsp_one.publishes[records.as_uri()] == published
    assert lsp_one.diagnostics(records) == []
