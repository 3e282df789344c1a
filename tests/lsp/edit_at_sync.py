"""The language server with a hand edit made at the one moment a race needs: once the server
has written a memory file's new text to its temp file and synced it, before the rename puts it
in place (the moment ``tests/test_rewrite_races.py`` edits at inside one process).

Run as ``python -m tests.lsp.edit_at_sync lsp``. Nothing happens until a test arms it: a file
named :data:`ARM` beside the repository whose store is written. Its text is then appended to
the memory file being replaced (created when there is none), and the arm file removed, so the
edit lands once.
"""

from __future__ import annotations

import os
import runpy
import stat
import sys
from pathlib import Path

ARM = "edit-at-sync"
"""The arm file's name, in the folder that holds the repository."""

_real_fsync = os.fsync


def _edit_if_armed(fd: int) -> None:
    """The hand edit, when ``fd`` is a memory folder's temp file and the edit is armed."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return
    temp = Path(os.readlink(f"/proc/self/fd/{fd}"))
    if temp.parent.name != "memories" or not temp.name.startswith(".tmp-"):
        return
    arm = temp.parents[3] / ARM  # memories/ is in .tether/, in the repository
    try:
        line = arm.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    arm.unlink()
    name = temp.name.split("-", 2)[2]  # .tmp-<token>-<name>
    with (temp.parent / name).open("a", encoding="utf-8") as handle:
        handle.write(line)


def _fsync(fd: int) -> None:
    _real_fsync(fd)
    _edit_if_armed(fd)


if __name__ == "__main__":
    os.fsync = _fsync
    sys.argv = ["recall", *sys.argv[1:]]
    runpy.run_module("recall", run_name="__main__", alter_sys=True)
