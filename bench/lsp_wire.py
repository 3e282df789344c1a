"""A minimal LSP client over a subprocess's stdio, for timing servers from the outside.

Messages are read on a thread and stamped with the time they arrived, so a latency is the
time between writing a message and the arrival of the answer, with nothing of a client
framework in between.
"""

from __future__ import annotations

import collections
import itertools
import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]


class Wire:
    """One server process and the messages it sent."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.inbox: queue.Queue[tuple[float, Message]] = queue.Queue()
        self.published: collections.Counter[str] = collections.Counter()
        """publishDiagnostics received per document URI (counted as they arrive)."""
        self.progress_begun: dict[str | int, float] = {}
        self.progress_ended: dict[str | int, float] = {}
        """When each work-done progress token began and ended (``$/progress``), as they
        arrive."""
        self._ids = itertools.count(1)
        self._writing = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = stream.read(length)
            message = json.loads(body)
            arrived = time.perf_counter()
            method = message.get("method")
            if method == "textDocument/publishDiagnostics":
                self.published[message["params"]["uri"]] += 1
            elif method == "$/progress":
                self._progress(message["params"], arrived)
            if "id" in message and method is not None:
                # A server request (progress token, registration): answered at once, as an
                # editor does, so the server's work never waits on the benchmark's loop.
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self.inbox.put((arrived, message))

    def _progress(self, params: dict[str, Any], arrived: float) -> None:
        kind = params.get("value", {}).get("kind")
        if kind == "begin":
            self.progress_begun[params["token"]] = arrived
        elif kind == "end":
            self.progress_ended[params["token"]] = arrived

    def ready(self, *, expect: bool, timeout: float = 60.0) -> float | None:
        """When every work-done progress begun so far had ended, waiting for it up to
        ``timeout`` seconds (with ``expect``, for one to begin first); None when the server
        reported none."""
        deadline = time.perf_counter() + timeout
        while (expect and not self.progress_begun) or (
            set(self.progress_begun) - set(self.progress_ended)
        ):
            if time.perf_counter() > deadline:
                raise TimeoutError("the server's work-done progress did not end in time")
            time.sleep(0.01)
        if not self.progress_ended:
            return None
        return max(self.progress_ended.values())

    def send(self, message: Message) -> float:
        """Write one message; return when it was written."""
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        with self._writing:  # the reader thread answers server requests
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()
        return time.perf_counter()

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; return when it was written."""
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 60.0) -> tuple[float, Any]:
        """Send a request and wait for its answer; return (seconds taken, result)."""
        ident = next(self._ids)
        sent = self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        arrived, message = self.wait(lambda m: m.get("id") == ident and "method" not in m, timeout)
        return arrived - sent, message.get("result")

    def wait(
        self, match: Callable[[Message], bool], timeout: float = 60.0
    ) -> tuple[float, Message]:
        """The next message that matches (others are answered if they are requests, or dropped)."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("the server did not answer in time")
            arrived, message = self.inbox.get(timeout=left)
            if match(message):
                return arrived, message

    def close(self) -> None:
        """Shut the server down politely, then make sure it is gone."""
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except (TimeoutError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def is_publish(uri: str) -> Callable[[Message], bool]:
    """A matcher for publishDiagnostics of one document."""
    return lambda m: (
        m.get("method") == "textDocument/publishDiagnostics" and (m["params"]["uri"] == uri)
    )
