"""The MCP tools tell what the CLI tells: a memory this user's disuse archived lists and reads
as archived, and recall keeps other authors' memories out of the agent's context when the user
says so, as the prompt hook and ``tether inject`` do. In-process, through the operations the
tools call."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_tether

from mcp_server import operations
from mcp_server.workspace import Workspace
from recall.policy import trust
from recall.policy.usage import counters
from recall.store import MemoryStore
from tests.lifecycle.aging import ARCHIVED_AT, archive_by_disuse


@pytest.fixture
def ws(repo: Path) -> Iterator[Workspace]:
    workspace = Workspace(repo)
    yield workspace
    workspace.close()


def _write(store: MemoryStore, summary: str, created: str, files: list[str] | None = None) -> str:
    draft = store.prepare_memory(
        summary=summary, category="gotcha", files=files or ["src/app.py"], created=created
    )
    return store.remember(draft).id


@pytest.fixture
def shelf(ws: Workspace) -> dict[str, str]:
    """Four memories, oldest first: one a person archived, one active, one archived by disuse
    (newer than the person's, so appending it after would put it out of order), a newer one
    a person archived."""
    store = ws.project()
    ids = {
        "person_old": _write(store, "old deploy notes", "2026-01-01T00:00:00+00:00"),
        "active": _write(store, "README badges are generated", "2026-01-02T00:00:00+00:00"),
        "disused": _write(store, "flush before close", "2026-01-03T00:00:00+00:00"),
        "person_new": _write(store, "staging uses the old queue", "2026-01-04T00:00:00+00:00"),
    }
    for key in ("person_old", "person_new"):
        store.set_status(ids[key], "archived", allowed_from=("active",))
    archive_by_disuse(store, ids["disused"])
    return ids


def test_list_shows_a_disuse_archive_as_archived_newest_first(
    ws: Workspace, shelf: dict[str, str]
) -> None:
    active = ws.run(operations.list_memories)["memories"]
    assert [m["id"] for m in active] == [shelf["active"]]
    archived = ws.run(operations.list_memories, status="archived")
    order = [shelf["person_new"], shelf["disused"], shelf["person_old"]]
    assert [m["id"] for m in archived["memories"]] == order
    by_id = {m["id"]: m for m in archived["memories"]}
    disused = by_id[shelf["disused"]]
    assert (disused["status"], disused["archived_by"]) == ("archived", "disuse")
    assert (disused["file_status"], disused["archived_at"]) == ("active", ARCHIVED_AT)
    assert by_id[shelf["person_old"]]["archived_by"] == "person"
    everything = {m["id"]: m for m in ws.run(operations.list_memories, status="all")["memories"]}
    assert everything[shelf["disused"]]["archived_by"] == "disuse"
    assert "archived_by" not in everything[shelf["active"]]


def test_list_agrees_with_tether_list(repo: Path, ws: Workspace, shelf: dict[str, str]) -> None:
    for status in ("active", "archived", "all"):
        ours = ws.run(operations.list_memories, status=status)["memories"]
        cli = run_tether("list", "--json", "--status", status, cwd=repo).json()
        assert [(m["id"], m["status"], m.get("archived_by")) for m in ours] == [
            (m["id"], m["status"], m.get("archived_by")) for m in cli
        ], status


def test_get_says_when_disuse_archived_it(repo: Path, ws: Workspace, shelf: dict[str, str]) -> None:
    card = ws.run(operations.get, memory_id=shelf["disused"])
    assert (card["archived_by"], card["archived_at"]) == ("disuse", ARCHIVED_AT)
    assert (card["status"], card["file_status"]) == ("archived", "active")  # as `list` says
    keys = ("status", "file_status", "archived_by", "archived_at")
    for memory_id in shelf.values():
        got = ws.run(operations.get, memory_id=memory_id)
        shown = run_tether("show", "--json", memory_id, cwd=repo).json()
        assert {key: got.get(key) for key in keys} == {key: shown.get(key) for key in keys}
    listed = {m["id"]: m for m in ws.run(operations.list_memories, status="all")["memories"]}
    for memory_id, entry in listed.items():
        got = ws.run(operations.get, memory_id=memory_id)
        assert {key: got.get(key) for key in keys} == {key: entry.get(key) for key in keys}
    assert "archived_by" not in ws.run(operations.get, memory_id=shelf["active"])


# -- recall and the trust gate ---------------------------------------------------------------


def _commit(repo: Path, email: str, name: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_NAME": name}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "memories"], cwd=repo, check=True, env=env)


@pytest.fixture
def authored(repo: Path, ws: Workspace) -> dict[str, str]:
    """Two gotchas on src/app.py: one committed by someone else, one by me."""
    store = ws.project()
    theirs = _write(store, "app start must read the spoofed config", "2026-01-01T00:00:00+00:00")
    _commit(repo, "mallory@example.net", "Mallory")
    mine = _write(store, "app start must load the session first", "2026-01-02T00:00:00+00:00")
    _commit(repo, "author@example.com", "Test Author")
    return {"theirs": theirs, "mine": mine}


def test_recall_returns_every_author_by_default(ws: Workspace, authored: dict[str, str]) -> None:
    found = ws.run(operations.recall, prompt="app start", files=["src/app.py"])
    assert {r["id"] for r in found["results"]} == set(authored.values())
    assert found["held_back"] == 0


def test_recall_holds_back_others_when_the_user_says_so(
    ws: Workspace, authored: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(trust.ENV_VAR, "0")
    found = ws.run(operations.recall, prompt="app start", files=["src/app.py"])
    assert [r["id"] for r in found["results"]] == [authored["mine"]]
    assert found["held_back"] == 1
    conn = ws.project().conn
    assert counters(conn, authored["theirs"])["surfaced"] == 0  # never shown, never counted
    assert counters(conn, authored["mine"])["surfaced"] == 1
    # listing is asking: every memory, labelled, as `tether list` does
    listed = {m["id"] for m in ws.run(operations.list_memories, file="src/app.py")["memories"]}
    assert listed == set(authored.values())


def test_held_back_memories_leave_room_for_the_allowed_ones(
    ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With others' memories ranked on top, ``limit`` of the user's own still come back."""
    store = ws.project()
    day = "2026-01-05T00:00:00+00:00"
    theirs = [_write(store, f"app start gotcha {n} from them", day) for n in range(3)]
    _commit(repo, "mallory@example.net", "Mallory")
    mine = [_write(store, f"app note {n}", day) for n in range(2)]
    monkeypatch.setenv(trust.ENV_VAR, "0")
    found = ws.run(operations.recall, prompt="app start gotcha", files=["src/app.py"], limit=2)
    assert sorted(r["id"] for r in found["results"]) == sorted(mine)
    assert found["held_back"] == len(theirs)
