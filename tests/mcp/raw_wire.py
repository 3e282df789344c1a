"""What the tests that speak to the MCP server in raw bytes share: the handshake's messages,
one message as a line of bytes, and how long a reply is waited for."""

from __future__ import annotations

import json
from typing import Any

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
WAIT_S = 120  # a bound against a hang on a loaded machine, not a timing


def line(message: dict[str, Any]) -> bytes:
    """``message`` as one line of JSON, as a client sends it."""
    return json.dumps(message).encode() + b"\n"
