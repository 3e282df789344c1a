"""A memory file (or a draft) is not a code file: ``tether.remember`` and ``tether.recall``
refuse its uri where it would be what they are about, naming the argument, rather than write
a memory attached to nothing or answer as if no uri were given."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio


def memory_count(ws: Workspace) -> int:
    """How many memory files the project store holds."""
    return len(list(ws.memory_file("x").parent.glob("*.md")))


async def test_a_memory_file_uri_is_refused_naming_the_argument(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    memory = ws.memory_file(ws.gotcha)
    draft = Path((await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()}))["draft"])
    before = memory_count(ws)
    for path in (memory, draft):
        await lsp.open(path, language="markdown")
        uri = path.as_uri()
        with pytest.raises(Exception, match=f"'uri' {uri} is a memory file"):
            await lsp.command("tether.remember", {"uri": uri, "summary": "about nothing"})
        with pytest.raises(Exception, match=f"'uri' {uri} is a memory file.*'prompt'"):
            await lsp.command("tether.recall", {"uri": uri})
    assert memory_count(ws) == before  # nothing written


async def test_with_files_given_the_uri_only_chooses_the_repository(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    memory = ws.memory_file(ws.gotcha)
    await lsp.open(memory, language="markdown")
    written = await lsp.command(
        "tether.remember",
        {"uri": memory.as_uri(), "summary": "loads read the whole file", "files": ["src/store.py"]},
    )
    fields = frontmatter.parse(ws.memory_file(written["id"]).read_text(), "new").fields
    assert fields["files"] == ["src/store.py"]
