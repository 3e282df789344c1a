"""Restoring counts the same from every surface a person uses: bringing back a memory a person
archived (or deleted, or superseded) is acting on it; bringing one back from disuse is not (its
showings start afresh instead). The language server's twin is pinned in
``tests/lsp/test_actions.py`` and ``tests/lsp/test_session_start.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import remember

from recall.browse.actions import Browser
from recall.browse.view import Entry
from recall.store import MemoryStore

from .aging import archive_by_disuse
from .conftest import tether, usage_row

SURFACES = ("cli", "browse")


def _restore(surface: str, store: MemoryStore, repo: Path, memory_id: str) -> str:
    """Restore through ``surface``; return what it said."""
    if surface == "cli":
        done = tether(repo, "restore", memory_id)
        assert done.code == 0, done.stderr
        return done.stdout
    entry = Entry(store.get(memory_id), store.scope)
    message = Browser([store]).restore(entry).message
    store.close()
    return message


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("status", ["archived", "deleted"])
def test_bringing_back_what_a_person_put_away_is_an_action(
    store: MemoryStore, repo: Path, surface: str, status: str
) -> None:
    memory = remember(store, "old deploy notes")
    store.set_status(memory, status, allowed_from=("active",))
    store.close()
    _restore(surface, store, repo, memory)
    assert store.get(memory).status == "active"
    row = usage_row(store, memory)
    assert row is not None and row["acted"] == 1 and row["last_acted"]


@pytest.mark.parametrize("surface", SURFACES)
def test_bringing_back_from_disuse_is_not_an_action(
    store: MemoryStore, repo: Path, surface: str
) -> None:
    memory = remember(store, "flush before close")
    archive_by_disuse(store, memory)
    store.close()
    said = _restore(surface, store, repo, memory)
    assert "archived by disuse" in said
    row = usage_row(store, memory)
    assert row is not None
    assert (row["acted"], row["surfaced"], row["archived_by_disuse"]) == (0, 0, 0)


@pytest.mark.parametrize("surface", SURFACES)
def test_a_disuse_flag_goes_with_a_person_archive(
    store: MemoryStore, repo: Path, surface: str
) -> None:
    """Disuse archived it, then a person did too: restoring clears both, as one action, and
    its showings stand (it is the person's archive that is undone, not disuse's)."""
    memory = remember(store, "flush before close")
    archive_by_disuse(store, memory)
    store.set_status(memory, "archived", allowed_from=("active",))
    before = usage_row(store, memory)
    assert before is not None and before["surfaced"] > 0
    store.close()
    said = _restore(surface, store, repo, memory)
    assert "disuse" not in said
    row = usage_row(store, memory)
    assert row is not None and (row["acted"], row["archived_by_disuse"]) == (1, 0)
    assert row["surfaced"] == before["surfaced"]
