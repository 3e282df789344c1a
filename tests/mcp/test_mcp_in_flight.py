"""The requests in flight when the client closes its input, and two requests sharing an id,
over the real stdio wire: a call that does not end (a write waiting on a store another process
holds) is waited for a bounded time, then named on stderr as abandoned and the server exits; a
request reusing the id of one still in flight is refused at once, and the first is answered."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import anyio
import pytest

from mcp_server.calls import Calls
from mcp_server.in_flight import (
    END_WAIT_ENV,
    END_WAIT_SECONDS,
    LOOK_AGAIN_SECONDS,
    InFlight,
    end_wait,
)
from recall.errors import EXIT_FAILURE
from recall.store.busy import WRITE_WAIT_SECONDS
from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, WAIT_S, start_server, tool_call
from tests.test_cli_busy import index_held, lock_held


def _write(msg_id: int, summary: str) -> dict[str, Any]:
    arguments = {"summary": summary, "category": "gotcha", "files": []}
    return tool_call(msg_id, "memory_write", arguments)


class Wire:
    """A ``tether mcp`` process spoken to line by line."""

    def __init__(self, server: subprocess.Popen[str]) -> None:
        assert server.stdin is not None and server.stdout is not None
        self.server = server
        self.replies: Queue[str] = Queue()
        out = server.stdout
        threading.Thread(target=lambda: [self.replies.put(x) for x in out], daemon=True).start()

    def send(self, *messages: dict[str, Any]) -> None:
        """Write ``messages``, one a line."""
        assert self.server.stdin is not None
        self.server.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        self.server.stdin.flush()

    def next(self) -> dict[str, Any]:
        """The next message the server writes."""
        try:
            return json.loads(self.replies.get(timeout=WAIT_S))
        except Empty:
            raise AssertionError("no message from the server") from None

    def rest(self) -> list[dict[str, Any]]:
        """Every message written until the server closed its output."""
        assert self.server.stdout is not None
        self.server.wait(timeout=WAIT_S)
        got = []
        while True:
            try:
                got.append(json.loads(self.replies.get(timeout=1)))
            except Empty:
                return got


@contextmanager
def serving(repo: Path, env: dict[str, str] | None = None) -> Iterator[Wire]:
    """A fresh ``tether mcp`` in ``repo``, initialized."""
    server = start_server(repo, env=env, text=True)
    wire = Wire(server)
    try:
        wire.send(INITIALIZE)
        assert wire.next()["id"] == 1
        wire.send(INITIALIZED)
        yield wire
    finally:
        if server.poll() is None:
            server.kill()
        server.wait(timeout=WAIT_S)


def test_the_end_of_input_wait_covers_a_writes_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    assert END_WAIT_SECONDS == WRITE_WAIT_SECONDS + 15 == 30
    monkeypatch.delenv(END_WAIT_ENV, raising=False)
    assert end_wait() == END_WAIT_SECONDS
    for given, used in (("2.5", 2.5), ("0", END_WAIT_SECONDS), ("soon", END_WAIT_SECONDS)):
        monkeypatch.setenv(END_WAIT_ENV, given)
        assert end_wait() == used


@pytest.mark.parametrize("given", ["soon", "0", "nan", "-5", "inf"])
def test_an_end_wait_that_is_not_a_positive_number_is_said_with_the_wait_used(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    monkeypatch.setenv(END_WAIT_ENV, given)
    assert end_wait() == END_WAIT_SECONDS
    said = capsys.readouterr().err
    assert f"{END_WAIT_ENV}={given!r} is not a positive number of seconds" in said, said
    assert f"waits {END_WAIT_SECONDS:g} s" in said, said
    monkeypatch.setenv(END_WAIT_ENV, "2.5")
    assert end_wait() == 2.5
    assert capsys.readouterr().err == ""


def test_a_cancelled_call_is_looked_at_again_often() -> None:
    assert LOOK_AGAIN_SECONDS == 0.05


def test_a_cancelled_call_still_running_when_the_wait_runs_out_is_named_as_abandoned(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(END_WAIT_ENV, "0.5")
    calls = Calls()
    with calls.calling("7 (tools/call memory_write)") as call:
        call.started()
        call.cancel()
    in_flight = InFlight(calls)
    anyio.run(in_flight.all_answered)  # its thread never ends here
    assert in_flight.abandoned == ["7 (tools/call memory_write)"]
    said = capsys.readouterr().err
    assert "cancelled and still running, abandoned: 7 (tools/call memory_write)" in said, said
    call.thread_ended(stopped=False, writes=True)
    assert "request 7 (tools/call memory_write) was cancelled; it had begun" in (
        capsys.readouterr().err
    )
    anyio.run(in_flight.all_answered)  # nothing left to wait for
    assert calls.cancelled_running() == []


def test_a_call_given_up_before_its_thread_began_never_runs_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The client's cancel read before the call's handler reached its worker thread: the
    thread is never started, so the call says itself that nothing was done."""
    from mcp_server.tools import _call

    ran: list[object] = []
    calls = Calls()

    async def handler() -> None:
        with calls.calling("9 (tools/call memory_write)"), anyio.CancelScope() as scope:
            scope.cancel()  # already cancelled as the handler reaches its thread
            await _call(None, lambda **given: ran.append(given), writes=True)  # type: ignore[arg-type]

    anyio.run(handler)
    assert ran == []
    said = capsys.readouterr().err
    assert "request 9 (tools/call memory_write) was cancelled; it had not begun: nothing" in said
    assert calls.cancelled_running() == []


