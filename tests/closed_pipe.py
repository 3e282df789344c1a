"""The real CLI writing into a pipe whose reader is already gone (``tether … | head -1`` after
``head`` has read its line), for the tests of what such a command exits with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def into_closed_pipe(cwd: Path, *args: str) -> tuple[int, str]:
    """Run ``tether ARGS`` in ``cwd`` (the test's environment) with its stdout a pipe whose
    reader was closed before the first line: the exit code and stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "recall", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr
