"""In a document written with carriage returns alone, with ``\\r\\n`` or with both mixed, a
memory anchored to a function is shown on the function's name, on the line the client counts
(``\\r\\n``, ``\\r`` and ``\\n`` each end one), hovering there finds it, and lines typed above
it move it by as many lines as the client counts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lsp_server.typing_pause import PARSE_PAUSE_SECONDS
from recall.anchors.symbols import SymbolAnchor
from tests.anchors.test_line_ends import ENDS, PYTHON, written
from tests.lsp import workspace
from tests.lsp.session import Session

pytestmark = pytest.mark.asyncio

ON_SAVE = "save must replace the file atomically"
SAVE_LINE = PYTHON.index("def save(path, data):")  # 0-based, as the client counts
SAVE_COLUMN = len("def ")


@pytest.fixture(params=sorted(ENDS))
def ends(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ws(tmp_path: Path, ends: str) -> workspace.Workspace:
    """The test repository plus src/ends.py written with ``ends``, and a memory anchored to
    its function ``save``."""
    built = workspace.build(tmp_path / "repo")
    built.commit_file("src/ends.py", written(PYTHON, ends))
    store = built.open_store()
    try:
        draft = store.prepare_memory(
            summary=ON_SAVE, category="gotcha", files=["src/ends.py"], author="Dana"
        )
        store.remember(draft.with_changes(anchors=(SymbolAnchor("src/ends.py", "save"),)))
    finally:
        store.close()
    return built


def placed(session: Session, path: Path) -> tuple[int, int, int, int]:
    [found] = [d for d in session.diagnostics(path) if ON_SAVE in d.message]
    start, end = found.range.start, found.range.end
    return start.line, start.character, end.line, end.character


async def test_the_diagnostic_hover_and_typed_lines_follow_the_client_s_lines(
    lsp_one: Session, ws: workspace.Workspace, ends: str
) -> None:
    path = ws.root / "src" / "ends.py"
    await lsp_one.open(path, written(PYTHON, ends))
    name = (SAVE_LINE, SAVE_COLUMN, SAVE_LINE, SAVE_COLUMN + len("save"))
    assert placed(lsp_one, path) == name
    hover = await lsp_one.hover(path, SAVE_LINE, SAVE_COLUMN + 1)
    assert hover is not None and ON_SAVE in str(hover.contents)
    # two lines typed above, ended as the file ends its first line: placed from the last parse
    # while typing goes on, then from a parse once it pauses
    end = ENDS[ends][0]
    await lsp_one.type(path, (0, 0), (0, 0), f"import re{end}{end}")
    moved = (SAVE_LINE + 2, SAVE_COLUMN, SAVE_LINE + 2, SAVE_COLUMN + len("save"))
    assert placed(lsp_one, path) == moved
    await asyncio.sleep(PARSE_PAUSE_SECONDS * 3)
    await lsp_one.settle()
    assert placed(lsp_one, path) == moved
