"""A read-only store: writes fail with a clear error and leave nothing half-written.

Index damage (deleted, truncated, garbage, future schema) is already covered by
``tests/test_index.py``; this module covers only what it does not: a ``.tether`` whose
permissions forbid writing. Root ignores file modes, so when the tests run as root the CLI is
started through ``setpriv`` with the capabilities that bypass permission checks
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``) removed from its bounding set.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import remember

from recall.store import MemoryStore

SETPRIV = shutil.which("setpriv")
DROP_CAPS = "-dac_override,-dac_read_search,-fowner"
WRITES = [
    ("remember", "-c", "gotcha", "-f", "src/app.py", "written into a read-only store"),
    ("pin", "{id}"),
    ("archive", "{id}"),
    ("supersede", "{id}", "-c", "decision", "-f", "src/app.py", "a successor"),
]


def _prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    if SETPRIV is None:
        pytest.skip("running as root, and no setpriv to drop the permission-bypass capabilities")
    return [SETPRIV, f"--bounding-set={DROP_CAPS}", "--"]


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_prefix(), sys.executable, "-m", "recall", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=60,
        check=False,
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _make_read_only(paths: list[Path]) -> None:
    for path in paths:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


@pytest.fixture
def seeded(repo: Path, store: MemoryStore) -> Iterator[tuple[Path, str]]:
    """A store with three memories; the first id is returned. Permissions restored afterwards."""
    first = remember(store, "first memory about the app")
    remember(store, "second memory about the app")
    remember(store, "third memory about the util", files=["src/util.py"])
    store.close()
    tether = repo / ".tether"
    yield tether, first
    for path in [tether, *tether.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _assert_writes_refused(repo: Path, memory_id: str) -> int:
    memories = repo / ".tether" / "memories"
    before = _snapshot(memories)
    refused = 0
    for write in WRITES:
        done = _cli(repo, *(arg.format(id=memory_id) for arg in write))
        assert done.returncode != 0, f"{write[0]} succeeded in a read-only store"
        assert "not writable" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert _snapshot(memories) == before, f"{write[0]} changed the memory folder"
        refused += 1
    return refused


def test_read_only_memories_folder_refuses_writes_and_still_recalls(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    tether, first = seeded
    _make_read_only([tether / "memories", *(tether / "memories").iterdir()])
    refused = _assert_writes_refused(repo, first)
    recalled = _cli(repo, "recall", "--json", "--file", "src/app.py", "--no-record")
    assert recalled.returncode == 0, recalled.stderr
    ids = {r["id"] for r in json.loads(recalled.stdout)["results"]}
    assert first in ids
    listed = _cli(repo, "list", "--json", "--status", "all")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 3
    print(f"\n[read-only memories/] writes refused={refused} of {len(WRITES)}; recall ok")


def test_read_only_tether_refuses_writes_with_a_clear_error(
    repo: Path, seeded: tuple[Path, str]
) -> None:
    tether, first = seeded
    _make_read_only([tether, *tether.rglob("*")])
    index_before = (tether / "index.db").read_bytes()
    refused = _assert_writes_refused(repo, first)
    assert (tether / "index.db").read_bytes() == index_before
    assert not [p for p in (tether / "memories").iterdir() if p.name.startswith(".")]
    print(f"\n[read-only .tether/] writes refused={refused} of {len(WRITES)}")
