"""A memory file open in the editor holding git's conflict markers is an error on the opening
marker's line, as the CLI says it; details quoting one marker are not."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

SAID = "unresolved merge conflict: resolve it (keep one side or both) and commit"


async def test_conflict_markers_are_an_error_on_the_opening_marker(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    path = ws.memory_file(ws.decision)
    original = path.read_text(encoding="utf-8")
    fence = original.index("---", 3) + len("---\n")
    conflicted = (
        original[:fence] + "<<<<<<< HEAD\nOurs\n=======\nTheirs\n>>>>>>> other\n" + original[fence:]
    )
    await lsp.open(path, conflicted, language="markdown")
    marker = conflicted.split("\n").index("<<<<<<< HEAD")
    said = [
        (d.range.start.line, d.message, d.severity)
        for d in lsp.diagnostics(path)
        if "merge conflict" in d.message
    ]
    assert said == [(marker, SAID, types.DiagnosticSeverity.Error)]
    quoted = original.rstrip("\n") + "\n\nA heading:\n\nTitle\n=======\n"
    await lsp.change(path, quoted)
    assert not [d for d in lsp.diagnostics(path) if "merge conflict" in d.message]
