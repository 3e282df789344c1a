"""The genome subcommands, run in-process through a real command context."""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from recall.cli import cmd_genome
from recall.cli.context import CommandContext
from recall.errors import BadInput

from .gitrepo import GitRepo


def _run(argv: list[str], cwd: Path, *, as_json: bool = True) -> int:
    parser = argparse.ArgumentParser(prog="tether")
    cmd_genome.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    ctx = CommandContext(json_output=as_json, cwd=cwd)
    try:
        return args.func(args, ctx)
    finally:
        ctx.close()


@pytest.fixture
def repo(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    repo = make_repo("repo")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", "VALUE = 1\n")
    repo.write("pkg/use.py", "from pkg import core\n")
    repo.write("main.py", "import pkg.core\n")
    repo.commit("first")
    repo.write("pkg/core.py", "VALUE = 2\n")
    repo.write("main.py", "import pkg.core\n\nprint(pkg.core.VALUE)\n")
    repo.commit("second")
    return repo


def test_index_prints_the_summary(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["index"], repo.root) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "full"
    assert data["commits_read"] == 2
    assert data["cochange_pairs"] == 6
    assert set(data["elapsed_ms"]) >= {"history", "tree", "write", "total"}
    assert _run(["index", "--full"], repo.root) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "full"


def test_index_renders_a_table(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["index"], repo.root, as_json=False) == 0
    out = capsys.readouterr().out
    for label in ("commits read", "co-change pairs kept", "files scanned for imports"):
        assert label in out
    assert "elapsed: read history" in out


def test_neighbours_and_fanin(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["neighbours", "main.py", "--limit", "1"], repo.root) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {
        "path": "main.py",
        "neighbours": [
            {"path": "pkg/core.py", "support": 2, "confidence": 1.0, "commits_of_path": 2}
        ],
    }
    assert _run(["fanin", "core.py"], repo.root / "pkg") == 0
    assert json.loads(capsys.readouterr().out) == {
        "path": "pkg/core.py",
        "exists": True,
        "fan_in": 2,
    }


def test_neighbours_piped_are_one_line_each(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not on a terminal (here: captured), each neighbour is a tab-separated line (file,
    commits together, commits of the file, confidence), as the listings print."""
    assert _run(["neighbours", "main.py"], repo.root, as_json=False) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "pkg/core.py\t2\t2\t1.00"
    assert all(line.count("\t") == 3 for line in lines)


def test_nothing_found_exits_one(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["fanin", "missing.py"], repo.root) == 1
    assert json.loads(capsys.readouterr().out)["exists"] is False
    repo.commit("alone", "solo.py")
    assert _run(["neighbours", "solo.py"], repo.root, as_json=False) == 1
    assert "no co-change neighbours" in capsys.readouterr().err  # piped: not a row


def test_paths_outside_the_repository_are_bad_input(repo: GitRepo) -> None:
    with pytest.raises(BadInput):
        _run(["neighbours", "../elsewhere.py"], repo.root)


def test_index_without_a_store_sets_one_up_and_keeps_the_genome(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not (repo.root / ".tether").exists()
    assert _run(["index"], repo.root) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mode"] == "full"
    assert "set up" in captured.err and "the index stays out of git" in captured.err
    assert (repo.root / ".tether" / "memories").is_dir()
    assert (repo.root / ".tether" / ".gitignore").is_file()
    assert _run(["index"], repo.root) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "unchanged"  # kept, not rebuilt


def test_index_waits_for_another_writer_of_the_index_as_a_write_does(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(["index"], repo.root) == 0  # the store and its index
    capsys.readouterr()
    other = sqlite3.connect(
        repo.root / ".tether" / "index.db", isolation_level=None, check_same_thread=False
    )
    other.execute("BEGIN IMMEDIATE")  # as the language server's indexer holds it
    later = threading.Timer(HELD_SECONDS, other.rollback)
    later.start()
    try:
        assert _run(["index", "--full"], repo.root) == 0  # waited, not refused after 1 s
    finally:
        later.join()
        other.close()
    assert json.loads(capsys.readouterr().out)["mode"] == "full"


HELD_SECONDS = 3.0
"""How long another connection holds the index in the test above: past the CLI's read wait
(1 s), well within a write's (15 s)."""


def _main(args: list[str], root: Path) -> int:
    from recall.cli.main import main

    return main(["-C", str(root), *args])


def test_index_that_git_cannot_read_fails_with_the_reason_on_stderr(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(["index"], repo.root) == 0
    capsys.readouterr()
    (repo.root / ".git/refs/heads/main").write_text("0123456789" * 4 + "\n")  # a broken ref
    assert _main(["--json", "index"], repo.root) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    error = json.loads(captured.err)
    assert error["exit_code"] == 3
    assert str(repo.root) in error["error"]
    assert "git could not read the repository" in error["error"]
    assert _main(["index"], repo.root) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("tether: error: ")
    assert "run `tether index` again" in captured.err


def test_index_of_a_repository_without_commits_succeeds(
    make_repo: Callable[[str], GitRepo], capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = make_repo("fresh")
    fresh.write("draft.py", "X = 1\n")
    assert _main(["--json", "index"], fresh.root) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "empty"


def test_index_of_a_shallow_clone_succeeds(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    assert _main(["--json", "index"], clone) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mode"] == "full"
    assert "shallow clone" in captured.err


def test_index_on_a_detached_head_succeeds(
    repo: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    assert _main(["--json", "index"], repo.root) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mode"] == "full"
    assert "detached HEAD" in captured.err
