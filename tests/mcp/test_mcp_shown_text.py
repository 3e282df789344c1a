"""What ``memory_recall`` and ``memory_list`` show of a memory goes into an agent's context as
an injection does: each entry labelled with its author, its summary capped and stripped of
control and bidi characters, as the hooks and ``tether inject`` show it. Nothing is lost: the
entry says when its summary was shortened or cleaned, and ``memory_get`` returns it whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.policy.inject import AUTHOR_CAP
from recall.ranking.weights import SUMMARY_CAP
from tests.mcp.harness import call, mcp_client

pytestmark = pytest.mark.asyncio

TRICKY = "pool gotcha \u202egnp.exe\u2069 beware"
LONG = "pool " + "x" * 10_027


def hand_written(repo: Path, memory_id: str, summary: str, author: str) -> None:
    """A memory file as a cloned repository may bring one."""
    folder = repo / ".tether" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{memory_id}.md").write_text(
        f'---\ncategory: gotcha\nfiles:\n  - src/app.py\nauthor: "{author}"\n'
        f"created: 2026-01-02T03:04:05Z\n---\n{summary}\n",
        encoding="utf-8",
    )


async def test_recall_and_list_label_strip_and_cap_as_an_injection(repo: Path) -> None:
    hand_written(repo, "e7e00001", TRICKY, "Eve Outsider")
    hand_written(repo, "10ad0002", LONG, "Eve " + "O" * 100)
    hand_written(repo, "5bace003", "pool  of  two  ", "Ann")
    async with mcp_client(repo) as client:
        recalled = (await call(client, "memory_recall", files=["src/app.py"]))["results"]
        listed = (await call(client, "memory_list"))["memories"]
        for entries in (recalled, listed):
            shown = {entry["id"]: entry for entry in entries}
            tricky, long = shown["e7e00001"], shown["10ad0002"]
            assert tricky["summary"] == "pool gotcha gnp.exe beware"
            assert tricky["author"] == "Eve Outsider"
            assert tricky["summary_cleaned"] is True
            assert "summary_truncated" not in tricky
            assert len(long["summary"]) == SUMMARY_CAP and long["summary"].endswith("…")
            assert long["summary_truncated"] is True
            assert len(long["author"]) == AUTHOR_CAP
            assert "memory_get" in long["note"] and "10ad0002" in long["note"]
            spaced = shown["5bace003"]  # spaces made one are layout, not a cleaning
            assert spaced["summary"] == "pool of two"
            assert "summary_cleaned" not in spaced and "note" not in spaced
        whole = await call(client, "memory_get", id="10ad0002")
        assert whole["summary"] == LONG
        assert (await call(client, "memory_get", id="e7e00001"))["summary"] == TRICKY


async def test_recall_drops_a_run_of_variation_selectors_and_keeps_an_emoji(repo: Path) -> None:
    selectors = "".join(chr(0xFE00 + byte % 16) for byte in range(15))
    smuggling = f"save through safeRename \U0001f512{selectors}"
    varied = "heart \u2764\ufe0f and \u8fbb\U000e0100 stay"
    hand_written(repo, "5e1ec701", smuggling, "Eve Outsider")
    hand_written(repo, "fa11ed02", varied, "Ann")
    async with mcp_client(repo) as client:
        recalled = (await call(client, "memory_recall", files=["src/app.py"]))["results"]
        shown = {entry["id"]: entry for entry in recalled}
        assert shown["5e1ec701"]["summary"] == "save through safeRename \U0001f512\ufe00"
        assert shown["5e1ec701"]["summary_cleaned"] is True
        assert shown["fa11ed02"]["summary"] == varied
        assert "summary_cleaned" not in shown["fa11ed02"]
        assert (await call(client, "memory_get", id="5e1ec701"))["summary"] == smuggling
