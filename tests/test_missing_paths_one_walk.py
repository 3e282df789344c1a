"""Paths missing from the working tree are looked for in git's history in one walk for all of
them, never one walk per path: a typo costs a whole history's read, so ten typos in one
``tether recall -f``, ``tether inject -f`` or ``tether remember -f`` must not cost ten. What is
said of each path is unchanged: one the history knows is missing from the working tree, any
other is not a file of the repository (with the closest names). Git's own trace
(``GIT_TRACE``) counts the walks the real commands ran."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from recall.history_paths import READ_BYTES, WALK, in_history

Cli = Callable[..., CliResult]

NOT_IN_TREE = "is not in the working tree (deleted, or not on this branch)"


def _history_walks(trace: Path) -> int:
    """The ``git log`` commands the trace shows run."""
    return trace.read_text(encoding="utf-8").count("built-in: git log ")


def _with_deleted(repo: Path) -> None:
    """A commit deleting src/util.py and the folder docs/ (docs/guide.md)."""
    git(repo, "rm", "-q", "-r", "src/util.py", "docs")
    git(repo, "commit", "-q", "-m", "drop util and the docs")


def _typos(count: int) -> list[str]:
    return [f"src/ap{n}.py" for n in range(count)]


@pytest.mark.parametrize("command", ["recall", "inject"])
def test_a_recall_walks_the_history_once_however_many_paths_are_missing(
    cli: Cli, repo: Path, tmp_path: Path, command: str
) -> None:
    _with_deleted(repo)
    walks = {}
    for count in (1, 12):
        trace = tmp_path / f"{command}-{count}.trace"
        named = [*_typos(count), "src/util.py", "docs"]
        args = [word for path in named for word in ("-f", path)]
        prompt = ["how does the app start"] if command == "inject" else []
        done = cli(command, *prompt, *args, "--no-record", env={"GIT_TRACE": str(trace)})
        assert done.code in (0, 1), done.stderr
        for typo in _typos(count):
            assert f"{typo} is not a file of this repository" in done.stderr
        assert f"src/util.py {NOT_IN_TREE}" in done.stderr
        assert f"docs {NOT_IN_TREE}" in done.stderr
        assert "src/util.py is not a file" not in done.stderr
        walks[count] = _history_walks(trace)
    assert walks == {1: 1, 12: 1}


def test_a_new_memory_walks_the_history_once_however_many_paths_are_missing(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    _with_deleted(repo)
    trace = tmp_path / "remember.trace"
    typos = _typos(8)
    args = [word for path in [*typos, "src/util.py"] for word in ("-f", path)]

    refused = cli("remember", "util caches", "-c", "gotcha", *args, env={"GIT_TRACE": str(trace)})

    assert refused.code == 2 and refused.stdout == ""
    for typo in typos:
        assert f"--file {typo!r} is not in the repository's files nor in its history" in (
            refused.stderr
        )
    assert "'src/util.py'" not in refused.stderr  # deleted, but the history has it
    assert "nothing written; give --allow-missing" in refused.stderr
    assert _history_walks(trace) == 1
    kept = cli("remember", "util caches", "-c", "gotcha", "-f", "src/util.py", "-f", "docs")
    assert kept.code == 0, kept.stderr


def test_one_walk_answers_files_folders_and_names_git_would_read_as_patterns(
    repo: Path,
) -> None:
    for name in ("lib/a*b.py", "lib/deep/x.py", "lib/plain.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "lib")
    git(repo, "rm", "-q", "-r", "lib")
    git(repo, "commit", "-q", "-m", "no lib")
    asked = ["lib/a*b.py", "lib/a", "lib/deep", "lib/deep/", "lib/de", "lib/aXb.py", "nowhere"]

    found = in_history(repo, asked, timeout=30)

    assert found == {"lib/a*b.py", "lib/deep", "lib/deep/"}
    assert in_history(repo, [], timeout=30) == set()


def test_a_folder_that_is_no_repository_gets_no_answer(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert in_history(plain, ["src/app.py"], timeout=30) is None


def test_a_walk_ended_once_every_path_is_found_still_answers(repo: Path) -> None:
    """A long history whose newest commits touch every path asked: the walk is ended (git is
    stopped with more to say) and the paths found are the answer, not a failure."""
    import subprocess

    parent = git(repo, "rev-parse", "HEAD").strip()
    stream = []
    for n in range(3000):  # far more names than a pipe holds: git is still writing when stopped
        name = f"logs/{'x' * 80}{n}.txt".encode()
        stream.append(
            b"commit refs/heads/main\n"
            + b"committer t <t@t> %d +0000\n" % (1_700_000_000 + n)
            + b"data 4\nstep\n"
            + (b"from %s\n" % parent.encode() if n == 0 else b"")
            + b"M 100644 inline %s\ndata 2\nx\n\n" % name
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "reset", "-q", "--hard", "refs/heads/main")
    newest = f"logs/{'x' * 80}2999.txt"
    (repo / newest).unlink()

    assert in_history(repo, [newest, "logs"], timeout=30) == {newest, "logs"}


def test_a_store_in_a_folder_of_the_work_tree_finds_its_files_in_history(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    """A project folder with its own ``.tether`` inside a larger work tree: its paths are its
    folder's, and the walk names files from there too (git names them from the top)."""
    top = tmp_path / "top"
    (top / "sub").mkdir(parents=True)
    git(top, "init", "-q")
    (top / "sub" / "old.py").write_text("x = 1\n", encoding="utf-8")
    (top / "sub" / "kept.py").write_text("y = 1\n", encoding="utf-8")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "old")
    git(top, "rm", "-q", "sub/old.py")
    git(top, "commit", "-q", "-m", "gone")
    sub = top / "sub"
    assert cli("init", cwd=sub).code == 0

    assert in_history(sub, ["old.py", "typo.py"], timeout=30) == {"old.py"}
    done = cli("remember", "old thing gotcha", "-c", "gotcha", "-f", "old.py", cwd=sub)
    assert done.code == 0, done.stderr


def test_the_walk_and_its_read_size_are_pinned() -> None:
    assert WALK == (
        "log",
        "--all",
        "--no-renames",
        "--format=",
        "--name-only",
        "--relative",
        "-z",
    )
    assert READ_BYTES == 65536
