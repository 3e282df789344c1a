"""What real clients send and do that the protocol's happy path does not: Neovim's empty Lua
tables arriving as JSON ``[]``, and a client that quits without ``shutdown`` (even before it
answered the server's first request)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from recall.locations import project_location
from tests.lsp.raw import WAIT_SECONDS, RawClient, raw_server
from tests.lsp.workspace import Workspace

PULLS_CONFIGURATION = {"workspace": {"configuration": True}}


def _initialize(client: RawClient, root: Path, options: Any, caps: dict[str, Any]) -> None:
    msg_id = client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": caps,
            "initializationOptions": options,
        },
    )
    assert "result" in client.response(msg_id)
    client.notify("initialized", {})


def test_neovim_empty_tables_are_empty_settings(ws: Workspace) -> None:
    """``init_options = {}, settings = { tether = {} }`` in Neovim 0.11 arrives as ``[]``: no
    warning about it, at start or when the settings are pulled or pushed again."""
    with raw_server(ws.root) as client:
        client.answers["workspace/configuration"] = [[]]  # Neovim 0.11's answer, as recorded
        _initialize(client, ws.root, [], PULLS_CONFIGURATION)
        client.wait_for_request("workspace/configuration")
        client.notify("workspace/didChangeConfiguration", {"settings": []})
        client.barrier()
        assert client.shown_messages() == []
    with raw_server(ws.root) as client:
        _initialize(client, ws.root, {"tether": []}, {})
        client.notify("workspace/didChangeConfiguration", {"settings": {"tether": []}})
        client.barrier()
        assert client.shown_messages() == []


def test_a_list_with_something_in_it_is_still_refused(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        _initialize(client, ws.root, ["maxPerFile"], {})
        client.barrier()
        shown = client.shown_messages()
        assert any("initializationOptions: ignored" in m and "got list" in m for m in shown)


def _draft(client: RawClient, ws: Workspace) -> Path:
    """A draft opened by ``tether.remember`` (a client that cannot open it: written to disk)."""
    msg_id = client.request(
        "workspace/executeCommand",
        {"command": "tether.remember", "arguments": [{"uri": ws.store_py.as_uri()}]},
    )
    draft = Path(client.response(msg_id)["result"]["draft"])
    assert draft.exists()
    return draft


def test_drafts_nobody_touched_go_when_the_client_just_closes_stdin(ws: Workspace) -> None:
    """Neovim's ``:qa!`` sends no ``shutdown``: the drafts are swept on the way out all the
    same, and one the person wrote in is kept."""
    client = RawClient(ws.root)
    try:
        client.initialize(ws.root)
        untouched = _draft(client, ws)
        written = _draft(client, ws)
        written.write_text(written.read_text() + "what the person wrote\n")
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=WAIT_SECONDS) == 0
    finally:
        client.proc.kill()
    assert not untouched.exists()
    assert written.exists()
    assert written.parent == project_location(ws.root).base / "drafts"


def test_drafts_go_on_exit_without_shutdown(ws: Workspace) -> None:
    with raw_server(ws.root) as client:
        client.initialize(ws.root)
        untouched = _draft(client, ws)
        client.notify("exit")
        try:
            client.proc.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            client.proc.kill()
            raise
    assert not untouched.exists()


def test_a_client_gone_before_answering_the_settings_request_leaves_quietly(
    ws: Workspace, tmp_path: Path
) -> None:
    """The client quits during start-up, the server's ``workspace/configuration`` request
    unanswered: the server exits without a traceback (one plain line at most)."""
    stderr = tmp_path / "stderr.log"
    client = RawClient(ws.root, stderr)
    try:
        _initialize(client, ws.root, None, PULLS_CONFIGURATION)
        client.unanswered_request("workspace/configuration")
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=WAIT_SECONDS) == 0
    finally:
        client.proc.kill()
        client.close()
    said = stderr.read_text()
    assert "Traceback" not in said and "CancelledError" not in said
    assert len(said.splitlines()) <= 1


@pytest.mark.parametrize("stop", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_drafts_go_when_the_server_is_told_to_stop_by_a_signal(
    ws: Workspace, stop: signal.Signals
) -> None:
    """Emacs quits by sending its servers SIGHUP; a supervisor sends SIGTERM, a terminal
    Ctrl-C: the session ends as ``shutdown`` ends it, and the process leaves at once."""
    client = RawClient(ws.root)
    try:
        client.initialize(ws.root)
        untouched = _draft(client, ws)
        client.proc.send_signal(stop)
        assert client.proc.wait(timeout=WAIT_SECONDS) == 128 + stop
    finally:
        client.proc.kill()
        client.close()
    assert not untouched.exists()
