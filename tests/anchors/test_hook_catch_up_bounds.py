"""An edit hook catches the genome's history up with HEAD only when that is a short step
forward: a branch checked out that forked before the last refresh (the history would have to
be read anew, which a hook never does) or a pull of more than ``HOOK_STEP_MOST`` commits is
left to the next recall or ``tether index``, without reading the working tree or the history
on every edit. The guard still answers from the renames as last read. Git's own trace
(``GIT_TRACE``) shows what the real hook command ran."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.genome.catch_up import HOOK_STEP_MOST

from .test_guard_renames import SOURCE, commit_all, pre_edit, remember
from .test_renames_as_of_head import genome_state, head

Run = Callable[..., CliResult]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"retry.py": SOURCE, "README.md": "# demo\n"})


def _traced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> Path:
    trace = tmp_path / f"{name}.trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    return trace


def _git_commands(trace: Path) -> list[str]:
    """The git subcommands the trace shows run (``log``, ``ls-files``...)."""
    if not trace.exists():
        return []
    found = []
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        if "trace: built-in: git " in line:
            words = line.split("trace: built-in: git ", 1)[1].split()
            found.append(next((w for w in words if not w.startswith("-") and "=" not in w), ""))
    return found


def _guarded_and_indexed(repo: Path, cli: Run) -> str:
    guard = remember(cli, "retries stay at three", "decision", "--guard")
    commit_all(repo, "memories")
    assert cli("index").code == 0
    return guard


def _commits(repo: Path, count: int) -> None:
    """``count`` commits on the current branch, each changing README.md (one fast-import)."""
    parent = head(repo)
    stream = []
    for n in range(count):
        text = f"# demo {n}\n".encode()
        stream.append(
            b"commit refs/heads/main\n"
            + b"committer t <t@t> %d +0000\n" % (1_700_000_000 + n)
            + b"data 5\nstep\n"
            + (b"from %s\n" % parent.encode() if n == 0 else b"")
            + b"M 100644 inline README.md\ndata %d\n%s\n" % (len(text), text)
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "reset", "-q", "--hard", "refs/heads/main")


def test_the_bound_is_pinned() -> None:
    assert HOOK_STEP_MOST == 500


def test_a_branch_forked_before_the_last_refresh_is_left_alone(
    repo: Path, cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = _guarded_and_indexed(repo, cli)
    fork = head(repo)
    (repo / "README.md").write_text("# demo, later\n", encoding="utf-8")
    commit_all(repo, "main moves on")
    assert cli("index").code == 0
    indexed = genome_state(repo)["head"]
    git(repo, "checkout", "-q", "-b", "side", fork)
    (repo / "NOTES.md").write_text("side work\n", encoding="utf-8")
    commit_all(repo, "side work")
    for n in range(2):
        trace = _traced(monkeypatch, tmp_path, f"edit{n}")
        answer = pre_edit(cli, repo, "retry.py")
        assert answer is not None and answer["permissionDecision"] == "ask"
        assert f"[{guard}]" in answer["permissionDecisionReason"]
        ran = _git_commands(trace)
        assert "ls-files" not in ran and "log" not in ran, ran
    assert genome_state(repo)["head"] == indexed  # left for the next recall
    monkeypatch.delenv("GIT_TRACE")
    assert cli("recall", "-f", "retry.py", "--no-record").code == 0
    assert genome_state(repo)["head"] == head(repo)


def test_a_pull_of_many_commits_is_left_to_the_next_recall(
    repo: Path, cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = _guarded_and_indexed(repo, cli)
    indexed = genome_state(repo)["head"]
    _commits(repo, HOOK_STEP_MOST + 1)
    trace = _traced(monkeypatch, tmp_path, "edit")
    answer = pre_edit(cli, repo, "retry.py")
    assert answer is not None and f"[{guard}]" in answer["permissionDecisionReason"]
    assert "log" not in _git_commands(trace)
    assert genome_state(repo)["head"] == indexed
    git(repo, "reset", "-q", "--hard", "HEAD~1")  # now exactly the bound: read
    answer = pre_edit(cli, repo, "retry.py")
    assert answer is not None and f"[{guard}]" in answer["permissionDecisionReason"]
    assert genome_state(repo)["head"] == head(repo)
