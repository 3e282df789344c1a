"""``tether.list`` (what the VS Code view shows) and ``tether.reindex``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.policy.usage import counters
from tests.conftest import run_tether
from tests.lifecycle.aging import archive_by_disuse
from tests.lsp.session import Session
from tests.lsp.workspace import GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


def usage_of(ws: Workspace, memory_id: str) -> dict[str, int]:
    """The memory's counters as the store has them now."""
    store = ws.open_store()
    try:
        return dict(counters(store.conn, memory_id))
    finally:
        store.close()


async def test_list_for_a_file_has_receipts_and_no_side_effects(
    lsp: Session, ws: Workspace
) -> None:
    await lsp.open(ws.store_py)
    await lsp.indexing_ended()  # the index free: the usage counts are written, not postponed
    shown = [d.code for d in lsp.diagnostics(ws.store_py)]
    before = usage_of(ws, ws.gotcha)

    listed = await lsp.command("tether.list", {"uri": ws.store_py.as_uri()})

    by_id = {m["id"]: m for m in listed["memories"]}
    assert set(by_id) == {ws.gotcha, ws.decision}
    gotcha = by_id[ws.gotcha]
    assert gotcha["summary"] == GOTCHA
    assert gotcha["category"] == "gotcha"
    assert gotcha["direct"] is True
    assert gotcha["files"] == ["src/store.py"]
    assert gotcha["scope"] == "project"
    assert "via file" in gotcha["receipt"]
    assert usage_of(ws, ws.gotcha) == before  # listing is not showing nor acting
    await lsp.change(ws.store_py, ws.store_py.read_text(encoding="utf-8") + "\n")
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == shown  # hints did not stop


