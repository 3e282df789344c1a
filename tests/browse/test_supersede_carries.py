"""The browser's supersede carries what the other writers carry: which files the person named
(so that a later repoint keeps them), and a guard only where a guard protects a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import remember, run_tether

from recall.browse.actions import Browser
from recall.browse.view import Entry
from recall.errors import NothingToDo
from recall.locations import global_location, project_location
from recall.store import MemoryStore


def _quiet(location: object) -> MemoryStore:
    return MemoryStore(location, notice=lambda _m: None)  # type: ignore[arg-type]


def test_a_named_file_that_holds_an_anchor_stays_named(repo: Path) -> None:
    done = run_tether(
        "remember", "helper returns one on purpose", "-c", "gotcha",
        "-f", "src/util.py", "--anchor", "src/util.py::helper", "--json", cwd=repo,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    old = json.loads(done.stdout)["id"]
    store = _quiet(project_location(repo))
    try:
        memories = repo / ".tether" / "memories"
        assert "given_files:\n  - src/util.py\n" in (memories / f"{old}.md").read_text("utf-8")
        outcome = Browser([store], author="Browse Tester").supersede(
            Entry(store.get(old), "project"), "helper returns one, callers count on it", ""
        )
        new = outcome.memory_id
        assert [anchor.name for anchor in store.get(new).anchors] == ["helper"]
        assert "given_files:\n  - src/util.py\n" in (memories / f"{new}.md").read_text("utf-8")
    finally:
        store.close()


def test_a_guarded_global_memory_is_not_guarded_again(repo: Path) -> None:
    store = _quiet(global_location(repo))
    try:
        old = remember(store, "Never force-push a shared branch", category="decision", files=[])
        store.update_fields(old, {"guard": True})  # as an older version let it be written
        outcome = Browser([store], author="Browse Tester").supersede(
            Entry(store.get(old), "global"), "Never force-push a branch others pulled", ""
        )
        assert store.get(outcome.memory_id).guard is False
        assert outcome.message == (
            f"Wrote {outcome.memory_id}; {old} is now superseded by it ({old} was guarded, but "
            "it is in the global store, where a guard protects no file: the memory replacing it "
            "is not guarded)"
        )
    finally:
        store.close()


def test_a_summary_another_memory_holds_is_refused_writing_nothing(repo: Path) -> None:
    """Two cards with one summary read as one: refused as ``tether supersede`` refuses it; the
    memory superseded keeps its own summary with other details."""
    store = _quiet(project_location(repo))
    try:
        held = remember(store, "Guides are written in plain Markdown", files=["docs/guide.md"])
        old = remember(store, "Retry the upload twice", category="decision", files=["src/app.py"])
        browser = Browser([store], author="Browse Tester")
        before = sorted(store.folder.path.glob("*.md"))
        with pytest.raises(NothingToDo) as refused:
            browser.supersede(
                Entry(store.get(old), "project"), "guides are written in plain Markdown", ""
            )
        assert f"{held} already has this summary, but its category is gotcha" in str(refused.value)
        assert f"`tether supersede {held} SUMMARY" in str(refused.value)
        assert sorted(store.folder.path.glob("*.md")) == before
        assert store.get(old).status == "active"
        kept = browser.supersede(Entry(store.get(old), "project"), "Retry the upload twice", "why")
        assert store.get(kept.memory_id).details == "why"
    finally:
        store.close()
