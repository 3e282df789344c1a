"""``tether.recall`` without a ``uri`` in a workspace of two repositories: a prompt searches
both roots' stores, one ranked answer, each result naming its store; with no prompt, the files
the session touched in either folder are what it recalls for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lsp.session import Session
from tests.lsp.workspace import APP_GOTCHA, GOTCHA, SECOND_GOTCHA, Workspace

pytestmark = pytest.mark.asyncio


def _summaries(answer: dict[str, object]) -> list[str]:
    return [r["summary"] for r in answer["results"]]  # type: ignore[attr-defined, index]


async def _store_keys(lsp: Session) -> dict[str, str]:
    """The store key of each project store, by its repository's folder name (as tether.list
    names them)."""
    listed = await lsp.command("tether.list", {})
    return {
        Path(s["path"]).parent.name: s["key"] for s in listed["stores"] if s["scope"] == "project"
    }


@pytest.mark.extra_root
async def test_a_prompt_searches_every_root(lsp_one: Session, ws: Workspace) -> None:
    keys = await _store_keys(lsp_one)
    found = await lsp_one.command("tether.recall", {"prompt": "billing totals in cents"})
    assert SECOND_GOTCHA in _summaries(found)
    (second,) = [r for r in found["results"] if r["summary"] == SECOND_GOTCHA]
    assert second["store"] == keys["second"]
    assert Path(second["store_path"]).resolve() == (ws.root.parent / "second/.tether").resolve()

    both = await lsp_one.command(
        "tether.recall", {"prompt": "session save safeRename, billing totals in cents"}
    )
    assert {GOTCHA, SECOND_GOTCHA} <= set(_summaries(both))
    scores = [r["score"] for r in both["results"]]
    assert scores == sorted(scores, reverse=True)  # one ranking, not one list after the other
    stores = {r["summary"]: r["store"] for r in both["results"]}
    assert stores[GOTCHA] == keys["repo"] and stores[SECOND_GOTCHA] == keys["second"]

    mine = {"summary": "invoices are rounded half to even", "global": True}
    written = await lsp_one.command("tether.remember", mine)
    rounded = await lsp_one.command("tether.recall", {"prompt": "invoices rounded half even"})
    ids = [r["id"] for r in rounded["results"]]
    assert ids.count(written["id"]) == 1  # the global store both roots read: once

    one = await lsp_one.command(
        "tether.recall", {"prompt": "session save safeRename, billing totals", "limit": 1}
    )
    assert len(one["results"]) == 1  # the limit is the whole answer's


@pytest.mark.extra_root
async def test_the_session_touched_files_of_every_folder(lsp_one: Session, ws: Workspace) -> None:
    total = ws.root.parent / "second" / "billing" / "total.py"
    await lsp_one.open(total)
    assert _summaries(await lsp_one.command("tether.recall", {"fromHint": True})) == [SECOND_GOTCHA]
    await lsp_one.open(ws.app_py)
    touched = _summaries(await lsp_one.command("tether.recall", {"fromHint": True}))
    assert {APP_GOTCHA, SECOND_GOTCHA} <= set(touched)
