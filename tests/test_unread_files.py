"""Files in the memory folder that are never loaded are named: entries that are not plain files
(a link, a FIFO, a folder) by every reading command, as a broken file is; files named or placed
so that no loader reads them (a subfolder, ``.MD``, ``.markdown``, a leading dot) by doctor."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_tether

MEMORY = "---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\n{text}\n"


@pytest.fixture
def memories(repo: Path) -> Path:
    done = run_tether(
        "remember", "login retries stay at three", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    return repo / ".tether" / "memories"


@pytest.mark.parametrize("command", [["list"], ["search", "login"], ["recall", "login"]])
def test_reading_commands_name_entries_that_are_not_plain_files(
    memories: Path, command: list[str]
) -> None:
    (memories / "link.md").symlink_to(memories.parent.parent / "README.md")
    os.mkfifo(memories / "fifo.md")
    (memories / "dir.md").mkdir()
    done = run_tether(*command, cwd=memories.parent.parent)
    assert done.code == 0, done.stderr
    assert "login retries stay at three" in done.stdout
    for name, what in (("link.md", "a symbolic link"), ("fifo.md", "not a regular file")):
        assert f"{name}: {what}, so it is skipped" in done.stderr
    assert "dir.md: a folder, so it is skipped" in done.stderr


def test_doctor_names_files_no_loader_reads(memories: Path) -> None:
    (memories / "team").mkdir()
    for number, name in enumerate(("team/sub.md", "UPPER.MD", "x.markdown", ".hidden.md")):
        (memories / name).write_text(MEMORY.format(text=f"unread memory {number}"))
    (memories / ".tmp-0a1b2c-left.md").write_text("a writer's temp file")
    repo = memories.parent.parent
    listed = run_tether("list", cwd=repo)
    assert "unread memory" not in listed.stdout  # the loaders' rules stay as they are
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    lines = done.stdout.splitlines()
    fixes = {
        "team/sub.md": "it is in a subfolder",
        "UPPER.MD": "rename it to end in lowercase .md",
        "x.markdown": "rename it to end in lowercase .md",
        ".hidden.md": "drop the leading dot",
    }
    for name, fix in fixes.items():
        said = [line for line in lines if f"{memories / name}: not read" in line]
        assert len(said) == 1 and fix in said[0], done.stdout
    assert "move it up into the memory folder" in done.stdout
    assert ".tmp-" not in done.stdout
    kinds = [entry["kind"] for entry in run_tether("doctor", "--json", cwd=repo).json()]
    assert kinds.count("unread") == 4
