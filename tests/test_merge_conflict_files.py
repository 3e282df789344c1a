"""A memory file git left with conflict markers after a merge is a file that cannot be loaded:
said with its path and the opening marker's line, and kept out of recall until resolved. Only
the three markers in order, each at the start of a line, make a conflict: details quoting one
of them are read as written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import git, run_tether

from recall import frontmatter
from recall.errors import MalformedMemory

SAID = "unresolved merge conflict: resolve it (keep one side or both) and commit"
HEAD = "---\ncategory: gotcha\n---\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (HEAD + "<<<<<<< HEAD\nOurs\n=======\nTheirs\n>>>>>>> other\n", 4),
        (HEAD + "S\n\nkept\n<<<<<<< HEAD\na\n||||||| base\nb\n=======\nc\n>>>>>>> b\n", 7),
        (HEAD.replace("\n", "\r\n") + "<<<<<<< HEAD\r\nA\r\n=======\r\nB\r\n>>>>>>> o\r\n", 4),
        ("<<<<<<< HEAD\n" + HEAD + "A\n=======\n" + HEAD + "B\n>>>>>>> other\n", 1),
        ("\ufeff" + HEAD + "S\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", 5),
    ],
    ids=["body", "diff3", "crlf", "before-front-matter", "bom"],
)
def test_conflict_markers_refuse_the_file_at_the_opening_marker(text: str, line: int) -> None:
    with pytest.raises(MalformedMemory) as caught:
        frontmatter.parse(text, "m.md")
    assert (caught.value.line, caught.value.problem) == (line, SAID)


@pytest.mark.parametrize(
    "details",
    [
        "Headings are underlined:\n\nTitle\n=======\n",
        "The hunk read:\n<<<<<<< HEAD\nand nothing more",
        "The diff:\n<<<<<<< HEAD\nours\n=======\ntheirs",  # no closing marker
        "Quoted:\n    <<<<<<< HEAD\n    a\n    =======\n    b\n    >>>>>>> other",
        "Out of order:\n>>>>>>> other\n=======\n<<<<<<< HEAD",
        "Longer runs:\n<<<<<<<< HEAD\n========\n>>>>>>>> other",
    ],
)
def test_details_quoting_a_marker_are_read_as_written(details: str) -> None:
    parsed = frontmatter.parse(f"{HEAD}Summary\n\n{details}\n", "m.md")
    assert (parsed.summary, parsed.details) == ("Summary", details)


def test_a_rewrite_of_a_conflicted_file_is_refused() -> None:
    text = HEAD + "<<<<<<< HEAD\nOurs\n=======\nTheirs\n>>>>>>> other\n"
    with pytest.raises(MalformedMemory) as caught:
        frontmatter.update(text, "m.md", {"pinned": True})
    assert (caught.value.line, caught.value.problem) == (4, SAID)


def _conflicted_memory(repo: Path) -> Path:
    """Remember one memory on ``main``, edit its summary on a branch and on main, merge:
    return the memory file git left with markers in it."""
    done = run_tether(
        "remember", "Original summary", "--category", "gotcha", "--file", "src/app.py",
        "--details", "some details", "--json", cwd=repo,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    path = repo / ".tether" / "memories" / f"{done.json()['id']}.md"
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    git(repo, "checkout", "-q", "-b", "other")
    path.write_text(path.read_text().replace("Original summary", "Their summary"))
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("Original summary", "Our summary"))
    git(repo, "commit", "-q", "-am", "ours")
    merge = subprocess.run(["git", "merge", "other"], cwd=repo, capture_output=True, text=True)
    assert merge.returncode == 1 and "CONFLICT" in merge.stdout
    return path


def test_a_memory_git_left_conflicted_is_reported_and_kept_out_of_recall(repo: Path) -> None:
    path = _conflicted_memory(repo)
    marker = path.read_text().split("\n").index("<<<<<<< HEAD") + 1
    where = f"{path}:{marker}: {SAID}"

    listed = run_tether("list", cwd=repo)
    assert "<<<<<<<" not in listed.stdout and "summary" not in listed.stdout
    assert where in listed.stderr
    recalled = run_tether("recall", "--file", "src/app.py", cwd=repo)
    assert "<<<<<<<" not in recalled.stdout and "summary" not in recalled.stdout
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 1
    assert where in doctor.stdout + doctor.stderr
    checked = run_tether("check", cwd=repo)
    assert f"{path.relative_to(repo).as_posix()}:{marker}: {SAID}" in checked.stderr

    lines = path.read_text().split("\n")
    closing = lines.index(">>>>>>> other")
    path.write_text("\n".join([*lines[: marker - 1], "Our summary", *lines[closing + 1 :]]))
    again = run_tether("recall", "--file", "src/app.py", cwd=repo)
    assert "Our summary" in again.stdout and "<<<<<<<" not in again.stdout + again.stderr


def test_details_holding_conflict_markers_are_refused_when_written(repo: Path) -> None:
    # written as given, the file would be refused as an unresolved merge at its next read
    quoted = "Example:\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n"
    done = run_tether("remember", "read a conflict", "-c", "context", "--details", quoted, cwd=repo)
    assert done.code == 2, done
    assert "details hold git's merge conflict markers" in done.stderr
    assert "from line 2" in done.stderr and "indent the markers" in done.stderr
    memories = repo / ".tether" / "memories"
    assert not memories.is_dir() or not list(memories.glob("*.md"))
    indented = quoted.replace("\n<", "\n  <").replace("\n=", "\n  =").replace("\n>", "\n  >")
    kept = run_tether(
        "remember", "read a conflict", "-c", "context", "--details", indented, cwd=repo
    )
    assert kept.code == 0, kept
    listed = run_tether("list", "--json", cwd=repo)
    assert [m["summary"] for m in listed.json()] == ["read a conflict"]
