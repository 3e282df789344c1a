"""Sessions and turns: `--session` counts one turn per recall or inject, `--no-record` none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from recall.errors import BadInput
from recall.policy.sessions import check_session_id, count_turn
from recall.store import MemoryStore
from tests.conftest import CliResult, remember


def _turns(store: MemoryStore, session: str) -> int | None:
    store.close()
    row = store.conn.execute("SELECT turns FROM sessions WHERE id = ?", (session,)).fetchone()
    return None if row is None else int(row[0])


def test_count_turn_starts_and_advances_a_session(store: MemoryStore) -> None:
    remember(store, "anything, so the store exists")
    assert count_turn(store.conn, "s-1") == 1
    assert count_turn(store.conn, "s-1") == 2
    assert count_turn(store.conn, "s-2") == 1


@pytest.mark.parametrize("bad", ["", "   ", "x" * 201, "a\x00b"])
def test_bad_session_ids_are_refused(bad: str) -> None:
    with pytest.raises(BadInput):
        check_session_id(bad)


def test_recall_and_inject_count_turns_unless_no_record(
    store: MemoryStore, cli: Callable[..., CliResult], repo: Path
) -> None:
    remember(store, "session save must go through safeRename", files=["src/app.py"])
    assert cli("recall", "--file", "src/app.py", "--session", "abc").code == 0
    assert cli("inject", "save it", "--file", "src/app.py", "--session", "abc").code == 0
    assert _turns(store, "abc") == 2
    assert cli("recall", "--file", "src/app.py", "--session", "abc", "--no-record").code == 0
    assert _turns(store, "abc") == 2
    refused = cli("recall", "--file", "src/app.py", "--session", "")
    assert refused.code == 2
    assert "--session" in refused.stderr
