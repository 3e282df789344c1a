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


def test_reindex_counts_every_entry_it_names_and_only_a_link_is_said_to_lead_out(
    memories: Path,
) -> None:
    """Bad UTF-8, a key given twice, a folder and a link: four entries skipped, four named
    (three, then one more, said in the singular) and four counted; only the link is said to
    be able to read a file from outside the repository."""
    (memories / "badutf.md").write_bytes(MEMORY.format(text="bad \xff").encode("latin-1"))
    twice = "---\ncategory: gotcha\ncategory: pref\nfiles: [src/app.py]\n---\ntwice\n"
    (memories / "dupkey.md").write_text(twice, encoding="utf-8")
    (memories / "dir.md").mkdir()
    (memories / "link.md").symlink_to(memories.parent.parent / "README.md")
    repo = memories.parent.parent
    done = run_tether("reindex", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.stdout.strip() == (
        "Reindexed 1 memory (4 memory files skipped: `tether doctor` lists them)"
    )
    said = done.stderr.splitlines()
    assert len(said) == 4 and said[-1] == (
        "tether: skipped 1 more memory file that cannot be loaded: `tether doctor`"
    )
    (folder,) = [line for line in said if "dir.md: a folder" in line]
    assert "a link could read" not in folder
    report = run_tether("reindex", "--json", cwd=repo).json()
    assert report["problems"] == 4
    # each named in the JSON too, as doctor --json names it: its path, and the line when it
    # has one; every one of them, not only the three said on stderr
    entries = {Path(entry["path"]).name: entry for entry in report["skipped"]}
    assert sorted(entries) == ["badutf.md", "dir.md", "dupkey.md", "link.md"]
    assert entries["dupkey.md"]["line"] == 3 and "given twice" in entries["dupkey.md"]["message"]
    assert entries["link.md"]["kind"] == "skipped" and "line" not in entries["link.md"]
    assert "a symbolic link, so it is skipped" in entries["link.md"]["message"]
    assert report["skipped"] == [
        {k: v for k, v in entry.items() if k != "scope"}
        for entry in run_tether("doctor", "--json", cwd=repo).json()
        if entry.get("kind", "skipped") == "skipped"
    ]
    os.rmdir(memories / "dir.md")  # the link is then among the three named
    listed = run_tether("list", cwd=repo).stderr.splitlines()
    (link,) = [line for line in listed if "link.md" in line]
    assert "a symbolic link, so it is skipped" in link and "a link could read a file" in link


def test_editors_leftovers_beside_a_memory_are_no_finding(memories: Path) -> None:
    from recall.unloaded import EDITOR_LOCK_PREFIX

    assert EDITOR_LOCK_PREFIX == ".#"  # Emacs's lock on a buffer with unsaved changes
    [memory] = list(memories.glob("*.md"))
    repo = memories.parent.parent
    (memories / f".#{memory.name}").symlink_to("dana@laptop.4242:1700000000")  # to nowhere
    (memories / f".#{memory.stem}x.md").write_text("a lock file where links cannot be made")
    (memories / f".{memory.name}.swp").write_bytes(b"b0VIM 9.0")
    (memories / f"{memory.name}~").write_text(memory.read_text())
    (memories / f"#{memory.name}#").write_text(memory.read_text())
    done = run_tether("doctor", cwd=repo)
    assert done.code == 0, done.stdout
    assert done.stdout == "No problems found.\n"
    listed = run_tether("list", cwd=repo)
    assert listed.code == 0 and listed.stderr == ""
