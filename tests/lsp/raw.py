"""A JSON-RPC client over the server's stdio that sends whatever it is given, malformed
messages included (pytest-lsp's client refuses to), and keeps every message it receives."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "recall", "lsp"]
WAIT_SECONDS = 20.0
"""How long a test waits for an answer before failing (a guard against hanging, not a
measure: the goal is an answer at all)."""


class RawClient:
    """One server process and everything it sent back."""

    def __init__(
        self, cwd: Path, stderr: Path | None = None, command: list[str] | None = None
    ) -> None:
        self._stderr = stderr.open("wb") if stderr is not None else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            command or SERVER,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.received: list[dict[str, Any]] = []
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._next_id = 1000
        self.answers: dict[str, Any] = {}
        """What to answer the server's own requests with, by method (else null)."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    self._inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self._inbox.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any] | bytes) -> None:
        """Write one message (a dict is JSON-encoded; bytes are sent as the body as-is)."""
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def new_id(self) -> int:
        """An id no other request of this client used."""
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, *, with_params: bool = True) -> int:
        """Send a request (without a ``params`` member when ``with_params`` is false)."""
        msg_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if with_params:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def response(self, msg_id: int | str | None) -> dict[str, Any]:
        """Wait for the response to ``msg_id`` (answering the server's own requests)."""
        for message in self.responses_to(msg_id):
            return message
        raise AssertionError(f"no response to {msg_id}")

    def responses_to(self, msg_id: int | str | None) -> Iterator[dict[str, Any]]:
        found = [m for m in self.received if _is_response(m) and m.get("id") == msg_id]
        yield from found
        while True:
            try:
                message = self._inbox.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                return
            if message is None:
                return
            self.received.append(message)
            if "method" in message and "id" in message:  # a request of the server's own
                result = self.answers.get(message["method"])
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif _is_response(message) and message.get("id") == msg_id:
                yield message

    def initialize(self, root: Path, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        """The handshake, with no client capabilities beyond the basics unless given."""
        msg_id = self.request(
            "initialize",
            {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {}},
        )
        answer = self.response(msg_id)
        self.notify("initialized", {})
        return answer

    def barrier(self) -> None:
        """Return once the server has answered everything sent before (it handles messages
        in order, so a later answer means the earlier ones were handled)."""
        self.response(self.request("textDocument/hover", _HOVER))

    def wait_for_request(self, method: str) -> dict[str, Any]:
        """The first request ``method`` the server sent (waiting for it; answered from
        :attr:`answers` like every request of the server's)."""
        for _ in range(int(WAIT_SECONDS / 0.05)):
            found = [m for m in self.received if m.get("method") == method and "id" in m]
            if found:
                return found[0]
            self.barrier()
            time.sleep(0.05)
        raise AssertionError(f"the server never sent {method}")

    def unanswered_request(self, method: str) -> dict[str, Any]:
        """Wait for the server's request ``method`` and leave it unanswered (as a client that
        quits before it answers); every message until it is kept, none answered."""
        while True:
            try:
                message = self._inbox.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                message = None
            if message is None:
                raise AssertionError(f"the server never sent {method}")
            self.received.append(message)
            if message.get("method") == method and "id" in message:
                return message

    def count_responses(self, msg_id: int | str | None) -> int:
        """How many responses with ``msg_id`` arrived so far."""
        return sum(1 for m in self.received if _is_response(m) and m.get("id") == msg_id)

    def shown_messages(self, at_most: int = 4) -> list[str]:
        """Every ``window/showMessage`` text received, of type ``at_most`` (4: Log) or more
        severe (1: Error)."""
        return [
            m["params"]["message"]
            for m in self.received
            if m.get("method") == "window/showMessage" and m["params"].get("type", 1) <= at_most
        ]

    def close(self) -> None:
        """End the process (politely when it still listens)."""
        with suppress(OSError, ValueError):  # ValueError: the test closed its stdin already
            self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            self.proc.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()


_HOVER = {
    "textDocument": {"uri": "file:///tether-raw-barrier"},
    "position": {"line": 0, "character": 0},
}


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


@contextmanager
def raw_server(
    cwd: Path, stderr: Path | None = None, command: list[str] | None = None
) -> Iterator[RawClient]:
    """A server process for one test (its stderr written to ``stderr`` when given; started as
    ``command`` when given, else as :data:`SERVER`), ended afterwards."""
    client = RawClient(cwd, stderr, command)
    try:
        yield client
    finally:
        client.close()
