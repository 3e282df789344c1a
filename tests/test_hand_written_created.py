"""A memory file written by hand without ``created:`` is dated, when first indexed, by the
commit that added it (a fresh clone gives every file the time of the checkout), else by its
file's modification time; a pin, an unpin or an edit by hand touches the file, and must not
make it new (it would jump to the top of ``list``). Tether's own first rewrite of the file
writes that date in, so a rebuilt index keeps it too."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether

OLD = datetime(2024, 1, 1, tzinfo=UTC)
TEXT = "---\ncategory: gotcha\nfiles: [src/app.py]\n---\nold hand note\n"


def _created(repo: Path) -> dict[str, str]:
    done = run_tether("list", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return {memory["summary"]: memory["created"] for memory in json.loads(done.stdout)}


def _hand_written(repo: Path) -> tuple[Path, str]:
    assert run_tether("init", cwd=repo).code == 0
    path = repo / ".tether" / "memories" / "old.md"
    path.write_text(TEXT, encoding="utf-8")
    os.utime(path, (OLD.timestamp(), OLD.timestamp()))
    assert (
        run_tether("remember", "a newer note", "-c", "gotcha", "-f", "src/app.py", cwd=repo).code
        == 0
    )
    done = run_tether("list", "--json", cwd=repo)
    [memory_id] = [m["id"] for m in done.json() if m["summary"] == "old hand note"]
    return path, memory_id


def test_pin_and_unpin_keep_the_date_of_a_file_with_no_created(repo: Path) -> None:
    path, memory_id = _hand_written(repo)
    assert _created(repo)["old hand note"].startswith("2024-01-01")
    for command in ("pin", "unpin"):
        assert run_tether(command, memory_id, cwd=repo).code == 0
    assert _created(repo)["old hand note"].startswith("2024-01-01")
    listed = run_tether("list", cwd=repo).stdout.splitlines()
    assert "a newer note" in listed[0]
    text = path.read_text(encoding="utf-8")
    assert text.count('created: "2024-01-01') == 1 and text.endswith("---\nold hand note\n")


def test_a_rebuilt_index_keeps_the_date_once_tether_rewrote_the_file(repo: Path) -> None:
    _, memory_id = _hand_written(repo)
    assert run_tether("pin", memory_id, cwd=repo).code == 0  # the file's time moves to now
    assert run_tether("reindex", cwd=repo).code == 0
    assert _created(repo)["old hand note"].startswith("2024-01-01")


def test_an_edit_by_hand_keeps_the_date_too(repo: Path) -> None:
    path, _ = _hand_written(repo)
    assert _created(repo)["old hand note"].startswith("2024-01-01")
    path.write_text(TEXT + "\nmore details\n", encoding="utf-8")
    assert _created(repo)["old hand note"].startswith("2024-01-01")
    assert "created" not in path.read_text(encoding="utf-8")


def test_a_committed_file_is_dated_by_the_commit_that_added_it_in_a_fresh_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    origin = make_repo(tmp_path / "origin")
    folder = origin / ".tether" / "memories"
    folder.mkdir(parents=True)
    (folder / "old.md").write_text(TEXT, encoding="utf-8")
    git(origin, "add", "-A")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2024-03-04T10:00:00+02:00")
    git(origin, "commit", "-qm", "a memory written by hand")
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    assert _created(clone)["old hand note"] == "2024-03-04T08:00:00+00:00"
    assert run_tether("reindex", cwd=clone).code == 0
    assert _created(clone)["old hand note"] == "2024-03-04T08:00:00+00:00"
