"""A file renamed away from a name that a new file then takes: a memory naming the name follows
the rename only when it was written before it; one written after the name was taken again is
about the new file. Recall, ``list --file``, the pre-edit hook's guard and ``tether check`` agree,
but for one thing: a memory written before the name was taken again is not the new file's in
recall and ``list --file``, while the edit hooks still ask about it there.
The real CLI and hook command, real repositories, commit times and the clock pinned."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import CliResult, git, make_repo

from recall.file_names import EarlierName, dated_names, held_since, left_step
from recall.written_moments import names_it_by

OLD = "def one():\n    return 'original long file'\n"
NEW = "def two():\n    return 42\n"


def at(day: int) -> dict[str, str]:
    """The environment of a command run on day ``day`` of November 2026 (git and Tether)."""
    stamp = f"2026-11-{day:02d}T12:00:00+00:00"
    return {"GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_DATE": stamp, "TETHER_NOW": stamp}


def commit(repo: Path, day: int, *args: str) -> None:
    """Run git in ``repo`` with its clock on day ``day``."""
    subprocess.run(["git", *args], cwd=repo, check=True, env={**os.environ, **at(day)})


def remember(cli: Any, day: int, summary: str) -> str:
    done: CliResult = cli(
        "remember", summary, "-c", "gotcha", "-f", "util.py", "--guard", "--json", env=at(day)
    )
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def pre_edit(cli: Any, repo: Path, path: str) -> str:
    payload = {
        "session_id": "5d2e8f1a-3b4c-4d5e-8f6a-7b8c9d0e1f2a",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / path), "old_string": "def", "new_string": "def"},
        "tool_use_id": "toolu_1",
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload), env=at(20))
    assert done.code == 0, done.stderr
    return done.stdout


def name_taken(repo: Path, cli: Any) -> None:
    """In ``repo``, util.py becomes legacy.py on day 4 and a new util.py takes the name on day
    5; the repository is indexed after."""
    commit(repo, 4, "mv", "util.py", "legacy.py")
    commit(repo, 4, "commit", "-q", "-m", "util.py becomes legacy.py")
    (repo / "util.py").write_text(NEW)
    git(repo, "add", "-A")
    commit(repo, 5, "commit", "-q", "-m", "a new util.py")
    assert cli("index").code == 0


def name_taken_again(tmp_path: Path, cli: Any) -> tuple[Path, str, str]:
    """A repository whose util.py (with a guarded memory written on day 2) became legacy.py on
    day 4, a new util.py taking the name on day 5 and a memory on it on day 6, indexed: the
    repository and the two memories' ids."""
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "README.md": "# demo\n"})
    before = remember(cli, 2, "the original util is long")
    git(repo, "add", "-A")
    commit(repo, 3, "commit", "-q", "-m", "memory")
    name_taken(repo, cli)
    after = remember(cli, 6, "note about the new util")
    return repo, before, after


