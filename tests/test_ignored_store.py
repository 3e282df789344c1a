"""``tether init`` and ``tether doctor`` say when git ignores the memory files (a ``.*`` in
``.gitignore``, say): the ignore file and line, and the line that lets them in. One git call,
never made by recall."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

DOT_FILES = ".*\n!.gitignore\n"


def ignore(repo: Path, rules: str, where: str = ".gitignore") -> Path:
    """Append ``rules`` to the ignore file ``where`` of ``repo``; return its path."""
    path = repo / where
    with path.open("a", encoding="utf-8") as handle:
        handle.write(rules)
    return path


def memory_status(repo: Path) -> str:
    """What ``git status`` says of the memory files: ``??`` to be added, ``!!`` ignored."""
    out = git(repo, "status", "--porcelain", "--ignored", "-uall", "--", ".tether/memories")
    return " ".join(sorted({line[:2] for line in out.splitlines() if line.endswith(".md")}))


ASKED_PER_COMMAND = 2
"""``git check-ignore`` calls of one init or doctor: the memory files, then the store's per-user
files (``recall.per_user_ignored``)."""


def check_ignores(trace: Path) -> int:
    """How many ``git check-ignore`` the traced commands ran."""
    if not trace.exists():
        return 0
    return trace.read_text(encoding="utf-8").count("git check-ignore")


def test_init_says_that_git_ignores_the_memories_and_names_the_rule(
    repo: Path, cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    rules = ignore(repo, DOT_FILES)
    trace = tmp_path / "trace"
    result = cli("init", env={"GIT_TRACE": str(trace)})
    assert result.code == 0
    assert result.stdout.startswith(f"Created {repo / '.tether'}")
    said = result.stderr.strip()
    assert "\n" not in said
    assert said.startswith(
        f"tether: {rules}:1: `.*` makes git ignore {repo / '.tether' / 'memories'}"
    )
    assert "add a line `!.tether/` after it" in said
    assert said.endswith(
        "if they are meant to stay private to this clone, mark it intended with a line "
        f"`private_memories = true` in {repo / '.tether' / 'config.toml'}"
    )
    assert check_ignores(trace) == ASKED_PER_COMMAND
    again = cli("init")  # set up already: nothing is created, nothing said
    assert again.code == 0 and again.stderr == ""


def test_init_json_carries_the_rule(repo: Path, cli: Callable[..., CliResult]) -> None:
    rules = ignore(repo, DOT_FILES)
    result = cli("--json", "init")
    assert result.code == 0
    found = result.json()["git_ignored"]
    assert found["kind"] == "git-ignored"
    assert (found["path"], found["line"], found["pattern"]) == (str(rules), 1, ".*")
    assert found["unignore"] == "!.tether/"
    assert found["intended"] is False and "intended_by" not in found


def test_init_where_git_commits_the_memories_says_nothing(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    result = cli("--json", "init")
    assert result.code == 0 and result.stderr == ""
    assert "git_ignored" not in result.json()


def test_doctor_reports_ignored_memories_as_a_problem_and_its_json(
    repo: Path, cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    assert cli("remember", "a note", "-c", "gotcha", "-f", "README.md").code == 0
    rules = ignore(repo, DOT_FILES)
    assert memory_status(repo) == "!!"
    trace = tmp_path / "trace"
    result = cli("doctor", env={"GIT_TRACE": str(trace)})
    assert result.code == 1
    assert result.stdout.startswith(f"{rules}:1: `.*` makes git ignore")
    assert "No problems found" not in result.stdout
    assert check_ignores(trace) == ASKED_PER_COMMAND
    [entry] = json.loads(cli("--json", "doctor").stdout)
    assert entry["scope"] == "project" and entry["kind"] == "git-ignored"
    assert (entry["path"], entry["line"], entry["unignore"]) == (str(rules), 1, "!.tether/")
    assert entry["ignored"] == str(repo / ".tether" / "memories")
    assert entry["intended"] is False
    assert entry["message"] == result.stdout.strip()
    assert f"`private_memories = true` in {repo / '.tether' / 'config.toml'}" in result.stdout


@pytest.mark.parametrize(
    ("rules", "where", "unignore"),
    [
        (DOT_FILES, ".gitignore", "!.tether/"),
        ("*.md\n", ".gitignore", "!.tether/memories/*.md"),
        ("memories/\n", ".git/info/exclude", "!.tether/memories/"),
    ],
)
def test_the_line_doctor_gives_lets_git_commit_the_memories(
    repo: Path, cli: Callable[..., CliResult], rules: str, where: str, unignore: str
) -> None:
    assert cli("remember", "a note", "-c", "gotcha", "-f", "README.md").code == 0
    path = ignore(repo, rules, where)
    [entry] = json.loads(cli("--json", "doctor").stdout)
    assert (entry["path"], entry["unignore"]) == (str(path), unignore)
    ignore(repo, f"{unignore}\n", where)
    assert memory_status(repo) == "??"
    done = cli("doctor")
    assert done.code == 0 and done.stdout.strip() == "No problems found."


def test_doctor_of_the_global_store_and_recall_ask_git_nothing_of_it(
    repo: Path, cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    assert cli("remember", "a note", "-c", "gotcha", "-f", "README.md").code == 0
    ignore(repo, DOT_FILES)
    trace = tmp_path / "trace"
    assert cli("recall", "-f", "README.md", env={"GIT_TRACE": str(trace)}).code == 0
    assert cli("doctor", "--scope", "global", env={"GIT_TRACE": str(trace)}).code in (0, 1)
    assert check_ignores(trace) == 0
