"""The JSON-RPC contract over raw stdio: every request gets exactly one response (a result, or
an error with the spec's code), a client's mistake never pops up a message, and nothing is
served before ``initialize``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from lsp_server.commands import COMMANDS
from lsp_server.protocol import PROBLEMS_SHOWN
from recall.folder_watch import RACY_NS
from tests.lsp.raw import WAIT_SECONDS, RawClient, raw_server
from tests.lsp.test_store_busy import held
from tests.lsp.workspace import Workspace

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
REQUEST_FAILED = -32803
REQUEST_CANCELLED = -32800
LOG = "window/logMessage"


@pytest.fixture
def server(ws: Workspace) -> Iterator[RawClient]:
    """A server with the test repository open and ``src/store.py`` opened."""
    with raw_server(ws.root) as client:
        assert "result" in client.initialize(ws.root)
        client.notify("textDocument/didOpen", opened(ws))
        yield client


def opened(ws: Workspace) -> dict[str, Any]:
    return {
        "textDocument": {
            "uri": ws.store_py.as_uri(),
            "languageId": "python",
            "version": 1,
            "text": ws.store_py.read_text(),
        }
    }


def position(ws: Workspace, line: Any = 0, character: Any = 0) -> dict[str, Any]:
    return {
        "textDocument": {"uri": ws.store_py.as_uri()},
        "position": {"line": line, "character": character},
    }


def error_code(answer: dict[str, Any]) -> int | None:
    return answer["error"]["code"] if "error" in answer else None


def test_malformed_params_get_one_invalid_params_error(server: RawClient, ws: Workspace) -> None:
    zero = {"line": 0, "character": 0}
    cases: list[tuple[str, Any, bool]] = [
        ("textDocument/hover", None, False),  # no params member at all
        ("textDocument/hover", {"textDocument": {"uri": ws.store_py.as_uri()}}, True),
        ("textDocument/hover", {"textDocument": {}, "position": {"line": -1}}, True),
        ("textDocument/hover", position(ws, -1, 0), True),
        ("textDocument/hover", position(ws, "one", 0), True),
        ("textDocument/hover", [1, 2], True),
        ("textDocument/codeAction", {**position(ws), "range": {"start": zero, "end": zero}}, True),
        ("workspace/executeCommand", {"arguments": []}, True),
        ("workspace/executeCommand", {"command": "tether.pin", "arguments": [5]}, True),
        ("workspace/executeCommand", {"command": "tether.pin", "arguments": [{}]}, True),
    ]
    ids = [server.request(m, p, with_params=w) for m, p, w in cases]
    for msg_id, (method, params, _) in zip(ids, cases, strict=True):
        answer = server.response(msg_id)
        assert error_code(answer) == INVALID_PARAMS, (method, params, answer)
        assert method.split("/")[-1] in answer["error"]["message"] or "tether.pin" in str(answer)
    server.barrier()
    assert all(server.count_responses(i) == 1 for i in ids)
    assert server.shown_messages() == []


def test_an_id_without_method_and_unknown_methods(server: RawClient) -> None:
    server.send({"jsonrpc": "2.0", "id": 7, "params": {}})
    assert error_code(server.response(7)) == INVALID_REQUEST
    server.send({"jsonrpc": "2.0", "id": 8, "method": 42})
    assert error_code(server.response(8)) == INVALID_REQUEST
    server.send({"id": 9, "method": "textDocument/hover"})  # no "jsonrpc" member
    assert error_code(server.response(9)) == INVALID_REQUEST
    server.send({"jsonrpc": "2.0", "id": {"an": "object"}, "method": "textDocument/hover"})
    assert error_code(server.response(None)) == INVALID_REQUEST
    unknown = server.request("tether/nothingHere", {})
    assert error_code(server.response(unknown)) == METHOD_NOT_FOUND
    command = server.request("workspace/executeCommand", {"command": "tether.nope"})
    answer = server.response(command)
    assert error_code(answer) == METHOD_NOT_FOUND
    assert "command 'tether.nope' is not defined; the commands are " in answer["error"]["message"]
    assert "tether.remember" in answer["error"]["message"]
    server.barrier()
    assert [server.count_responses(i) for i in (7, 8, 9, unknown, command)] == [1] * 5
    assert server.shown_messages() == []


def test_requests_before_initialize(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        early = client.request("textDocument/hover", position(ws))
        client.notify("textDocument/didOpen", opened(ws))  # ignored, not an error
        assert error_code(client.response(early)) == SERVER_NOT_INITIALIZED
        malformed = client.request("textDocument/hover", position(ws, "x"))  # not served yet
        assert error_code(client.response(malformed)) == SERVER_NOT_INITIALIZED
        bad = client.request("initialize", {"processId": "notanint", "capabilities": {}})
        answer = client.response(bad)  # its own params are what is wrong, and said so
        assert error_code(answer) == INVALID_PARAMS, answer
        assert "processId" in answer["error"]["message"]
        assert "result" in client.initialize(ws.root)
        again = client.request("initialize", {"processId": None, "capabilities": {}})
        assert error_code(client.response(again)) == INVALID_REQUEST
        client.notify("textDocument/didOpen", opened(ws))
        answer = client.response(client.request("textDocument/hover", position(ws, 7, 8)))
        assert "result" in answer
        assert client.shown_messages() == []
        done = client.request("shutdown")
        assert client.response(done) == {"jsonrpc": "2.0", "id": done, "result": None}
        late = client.request("textDocument/hover", position(ws))
        assert error_code(client.response(late)) == INVALID_REQUEST


def test_did_change_of_a_document_never_opened(server: RawClient, ws: Workspace) -> None:
    never = (ws.root / "src" / "app.py").as_uri()
    change = {
        "textDocument": {"uri": never, "version": 2},
        "contentChanges": [{"text": "x = 1\n"}],
    }
    server.notify("textDocument/didChange", change)
    server.notify("textDocument/didChange", change)
    server.barrier()
    assert server.shown_messages() == []
    logged = [
        m["params"]["message"]
        for m in server.received
        if m.get("method") == "window/logMessage" and never in m["params"]["message"]
    ]
    assert len(logged) == 1 and "never opened" in logged[0]
    # the server goes on serving the documents that are open
    assert "result" in server.response(server.request("textDocument/hover", position(ws, 7, 8)))


# -- fuzz: every method Tether serves, with params a client could get wrong ------------------

REQUESTS = ["textDocument/hover", "textDocument/codeAction", "workspace/executeCommand"]
NOTIFICATIONS = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/willSave",
    "textDocument/didSave",
    "textDocument/didClose",
    "workspace/didChangeConfiguration",
    "workspace/didChangeWatchedFiles",
    "workspace/didChangeWorkspaceFolders",
    "$/setTrace",
    "$/cancelRequest",
]

KEYS = (
    *("textDocument", "uri", "position", "line", "character", "range", "start", "end"),
    *("context", "diagnostics", "command", "arguments", "contentChanges", "text"),
    *("settings", "changes", "event", "added", "removed", "value", "id", "version"),
)
"""Member names of the params Tether reads, so that generated objects get past the outer
checks and into the nested ones."""

SETTINGS_PROBLEM = ("tether: editor settings: ", "tether: initializationOptions: ")
"""How a problem in settings the client pushed starts: shown to the user on purpose."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.text(max_size=12)
    | st.sampled_from(["file:///nowhere.py", "untitled:1", *COMMANDS]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(KEYS),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    calls=st.lists(
        st.tuples(st.sampled_from(REQUESTS + NOTIFICATIONS), json_values, st.booleans()),
        min_size=1,
        max_size=6,
    )
)
def test_fuzz_every_request_gets_exactly_one_response(
    server: RawClient, calls: list[tuple[str, Any, bool]]
) -> None:
    ids = []
    for method, params, with_params in calls:
        if method in REQUESTS:
            ids.append(server.request(method, params, with_params=with_params))
        else:
            message = {"jsonrpc": "2.0", "method": method}
            if with_params:
                message["params"] = params
            server.send(message)
    for msg_id in ids:
        answer = server.response(msg_id)
        assert ("result" in answer) != ("error" in answer), answer
    server.barrier()
    assert [server.count_responses(i) for i in ids] == [1] * len(ids)
    stray = [m for m in server.received if "method" not in m and m.get("id") is None]
    assert stray == []
    # a generated call can be a valid command that tells the user something (an Info message,
    # such as where a draft was written), or settings pushed with unknown keys or bad values,
    # which are shown as a warning naming them; no other error or warning is ever shown
    shown = server.shown_messages(at_most=types.MessageType.Warning)
    assert [m for m in shown if not m.startswith(SETTINGS_PROBLEM)] == []
    assert server.proc.poll() is None


def test_the_numbers() -> None:
    # FAT stamps times to two seconds, the coarsest clock in common use; Linux file systems
    # stamp from a timer tick of a few milliseconds
    assert RACY_NS == 2_000_000_000
    assert PROBLEMS_SHOWN == 3


def test_an_error_quotes_three_problems_then_counts_the_rest(
    server: RawClient, ws: Workspace
) -> None:
    bad = {
        "textDocument": {"uri": 1},
        "range": {"start": {"line": "a", "character": "b"}, "end": {"line": "c", "character": 0}},
        "context": {"diagnostics": 5},
    }
    answer = server.response(server.request("textDocument/codeAction", bad))
    message = answer["error"]["message"]
    assert message.startswith("invalid params for textDocument/codeAction: ")
    assert message.count(" at params.") == PROBLEMS_SHOWN
    assert message.endswith(" more")
    assert "textDocument" in message and "text_document" not in message  # the client's names


def test_a_client_mistake_is_one_line_on_stderr_not_a_traceback(
    ws: Workspace, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client:
        assert "result" in client.initialize(ws.root)
        unreadable = client.request("textDocument/hover", position(ws, "one", 0))
        unknown = client.request(
            "workspace/executeCommand",
            {"command": "tether.pin", "arguments": [{"memoryId": "deadbeef"}]},
        )
        assert error_code(client.response(unreadable)) == INVALID_PARAMS
        assert error_code(client.response(unknown)) == REQUEST_FAILED
    lines = stderr.read_text().splitlines()
    assert not [line for line in lines if "Traceback" in line]
    assert len([line for line in lines if "textDocument/hover" in line]) == 1
    assert len([line for line in lines if "deadbeef" in line]) == 1


@pytest.mark.parametrize(("shut_down", "code"), [(True, 0), (False, 1)])
def test_exit_code_says_whether_shutdown_came_first(
    ws: Workspace, shut_down: bool, code: int
) -> None:
    with raw_server(ws.root) as client:
        assert "result" in client.initialize(ws.root)
        if shut_down:
            assert "result" in client.response(client.request("shutdown"))
        client.notify("exit")
        assert client.proc.wait(timeout=WAIT_SECONDS) == code


def test_command_arguments_that_are_not_a_list(server: RawClient, ws: Workspace) -> None:
    for arguments in ({"memoryId": ws.gotcha}, ws.gotcha):
        params = {"command": "tether.pin", "arguments": arguments}
        answer = server.response(server.request("workspace/executeCommand", params))
        assert error_code(answer) == INVALID_PARAMS, answer
        assert "arguments must be a list" in answer["error"]["message"]
    assert "pinned: true" not in ws.memory_file(ws.gotcha).read_text()  # nothing was done


def test_an_unreadable_reply_with_the_id_of_a_clients_request_leaves_it_alone(
    server: RawClient, ws: Workspace
) -> None:
    params = {"command": "tether.pin", "arguments": [{"memoryId": ws.gotcha}]}
    with held(ws):  # the pin waits for the writers' lock: a request of the client's in progress
        pin = server.request("workspace/executeCommand", params)
        server.barrier()  # handled after the pin began waiting
        server.send({"jsonrpc": "2.0", "id": pin, "error": "not an error object"})
        server.barrier()
        assert server.count_responses(pin) == 0  # no reply of the client's ends its own request
        server.notify("$/cancelRequest", {"id": pin})  # still the server's to cancel
        answer = server.response(pin)
    assert error_code(answer) == REQUEST_CANCELLED, answer
    assert "pinned: true" not in ws.memory_file(ws.gotcha).read_text()
    logged = [m["params"]["message"] for m in server.received if m.get("method") == LOG]
    assert any("error" in message for message in logged)  # the bad reply was said, once
