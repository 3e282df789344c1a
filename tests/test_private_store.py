"""``private_memories = true`` says a repository's memory files are kept out of git on purpose:
``tether doctor`` then notes the ignore rule and passes, and fails when git would commit them
after all (no rule ignores them, or git tracks some); ``tether init`` says the same."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, run_tether
from test_ignored_store import DOT_FILES, ignore, memory_status

PRIVATE = "private_memories = true\n"


def mark_private(repo: Path, text: str = PRIVATE) -> Path:
    """Write ``text`` as the store's own settings file; return its path."""
    path = repo / ".tether" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def remember(cli: Callable[..., CliResult]) -> None:
    """Write one memory, setting the store up."""
    assert cli("remember", "a note", "-c", "gotcha", "-f", "README.md").code == 0


def test_the_setting_is_an_engine_setting() -> None:
    from dataclasses import fields

    from recall.ignored_store import PRIVATE_SETTING
    from recall.settings import EngineSettings

    assert PRIVATE_SETTING in {item.name for item in fields(EngineSettings)}
    assert EngineSettings().private_memories is False  # memories are committed unless said


def test_doctor_notes_memories_ignored_on_purpose_and_passes(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli)
    rules = ignore(repo, DOT_FILES)
    settings = mark_private(repo)
    result = cli("doctor")
    assert result.code == 0, result.stdout
    note, done = result.stdout.strip().splitlines()
    assert note.startswith(f"{rules}:1: `.*` makes git ignore {repo / '.tether' / 'memories'}")
    assert f"note: intended, as `private_memories = true` says ({settings}:1)" in note
    assert "remove that setting and add a line `!.tether/` after the rule" in note
    assert done == "No problems found."
    assert result.stderr == ""
    listed = cli("--json", "doctor")
    assert listed.code == 0
    [entry] = json.loads(listed.stdout)
    assert entry["kind"] == "git-ignored" and entry["intended"] is True
    assert entry["intended_by"] == f"{settings}:1"
    assert (entry["path"], entry["line"], entry["pattern"]) == (str(rules), 1, ".*")
    assert entry["unignore"] == "!.tether/" and entry["message"] == note
    assert memory_status(repo) == "!!"  # the note says what git does


def test_a_rule_of_core_excludes_file_and_the_setting_in_pyproject(
    repo: Path, cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    remember(cli)
    own_rules = tmp_path / "my-ignores"
    own_rules.write_text("# mine\n.tether/\n", encoding="utf-8")
    git(repo, "config", "core.excludesFile", str(own_rules))
    (repo / "pyproject.toml").write_text("[tool.tether]\nprivate-memories = true\n", "utf-8")
    result = cli("doctor")
    assert result.code == 0, result.stdout
    assert result.stdout.startswith(f"{own_rules}:2: `.tether/` makes git ignore")
    assert f"as `private_memories = true` says ({repo / 'pyproject.toml'}:2)" in result.stdout
    assert result.stdout.endswith("No problems found.\n")


def test_doctor_fails_when_the_setting_says_private_and_git_would_commit_them(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli)
    settings = mark_private(repo)
    assert memory_status(repo) == "??"  # `git add .` would take them
    result = cli("doctor")
    assert result.code == 1
    exclude = repo / ".git" / "info" / "exclude"
    assert result.stdout.strip() == (
        f"{settings}:1: `private_memories = true` says the memory files in "
        f"{repo / '.tether' / 'memories'} stay private to this clone, but git does not ignore "
        "them, so `git add .` stages them for the next commit; to keep them private, add a line "
        f"`/.tether/` to {exclude}; if they are meant to be committed, remove the setting"
    )
    [entry] = json.loads(cli("--json", "doctor").stdout)
    assert entry["kind"] == "not-private" and entry["setting"] == "private_memories"
    assert (entry["path"], entry["line"]) == (str(settings), 1)
    assert (entry["ignored"], entry["tracked"]) == (False, [])
    assert (entry["exclude_file"], entry["exclude_line"]) == (str(exclude), "/.tether/")
    ignore(repo, "/.tether/\n", ".git/info/exclude")  # as it says
    assert memory_status(repo) == "!!"
    assert cli("doctor").code == 0


def test_doctor_fails_when_git_tracks_memories_marked_private(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli)
    git(repo, "add", ".tether")
    git(repo, "commit", "-q", "-m", "memories")
    [memory] = sorted((repo / ".tether" / "memories").glob("*.md"))
    ignore(repo, ".tether/\n")  # ignored, but a tracked file stays tracked
    settings = mark_private(repo)
    result = cli("doctor")
    assert result.code == 1
    said = result.stdout.strip()
    assert said.startswith(f"{settings}:1: `private_memories = true` says the memory files in")
    assert f"but git tracks 1 of them ({memory}), so they are committed" in said
    assert f"run `git rm -r --cached {repo / '.tether' / 'memories'}`" in said
    assert "add a line" not in said  # a rule ignores them already
    [entry] = json.loads(cli("--json", "doctor").stdout)
    assert entry["kind"] == "not-private" and entry["tracked"] == [str(memory)]
    assert entry["ignored"] is True and entry["exclude_line"] is None
    git(repo, "rm", "-q", "-r", "--cached", str(repo / ".tether" / "memories"))  # as it says
    assert cli("doctor").code == 0


def test_outside_git_the_setting_is_kept_and_nothing_is_said(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    assert run_tether("init", cwd=folder).code == 0
    mark_private(folder)
    result = run_tether("doctor", "--scope", "project", cwd=folder)
    assert (result.code, result.stdout.strip()) == (0, "No problems found.")


def test_a_bad_value_is_said_once_and_the_rule_stays_a_problem(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli)
    ignore(repo, DOT_FILES)
    settings = mark_private(repo, 'private_memories = "yes"\n')
    for scope in ("all", "project"):
        result = cli("doctor", "--scope", scope)
        assert result.code == 1
        bad = f"{settings}:1: ignoring private_memories = 'yes': give true or false"
        assert result.stdout.count(bad) == 1
        assert "note: intended" not in result.stdout


def test_init_says_the_rule_is_intended(repo: Path, cli: Callable[..., CliResult]) -> None:
    ignore(repo, DOT_FILES)
    (repo / "pyproject.toml").write_text("[tool.tether]\nprivate_memories = true\n", "utf-8")
    result = cli("init")
    assert result.code == 0
    assert result.stdout.strip() == (
        f"Created {repo / '.tether'} (memories/ stays private to this clone, as "
        "private_memories says; the index stays out of git)"
    )
    assert "note: intended, as `private_memories = true` says" in result.stderr
    assert cli("--json", "init").json() == {"created": False, "path": str(repo / ".tether")}


def test_init_says_when_the_setting_says_private_and_git_would_commit_them(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    (repo / "pyproject.toml").write_text("[tool.tether]\nprivate_memories = true\n", "utf-8")
    result = cli("--json", "init")
    assert result.code == 0
    found = result.json()["not_private"]
    assert found["kind"] == "not-private" and found["exclude_line"] == "/.tether/"
    assert result.stderr.strip() == f"tether: {found['message']}"
