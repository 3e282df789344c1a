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


CONTROLLING = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'recall', 'browse'])"
)
"""``tether browse`` with the pseudo-terminal as its controlling terminal, as a shell starts
it: the kernel then sends it SIGHUP when the terminal closes."""


def start_browse(repo: Path) -> tuple[subprocess.Popen[bytes], int, bytearray]:
    """The browser on a pseudo-terminal of its own, once its first screen is drawn: the
    process, the terminal's leader side and what it showed so far."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "TETHER_WARM": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CONTROLLING],
        cwd=repo,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        start_new_session=True,
    )
    os.close(follower)
    seen = bytearray()
    drawn = read_until(leader, b"shown", seen)
    if not drawn:
        proc.kill()
        proc.wait(timeout=STARTUP_WAIT)
        os.close(leader)
        raise AssertionError(bytes(seen)[-400:])
    return proc, leader, seen


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_quit_leaves_the_terminal_as_quitting_does(
    repo: Path, number: signal.Signals
) -> None:
    proc, leader, seen = start_browse(repo)
    try:
        proc.send_signal(number)
        read_until(leader, b"\x00never\x00", seen)  # to the end of the output
        code = proc.wait(timeout=STARTUP_WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=STARTUP_WAIT)
        os.close(leader)
    assert code == 0  # quit as q quits, not ended by the signal
    after = bytes(seen).rsplit(ENTER_ALT_SCREEN, 1)[-1]
    assert LEAVE_ALT_SCREEN in after
    assert MOUSE_OFF in after


def test_the_terminal_closing_quits_the_browser_as_q_does(repo: Path) -> None:
    proc, leader, _seen = start_browse(repo)
    os.close(leader)  # the terminal window closed: the kernel hangs its session up
    try:
        code = proc.wait(timeout=STARTUP_WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=STARTUP_WAIT)
    assert code == 0  # ended through its own quit, not killed by SIGHUP
