"""The editor shows every guard the agent's pre-edit hook asks about on a file, for as long as
the file is open, where recall ranks none for it: a guard in a memory file a merge left in
conflict (read as the last commit has it), and a guard on the name a rename only staged left
behind. The real server over stdio beside the real hook command, on one repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types

from tests.conftest import git, remember_guarded, run_tether
from tests.lsp.session import Session
from tests.lsp.workspace import APP_GOTCHA, Workspace

pytestmark = pytest.mark.asyncio

GUARD = "retries stay at three"


def pre_edit(ws: Workspace, path: Path) -> dict[str, str]:
    """What the pre-edit hook answers before an edit of ``path``."""
    payload = {
        "session_id": "s1",
        "cwd": str(ws.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(path)},
    }
    done = run_tether("hook", "pre-edit", cwd=ws.root, stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    return dict(json.loads(done.stdout)["hookSpecificOutput"])


def hook_asks_about(ws: Workspace, path: Path) -> str:
    """What the pre-edit hook says before an edit of ``path`` (it must ask)."""
    decision = pre_edit(ws, path)
    assert decision["permissionDecision"] == "ask"
    return str(decision["permissionDecisionReason"])


def guards_shown(lsp: Session, path: Path) -> list[types.Diagnostic]:
    return [d for d in lsp.diagnostics(path) if d.message.startswith("guarded ")]


def conflicted(ws: Workspace, memory_id: str) -> None:
    """Both branches changed the guard's summary: the merge leaves its file in conflict."""
    file = ws.memory_file(memory_id)
    text = file.read_text(encoding="utf-8")
    git(ws.root, "checkout", "-qb", "other")
    file.write_text(text.replace(f"{GUARD}\n", f"{GUARD}, always\n"), encoding="utf-8")
    git(ws.root, "commit", "-qam", "other")
    git(ws.root, "checkout", "-q", "main")
    file.write_text(text.replace(f"{GUARD}\n", f"{GUARD}, exactly\n"), encoding="utf-8")
    git(ws.root, "commit", "-qam", "main")
    merge = subprocess.run(["git", "merge", "-q", "other"], cwd=ws.root, capture_output=True)
    assert merge.returncode != 0 and "<<<<<<<" in file.read_text(encoding="utf-8")


async def test_a_guard_in_a_memory_file_left_in_conflict_is_shown(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.indexing_ended()
    guard = remember_guarded(ws.root, GUARD, "-f", "src/app.py")
    conflicted(ws, guard)
    assert f"[{guard}] covers src/app.py" in hook_asks_about(ws, ws.app_py)

    await lsp_one.open(ws.app_py)
    [shown] = guards_shown(lsp_one, ws.app_py)
    assert shown.code == guard
    assert shown.severity == types.DiagnosticSeverity.Error
    rel = f".tether/memories/{guard}.md"
    assert f'"{GUARD}, exactly"' in shown.message  # as the last commit has it
    assert f"its memory file {rel} cannot be read (line 13: unresolved merge conflict" in (
        shown.message
    )
    assert "the guard is read as the last commit has it" in shown.message
    hover = await lsp_one.hover(ws.app_py, shown.range.start.line, shown.range.start.character)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    card = hover.contents.value
    assert f"Tether memory {guard}" in card and "cannot be read" in card
    assert [d.code for d in lsp_one.diagnostics(ws.store_py)] == []  # not open: nothing

    await lsp_one.change(ws.app_py, ws.app_py.read_text() + "\n")
    assert [d.code for d in guards_shown(lsp_one, ws.app_py)] == [guard]  # while it is open


async def test_a_guard_on_the_name_a_staged_rename_left_is_shown(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.indexing_ended()
    guard = remember_guarded(ws.root, GUARD, "-f", "src/app.py")
    git(ws.root, "mv", "src/app.py", "src/main.py")  # staged, not committed
    moved = ws.root / "src" / "main.py"
    assert f"[{guard}] covers src/main.py (renamed from src/app.py)" in hook_asks_about(ws, moved)

    await lsp_one.open(moved)
    [shown] = guards_shown(lsp_one, moved)
    assert shown.code == guard
    assert shown.message.endswith("(via file (renamed from src/app.py))")
    hover = await lsp_one.hover(moved, shown.range.start.line, shown.range.start.character)
    assert hover is not None and GUARD in str(hover.contents)


async def test_a_guard_whose_memory_file_is_broken_by_hand_offers_no_quick_fix(
    lsp_one: Session, ws: Workspace
) -> None:
    """Every command on such a memory fails until its file is fixed: none is offered, and the
    diagnostic names the file and says it cannot be read."""
    await lsp_one.indexing_ended()
    guard = remember_guarded(ws.root, GUARD, "-f", "src/app.py")
    file = ws.memory_file(guard)
    text = file.read_text(encoding="utf-8")
    file.write_text(text.replace("category: gotcha", "category: [gotcha"), encoding="utf-8")

    await lsp_one.open(ws.app_py)
    [shown] = guards_shown(lsp_one, ws.app_py)
    assert shown.code == guard
    rel = f".tether/memories/{guard}.md"
    assert f"its memory file {rel} cannot be read (line 4: bad YAML" in shown.message
    offered = await lsp_one.actions(ws.app_py, shown.range, [shown])
    titles = [a.title for a in offered]
    assert not [t for t in titles if guard in t]
    assert "Tether: show memories for this file" in titles  # the file's own actions stay
    [other] = [d for d in lsp_one.diagnostics(ws.app_py) if d.code == ws.app_gotcha]
    beside = await lsp_one.actions(ws.app_py, other.range, [other])
    assert f"Tether: pin gotcha {ws.app_gotcha}" in [a.title for a in beside]


async def test_a_gotcha_on_the_name_a_staged_rename_left_is_shown_as_the_hook_warns_of_it(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.indexing_ended()
    git(ws.root, "mv", "src/app.py", "src/main.py")  # staged, not committed
    moved = ws.root / "src" / "main.py"
    warned = pre_edit(ws, moved)["additionalContext"]
    assert f'gotcha "{APP_GOTCHA}" [{ws.app_gotcha}]' in warned

    await lsp_one.open(moved)
    [shown] = lsp_one.diagnostics(moved)
    assert shown.code == ws.app_gotcha
    assert shown.severity == types.DiagnosticSeverity.Warning  # a gotcha, as recall's are
    assert shown.message == (
        f'gotcha "{APP_GOTCHA}" [{ws.app_gotcha}] — review before editing '
        "(via file (renamed from src/app.py))"
    )
    hover = await lsp_one.hover(moved, shown.range.start.line, shown.range.start.character)
    assert hover is not None and APP_GOTCHA in str(hover.contents)
    offered = await lsp_one.actions(moved, shown.range, [shown])
    assert f"Tether: pin gotcha {ws.app_gotcha}" in [a.title for a in offered]


@pytest.mark.init_options({"maxPerFile": 0})
async def test_a_staged_renames_gotcha_keeps_to_max_per_file(
    lsp_one: Session, ws: Workspace
) -> None:
    await lsp_one.indexing_ended()
    git(ws.root, "mv", "src/app.py", "src/main.py")
    moved = ws.root / "src" / "main.py"
    await lsp_one.open(moved)
    assert lsp_one.diagnostics(moved) == []
