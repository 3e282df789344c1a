"""A message body that is not JSON, or JSON that is no object, over raw stdio: JSON-RPC's error
response with id null, one line on stderr, and the next messages served as usual."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lsp.raw import RawClient, raw_server
from tests.lsp.workspace import Workspace

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def null_id_errors(client: RawClient) -> list[dict[str, Any]]:
    """The error responses received so far that carry an explicit ``"id": null``."""
    return [m for m in client.received if "id" in m and m["id"] is None and "error" in m]


def test_a_body_that_is_not_json_gets_a_parse_error_and_the_server_goes_on(
    ws: Workspace, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client:
        assert "result" in client.initialize(ws.root)
        client.send(b'{"jsonrpc": "2.0", "id": 5, "method": ')  # cut short
        client.send(b'{"jsonrpc": "2.0", "id": 6, "method": "\xff"}')  # not UTF-8
        done = client.request("shutdown")
        assert client.response(done) == {"jsonrpc": "2.0", "id": done, "result": None}
        errors = null_id_errors(client)
        assert [e["error"]["code"] for e in errors] == [PARSE_ERROR, PARSE_ERROR]
        assert all(e["error"]["message"].startswith("Parse error: ") for e in errors)
        assert all(e["jsonrpc"] == "2.0" for e in errors)
        assert client.count_responses(5) == client.count_responses(6) == 0
        assert client.shown_messages() == []
    lines = stderr.read_text().splitlines()
    assert not [line for line in lines if "Traceback" in line]
    assert len([line for line in lines if "Parse error" in line]) == 2


def test_json_that_is_no_object_is_an_invalid_request(ws: Workspace, tmp_path: Path) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client:
        assert "result" in client.initialize(ws.root)
        for body in (b"[1, 2]", b"42", b'"initialize"', b"null", b"true"):
            client.send(body)
        client.barrier()  # answered after every one before it
        errors = null_id_errors(client)
        assert [e["error"]["code"] for e in errors] == [INVALID_REQUEST] * 5
        assert all(e["error"]["message"].startswith("Invalid Request: ") for e in errors)
        assert "an array" in errors[0]["error"]["message"]
        done = client.request("shutdown")
        assert client.response(done) == {"jsonrpc": "2.0", "id": done, "result": None}
    assert "Traceback" not in stderr.read_text()


def test_an_unusable_id_is_answered_with_an_explicit_null(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        assert "result" in client.initialize(ws.root)
        client.send({"jsonrpc": "2.0", "id": [1], "method": "textDocument/hover"})
        client.barrier()
        assert [e["error"]["code"] for e in null_id_errors(client)] == [INVALID_REQUEST]


DEEP = 100_000
"""How deep the nested bodies go: far past what Python's stack lets its JSON reader descend."""


def test_a_body_nested_too_deep_gets_a_parse_error_and_the_server_goes_on(
    ws: Workspace, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client:
        assert "result" in client.initialize(ws.root)
        client.send(b"[" * DEEP + b"]" * DEEP)
        client.send(b'{"a":' * DEEP + b"1" + b"}" * DEEP)
        params = b'{"a":' * DEEP + b"1" + b"}" * DEEP
        client.send(
            b'{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": %s}' % params
        )
        client.barrier()  # answered after every one before it
        errors = null_id_errors(client)
        assert [e["error"]["code"] for e in errors] == [PARSE_ERROR] * 3
        assert all("nested too deep" in e["error"]["message"] for e in errors)
        assert all(e["error"]["message"].startswith("Parse error: ") for e in errors)
        assert client.count_responses(7) == 0
        done = client.request("shutdown")
        assert client.response(done) == {"jsonrpc": "2.0", "id": done, "result": None}
        assert client.shown_messages(at_most=1) == []
    text = stderr.read_text()
    assert "Traceback" not in text and "RecursionError" not in text
    assert len([line for line in text.splitlines() if "nested too deep" in line]) == 3
