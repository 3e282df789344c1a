"""The one core every surface calls (recall.service), against real stores in a temp repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_repo, remember

from recall.errors import NotFound
from recall.policy.usage import counters
from recall.ranking.query import RecallQuery, Touch
from recall.service import RECALL_LIMIT, FolderStores, build_recaller, cache_dir, record_shown


def test_recall_limit_is_a_screen_of_receipts() -> None:
    assert RECALL_LIMIT == 10


def test_folder_stores_opens_each_store_once_project_first(repo: Path) -> None:
    folder = FolderStores(repo / "src", notice=lambda _: None)
    try:
        both = folder.stores("all")
        assert [s.scope for s in both] == ["project", "global"]
        assert both[0] is folder.project() and both[1] is folder.global_store()
        assert both[0].repo_root == repo
        assert folder.stores("global") == [both[1]]
        assert folder.opened() == both
    finally:
        folder.close()


def test_outside_a_repository_only_the_global_store_is_read(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    folder = FolderStores(plain, notice=lambda _: None)
    try:
        assert [s.scope for s in folder.stores("all")] == ["global"]
        assert folder.project_if_any() is None
        with pytest.raises(NotFound):
            folder.project()
    finally:
        folder.close()


def test_recall_through_the_core_and_record_what_was_shown(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "work")
    folder = FolderStores(repo, notice=lambda _: None)
    try:
        project, global_ = folder.project(create=True), folder.global_store()
        assert cache_dir(project) is None  # nothing written yet: nothing is cached
        gotcha = remember(project, "Flush the buffer before exit", files=["src/app.py"])
        pref = remember(global_, "Flush buffers explicitly", category="pref", files=[])
        assert cache_dir(project) == project.location.base / "cache"

        recaller = build_recaller(folder.stores("all"), project, notice=lambda _: None)
        result = recaller.recall(RecallQuery((Touch("src/app.py", "edit"),), "flush buffer"))
        assert [h.memory.id for h in result.hits][:2] == [gotcha, pref]

        record_shown(recaller.stores, result.hits, session="core-1", origin="mcp")
        assert counters(project.conn, gotcha)["surfaced"] == 1
        assert counters(global_.conn, pref)["surfaced"] == 1  # each counted in its own store
        assert counters(project.conn, pref)["surfaced"] == 0
        session = project.conn.execute(
            "SELECT turns, origin FROM sessions WHERE id = 'core-1'"
        ).fetchone()
        assert tuple(session) == (1, "mcp")
    finally:
        folder.close()