def test_a_call_given_up_after_its_thread_began_is_left_to_say_how_it_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = Calls()
    with calls.calling("10 (tools/call memory_write)") as call:
        assert call.started()
        call.give_up()
    assert capsys.readouterr().err == ""  # its thread, still running, will say
    assert calls.cancelled_running() == ["10 (tools/call memory_write)"]
    call.thread_ended(stopped=False, writes=True)
    assert "was cancelled; it had begun, so it ran to its end" in capsys.readouterr().err
    with calls.calling("11 (tools/call memory_pin)") as late:
        late.give_up()
        assert late.started() is False  # a thread started after all does nothing
    assert calls.cancelled_running() == []


def test_a_worker_thread_that_starts_after_its_call_was_given_up_does_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The cancel came first, but the thread had been asked for and runs all the same: the
    operation is never called, and the one line said at the cancel is not said again."""
    from mcp_server.tools import _run

    ran: list[object] = []
    calls = Calls()
    with calls.calling("12 (tools/call memory_write)") as call:
        call.give_up()
        answer = _run(None, lambda **given: ran.append(given), True, {}, call)  # type: ignore[arg-type]
    assert answer is None and ran == []
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "tether mcp: request 12 (tools/call memory_write) was cancelled; it had not begun: "
        "nothing was done"
    ]
    assert calls.cancelled_running() == []


def test_the_end_of_input_waits_for_a_cancelled_calls_thread_to_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(END_WAIT_ENV, "600")
    calls = Calls()
    with calls.calling("8 (tools/call memory_pin)") as call:
        call.started()
        call.cancel()
    go_on = threading.Event()
    ended: list[str] = []

    def thread() -> None:
        go_on.wait(timeout=WAIT_S)
        ended.append("ended")
        call.thread_ended(stopped=True, writes=True)

    in_flight = InFlight(calls)

    async def end_of_input() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(in_flight.all_answered)
            await anyio.sleep(0)
            assert calls.cancelled_running() == ["8 (tools/call memory_pin)"]
            threading.Thread(target=thread, daemon=True).start()
            go_on.set()

    anyio.run(end_of_input)
    assert ended == ["ended"]  # all_answered returned only once the thread had ended
    assert in_flight.abandoned == []


@pytest.mark.parametrize("holder", [lock_held, index_held])
def test_a_call_still_waiting_when_the_input_ends_is_abandoned_and_named(
    repo: Path, holder: Callable[[Path], AbstractContextManager[None]]
) -> None:
    with serving(repo, env={END_WAIT_ENV: "1"}) as wire:
        wire.send(_write(2, "the pool must be closed first"))
        first = wire.next()
        assert first["id"] == 2 and not first["result"]["isError"]
        with holder(repo):  # held until the server has exited
            wire.send(_write(3, "never written: the store stays busy"))
            assert wire.server.stdin is not None
            wire.server.stdin.close()
            answers = wire.rest()
            assert wire.server.returncode == EXIT_FAILURE
        assert wire.server.stderr is not None
        said = wire.server.stderr.read()
    assert "abandoned, unanswered: 3 (tools/call memory_write)" in said, said
    assert all("result" not in a for a in answers if a.get("id") == 3), answers
    names = [p.name for p in (repo / ".tether" / "memories").glob("*.md")]
    assert len(names) == 1  # the abandoned write made nothing


def test_a_request_reusing_an_id_in_flight_is_refused_and_the_first_answered(repo: Path) -> None:
    with serving(repo) as wire:
        wire.send(_write(2, "the pool must be closed first"))
        first = json.loads(wire.next()["result"]["content"][0]["text"])
        with lock_held(repo):  # the write waits for the store: its id stays in flight
            wire.send(_write(5, "the cache is warmed before the pool opens"))
            wire.send(tool_call(5, "memory_list", {}))
            refused = wire.next()  # answered while the first still waits
            assert refused["id"] == 5
            assert refused["error"]["code"] == -32600
            assert refused["error"]["message"].startswith("id 5 is already in flight")
        written = wire.next()
        assert written["id"] == 5 and not written["result"]["isError"]
        memory = json.loads(written["result"]["content"][0]["text"])
        assert (repo / ".tether" / "memories" / f"{memory['id']}.md").exists()
        wire.send(tool_call(5, "memory_list", {}))  # answered: the id is free again
        listed = json.loads(wire.next()["result"]["content"][0]["text"])
        assert sorted(m["id"] for m in listed["memories"]) == sorted([first["id"], memory["id"]])


def _cancel(msg_id: int) -> dict[str, Any]:
    params = {"requestId": msg_id, "reason": "the user changed their mind"}
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}


def _ended(wire: Wire) -> None:
    """Wait for the server to exit, failing (not hanging) when it does not."""
    try:
        wire.server.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        raise AssertionError("the server did not exit once its input ended") from None


@pytest.mark.parametrize("holder", [lock_held, index_held])
def test_a_write_cancelled_while_it_waits_for_the_store_ends_and_writes_nothing(
    repo: Path, holder: Callable[[Path], AbstractContextManager[None]]
) -> None:
    with serving(repo, env={END_WAIT_ENV: "600"}) as wire:
        wire.send(_write(2, "the pool must be closed first"))
        assert not wire.next()["result"]["isError"]
        with holder(repo):  # held past the server's exit
            wire.send(_write(3, "never written: cancelled while the store is busy"))
            wire.send(_cancel(3))
            assert wire.server.stdin is not None
            wire.server.stdin.close()
            _ended(wire)
            answers = wire.rest()
            assert wire.server.returncode == 0
        assert wire.server.stderr is not None
        said = wire.server.stderr.read()
    assert "request 3 (tools/call memory_write) was cancelled; it had not begun" in said, said
    assert all(a.get("id") != 3 for a in answers), answers  # a cancelled request gets no answer
    names = [p.name for p in (repo / ".tether" / "memories").glob("*.md")]
    assert len(names) == 1  # the cancelled write made nothing