def test_a_memory_on_a_reused_name_stays_with_the_file_that_has_it(
    tmp_path: Path, cli: Any
) -> None:
    repo, before, after = name_taken_again(tmp_path, cli)
    (repo / "util.py").write_text(NEW + "# a later change\n")
    git(repo, "add", "-A")  # the name came back on day 5, whatever changed it since
    commit(repo, 7, "commit", "-q", "-m", "util.py changed again")
    assert cli("index").code == 0

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [before]
    assert hits[0]["receipt"].startswith("via file (renamed from util.py)")
    hits = cli("recall", "-f", "util.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [after]  # the memory written before is legacy.py's

    listed = cli("list", "--file", "legacy.py", "--json")
    assert [m["id"] for m in listed.json()] == [before]
    listed = cli("list", "--file", "util.py", "--json")
    assert [m["id"] for m in listed.json()] == [after]

    asked = pre_edit(cli, repo, "legacy.py")
    assert f"[{before}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked
    asked = pre_edit(cli, repo, "util.py")
    assert after in asked
    assert before in asked  # an edit hook asks once too often, never too seldom

    (repo / "legacy.py").write_text(OLD + "# edited\n")
    found = cli("check", "--json").json()
    named = found["review"] + found["failures"]  # guarded: a failure, said once
    assert {f["id"] for f in named} == {before}


def test_a_memory_written_before_the_name_came_back_still_follows_the_rename(
    tmp_path: Path, cli: Any
) -> None:
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "README.md": "# demo\n"})
    commit(repo, 2, "mv", "util.py", "legacy.py")
    commit(repo, 2, "commit", "-q", "-m", "util.py becomes legacy.py")
    assert cli("index").code == 0
    between = remember(cli, 3, "the old util is long")  # told: recall follows the rename
    (repo / "util.py").write_text(NEW)
    git(repo, "add", "-A")
    commit(repo, 5, "commit", "-q", "-m", "a new util.py")
    assert cli("index").code == 0
    after = remember(cli, 6, "note about the new util")

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [between]
    assert hits[0]["receipt"].startswith("via file (renamed from util.py)")
    listed = cli("list", "--file", "legacy.py", "--json")
    assert [m["id"] for m in listed.json()] == [between]
    asked = pre_edit(cli, repo, "legacy.py")
    assert f"[{between}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked

    (repo / "legacy.py").write_text(OLD + "# edited\n")
    found = cli("check", "--json").json()
    assert {f["id"] for f in found["review"] + found["failures"]} == {between}


def test_a_reused_name_deleted_again_keeps_its_memories_apart(tmp_path: Path, cli: Any) -> None:
    # the new util.py is deleted in turn: no file has the name now, yet it was taken again,
    # so only what was written before that still follows the old file's rename
    repo, before, after = name_taken_again(tmp_path, cli)
    commit(repo, 7, "rm", "-q", "util.py")
    commit(repo, 7, "commit", "-q", "-m", "the new util.py goes")
    assert cli("index").code == 0

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [before]
    listed = cli("list", "--file", "legacy.py", "--json")
    assert [m["id"] for m in listed.json()] == [before]
    asked = pre_edit(cli, repo, "legacy.py")
    assert f"[{before}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked

    (repo / "legacy.py").write_text(OLD + "# edited\n")
    found = cli("check", "--json").json()
    assert {f["id"] for f in found["review"] + found["failures"]} == {before}


def test_a_reused_name_renamed_away_again_keeps_its_memories_apart(
    tmp_path: Path, cli: Any
) -> None:
    # the new util.py is renamed in turn: the name was taken again (by a file whose row is
    # under its newer name), so what was written after that stays off legacy.py
    repo, before, after = name_taken_again(tmp_path, cli)
    commit(repo, 7, "mv", "util.py", "helpers.py")
    commit(repo, 7, "commit", "-q", "-m", "the new util.py becomes helpers.py")
    assert cli("index").code == 0

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [before]
    asked = pre_edit(cli, repo, "legacy.py")
    assert f"[{before}] covers legacy.py (renamed from util.py)" in asked
    assert after not in asked
    assert after in pre_edit(cli, repo, "helpers.py")


def test_a_name_brought_back_by_a_rename_is_dated_by_that_rename(tmp_path: Path, cli: Any) -> None:
    # the file that takes the name again comes by a rename, with commits of its own before it
    # under its old name: those are no return of the name
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "other.py": NEW})
    commit(repo, 2, "mv", "util.py", "legacy.py")
    commit(repo, 2, "commit", "-q", "-m", "util.py becomes legacy.py")
    (repo / "other.py").write_text(NEW + "# more\n")
    commit(repo, 3, "commit", "-q", "-am", "other.py grows")
    assert cli("index").code == 0
    between = remember(cli, 4, "the old util is long")  # told: recall follows the rename
    commit(repo, 5, "mv", "other.py", "util.py")
    commit(repo, 5, "commit", "-q", "-m", "other.py becomes util.py")
    assert cli("index").code == 0

    hits = cli("recall", "-f", "legacy.py", "--json", env=at(20)).json()["results"]
    assert [hit["id"] for hit in hits] == [between]
    assert hits[0]["receipt"].startswith("via file (renamed from util.py)")


