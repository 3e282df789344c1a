"""Two processes opening a store whose index does not exist yet (two agent hooks at a
session's first prompt) both create it: the one that asks for WAL journaling second waits for
the other, as its busy timeout says, instead of failing at once with "database is locked"."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from recall.index import db
from recall.index.wal_mode import SWITCH_PAUSE_SECONDS

ROUNDS = 30


def _open_when_told(path: str, go: str, answers: multiprocessing.Queue[str]) -> None:
    while not os.path.exists(go):
        pass
    try:
        conn, _created = db.open_checked(Path(path))
        conn.close()
        answers.put("ok")
    except Exception as error:  # reported to the test, which names it
        answers.put(repr(error))


def test_two_processes_creating_the_index_at_once_both_open_it(tmp_path: Path) -> None:
    forked = multiprocessing.get_context("fork")
    failures: list[str] = []
    for round_ in range(ROUNDS):
        folder = tmp_path / f"store-{round_}"
        folder.mkdir()
        go = folder / "go"
        answers: multiprocessing.Queue[str] = forked.Queue()
        openers = [
            forked.Process(
                target=_open_when_told, args=(str(folder / "index.db"), str(go), answers)
            )
            for _ in range(2)
        ]
        for opener in openers:
            opener.start()
        go.touch()
        for opener in openers:
            opener.join(60)
        failures += [a for a in (answers.get(timeout=60) for _ in openers) if a != "ok"]
    assert failures == []


def test_the_pause_between_two_asks_is_short() -> None:
    assert SWITCH_PAUSE_SECONDS == 0.01
