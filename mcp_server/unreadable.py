"""An answer to every request the server cannot read.

The SDK's stdio transport hands a line it cannot parse (not JSON, or JSON that is no JSON-RPC
message) to the session as an exception, and the session drops it without a reply: a client
that sent a request that way waits forever. JSON-RPC 2.0 asks for an error response: "Parse
error" (-32700, id null) for text that is not JSON, "Invalid Request" (-32600) with the
request's id for a request of the wrong shape. A message without an id (a notification, a
response) gets no reply, as the specification says; it is logged on stderr.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)


def error_for(failure: Exception) -> types.JSONRPCError | None:
    """The error response a message that failed to be read with ``failure`` deserves; None
    when it must get none (no id to answer)."""
    if not isinstance(failure, ValidationError):
        return None
    details = failure.errors()
    if any(d["type"] == "json_invalid" for d in details):
        text = f"the message is not JSON ({details[0]['msg']})"
        return _error(None, types.PARSE_ERROR, text)
    message = next((d["input"] for d in details if isinstance(d.get("input"), dict)), None)
    if message is None:
        return _error(None, types.INVALID_REQUEST, "a JSON-RPC message must be an object")
    request_id = message.get("id")
    if "method" not in message or not isinstance(request_id, (str, int)):
        return None  # a notification or a response: nothing to answer
    return _error(request_id, types.INVALID_REQUEST, _why(message))


def _why(message: dict[str, Any]) -> str:
    method = message.get("method")
    if not isinstance(method, str):
        return "'method' must be a string"
    params = message.get("params")
    if "params" in message and not isinstance(params, dict):
        return f"{method}: 'params' must be an object"
    return f'{method}: not a JSON-RPC 2.0 request (it needs "jsonrpc": "2.0")'


def _error(request_id: str | int | None, code: int, text: str) -> types.JSONRPCError:
    data = types.ErrorData(code=code, message=text)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=data)


async def answer_unreadable(
    source: ObjectReceiveStream[SessionMessage | Exception],
    to_session: ObjectSendStream[SessionMessage | Exception],
    to_client: ObjectSendStream[SessionMessage],
) -> None:
    """Pass every message read from ``source`` on to the session; answer each one that could
    not be read to the client directly instead. Ends (closing ``to_session``) with the input."""
    async with to_session:
        async for item in source:
            if not isinstance(item, Exception):
                await to_session.send(item)
                continue
            reply = error_for(item)
            why = reply.error.message if reply is not None else _first_line(item)
            log.warning("a message could not be read: %s", why)
            if reply is not None:
                try:
                    await to_client.send(SessionMessage(reply))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return


def _first_line(failure: Exception) -> str:
    if isinstance(failure, ValidationError):
        first = failure.errors()[0]
        return f"{first['type']}: {first['msg']}"
    return str(failure).splitlines()[0] if str(failure) else type(failure).__name__