def test_a_reused_name_whose_rename_time_is_unknown_is_left_to_the_file_there() -> None:
    steps = [("util.py", 7), ("gone.py", 3)]
    dated = dated_names(steps, {}, lambda name: name == "util.py")
    assert dated == [EarlierName("gone.py", math.inf)]
    # a name no file has now: any memory naming it follows the rename, however late
    assert names_it_by({"gone.py"}, "2030-01-01T00:00:00+00:00", "legacy.py", dated)
    timed = dated_names(steps, {7: 1_000}, lambda name: name == "util.py")
    assert timed[0] == EarlierName("util.py", 1_000.0)
    assert names_it_by({"util.py"}, "1970-01-01T00:00:00+00:00", "legacy.py", timed)
    assert not names_it_by({"util.py"}, "1970-01-01T00:20:00+00:00", "legacy.py", timed)
    assert not names_it_by({"util.py"}, "not a time", "legacy.py", timed)
    # dated by the commit that brought the name back, else by the rename
    back = dated_names(
        steps, {7: 1_000, 9: 2_000}, lambda name: name == "util.py", {("util.py", 7): 9}
    )
    assert back[0] == EarlierName("util.py", 2_000.0)
    unknown = dated_names(steps, {7: 1_000}, lambda name: name == "util.py", {("util.py", 7): 9})
    assert unknown[0] == EarlierName("util.py", 1_000.0)


def test_a_name_taken_again_is_dated_from_its_return_for_the_file_there_now() -> None:
    left = {"util.py": [(7, "legacy.py")], "legacy.py": [], "a.py": [(3, "b.py")]}
    left["b.py"] = [(5, "a.py")]  # a.py went to b.py and came back: still the same file
    assert left_step("a.py", lambda name: left.get(name, [])) is None
    assert left_step("never.py", lambda name: left.get(name, [])) is None
    step = left_step("util.py", lambda name: left.get(name, []))
    assert step == ("util.py", 7)
    # from the commit that brought the name back, else the rename; neither known: any time
    assert held_since(step, {7: 1_000, 9: 2_000}, {step: 9}) == EarlierName(
        "util.py", math.inf, 2_000.0
    )
    assert held_since(step, {7: 1_000}, {step: None}).after == 1_000.0
    assert held_since(step, {}, {}).after == -math.inf
    own = held_since(step, {7: 1_000}, {step: None})
    day = "1970-01-01T00:{:02d}:00+00:00"
    assert not names_it_by({"util.py"}, day.format(10), "util.py", [], own)
    assert names_it_by({"util.py"}, day.format(20), "util.py", [], own)
    assert names_it_by({"util.py"}, "not a time", "util.py", [], own)  # names it as it is
    assert names_it_by({"util.py"}, day.format(10), "util.py", [])  # no date: any memory


def test_a_gotcha_on_a_reused_name_warns_on_the_renamed_file_only(tmp_path: Path, cli: Any) -> None:
    # not guarded: the edit hooks warn where recall and the editor show it, and nowhere else
    repo = make_repo(tmp_path / "repo", {"util.py": OLD, "README.md": "# demo\n"})
    done = cli(
        "remember", "the old util leaks", "-c", "gotcha", "-f", "util.py", "--json", env=at(2)
    )
    assert done.code == 0, done.stderr
    old = str(done.json()["id"])
    git(repo, "add", "-A")
    commit(repo, 3, "commit", "-q", "-m", "memory")
    name_taken(repo, cli)

    assert old in pre_edit(cli, repo, "legacy.py")
    assert old not in pre_edit(cli, repo, "util.py")
    hits = cli("recall", "-f", "util.py", "--json", env=at(20)).json()["results"]
    assert old not in [hit["id"] for hit in hits]
    assert cli("list", "--file", "util.py", "--json").json() == []
