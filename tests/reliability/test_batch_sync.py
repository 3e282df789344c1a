"""A bulk import makes its files durable with one sync of the memory folder's filesystem.

The import writes every memory file without a sync of its own, then syncs once before the
index rows naming the files commit. That sync must not wait for every filesystem of the
machine (a ``sync``: a USB stick being filled, a network mount), only for the folder's own
(``syncfs`` on Linux). The real ``tether import`` runs under ``strace``, which lists the sync
calls it makes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.reliability.procs import run_cli

STRACE = shutil.which("strace")


def _strace() -> str:
    if STRACE is None:
        reason = "strace is not installed"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"{reason}; .ci/run installs it")
        pytest.skip(reason)
    return STRACE


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")
def test_an_import_syncs_the_memory_folders_filesystem_and_not_every_one(
    repo: Path, tmp_path: Path
) -> None:
    source = tmp_path / "memories.jsonl"
    records = [
        {
            "summary": f"imported note {i} on the pool",
            "category": "context",
            "files": ["src/app.py"],
        }
        for i in range(5)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    trace = tmp_path / "trace.txt"
    done = run_cli(
        repo,
        "import",
        str(source),
        prefix=[_strace(), "-f", "-qq", "-e", "trace=sync,syncfs", "-o", str(trace)],
    )
    assert done.returncode == 0, done.stderr
    assert "Imported 5 memories" in done.stdout
    calls = trace.read_text(encoding="utf-8")
    assert re.search(r"\bsyncfs\(\d+\)\s*= 0", calls), calls
    assert not re.search(r"\bsync\(\)", calls), calls
    assert len(list((repo / ".tether" / "memories").glob("*.md"))) == 5
