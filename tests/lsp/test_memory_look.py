"""A client that registers no file watchers still sees a memory the CLI writes, with no
message of its own: the server looks at the memory folders on a timer. A client with watchers
gets no such timer (its watchers report the write), and the look ends with the session."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from lsp_server.watching import MEMORY_LOOK_SECONDS
from tests.conftest import run_tether
from tests.lsp.raw import WAIT_SECONDS, raw_server
from tests.lsp.session import Session
from tests.lsp.workspace import Workspace

CLI_GOTCHA = "app start must read the config before the session"
GENEROUS_SECONDS = 20.0
"""How long a test waits for the timed look to publish: a guard against hanging, many looks
long, not a measure of how soon it comes."""


def remember_from_the_cli(ws: Workspace, path: str = "src/app.py") -> str:
    """Write a gotcha for ``path`` with the CLI, in another process; its id."""
    done = run_tether("--json", "remember", CLI_GOTCHA, "-c", "gotcha", "-f", path, cwd=ws.root)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_the_look_interval() -> None:
    # a couple of seconds: soon enough that a person reading the file sees the memory arrive,
    # and an idle server's cost (a stat or two per store) stays unmeasurable
    assert MEMORY_LOOK_SECONDS == 2.0


@pytest.mark.asyncio
async def test_a_cli_write_is_published_without_a_message(lsp_one: Session, ws: Workspace) -> None:
    lsp = lsp_one  # Neovim 0.7: no dynamic registration of file watchers
    await lsp.open(ws.app_py)
    assert [d.code for d in lsp.diagnostics(ws.app_py)] == [ws.app_gotcha]
    assert lsp.client.registrations == []  # type: ignore[attr-defined]
    new_id = remember_from_the_cli(ws)
    # no message is sent from here on: only the server's own look can publish it
    await lsp.wait_until(
        lambda: new_id in [d.code for d in lsp.diagnostics(ws.app_py)], GENEROUS_SECONDS
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("client", ["visual-studio-code"], indirect=True)
async def test_no_timed_look_while_the_client_watches(lsp: Session, ws: Workspace) -> None:
    await lsp.open(ws.app_py)
    await lsp.wait_until(lambda: lsp.client.registrations)  # type: ignore[attr-defined]
    await lsp.indexing_ended()
    await lsp.quiet()
    new_id = remember_from_the_cli(ws)
    await asyncio.sleep(3 * MEMORY_LOOK_SECONDS)  # three looks, had there been a timer
    assert new_id not in [d.code for d in lsp.diagnostics(ws.app_py)]
    await lsp.settle()  # a message of the client's: the server's look on each message sees it
    assert new_id in [d.code for d in lsp.diagnostics(ws.app_py)]


def test_the_look_ends_at_shutdown(ws: Workspace, tmp_path: Path) -> None:
    stderr = tmp_path / "stderr.log"
    uri = ws.app_py.as_uri()
    with raw_server(ws.root, stderr) as client:
        assert "result" in client.initialize(ws.root)  # no capabilities: no watchers
        document = {"uri": uri, "languageId": "python", "version": 1, "text": ws.app_py.read_text()}
        client.notify("textDocument/didOpen", {"textDocument": document})
        client.barrier()
        codes = [d["code"] for d in _published(client.received, uri)[-1]["diagnostics"]]
        assert ws.app_gotcha in codes  # the document is published for: a late one would show
        done = client.request("shutdown")
        assert client.response(done)["result"] is None
        answered = client.received.index(client.response(done))
        remember_from_the_cli(ws)
        time.sleep(2 * MEMORY_LOOK_SECONDS)  # two looks, had the timer outlived shutdown
        client.notify("exit")
        assert client.proc.wait(timeout=WAIT_SECONDS) == 0
        assert list(client.responses_to("read to the end")) == []
    assert _published(client.received[answered + 1 :], uri) == []
    assert "Traceback" not in stderr.read_text()
    assert "memory folders" not in stderr.read_text()


def _published(messages: list[dict[str, Any]], uri: str) -> list[dict[str, Any]]:
    """The ``publishDiagnostics`` params for ``uri`` among ``messages``, in order."""
    return [
        m["params"]
        for m in messages
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    ]