async def test_list_filters_by_status_category_and_pin(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    everything = await lsp.command("tether.list", {})
    assert {m["id"] for m in everything["memories"]} == {ws.gotcha, ws.app_gotcha, ws.decision}
    assert all(m["receipt"] is None for m in everything["memories"])

    await lsp.command("tether.archive", {"memoryId": ws.app_gotcha})
    await lsp.command("tether.pin", {"memoryId": ws.decision})
    archived = await lsp.command("tether.list", {"status": "archived"})
    assert [m["id"] for m in archived["memories"]] == [ws.app_gotcha]
    pinned = await lsp.command("tether.list", {"pinned": True})
    assert [m["id"] for m in pinned["memories"]] == [ws.decision]
    gotchas = await lsp.command("tether.list", {"category": "gotcha"})
    assert [m["id"] for m in gotchas["memories"]] == [ws.gotcha]
    with pytest.raises(Exception, match="unknown status 'gone'"):
        await lsp.command("tether.list", {"status": "gone"})


async def test_reindex_rebuilds_from_the_files(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one
    await lsp.open(ws.store_py)
    (ws.memory_file(ws.app_gotcha)).unlink()  # gone behind the index's back

    result = await lsp.command("tether.reindex", {"uri": ws.store_py.as_uri()})

    (done,) = result["reindexed"]
    assert (done["scope"], done["memories"], done["problems"]) == ("project", 2, 0)
    listed = await lsp.command("tether.list", {})
    assert {m["id"] for m in listed["memories"]} == {ws.gotcha, ws.decision}
    assert [d.code for d in lsp.diagnostics(ws.store_py)] == [ws.gotcha]


async def test_list_shows_a_disuse_archive_as_archived_for_this_user(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    store = ws.open_store()
    try:
        with store.conn:
            store.conn.execute(
                "INSERT INTO usage(memory_id, surfaced, archived_by_disuse, archived_at) "
                "VALUES(?, 6, 1, '2026-01-01T00:00:00+00:00')",
                (ws.app_gotcha,),
            )
    finally:
        store.close()

    active = await lsp.command("tether.list", {})
    assert {m["id"] for m in active["memories"]} == {ws.gotcha, ws.decision}
    archived = await lsp.command("tether.list", {"status": "archived"})
    (entry,) = archived["memories"]
    assert (entry["id"], entry["status"], entry["archivedBy"]) == (
        ws.app_gotcha,
        "archived",
        "disuse",
    )


async def test_archived_list_is_newest_first_with_disuse_archives_in_place(
    lsp_one: Session, ws: Workspace
) -> None:
    """Archived by a person and by disuse, merged by when each memory was written."""
    store = ws.open_store()
    try:
        for day, memory_id in enumerate((ws.gotcha, ws.app_gotcha, ws.decision), start=1):
            store.update_fields(memory_id, {"created": f"2026-01-0{day}T00:00:00+00:00"})
        for memory_id in (ws.gotcha, ws.decision):
            store.set_status(memory_id, "archived", allowed_from=("active",))
        archive_by_disuse(store, ws.app_gotcha)
    finally:
        store.close()

    archived = await lsp_one.command("tether.list", {"status": "archived"})
    assert [m["id"] for m in archived["memories"]] == [ws.decision, ws.app_gotcha, ws.gotcha]
    assert [m.get("archivedBy") for m in archived["memories"]] == [None, "disuse", None]


async def test_list_says_how_many_the_limit_cut(lsp_one: Session, ws: Workspace) -> None:
    """A client showing ``limit`` memories can say how many more there are, never drop them
    silently; a superseded memory is not among the active ones, so it takes no place there."""
    lsp = lsp_one
    store = ws.open_store()
    try:
        store.set_status(ws.decision, "superseded", allowed_from=("active",))
    finally:
        store.close()

    cut = await lsp.command("tether.list", {"limit": 1})
    assert len(cut["memories"]) == 1
    assert cut["total"] == 2  # the two active ones; the superseded one is not counted
    whole = await lsp.command("tether.list", {})
    assert {m["id"] for m in whole["memories"]} == {ws.gotcha, ws.app_gotcha}
    assert whole["total"] == 2
    everything = await lsp.command("tether.list", {"status": "all", "limit": 2})
    assert (len(everything["memories"]), everything["total"]) == (2, 3)
    superseded = await lsp.command("tether.list", {"status": "superseded"})
    assert [m["id"] for m in superseded["memories"]] == [ws.decision]
    assert superseded["total"] == 1

    await lsp.open(ws.store_py)
    for_file = await lsp.command("tether.list", {"uri": ws.store_py.as_uri(), "limit": 1})
    assert len(for_file["memories"]) == 1
    assert for_file["total"] >= 1


async def test_list_counts_each_scope_apart(lsp_one: Session, ws: Workspace) -> None:
    """``totals`` splits ``total`` by scope: a window with a server per folder gets the global
    store from each server and must count it once."""
    lsp = lsp_one
    asked = {"summary": "prefer small commits", "category": "pref", "global": True}
    await lsp.command("tether.remember", asked)
    cut = await lsp.command("tether.list", {"limit": 1})
    assert len(cut["memories"]) == 1
    assert cut["totals"] == {"project": 3, "global": 1}
    assert cut["total"] == 4
    listed = await lsp.command("tether.list", {})
    assert sum(m["scope"] == "global" for m in listed["memories"]) == 1
    assert (await lsp.command("tether.list", {"status": "superseded"}))["totals"] == {}


async def test_list_is_newest_first_across_the_stores_before_its_limit(
    lsp_one: Session, ws: Workspace
) -> None:
    lsp = lsp_one
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    line = {"summary": "prefer small commits", "category": "pref", "files": [], "created": tomorrow}
    done = run_tether("import", "-", "--scope", "global", cwd=ws.root, stdin=json.dumps(line))
    assert done.code == 0, done.stderr
    cut = await lsp.command("tether.list", {"limit": 1})
    assert [(m["summary"], m["scope"]) for m in cut["memories"]] == [
        ("prefer small commits", "global")
    ]
    whole = await lsp.command("tether.list", {})
    stamps = [(m["created"], m["id"]) for m in whole["memories"]]
    assert [m["scope"] for m in whole["memories"]] == ["global", "project", "project", "project"]
    assert [c for c, _ in stamps] == sorted((c for c, _ in stamps), reverse=True)


def _by_key(listed: dict) -> dict[str, dict]:
    return {store["key"]: store for store in listed["stores"]}


@pytest.mark.extra_root
async def test_list_names_the_store_of_each_total(lsp_one: Session, ws: Workspace) -> None:
    """Two repositories in one server: ``stores`` gives each store its own total, and each
    memory names its store, so a client can tell two project stores apart."""
    lsp = lsp_one
    await lsp.command("tether.remember", {"summary": "prefer small commits", "global": True})
    listed = await lsp.command("tether.list", {"limit": 2})
    stores = _by_key(listed)
    assert sorted((s["scope"], s["total"]) for s in stores.values()) == [
        ("global", 1),
        ("project", 1),
        ("project", 3),
    ]
    mine = next(s for s in stores.values() if s["total"] == 3)
    assert Path(mine["path"]).resolve() == (ws.root / ".tether").resolve()
    assert all(len(key) == 16 for key in stores)  # STORE_KEY_CHARS: short in every memory
    assert len(listed["memories"]) == 2
    whole = await lsp.command("tether.list", {})
    assert listed["memories"] == whole["memories"][:2]  # one listing over the stores, then cut
    for key, store in stores.items():
        found = [m for m in whole["memories"] if m["store"] == key]
        assert {m["scope"] for m in found} == {store["scope"]}
        assert len(found) == store["total"]
    assert _by_key(whole) == stores
    await lsp.open(ws.store_py)
    for_file = await lsp.command("tether.list", {"uri": ws.store_py.as_uri()})
    assert {m["store"] for m in for_file["memories"]} == {mine["key"]}
    assert _by_key(for_file)[mine["key"]]["total"] == len(for_file["memories"])


@pytest.mark.folders(["src", "docs"])
async def test_two_folders_of_one_repository_list_its_store_once(
    lsp_one: Session, ws: Workspace
) -> None:
    """The repository's root not opened, two of its folders are: one project store, one
    total, whichever folder found it."""
    listed = await lsp_one.command("tether.list", {})
    (project,) = [s for s in listed["stores"] if s["scope"] == "project"]
    assert Path(project["path"]).resolve() == (ws.root / ".tether").resolve()
    assert project["total"] == 3
    assert {m["store"] for m in listed["memories"]} == {project["key"]}
    assert listed["total"] == 3


async def test_list_for_a_file_keeps_the_filters(lsp_one: Session, ws: Workspace) -> None:
    """``status``, ``category`` and ``pinned`` narrow a file's list as they narrow the whole
    list, and a status the server does not know is refused the same way."""
    lsp = lsp_one
    await lsp.open(ws.store_py)
    uri = ws.store_py.as_uri()
    await lsp.command("tether.pin", {"memoryId": ws.decision})
    gotchas = await lsp.command("tether.list", {"uri": uri, "category": "gotcha"})
    assert [m["id"] for m in gotchas["memories"]] == [ws.gotcha]
    pinned = await lsp.command("tether.list", {"uri": uri, "pinned": True})
    assert [m["id"] for m in pinned["memories"]] == [ws.decision]
    await lsp.command("tether.archive", {"memoryId": ws.gotcha})
    archived = await lsp.command("tether.list", {"uri": uri, "status": "archived"})
    assert [m["id"] for m in archived["memories"]] == [ws.gotcha]
    assert archived["memories"][0]["direct"] is True
    assert ws.gotcha not in {
        m["id"] for m in (await lsp.command("tether.list", {"uri": uri}))["memories"]
    }
    for bad in ({"status": "gone"}, {"category": "rumour"}):
        with pytest.raises(Exception, match=r"unknown (status 'gone'|category 'rumour')"):
            await lsp.command("tether.list", {"uri": uri, **bad})
