"""The requests the session was given and has not answered yet, so that the end of the input
waits for their answers.

A client may write its requests and close stdin at once (``{ ...; tools/call ... } | tether
mcp``). The SDK ends the session at the end of the input and cancels the handlers still
running: a write could be done and its answer never sent. Here the input is held open to the
session until every request it received is answered (a request the client cancelled is not
waited for: it gets no answer), then closed.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

CANCELLED = "notifications/cancelled"


class InFlight:
    """The ids of the requests passed to the session and not answered yet."""

    def __init__(self) -> None:
        self._ids: set[types.RequestId] = set()
        self._answered = anyio.Event()

    def received(self, item: SessionMessage) -> None:
        """Note a message passed to the session: a request to wait for, or a cancel."""
        message = item.message
        if isinstance(message, types.JSONRPCRequest):
            self._ids.add(message.id)
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
        self._ids.discard(request_id)
        self._answered.set()
        self._answered = anyio.Event()

    async def all_answered(self) -> None:
        """Return once every request received so far is answered."""
        while self._ids:
            await self._answered.wait()


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
