"""One call made ahead in a forked child: its result, its failure, a child that dies, and a
parent that ignores SIGCHLD (the kernel then reaps the child itself); and one work spread
among several children."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recall.forked import SPREAD_MAX, Ahead, ChildFailed, Spread, spread_width


def squared_with_pid(number: int) -> tuple[int, int]:
    """The square of ``number`` and the pid of the process that made it."""
    return number * number, os.getpid()


def refuse(number: int) -> int:
    """Fail as a work may."""
    raise ValueError(f"no square for {number}")


def die(number: int) -> int:
    """End the process before answering, as a child killed for memory would."""
    os.kill(os.getpid(), signal.SIGKILL)
    return number


def started(work, argument) -> Ahead:  # type: ignore[no-untyped-def]
    ahead = Ahead.start(work, argument)
    assert ahead is not None
    return ahead


def test_the_result_is_made_in_another_process_and_handed_back() -> None:
    value, pid = started(squared_with_pid, 7).result()
    assert value == 49 and pid != os.getpid()


def test_the_works_failure_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="no square for 3"):
        started(refuse, 3).result()


def test_a_child_that_dies_before_answering_is_a_failure_the_caller_can_tell() -> None:
    with pytest.raises(ChildFailed, match="killed by signal 9"):
        started(die, 3).result()


@pytest.fixture
def sigchld_ignored() -> Iterator[None]:
    """SIGCHLD ignored, as a launching process may leave it to its children."""
    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGCHLD, before)


def test_a_parent_ignoring_sigchld_still_gets_the_result(sigchld_ignored: None) -> None:
    assert started(squared_with_pid, 5).result()[0] == 25


def own_children() -> list[str]:
    """The pids of this process's children still there (not yet reaped)."""
    pid = os.getpid()
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
        return handle.read().split()


def test_a_result_given_up_on_leaves_no_child() -> None:
    ahead = started(squared_with_pid, 2)
    ahead.stop()
    assert own_children() == []


def spread(work: Callable[[int], Any], arguments: list[int]) -> Spread[Any]:
    """The work begun in a child per argument."""
    parts = Spread.start(work, arguments)
    assert parts is not None
    return parts


def test_a_spread_work_answers_each_part_in_order_from_a_process_of_its_own() -> None:
    answers = spread(squared_with_pid, [3, 1, 2]).results()
    assert [value for value, _ in answers] == [9, 1, 4]
    pids = {pid for _, pid in answers}
    assert len(pids) == 3 and os.getpid() not in pids
    assert own_children() == []


def test_a_failing_part_is_raised_and_every_child_reaped() -> None:
    with pytest.raises(ValueError, match="no square for 4"):
        spread(refuse, [4, 5]).results()
    assert own_children() == []


def test_a_spread_work_given_up_on_leaves_no_child() -> None:
    spread(squared_with_pid, [1, 2]).stop()
    assert own_children() == []


def test_a_second_child_not_to_be_had_leaves_the_work_to_the_caller_and_no_child(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_fork, forked = os.fork, []

    def fork_once() -> int:
        if forked:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        forked.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", fork_once)
    assert Spread.start(squared_with_pid, [1, 2]) is None
    assert forked == [1] and own_children() == []


def test_work_is_spread_among_one_child_per_core_at_most_two() -> None:
    assert SPREAD_MAX == 2  # 30,000 stats: 100 ms in one child, 60 in two, on 2 cores
    assert spread_width() == min(2, len(os.sched_getaffinity(0)))


def test_a_mapping_child_drafts_on_while_a_large_result_waits_to_be_read(tmp_path: Path) -> None:
    """A result of several hundred kilobytes (an import's drafted chunk) fits in the pipe, so
    the child goes on to the next chunk while the parent is still busy with the one before;
    in a pipe of the default 64 KiB it stopped until the parent came to read."""
    from recall.forked import PIPE_BYTES, mapped

    assert PIPE_BYTES == 1 << 20

    def work(number: int) -> bytes:
        (tmp_path / f"began-{number}").touch()  # a test's signal; real work writes nothing
        return os.urandom(400_000)  # about what a drafted chunk pickles to

    results = mapped(work, range(3), fork=True)
    assert len(next(results)) == 400_000  # the first chunk, mapped here before the fork
    deadline = time.monotonic() + 30
    while not (tmp_path / "began-2").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # not reading: the second result waits in the pipe
    assert (tmp_path / "began-2").exists()
    assert [len(r) for r in results] == [400_000, 400_000]
