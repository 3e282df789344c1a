"""``tether browse`` on a real pseudo-terminal: what it leaves the terminal in when it ends."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

STARTUP_WAIT = 120
"""Seconds to wait for the browser's first screen before giving up: a guard against a hang on
a loaded machine, not a measure of speed."""

ENTER_ALT_SCREEN = b"\x1b[?1049h"
LEAVE_ALT_SCREEN = b"\x1b[?1049l"
MOUSE_OFF = b"\x1b[?1000l"


def read_until(leader: int, wanted: bytes, seen: bytearray) -> bool:
    """Read the terminal into ``seen`` until ``wanted`` is in it (True) or it closes (False)."""
    while wanted not in seen:
        ready, _, _ = select.select([leader], [], [], STARTUP_WAIT)
        if not ready:
            return False
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        seen.extend(chunk)
    return True


def test_sigterm_leaves_the_terminal_as_quitting_does(repo: Path) -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "TETHER_WARM": "0"}
    with subprocess.Popen(
        [sys.executable, "-m", "recall", "browse"],
        cwd=repo,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
    ) as proc:
        os.close(follower)
        seen = bytearray()
        try:
            drawn = read_until(leader, b"shown", seen)
            assert drawn, bytes(seen)[-400:]
            proc.send_signal(signal.SIGTERM)
            read_until(leader, b"\x00never\x00", seen)  # to the end of the output
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=STARTUP_WAIT)
            os.close(leader)
    after = bytes(seen).rsplit(ENTER_ALT_SCREEN, 1)[-1]
    assert LEAVE_ALT_SCREEN in after
    assert MOUSE_OFF in after
