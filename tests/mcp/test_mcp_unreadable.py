"""Every request the MCP server cannot read is answered, over the real stdio wire.

Spoken to with raw lines (the SDK's client would never send them): text that is not JSON, a
request whose params are not an object, a request without ``"jsonrpc"``, a bare array. Each
request gets its JSON-RPC error; a notification of the wrong shape gets none; the server
keeps serving.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from tests.mcp.raw_wire import INITIALIZE, start_server

REPLY_WAIT_S = 60  # a generous bound for a reply on a loaded machine, not a timing


def _lines(repo: Path, sent: list[str], last_id: int) -> list[dict[str, Any]]:
    """Send ``sent`` to a fresh ``tether mcp`` in ``repo``; every message it writes back, up
    to the reply to ``last_id``."""
    server = start_server(repo, stderr=subprocess.DEVNULL, text=True)
    assert server.stdin is not None and server.stdout is not None
    replies: Queue[str] = Queue()
    threading.Thread(target=lambda: [replies.put(x) for x in server.stdout], daemon=True).start()
    got: list[dict[str, Any]] = []
    try:
        server.stdin.write("".join(f"{line}\n" for line in sent))
        server.stdin.flush()
        while not got or got[-1].get("id") != last_id:
            try:
                got.append(json.loads(replies.get(timeout=REPLY_WAIT_S)))
            except Empty:
                raise AssertionError(f"no reply to {last_id}; got {got}") from None
    finally:
        server.stdin.close()
        server.wait(timeout=REPLY_WAIT_S)
    return got


def test_each_unreadable_request_gets_its_error_and_the_server_goes_on(repo: Path) -> None:
    sent = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "oops"}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 5}),
        json.dumps({"id": "three", "method": "tools/list"}),
        json.dumps([1, 2]),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    ]
    got = _lines(repo, sent, last_id=4)
    assert got[0]["id"] == 1 and "result" in got[0]
    errors = [(m["id"], m["error"]["code"], m["error"]["message"]) for m in got[1:-1]]
    assert errors == [
        (None, -32700, errors[0][2]),
        (2, -32600, "tools/call: 'params' must be an object"),
        ("three", -32600, 'tools/list: not a JSON-RPC 2.0 request (it needs "jsonrpc": "2.0")'),
        (None, -32600, "a JSON-RPC message must be an object"),
    ]
    assert errors[0][2].startswith("the message is not JSON")
    assert [t["name"] for t in got[-1]["result"]["tools"]]  # still serving


DEEP = 100_000
"""How deep the nested lines go: far past what Python's stack lets its JSON reader descend."""


def test_a_line_nested_too_deep_gets_a_parse_error_and_the_server_goes_on(repo: Path) -> None:
    nested = '{"a":' * DEEP + "1" + "}" * DEEP
    half_deep = "[" * 600 + "]" * 600  # Python's JSON reads it; a walk of it overflows
    request = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": '
    surrogate = (
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"x": "\\ud800", "y": '
    )
    sent = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "[" * DEEP + "]" * DEEP,
        nested,
        request + nested + "}",
        surrogate + nested + "}}",
        surrogate + half_deep + "}}",
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    ]
    got = _lines(repo, sent, last_id=4)
    assert got[0]["id"] == 1 and "result" in got[0]
    errors = [(m["id"], m["error"]["code"], m["error"]["message"]) for m in got[1:-1]]
    too_deep = "the message is nested too deep to read; nest its arrays and objects less deeply"
    assert errors[:3] == [(None, -32700, too_deep)] * 3
    # the SDK's reader stops at the lone surrogate first: a parse error all the same
    assert [(i, code) for i, code, _ in errors[3:]] == [(None, -32700)] * 2
    assert [t["name"] for t in got[-1]["result"]["tools"]]  # still serving
