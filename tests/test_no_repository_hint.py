"""Outside any repository, a command that needs one says so and names only what that command
accepts: ``--scope global`` for the commands that read by scope, ``--global`` for those that
take it, and nothing more for the commands that work on a repository alone. The form named
is then run, and is accepted. Each is refused as a wrong place to run, exit 2, as ``check``
is; a command that reads git's history itself says that git is needed, not `tether init`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import git, run_tether

NO_REPOSITORY = "is not inside a git repository or a folder with .tether/; run `tether init` there"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "plain"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    ("words", "form"),
    [
        (("stats",), "--scope global"),
        (("export",), "--scope global"),
        (("reindex",), "--global"),
        (("purge",), "--global"),
        (("index",), None),
        (("neighbours", "src/app.py"), None),
        (("fanin", "src/app.py"), None),
    ],
)
def test_the_message_names_only_what_the_command_takes(
    outside: Path, words: tuple[str, ...], form: str | None
) -> None:
    done = run_tether(*words, cwd=outside)
    assert done.code == 2  # a wrong place to run, as check says it
    assert NO_REPOSITORY in done.stderr
    if form is None:
        assert "--global" not in done.stderr and "--scope" not in done.stderr
        return
    assert f"or use `tether {words[0]} {form}` for your user-wide memories" in done.stderr
    named = re.search(r"`tether ([^`]*)`(?= for your)", done.stderr)
    assert named is not None
    again = run_tether(*named.group(1).split(), cwd=outside)
    assert "unrecognized arguments" not in again.stderr
    assert NO_REPOSITORY not in again.stderr


def test_an_import_names_its_global_option(outside: Path) -> None:
    source = outside / "mine.jsonl"
    source.write_text('{"summary": "a note", "category": "context"}\n', encoding="utf-8")
    done = run_tether("import", str(source), cwd=outside)
    assert done.code == 2
    assert "or use `tether import --global` for your user-wide memories" in done.stderr
    assert run_tether("import", str(source), "--global", cwd=outside).code == 0


def test_in_a_bare_repository_only_the_commands_form_is_named(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    bare.mkdir()
    git(bare, "init", "-q", "--bare")
    index = run_tether("index", cwd=bare)
    assert index.code == 2  # a wrong place to run, as init says it
    assert "git's own folder" in index.stderr
    assert "--global" not in index.stderr and "--scope" not in index.stderr
    stats = run_tether("stats", cwd=bare)
    assert "or use `tether stats --scope global` for your user-wide memories" in stats.stderr


NEEDS_GIT = "is not inside a git repository; run it in a clone, or `git init` there first"


@pytest.mark.parametrize("words", [("distill",), ("distill", "--since", "HEAD~1"), ("check",)])
@pytest.mark.parametrize("set_up", [False, True], ids=["bare folder", "after init"])
def test_what_reads_git_history_says_git_is_needed(
    outside: Path, words: tuple[str, ...], set_up: bool
) -> None:
    if set_up:
        assert run_tether("init", cwd=outside).code == 0  # init works outside git
    done = run_tether(*words, cwd=outside)
    assert done.code == 2, done
    assert f"tether {words[0]} " in done.stderr and NEEDS_GIT in done.stderr
    for wrong in ("no commits yet", "not a commit of this repository", "run `tether init`"):
        assert wrong not in done.stderr


def test_warm_keeps_its_own_code_for_no_store_here(outside: Path) -> None:
    done = run_tether("warm", "--status", cwd=outside)
    assert done.code == 1  # README's table for warm: 1, not running or no store here
    assert NO_REPOSITORY in done.stderr
