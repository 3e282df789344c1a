"""An answer to every request the server cannot read.

The SDK's stdio transport hands a line it cannot parse (not JSON, or JSON that is no JSON-RPC
message) to the session as an exception, and the session drops it without a reply: a client
that sent a request that way waits forever. JSON-RPC 2.0 asks for an error response: "Parse
error" (-32700, id null) for text that is not JSON, "Invalid Request" (-32600) with the
request's id for a request of the wrong shape (id null when the id itself is not a string or
an integer). A notification or a response (a message with ``result`` or ``error``) gets no
reply, as the specification says; it is logged on stderr. A request reusing the id of a
request still in flight is refused here too, never passed on (:func:`in_flight.duplicate_error`),
and so is a request read with text that is not UTF-8 (:mod:`mcp_server.broken_text`).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from mcp_server.broken_text import BrokenText
from mcp_server.in_flight import InFlight, duplicate_error
from mcp_server.json_words import json_type

log = logging.getLogger(__name__)

TOO_DEEP = "recursion limit exceeded"
"""How the SDK's JSON reader says a line is nested deeper than it reads (some 200 arrays or
objects inside each other): valid JSON, so "not JSON" would mislead the client."""


def error_for(failure: Exception) -> types.JSONRPCError | None:
    """The error response a message that failed to be read with ``failure`` deserves; None
    when it must get none (no id to answer)."""
    if not isinstance(failure, ValidationError):
        return None
    details = failure.errors()
    if any(d["type"] == "json_invalid" for d in details):
        if TOO_DEEP in details[0]["msg"]:
            text = "the message is nested too deep to read; nest its arrays and objects less deeply"
        else:
            text = f"the message is not JSON ({details[0]['msg']})"
        return _error(None, types.PARSE_ERROR, text)
    # the message itself is the object input failing nearest the top (an id may be an object)
    objects = [d for d in details if isinstance(d.get("input"), dict)]
    message = min(objects, key=lambda d: len(d["loc"]))["input"] if objects else None
    if message is None:
        return _error(None, types.INVALID_REQUEST, "a JSON-RPC message must be an object")
    if "result" in message or "error" in message or "id" not in message:
        return None  # a response, or a notification: nothing to answer
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        text = f"'id' must be a string or an integer, not {json_type(request_id)}"
        return _error(None, types.INVALID_REQUEST, text)
    if "method" not in message:
        text = "a request needs a 'method' (a string); a response needs 'result' or 'error'"
        return _error(request_id, types.INVALID_REQUEST, text)
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
    in_flight: InFlight,
    broken: BrokenText | None = None,
) -> None:
    """Pass every message read from ``source`` on to the session; answer each one that could
    not be read, that reuses the id of a request in flight, or that was read with text that
    is not UTF-8 (noted in ``broken``), to the client directly instead.
    Ends (closing ``to_session``) with the input, once every request passed on is answered or
    abandoned (:mod:`mcp_server.in_flight`)."""
    async with to_session:
        async for item in source:
            reply: types.JSONRPCError | None
            if isinstance(item, Exception):
                reply = error_for(item)
                if reply is not None and reply.id is not None and broken is not None:
                    broken.answered(reply.id)  # a request held for its text, answered here
                why = reply.error.message if reply is not None else _first_line(item)
                log.warning("a message could not be read: %s", why)
            elif isinstance(item.message, types.JSONRPCRequest) and (
                reply := broken.refusal(item.message) if broken is not None else None
            ):
                log.warning("a request was refused: %s", reply.error.message)
            elif isinstance(item.message, types.JSONRPCRequest) and in_flight.holds(item.message):
                reply = duplicate_error(item.message)
                log.warning("a request was refused: %s", reply.error.message)
            else:
                in_flight.received(item)
                await to_session.send(item)
                continue
            if reply is not None:
                try:
                    await to_client.send(SessionMessage(reply))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
        await in_flight.all_answered()


def _first_line(failure: Exception) -> str:
    if isinstance(failure, ValidationError):
        first = failure.errors()[0]
        return f"{first['type']}: {first['msg']}"
    return str(failure).splitlines()[0] if str(failure) else type(failure).__name__
