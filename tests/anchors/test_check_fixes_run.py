"""What ``tether check`` prints to do about a failure runs as printed (its placeholders filled)
and ends the failure; a memory the change fails counts once, with each reason on it; and a
supersede naming new symbol anchors leaves behind the files only the old anchors were in."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

ROUTE = (
    "int route_add(int arg)\n{\n    return arg;\n}\n\n"
    "int route_del(int arg)\n{\n    return -arg;\n}\n"
)
TABLE = "int table_add(int arg)\n{\n    return arg * 2;\n}\n"


@pytest.fixture
def c_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "c-repo", {"ip/route.c": ROUTE, "ip/table.c": TABLE, "README": "routes\n"}
    )


@pytest.fixture
def run(c_repo: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=c_repo)

    return runner


def remember(run: Callable[..., CliResult], summary: str, *extra: str) -> str:
    done = run("remember", summary, "-c", "decision", "--json", *extra)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_the_printed_supersede_runs_and_ends_the_failure(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember(run, "route_add holds rtnl", "--pin", "--anchor", "ip/route.c::route_add")
    commit_all(c_repo, "memory")
    git(c_repo, "rm", "-q", "ip/route.c")
    done = run("check")
    assert done.code == 1
    [line] = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    [command] = re.findall(r"`(tether supersede [^`]*)`", line)
    assert "deleted" not in command and "ip/route.c" not in command  # not the file gone
    filled = command.replace("SUMMARY", "'table_add holds rtnl'").replace(
        "PATH::NAME", "ip/table.c::table_add"
    )
    superseded = run(*shlex.split(filled)[1:], "--json")
    assert superseded.code == 0, superseded.stderr
    new = run("show", superseded.json()["id"], "--json").json()
    assert new["category"] == "decision"  # kept from the memory it replaces
    assert new["files"] == ["ip/table.c"]  # the deleted file went with its anchor
    assert run("check", "--json").json()["failures"] == []
    assert run("show", memory_id, "--json").json()["status"] == "superseded"


def test_a_file_the_person_named_stays_beside_new_anchors(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    old = remember(
        run, "route_add reads the readme", "-f", "README", "--anchor", "ip/route.c::route_add"
    )
    done = run(
        "supersede",
        old,
        "table_add reads the readme",
        "-c",
        "decision",
        "--anchor",
        "ip/table.c::table_add",
        "--json",
    )
    assert done.code == 0, done.stderr
    new = run("show", done.json()["id"], "--json").json()
    assert new["files"] == ["README", "ip/table.c"]


def test_a_memory_the_change_fails_twice_is_one_failure_with_both_reasons(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    add = remember(run, "route_add is sorted", "--pin", "--anchor", "ip/route.c::route_add")
    delete = remember(run, "route_del frees", "--pin", "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "memories")
    git(c_repo, "mv", "ip/route.c", "ip/routes.c")
    found = run("check", "--json").json()
    assert sorted(f["id"] for f in found["failures"]) == sorted([add, delete])
    for failure in found["failures"]:
        assert len(failure["reasons"]) == 2
        assert failure["reason"].count(f"`tether repoint {failure['id']} --apply`") == 1
    text = run("check")
    assert text.code == 1
    assert len([line for line in text.stdout.splitlines() if line.startswith("FAIL")]) == 2
    assert "2 failures" in text.stdout
