"""The temporary file a write stopped midway leaves in the memory folder (an import killed by
``kill -9``): never committed, named by ``tether doctor``, taken away by the next import."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from conftest import git, run_tether

from recall.unloaded import STALE_TEMP_SECONDS

LEFT = ".tmp-119b20ff7e50-402e175d.md"  # as a writer names the file it is writing


def _leave(repo: Path, age: float) -> Path:
    path = repo / ".tether" / "memories" / LEFT
    path.write_bytes(b"")  # a killed writer had not written a byte of it yet
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_a_new_store_keeps_a_stopped_writes_file_out_of_git(repo: Path) -> None:
    assert run_tether("init", cwd=repo).code == 0
    left = _leave(repo, 0)
    ignored = git(repo, "check-ignore", str(left.relative_to(repo)))
    assert ignored.strip() == f".tether/memories/{LEFT}"


def test_doctor_names_a_file_left_by_a_write_stopped_midway(repo: Path) -> None:
    assert STALE_TEMP_SECONDS == 60  # a write renames its own within milliseconds
    assert run_tether("init", cwd=repo).code == 0
    left = _leave(repo, 0)  # a write's own, as it runs: nothing to say
    assert run_tether("doctor", cwd=repo).code == 0
    os.utime(left, (time.time() - 2 * STALE_TEMP_SECONDS,) * 2)
    doctor = run_tether("doctor", "--json", cwd=repo)
    assert doctor.code == 1
    [entry] = json.loads(doctor.stdout)
    assert entry["kind"] == "leftover" and entry["path"] == str(left)
    assert "a write that was stopped midway" in entry["message"]
    assert "`tether reindex`" in entry["message"]


def test_the_next_import_takes_the_file_away(repo: Path) -> None:
    assert run_tether("init", cwd=repo).code == 0
    left = _leave(repo, 2 * STALE_TEMP_SECONDS)
    source = repo.parent / "lines.jsonl"
    source.write_text(json.dumps({"summary": "kept", "category": "gotcha"}) + "\n")
    assert run_tether("import", str(source), cwd=repo).code == 0
    assert not left.exists()
    assert run_tether("doctor", cwd=repo).code == 0
