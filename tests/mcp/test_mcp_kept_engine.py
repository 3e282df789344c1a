"""The MCP server's recall engine, kept between calls in its workspace (in process, through the
operations the tools call): each call still sees what other processes changed since."""

from __future__ import annotations

from pathlib import Path

from conftest import Notices, git, remember

from mcp_server import operations
from mcp_server.workspace import Workspace
from recall.locations import project_location
from recall.ranking.weights import DRIFT_COMMITS
from recall.store import MemoryStore


def written(repo: Path, summary: str) -> str:
    """A memory written by another process's store."""
    store = MemoryStore(project_location(repo), notice=Notices())
    try:
        return remember(store, summary)
    finally:
        store.close()


def test_recalls_share_one_engine_and_see_what_changed_between_them(repo: Path) -> None:
    first = written(repo, "flush the buffer before exit")
    ws = Workspace(repo)
    try:
        found = ws.run(operations.recall, prompt="flush buffer", files=["src/app.py"])
        assert [r["id"] for r in found["results"]] == [first]

        second = written(repo, "the audit log rotates nightly")
        found = ws.run(operations.recall, prompt="audit log", files=["src/app.py"])
        assert second in [r["id"] for r in found["results"]]

        for number in range(DRIFT_COMMITS):
            (repo / "src/app.py").write_text(f"print({number})\n")
            git(repo, "commit", "-qam", f"app {number}")
        found = ws.run(operations.recall, prompt="flush buffer", files=["src/app.py"])
        flush = next(r for r in found["results"] if r["id"] == first)
        assert "spot-check" in flush["receipt"]
        assert ws.engines.reused == 2
    finally:
        ws.close()
