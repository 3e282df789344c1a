"""Two writers changing one memory at once: the state a change is allowed or refused on is
read under the writers' lock, so one succeeds and the other is refused, never both.

The timing is fixed: the second writer (a store of its own, so a lock of its own, as another
process has) holds the writers' lock while the first starts its change on a thread and is left
to reach the lock; the second then makes its own change and lets go. A first writer that
checked the memory before taking the lock acts on a state that is gone by the time it writes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from conftest import OpenStore, remember

from recall import frontmatter
from recall.anchors.guards import set_guard
from recall.errors import BadInput, NothingToDo
from recall.lifecycle.disuse import bring_back
from recall.store import MemoryStore

REACH_LOCK_SECONDS = 0.5
"""Time given the first writer to read the memory and wait for the lock: far more than a read
of one row takes."""


def _while_held(
    other: MemoryStore, first: Callable[[], Any], second: Callable[[], Any]
) -> BaseException | Any:
    """Run ``first`` on a thread while ``other`` holds the writers' lock and runs ``second``;
    what ``first`` returned or raised."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(first())
        except BaseException as error:  # handed to the test
            outcome.append(error)

    with other._locked():  # the writers' lock, as another process holds it while it writes
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(REACH_LOCK_SECONDS)
        assert not outcome, outcome  # it waits for the lock
        second()
    thread.join(timeout=60)
    assert not thread.is_alive()
    return outcome[0]


def _status(store: MemoryStore, memory_id: str) -> dict[str, Any]:
    path = store.path_of(memory_id)
    return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields


@pytest.fixture
def two(open_store: Callable[..., OpenStore]) -> tuple[MemoryStore, MemoryStore, str]:
    """Two stores on one repository's memories, both opened, and a memory's id."""
    one, other = open_store().store, open_store().store
    memory_id = remember(one, "the memory both change")
    assert other.get(memory_id).status == "active"  # both have read the index
    return one, other, memory_id


def _draft(store: MemoryStore, summary: str) -> Any:
    return store.prepare_memory(summary=summary, category="gotcha", files=["src/app.py"])


def test_a_supersede_waiting_behind_another_is_refused(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    files = set(one.folder.path.glob("*.md"))
    refused = _while_held(
        other,
        lambda: one.supersede(memory_id, _draft(one, "left")),
        lambda: other.supersede(memory_id, _draft(other, "right")),
    )
    assert isinstance(refused, BadInput), refused
    assert "only active memories can be superseded" in str(refused)
    written = set(one.folder.path.glob("*.md")) - files
    assert len(written) == 1  # the refused supersede left no replacement behind
    (new,) = written
    assert _status(one, memory_id)["superseded_by"] == new.stem


def test_a_supersede_waiting_behind_an_archive_is_refused(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    files = set(one.folder.path.glob("*.md"))
    refused = _while_held(
        other,
        lambda: one.supersede(memory_id, _draft(one, "newer")),
        lambda: other.set_status(memory_id, "archived", allowed_from=("active",)),
    )
    assert isinstance(refused, BadInput), refused
    assert f"memory {memory_id} is archived" in str(refused)
    assert set(one.folder.path.glob("*.md")) == files
    assert _status(one, memory_id)["status"] == "archived"


def test_an_archive_waiting_behind_a_supersede_is_refused(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    refused = _while_held(
        other,
        lambda: one.set_status(memory_id, "archived", allowed_from=("active",)),
        lambda: other.supersede(memory_id, _draft(other, "newer")),
    )
    assert isinstance(refused, BadInput), refused
    assert "is superseded" in str(refused)
    assert _status(one, memory_id)["status"] == "superseded"


def test_a_pin_waiting_behind_a_supersede_is_refused(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    refused = _while_held(
        other,
        lambda: one.set_pinned(memory_id, True),
        lambda: other.supersede(memory_id, _draft(other, "newer")),
    )
    assert isinstance(refused, BadInput) and "superseded by" in str(refused), refused
    assert not _status(one, memory_id).get("pinned")


def test_a_guard_waiting_behind_a_delete_is_refused(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    refused = _while_held(
        other,
        lambda: set_guard(one, memory_id, True),
        lambda: other.set_status(memory_id, "deleted", allowed_from=("active",)),
    )
    assert isinstance(refused, BadInput) and "is deleted" in str(refused), refused
    assert not _status(one, memory_id).get("guard")


def test_a_second_restore_is_told_the_memory_is_active(
    two: tuple[MemoryStore, MemoryStore, str],
) -> None:
    one, other, memory_id = two
    one.set_status(memory_id, "archived", allowed_from=("active",))
    memory = other.get(memory_id)
    assert memory.status == "archived"
    again = _while_held(
        other,
        lambda: bring_back(one, memory, ("archived", "superseded", "deleted")),
        lambda: bring_back(other, memory, ("archived", "superseded", "deleted")),
    )
    assert isinstance(again, NothingToDo) and "already active" in str(again), again
