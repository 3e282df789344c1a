"""Run a command with this process's stdio and write its exit code to a file.

``python exit_code.py CODE_FILE COMMAND...``: for a server started by a client library that
does not expose the child's exit status (the MCP SDK's stdio client), so a test can still
check that the server ended by itself with 0. No file means the command never ended on its
own (the client had to kill this process). Standard library only; run by path.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run ``argv[1:]``, record its exit code in ``argv[0]`` and exit with it."""
    code = subprocess.call(argv[1:])
    Path(argv[0]).write_text(str(code), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
