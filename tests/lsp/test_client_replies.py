"""The client's replies to the server's own requests: one the server cannot read (a ``null``
where a result is due) is taken as a failed request, so the code waiting on it goes on by its
fallback instead of waiting for ever."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.lsp.raw import raw_server
from tests.lsp.workspace import GOTCHA, Workspace

PULLS_AND_WATCHES = {
    "workspace": {
        "configuration": True,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
    }
}
CREATES_FILES = {
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create"]},
    }
}


def _logged(received: list[dict[str, Any]], word: str) -> list[str]:
    return [
        m["params"]["message"]
        for m in received
        if m.get("method") == "window/logMessage" and word in m["params"]["message"]
    ]


def test_a_null_configuration_reply_leaves_the_defaults_and_start_up_goes_on(
    ws: Workspace,
) -> None:
    with raw_server(ws.root) as client:  # it answers null to every request of the server's
        assert "result" in client.initialize(ws.root, PULLS_AND_WATCHES)
        client.wait_for_request("workspace/configuration")
        # the next step of `initialized`, reached only once the pull is over
        client.wait_for_request("client/registerCapability")
        client.barrier()
        (said,) = _logged(client.received, "workspace/configuration")
        assert "using the other settings" in said
        item = {"uri": ws.store_py.as_uri(), "languageId": "python", "version": 1}
        client.notify("textDocument/didOpen", {"textDocument": {**item, "text": "x = 1\n"}})
        client.barrier()
        published = [
            m["params"]
            for m in client.received
            if m.get("method") == "textDocument/publishDiagnostics"
        ]
        assert [p["diagnostics"][0]["code"] for p in published] == [ws.gotcha]  # defaults


def test_a_null_apply_edit_reply_writes_the_draft_itself(ws: Workspace, tmp_path: Path) -> None:
    with raw_server(ws.root) as client:
        assert "result" in client.initialize(ws.root, CREATES_FILES)
        arguments = [{"uri": ws.store_py.as_uri(), "fromHint": True}]
        asked = client.request(
            "workspace/executeCommand", {"command": "tether.remember", "arguments": arguments}
        )
        answer = client.response(asked)
        assert client.wait_for_request("workspace/applyEdit")
        result = answer["result"]
        assert result["applied"] is False
        assert Path(result["draft"]).read_text().startswith("---\n")  # written by the server


def test_a_null_show_document_reply_shows_the_card_as_a_message(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        assert "result" in client.initialize(
            ws.root, {"window": {"showDocument": {"support": True}}}
        )
        arguments = [{"memoryId": ws.gotcha, "display": True, "fromHint": True}]
        asked = client.request(
            "workspace/executeCommand", {"command": "tether.show", "arguments": arguments}
        )
        assert client.response(asked)["result"]["id"] == ws.gotcha
        assert client.wait_for_request("window/showDocument")
        assert any(GOTCHA in message for message in client.shown_messages())


def test_a_failing_configuration_pull_is_logged_once(ws: Workspace) -> None:
    """Every pull a client answers with ``null`` fails the same way: said once in the log, at
    the first; a pull after a change of settings says nothing more."""

    def published() -> int:
        return sum(m.get("method") == "textDocument/publishDiagnostics" for m in client.received)

    with raw_server(ws.root) as client:
        assert "result" in client.initialize(ws.root, PULLS_AND_WATCHES)
        client.wait_for_request("client/registerCapability")  # the start-up pull is over
        item = {"uri": ws.store_py.as_uri(), "languageId": "python", "version": 1}
        client.notify("textDocument/didOpen", {"textDocument": {**item, "text": "x = 1\n"}})
        client.barrier()
        before = published()
        for _ in range(2):
            client.notify("workspace/didChangeConfiguration", {"settings": None})
            for _ in range(200):  # published again once the pull's answer was read
                client.barrier()
                if published() > before:
                    break
                time.sleep(0.02)
            before = published()
        pulls = [m for m in client.received if m.get("method") == "workspace/configuration"]
        assert len(pulls) == 3
        assert len(_logged(client.received, "workspace/configuration")) == 1
