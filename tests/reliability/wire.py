"""A raw LSP client over a server process's stdio, for load and disconnect tests.

Unlike ``bench/lsp_wire.py`` it keeps the server's stderr (to look for tracebacks), can send
a burst without waiting for answers, can hang up at any moment, and reads the server's memory
and open file descriptors from ``/proc``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Message = dict[str, Any]


def rss_kib(pid: int) -> int:
    """Resident memory of a process in KiB (``VmRSS`` in ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def open_fds(pid: int) -> int:
    """How many file descriptors a process has open (entries of ``/proc/PID/fd``)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                found.append(int(entry))
    return found


class Wire:
    """One language-server process and the messages it sent back."""

    def __init__(self, command: list[str], cwd: Path, stderr_path: Path) -> None:
        self._stderr = stderr_path.open("wb")
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=dict(os.environ),
        )
        self.stderr_path = stderr_path
        self.inbox: queue.Queue[Message] = queue.Queue()
        self.answers: dict[int, Message] = {}
        self.notifications = 0
        self._answered = threading.Condition()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
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
                message = json.loads(stream.read(length))
                if "id" in message and "method" not in message:
                    with self._answered:
                        self.answers[message["id"]] = message
                        self._answered.notify_all()
                elif "id" in message:  # a request from the server: answer null
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                else:
                    self.notifications += 1
                    self.inbox.put(message)

    def send(self, message: Message) -> None:
        """Write one message."""
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        """Send a notification."""
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_nowait(self, method: str, params: Any) -> int:
        """Send a request without waiting; return its id."""
        ident = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return ident

    def answer(self, ident: int, timeout: float) -> Message:
        """Wait for the answer to request ``ident``."""
        with self._answered:
            if not self._answered.wait_for(lambda: ident in self.answers, timeout):
                raise TimeoutError(f"no answer to request {ident} within {timeout} s")
            return self.answers[ident]

    def request(self, method: str, params: Any, timeout: float = 60.0) -> Message:
        """Send a request and wait for its answer message."""
        return self.answer(self.request_nowait(method, params), timeout)

    def wait_for(self, match: Callable[[Message], bool], timeout: float = 60.0) -> Message:
        """The next notification that matches (earlier ones are dropped)."""
        while True:
            message = self.inbox.get(timeout=timeout)
            if match(message):
                return message

    def initialize(self, root: Path) -> None:
        """The initialize handshake for one workspace folder, with hover as Markdown."""
        capabilities = {
            "textDocument": {
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "publishDiagnostics": {"relatedInformation": True},
            },
            "workspace": {"workspaceFolders": True},
        }
        self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": capabilities,
                "clientInfo": {"name": "tether-reliability-test"},
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        )
        self.notify("initialized", {})

    def hang_up(self, *, reading: bool) -> None:
        """Close our end of stdin (the server sees end of input); with ``reading`` False,
        stop reading its stdout too, so its next write hits a closed pipe."""
        assert self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        if not reading:
            assert self.process.stdout is not None
            with contextlib.suppress(OSError):
                self.process.stdout.close()

    def close(self) -> None:
        """Shut the server down politely if it still runs, else make sure it is gone."""
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=20)
                self.notify("exit", None)
                self.process.wait(timeout=20)
            except (TimeoutError, OSError, ValueError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self._stderr.close()

    def stderr(self) -> str:
        """What the server wrote on stderr so far."""
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")
