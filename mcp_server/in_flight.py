"""The requests the session was given and has not answered yet, so that the end of the input
waits for their answers, a bounded time.

A client may write its requests and close stdin at once (``{ ...; tools/call ... } | tether
mcp``). The SDK ends the session at the end of the input and cancels the handlers still
running: a write could be done and its answer never sent. Here the input is held open to the
session until every request it received is answered, and every call the client cancelled
(which gets no answer) has ended its thread (:mod:`mcp_server.calls`), then closed. A call
that never ends (a write waiting on a store another process holds) is waited for at most
:data:`END_WAIT_SECONDS`: past it, the requests still unanswered and the cancelled calls
still running are named on stderr as abandoned and the server exits.

JSON-RPC asks for ids unique among the requests in flight; a request reusing the id of one
still unanswered is refused at once (:func:`duplicate_error`), never run: its answer and the
first one's could not be told apart.
"""

from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING, Final

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

from recall.store.busy import WRITE_WAIT_SECONDS

if TYPE_CHECKING:
    from mcp_server.calls import Calls

CANCELLED = "notifications/cancelled"

END_WAIT_MARGIN_SECONDS: Final = 15.0
"""What the end of the input waits past a write's own wait for a busy store: time for the
write itself and its answer once the store is free, on a loaded machine."""

END_WAIT_SECONDS: Final = WRITE_WAIT_SECONDS + END_WAIT_MARGIN_SECONDS
"""How long the server waits, once its input has ended, for the requests still in flight
before it abandons them and exits: a write that waits the whole of its wait for a busy store
(:data:`recall.store.busy.WRITE_WAIT_SECONDS`) still answers, a call that never ends does not
keep the process alive."""

LOOK_AGAIN_SECONDS: Final = 0.05
"""How often the end of the input looks whether a cancelled call's thread has ended (a look
is a lock and a dict), as a waiting write looks at a store's locks."""

END_WAIT_ENV: Final = "TETHER_MCP_END_WAIT"
"""Seconds overriding :data:`END_WAIT_SECONDS` (tests use a few, as the warm engine's idle
limit is shortened; a user may want it longer)."""


def end_wait() -> float:
    """:data:`END_WAIT_SECONDS`, or the seconds of ``TETHER_MCP_END_WAIT`` when set to a
    positive number; any other value is said on stderr, naming the value used instead."""
    raw = os.environ.get(END_WAIT_ENV, "").strip()
    if not raw:
        return END_WAIT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if math.isfinite(value) and value > 0:
        return value
    print(
        f"tether mcp: {END_WAIT_ENV}={raw!r} is not a positive number of seconds; "
        f"the end of the input waits {END_WAIT_SECONDS:g} s",
        file=sys.stderr,
        flush=True,
    )
    return END_WAIT_SECONDS


def duplicate_error(request: types.JSONRPCRequest) -> types.JSONRPCError:
    """The refusal of a request whose id another request in flight has already."""
    text = (
        f"id {request.id!r} is already in flight (a {request.method} request not answered "
        "yet); give each request an id no unanswered request has, and send it again"
    )
    data = types.ErrorData(code=types.INVALID_REQUEST, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=request.id, error=data)


def named(request_id: types.RequestId | None, method: str, tool: object = None) -> str:
    """A request as stderr names it: its id, method and tool (when it is a string)."""
    shown = f" {tool}" if isinstance(tool, str) else ""
    return f"{request_id!r} ({method}{shown})"


def _what(request: types.JSONRPCRequest) -> str:
    """The request as named in the list of those abandoned: its id, method and tool."""
    tool = (request.params or {}).get("name") if request.method == "tools/call" else None
    return named(request.id, request.method, tool)


class InFlight:
    """The requests passed to the session and not answered yet, by id, and the cancelled
    calls whose threads still run (``calls``)."""

    def __init__(self, calls: Calls) -> None:
        self._calls = calls
        self._requests: dict[types.RequestId, str] = {}
        self._answered = anyio.Event()
        self.abandoned: list[str] = []
        """The requests given up at the end of the input, each as its id, method and tool."""

    def holds(self, request: types.JSONRPCRequest) -> bool:
        """Whether a request with ``request``'s id is in flight already."""
        return request.id in self._requests

    def received(self, item: SessionMessage) -> None:
        """Note a message passed to the session: a request to wait for, or a cancel."""
        message = item.message
        if isinstance(message, types.JSONRPCRequest):
            self._requests[message.id] = _what(message)
        elif isinstance(message, types.JSONRPCNotification) and message.method == CANCELLED:
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, (str, int)):
                self._forget(cancelled)

    def sent(self, item: SessionMessage) -> None:
        """Note a message the session sent: an answer ends the wait for its request."""
        message = item.message
        answer = isinstance(message, (types.JSONRPCResponse, types.JSONRPCError))
        if answer and message.id is not None:
            self._forget(message.id)

    def _forget(self, request_id: types.RequestId) -> None:
        self._requests.pop(request_id, None)
        self._answered.set()
        self._answered = anyio.Event()

    async def all_answered(self) -> None:
        """Return once every request received so far is answered and every cancelled call's
        thread has ended, or :func:`end_wait` seconds have passed; those still unanswered or
        running then are :attr:`abandoned`, and named on stderr."""
        limit = end_wait()
        with anyio.move_on_after(limit):
            while self._requests or self._calls.cancelled_running():
                # a thread's end comes with no event on this loop: looked at again shortly
                with anyio.move_on_after(LOOK_AGAIN_SECONDS):
                    await self._answered.wait()
        running = self._calls.cancelled_running()
        if not self._requests and not running:
            return
        self.abandoned = [*self._requests.values(), *running]
        said = []
        if self._requests:
            said.append(f"abandoned, unanswered: {', '.join(self._requests.values())}")
        if running:
            said.append(f"cancelled and still running, abandoned: {', '.join(running)}")
        print(
            f"tether mcp: the input ended and {len(self.abandoned)} request(s) had not ended "
            f"after {limit:g} s: {'; '.join(said)}; `tether list` shows whether a write among "
            "them was made",
            file=sys.stderr,
            flush=True,
        )


async def relay_answers(
    source: ObjectReceiveStream[SessionMessage],
    to_client: ObjectSendStream[SessionMessage],
    in_flight: InFlight,
) -> None:
    """Pass every message the session writes on to the client, noting the answers; close
    the client's stream when the session closes its own."""
    async with source, to_client:
        async for item in source:
            in_flight.sent(item)
            await to_client.send(item)
