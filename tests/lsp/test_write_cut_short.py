"""A session that ends while a write command waits on a store another process holds
(``shutdown``, or an editor that quits): the server stops cleanly, and the write it did not do
is said in the log, naming the store, never dropped without a word."""

from __future__ import annotations

from pathlib import Path

from tests.lsp.raw import WAIT_SECONDS, RawClient, raw_server
from tests.lsp.test_store_busy import held
from tests.lsp.workspace import Workspace

REQUEST_CANCELLED = -32800
LOG = "window/logMessage"


def _pin_waiting(client: RawClient, ws: Workspace) -> int:
    """Ask for a pin of the project store's gotcha (whose lock the test holds); return once
    it waits for the lock (the server handles messages in order). Its request id."""
    pin = client.request(
        "workspace/executeCommand",
        {"command": "tether.pin", "arguments": [{"memoryId": ws.gotcha}]},
    )
    client.barrier()
    assert client.count_responses(pin) == 0  # still waiting for the lock
    return pin


def _said_not_done(text: str, ws: Workspace) -> bool:
    return "tether.pin: not done" in text and str(ws.root / ".tether") in text


def test_shutdown_while_a_write_waits_is_answered_and_the_write_is_said_undone(
    ws: Workspace, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client, held(ws):
        assert "result" in client.initialize(ws.root)
        pin = _pin_waiting(client, ws)
        shutdown = client.response(client.request("shutdown"))
        assert shutdown == {"jsonrpc": "2.0", "id": shutdown["id"], "result": None}
        assert client.response(pin)["error"]["code"] == REQUEST_CANCELLED
        client.barrier()  # answered (refused: after shutdown) once the cancelled wait ended
        logged = [m["params"]["message"] for m in client.received if m.get("method") == LOG]
        assert [m for m in logged if _said_not_done(m, ws)], logged
        client.notify("exit")
        assert client.proc.wait(timeout=WAIT_SECONDS) == 0
    said = stderr.read_text()
    assert "Traceback" not in said
    assert _said_not_done(said, ws)
    assert "pinned: true" not in ws.memory_file(ws.gotcha).read_text()


def test_a_client_gone_while_a_write_waits_leaves_without_a_traceback_saying_so(
    ws: Workspace, tmp_path: Path
) -> None:
    stderr = tmp_path / "stderr.log"
    with raw_server(ws.root, stderr) as client, held(ws):
        assert "result" in client.initialize(ws.root)
        _pin_waiting(client, ws)
        assert client.proc.stdin is not None
        client.proc.stdin.close()  # the editor quits: no shutdown, no exit
        assert client.proc.wait(timeout=WAIT_SECONDS) == 0
    said = stderr.read_text()
    assert "Traceback" not in said and "CancelledError" not in said, said
    assert _said_not_done(said, ws)
    assert "pinned: true" not in ws.memory_file(ws.gotcha).read_text()
