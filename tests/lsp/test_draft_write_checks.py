"""Saving a draft is refused what ``tether.remember``, ``tether remember`` and the MCP
``memory_write`` refuse: text shaped like a credential, a control character, a summary another
memory holds differently, the same knowledge again. The memory file is not written, the draft
is kept as typed, and the refusal is shown, and put on the draft's line it is about."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from recall import frontmatter
from tests.lsp.session import Session
from tests.lsp.test_draft_keeping import shown
from tests.lsp.workspace import GOTCHA, GOTCHA_DETAILS, Workspace
from tests.test_secrets_in_memory_files import AWS_KEY, GITHUB_TOKEN

pytestmark = pytest.mark.asyncio


def filled(draft: Path, summary: str, details: str = "") -> str:
    """The draft's front matter followed by ``summary`` and, below a blank line, ``details``."""
    lines = draft.read_text(encoding="utf-8").split("\n")
    closing = lines.index("---", 1)
    body = [summary, "", details] if details else [summary]
    return "\n".join([*lines[: closing + 1], *body, ""])


async def save_draft(
    lsp: Session, command: str, arguments: dict[str, object], summary: str, details: str = ""
) -> tuple[Path, str, str]:
    """Open a draft with ``command``, write ``summary`` and ``details`` in it and save it: the
    draft, the text saved and the id of the memory it would be."""
    result = await lsp.command(command, arguments)
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    text = filled(draft, summary, details)
    await lsp.change(draft, text)
    await lsp.save(draft, text)
    return draft, text, result["id"]


def errors_by_line(lsp: Session, draft: Path) -> dict[int, str]:
    """The draft's error diagnostics, by their 0-based line."""
    return {
        d.range.start.line: d.message
        for d in lsp.diagnostics(draft)
        if d.severity == types.DiagnosticSeverity.Error
    }


async def test_a_draft_holding_credentials_is_kept_and_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    draft, text, new_id = await save_draft(
        lsp,
        "tether.remember",
        {"uri": ws.app_py.as_uri()},
        f"deploy key {AWS_KEY}",
        f"token {GITHUB_TOKEN}",
    )
    assert not ws.memory_file(new_id).exists()
    assert draft.read_text(encoding="utf-8") == text  # nothing typed lost
    said = shown(lsp)
    assert f"the draft {draft} was not remembered" in said
    assert "AWS access key id (AKIAIOSF…[20 chars]) in summary" in said
    assert "GitHub token (ghp_Zk3Z…[40 chars]) in details" in said
    assert AWS_KEY not in said and GITHUB_TOKEN not in said
    lines = text.split("\n")
    found = errors_by_line(lsp, draft)
    summary_line, details_line = lines.index(f"deploy key {AWS_KEY}"), len(lines) - 2
    assert "AWS access key id (AKIAIOSF…[20 chars])" in found[summary_line]
    assert "GitHub token (ghp_Zk3Z…[40 chars])" in found[details_line]
    assert "saving writes nothing" in found[summary_line]


async def test_a_supersede_draft_holding_a_credential_is_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    draft, text, new_id = await save_draft(
        lsp, "tether.supersede", {"memoryId": ws.gotcha}, f"{GOTCHA} with {AWS_KEY}"
    )
    assert not ws.memory_file(new_id).exists()
    assert draft.read_text(encoding="utf-8") == text
    assert "AWS access key id (AKIAIOSF…[20 chars]) in summary" in shown(lsp)
    old = frontmatter.parse(ws.memory_file(ws.gotcha).read_text(), "old").fields
    assert old["status"] == "active"  # not superseded by a memory never written


async def test_a_draft_holding_control_characters_is_kept_and_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    draft, text, new_id = await save_draft(
        lsp, "tether.remember", {"uri": ws.app_py.as_uri()}, "dep \u202eloy", "abc\x01d"
    )
    assert not ws.memory_file(new_id).exists()
    assert draft.read_text(encoding="utf-8") == text
    said = shown(lsp)
    assert "summary must be one line of text without control characters" in said
    assert "\\u202e at character 5" in said
    assert "details hold the control character \\x01 on line 1, character 4" in said
    lines = text.split("\n")
    found = errors_by_line(lsp, draft)
    assert "\\u202e" in found[lines.index("dep \u202eloy")]
    assert "\\x01" in found[lines.index("abc\x01d")]


async def test_a_refusal_is_on_the_line_an_editor_shows_when_a_lone_cr_ends_lines(
    lsp_one: Session, ws: Workspace
) -> None:
    """Two front-matter keys parted by a lone CR (YAML, and the editor, read two lines): the
    details' refusal is on their first line as the editor counts it, as ``tether doctor``
    counts it."""
    lsp = lsp_one
    await lsp.indexing_ended()
    result = await lsp.command("tether.remember", {"uri": ws.app_py.as_uri()})
    draft = Path(result["draft"])
    await lsp.open(draft, language="markdown")
    lines = filled(draft, "a summary", "line one\rline \x01two").split("\n")
    text = "\n".join([lines[0], f"{lines[1]}\r{lines[2]}", *lines[3:]])
    await lsp.change(draft, text)
    await lsp.save(draft, text)
    assert not ws.memory_file(result["id"]).exists()
    assert "details hold the control character \\x01 on line 2, character 6" in shown(lsp)
    shown_lines = text.replace("\r", "\n").split("\n")
    assert "\\x01" in errors_by_line(lsp, draft)[shown_lines.index("line one")]
    assert shown_lines.index("line one") + 1 == frontmatter.line_of(text, "details")


async def test_a_draft_repeating_a_memory_is_kept_and_not_written(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    folder = ws.root / ".tether" / "memories"
    before = sorted(p.name for p in folder.iterdir())
    here = {"uri": ws.store_py.as_uri()}
    other, typed, _ = await save_draft(lsp, "tether.remember", here, GOTCHA, "other details")
    assert f"{ws.gotcha} already has this summary, but it has other details" in shown(lsp)
    assert f'tether.supersede with {{"memoryId": "{ws.gotcha}"}}' in shown(lsp)
    same, _, _ = await save_draft(lsp, "tether.remember", here, GOTCHA, GOTCHA_DETAILS)
    assert f"already known as {ws.gotcha} (active), in {ws.memory_file(ws.gotcha)}" in shown(lsp)
    decision = {**here, "category": "decision"}
    kind, _, _ = await save_draft(lsp, "tether.remember", decision, GOTCHA, GOTCHA_DETAILS)
    assert f"{ws.gotcha} already has this summary, but its category is gotcha" in shown(lsp)
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written
    assert all(draft.exists() for draft in (other, same, kind))
    summary_line = typed.split("\n").index(GOTCHA)
    assert f"{ws.gotcha} already has this summary" in errors_by_line(lsp, other)[summary_line]


async def test_a_written_draft_saved_again_is_not_refused_as_its_own_duplicate(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    await lsp.indexing_ended()
    draft, _, new_id = await save_draft(
        lsp, "tether.remember", {"uri": ws.app_py.as_uri()}, "the pool closes last"
    )
    assert ws.memory_file(new_id).exists()
    again = filled(draft, "the pool closes last", "after the workers stop")
    await lsp.change(draft, again)
    await lsp.save(draft, again)
    assert ws.memory_file(new_id).read_text(encoding="utf-8") == again
    assert errors_by_line(lsp, draft) == {}
