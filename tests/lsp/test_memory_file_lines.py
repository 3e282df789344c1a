"""A problem with one entry of an open memory file's ``files:`` is shown on that entry as
written: in a flow list on the key's line, past a comment in a block list."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

pytestmark = pytest.mark.asyncio

MISSING = "is not in the working tree"


def covered(lsp: Session, text: str, ws: Workspace) -> list[str]:
    """The text each missing-file diagnostic of the decision's memory file covers."""
    lines = text.split("\n")
    return [
        lines[d.range.start.line][d.range.start.character : d.range.end.character]
        for d in lsp.diagnostics(ws.memory_file(ws.decision))
        if MISSING in d.message and d.range.start.line == d.range.end.line
    ]


async def test_missing_files_are_shown_on_their_entries(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    path = ws.memory_file(ws.decision)
    original = path.read_text(encoding="utf-8")
    block = "files:\n  - src/store.py\n"
    assert block in original
    flow = original.replace(block, "files: [src/store.py, src/gone.py, 'src/x y.py']\n")
    await lsp.open(path, flow, language="markdown")
    assert covered(lsp, flow, ws) == ["src/gone.py", "'src/x y.py'"]
    commented = original.replace(block, "files:\n  # moved\n  - src/gone.py\n  - src/store.py\n")
    await lsp.change(path, commented)
    assert covered(lsp, commented, ws) == ["src/gone.py"]


async def test_a_misspelt_key_is_told_on_its_line_and_a_key_of_ones_own_is_not(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    path = ws.memory_file(ws.decision)
    original = path.read_text(encoding="utf-8")
    fence = original.index("---", 3)
    text = original[:fence] + "pined: true\nticket: OPS-12\n" + original[fence:]
    await lsp.open(path, text, language="markdown")
    said = [
        (d.range.start.line, d.message)
        for d in lsp.diagnostics(path)
        if "is not a key Tether reads" in d.message
    ]
    assert said == [
        (
            text.split("\n").index("pined: true"),
            "pined is not a key Tether reads, so it does nothing here: did you mean pinned? "
            "(a key of your own is kept as written)",
        )
    ]


async def test_a_value_yaml_reads_as_other_than_its_text_is_told_on_its_line(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    path = ws.memory_file(ws.decision)
    original = path.read_text(encoding="utf-8")
    assert "author: Dana\n" in original and "pinned: false\n" in original
    edited = original.replace("author: Dana\n", "author: on\n")
    edited = edited.replace("pinned: false\n", "pinned: yes\n")  # a boolean, as meant: not told
    fence = edited.index("---", 3)
    text = edited[:fence] + 'ticket: 0x10\nrelease: "1.10"\n' + edited[fence:]
    await lsp.open(path, text, language="markdown")
    said = [
        (d.range.start.line, d.severity, d.message)
        for d in lsp.diagnostics(path)
        if "which YAML reads as" in d.message
    ]
    lines = text.split("\n")
    assert said == [
        (
            lines.index("author: on"),
            types.DiagnosticSeverity.Warning,
            "front-matter key 'author' is written on, which YAML reads as true, so Tether takes "
            'it as "True"; quote it there (author: "on") to keep it as text',
        ),
        (
            lines.index("ticket: 0x10"),
            types.DiagnosticSeverity.Information,
            "front-matter key 'ticket' is written 0x10, which YAML reads as 16 (an export "
            'carries that, and an import writes it back); quote it there (ticket: "0x10") to '
            "keep it as text",
        ),
    ]
    await lsp.change(path, text.replace("author: on", 'author: "on"'))
    assert [d.message for d in lsp.diagnostics(path) if "which YAML reads as" in d.message] == [
        said[1][2]
    ]
