"""Piped or redirected, a command prints every line whole: nothing a person wrote (a memory's
details, a long path) is wrapped at 80 columns, with line breaks and spaces put into it."""

from __future__ import annotations

from pathlib import Path

from conftest import git, pty_run, run_tether

DETAILS = (
    "The session store keeps its last write in a buffer until close() runs, so a process "
    "that exits   without it loses that write; flush() first, then close()."
)
DEEP = "src/" + "/".join(f"layer_number_{n}" for n in range(6)) + "/session_store_backend.py"


def _remember(repo: Path) -> str:
    (repo / DEEP).parent.mkdir(parents=True)
    (repo / DEEP).write_text("def flush():\n    pass\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "deep file")
    done = run_tether(
        "remember",
        "session store drops its last write",
        "-c",
        "gotcha",
        "-f",
        DEEP,
        "--details",
        DETAILS,
        cwd=repo,
    )
    assert done.code == 0, done.stderr
    return done.stdout.split()[1]


def test_show_piped_prints_the_details_and_files_whole(repo: Path) -> None:
    assert len(DETAILS) > 80 and len(DEEP) > 80
    memory_id = _remember(repo)
    shown = run_tether("show", memory_id, cwd=repo)
    assert shown.code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert DETAILS in lines  # one line, its spaces as written
    assert f"files:    {DEEP}" in lines
    assert [line for line in lines if "exits   without" in line] == [DETAILS]
    assert all(line == line.rstrip() for line in lines)  # no padding put after a line


def test_show_on_a_terminal_leaves_the_wrapping_to_it(repo: Path) -> None:
    """On a terminal the line goes out whole too: the terminal wraps it for display and a
    copy of it gives back what was written, not the line breaks rich would have put in."""
    memory_id = _remember(repo)
    code, out, err = pty_run("show", memory_id, cwd=repo, env={}, columns=60)
    assert code == 0, err
    lines = out.replace("\r\n", "\n").splitlines()
    assert DETAILS in lines
    assert any(DEEP in line for line in lines)
