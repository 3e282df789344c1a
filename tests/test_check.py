"""``tether check``: a change held against the memories of its files, through the real CLI on a
real git repository (a base branch, a change on top, CI's REF...HEAD)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git


def write(cli: Callable[..., CliResult], *args: str) -> str:
    done = cli("remember", *args, "--json")
    assert done.code == 0, done.stderr
    return done.json()["id"]


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def memories_committed(repo: Path, cli: Callable[..., CliResult]) -> dict[str, str]:
    ids = {
        "guarded": write(
            cli, "retries stay at three", "-c", "decision", "-f", "src/app.py", "--guard"
        ),
        "pinned": write(
            cli, "util is imported by the CLI", "-c", "gotcha", "-f", "src/util.py", "--pin"
        ),
        "context": write(
            cli, "the guide is built by mkdocs", "-c", "context", "-f", "docs/guide.md"
        ),
    }
    commit(repo, "memories")
    git(repo, "checkout", "-q", "-b", "change")
    return ids


def test_a_clean_change_lists_what_to_review_and_passes(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    ids = memories_committed(repo, cli)
    guide = repo / "docs" / "guide.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nmore\n", encoding="utf-8")
    commit(repo, "docs")
    done = cli("check", "--base", "main", "--json")
    assert done.code == 0, done.stderr
    data = done.json()
    assert data["ok"] is True and data["against"] == "main...HEAD"
    (memory,) = data["memories"]
    assert memory["id"] == ids["context"] and memory["failures"] == []
    assert memory["changed"][0]["path"] == "docs/guide.md"
    assert memory["changed"][0]["lines"]
    text = cli("check", "--base", "main")
    assert text.code == 0
    assert f"context {ids['context']} — the guide is built by mkdocs · docs/guide.md (lines" in (
        text.stdout
    )


def test_guarded_code_changed_fails_until_the_memory_is_confirmed_in_the_change(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    ids = memories_committed(repo, cli)
    app = repo / "src" / "app.py"
    app.write_text("RETRIES = 5\n" + app.read_text(encoding="utf-8"), encoding="utf-8")
    uncommitted = cli("check", "--json")  # the working tree against HEAD
    assert uncommitted.code == 1
    commit(repo, "more retries")
    failed = cli("check", "--base", "main")
    assert failed.code == 1
    assert f"FAIL: src/app.py changes under guarded decision {ids['guarded']}" in failed.stdout
    github = cli("check", "--base", "main", "--format", "github")
    assert github.code == 1
    assert github.stdout.startswith(
        f"::error file=src/app.py,line=1,endLine=1,title=Tether decision {ids['guarded']}::"
        "retries stay at three — src/app.py changes under guarded decision"
    )
    assert cli("confirm", ids["guarded"]).code == 0
    git(repo, "add", "-A")
    assert cli("check", "--staged").code == 0  # the confirmation is staged with nothing else
    commit(repo, "confirmed")
    passed = cli("check", "--base", "main", "--json")
    assert passed.code == 0, passed.stdout
    assert passed.json()["memories"][0]["guard"] is True


def test_a_pinned_memorys_file_renamed_away_fails_until_it_is_repointed(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    ids = memories_committed(repo, cli)
    git(repo, "mv", "src/util.py", "src/helpers.py")
    commit(repo, "rename util")
    failed = cli("check", "--base", "main", "--json")
    assert failed.code == 1
    (finding,) = [m for m in failed.json()["memories"] if m["failures"]]
    assert finding["id"] == ids["pinned"]
    assert finding["changed"][0] == {
        "path": "src/util.py",
        "status": "R",
        "renamed_to": "src/helpers.py",
        "lines": [],
    }
    assert f"tether repoint {ids['pinned']} --apply" in finding["failures"][0]
    assert cli("repoint", ids["pinned"], "--apply").code == 0
    commit(repo, "repointed")
    assert cli("check", "--base", "main").code == 0


def test_a_base_that_is_not_a_commit_is_a_clear_error(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memories_committed(repo, cli)
    done = cli("check", "--base", "origin/main")
    assert done.code == 2
    assert "--base 'origin/main' is not a commit of this repository; fetch it first" in done.stderr
