"""A memory written on a branch older than the commit that set Tether up: the store is made
again there, and its ignore rules go to the clone's exclude file, not to ``.tether/.gitignore``,
which another branch commits and ``git checkout`` would refuse to overwrite (even with the same
bytes). The CLI and the MCP server say the store was made and what the rules' place means.
Real git repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import git, run_tether

from recall.ignore_rules import BRANCH_REFS, GIT_TIMEOUT_S, IGNORE_RULES, exclude_lines
from tests.mcp.harness import call, mcp_client

COMMITTED_ON_MAIN = "/.tether/.gitignore is committed on branch main but not on this one"


def set_up_on_main(repo: Path) -> None:
    """Branch ``old`` at the first commit; on ``main``, Tether set up and committed; then
    ``old`` checked out, where ``.tether/`` is gone but for the untracked index."""
    git(repo, "branch", "old")
    done = run_tether("remember", "pool must be closed", "-c", "gotcha", "-f", "src/app.py",
                      cwd=repo)  # fmt: skip
    assert done.code == 0, done.stderr
    git(repo, "add", ".tether")
    git(repo, "commit", "-q", "-m", "set up tether")
    git(repo, "checkout", "-q", "old")


def exclude_of(repo: Path) -> Path:
    return repo / ".git" / "info" / "exclude"


def checkout(repo: Path, branch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "checkout", "-q", branch], cwd=repo, capture_output=True, text=True, check=False
    )


def test_the_judgements_are_pinned() -> None:
    assert GIT_TIMEOUT_S == 10
    assert BRANCH_REFS == ("refs/heads", "refs/remotes")
    assert IGNORE_RULES.splitlines()[1:6] == ["index.db", "index.db-*", "*.lock", "cache/", "*.log"]


def test_a_memory_written_on_an_older_branch_leaves_checkout_back_possible(repo: Path) -> None:
    set_up_on_main(repo)
    done = run_tether("remember", "old branch note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert done.code == 0, done.stderr
    assert f"created {repo}/.tether for this repository's memories" in done.stderr
    assert f"{repo}{COMMITTED_ON_MAIN}" in done.stderr
    assert f"went into {exclude_of(repo)} instead" in done.stderr
    assert not (repo / ".tether" / ".gitignore").exists()
    status = git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all")
    assert "!! .tether/index.db\n" in status  # the index stays out of git here too
    assert "?? .tether/memories/" in status  # the memory is for the person to commit
    switched = checkout(repo, "main")
    assert switched.returncode == 0, switched.stderr
    assert (repo / ".tether" / ".gitignore").read_text(encoding="utf-8") == IGNORE_RULES
    listed = run_tether("list", cwd=repo)
    assert "old branch note" in listed.stdout and "pool must be closed" in listed.stdout


def test_the_exclude_file_is_written_once_and_said_once(repo: Path) -> None:
    set_up_on_main(repo)
    first = run_tether("remember", "old branch note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert COMMITTED_ON_MAIN in first.stderr
    second = run_tether("remember", "another note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert second.code == 0, second.stderr
    assert second.stderr == ""
    lines = exclude_of(repo).read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith("# tether:") for line in lines) == 1
    assert not (repo / ".tether" / ".gitignore").exists()


def test_the_exclude_rules_ignore_what_the_gitignore_ignores(repo: Path) -> None:
    set_up_on_main(repo)
    run_tether("remember", "old branch note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    asked = [
        ".tether/index.db",
        ".tether/index.db-wal",
        ".tether/write.lock",
        ".tether/cache/vectors.bin",
        ".tether/deep/run.log",
        ".tether/memories/.tmp-abc-0a1b2c3d.md",
        ".tether/memories/0a1b2c3d.md",
        "src/index.db",
    ]
    ignored = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        cwd=repo,
        input="\n".join(asked) + "\n",
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    assert ignored == asked[:6]


def test_an_import_on_an_older_branch_says_where_the_rules_went(repo: Path) -> None:
    set_up_on_main(repo)
    source = repo.parent / "memories.jsonl"
    line = {"summary": "old branch note", "category": "gotcha", "files": ["src/app.py"]}
    source.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 0, done.stderr
    assert COMMITTED_ON_MAIN in done.stderr
    assert checkout(repo, "main").returncode == 0


def test_init_on_an_older_branch_says_where_the_rules_went(repo: Path) -> None:
    set_up_on_main(repo)
    done = run_tether("--json", "init", cwd=repo)
    assert done.code == 0, done.stderr
    rules = done.json()["ignore_rules"]
    assert rules["committed_on"] == "main"
    assert rules["exclude_file"] == str(exclude_of(repo))
    assert COMMITTED_ON_MAIN in rules["message"]
    assert checkout(repo, "main").returncode == 0


def test_a_branch_of_its_own_still_gets_its_gitignore(repo: Path) -> None:
    """Where no branch commits ``.tether/.gitignore`` (a first set-up), or the branch checked
    out does (deleted by hand), the rules go into it as always and the exclude file is left."""
    git(repo, "branch", "other")
    before = exclude_of(repo).read_bytes() if exclude_of(repo).exists() else None
    done = run_tether("remember", "a note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert done.code == 0, done.stderr
    assert "committed on branch" not in done.stderr
    ignore = repo / ".tether" / ".gitignore"
    assert ignore.read_text(encoding="utf-8") == IGNORE_RULES
    git(repo, "add", ".tether")
    git(repo, "commit", "-q", "-m", "set up tether")
    ignore.unlink()
    again = run_tether("remember", "another note", "-c", "gotcha", "-f", "src/app.py", cwd=repo)
    assert again.code == 0, again.stderr
    assert ignore.read_text(encoding="utf-8") == IGNORE_RULES
    assert (exclude_of(repo).read_bytes() if exclude_of(repo).exists() else None) == before


@pytest.mark.asyncio
async def test_memory_write_on_an_older_branch_says_the_store_and_the_rules(repo: Path) -> None:
    set_up_on_main(repo)
    async with mcp_client(repo) as client:
        written = await call(
            client, "memory_write", summary="old branch note", category="gotcha",
            files=["src/app.py"],
        )  # fmt: skip
        again = await call(
            client, "memory_write", summary="another note", category="gotcha",
            files=["src/app.py"],
        )  # fmt: skip
    assert written["written"] is True
    assert written["store_created"]["path"] == str(repo / ".tether")
    assert "for this repository's memories" in written["store_created"]["message"]
    assert written["ignore_rules"]["committed_on"] == "main"
    assert COMMITTED_ON_MAIN in written["ignore_rules"]["message"]
    assert "store_created" not in again and "ignore_rules" not in again
    assert checkout(repo, "main").returncode == 0


def test_exclude_lines_of_a_store_in_a_folder_named_like_a_pattern(repo: Path) -> None:
    """A store below the top of the work tree, in a folder whose name holds pattern characters:
    its rules match that folder alone."""
    base = repo / "we[ir]d*" / ".tether"
    (repo / "weid" / ".tether").mkdir(parents=True)
    base.mkdir(parents=True)
    exclude_of(repo).write_text("\n".join(exclude_lines(base)) + "\n", encoding="utf-8")
    asked = ["we[ir]d*/.tether/index.db", "weid/.tether/index.db", "we[ir]d*/index.db"]
    ignored = subprocess.run(
        ["git", "check-ignore", "--stdin"],
        cwd=repo,
        input="\n".join(asked) + "\n",
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    assert ignored == asked[:1]
