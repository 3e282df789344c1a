"""Symbol anchors follow the code through real git histories: a function moved between files,
a file split, a directory moved over several commits, a rename plus an edit in one commit.
Each ends in the right state, and touching the file the symbol lives in now surfaces the
memory with a receipt naming the symbol and where it came from."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo


def c_function(name: str, body: str = "return 0;") -> str:
    return f"int {name}(int arg)\n{{\n    {body}\n}}\n"


def c_file(*names: str) -> str:
    return "#include <stdio.h>\n\n" + "\n".join(
        c_function(n, f"return {i};") for i, n in enumerate(names)
    )


@pytest.fixture
def c_repo(tmp_path: Path) -> Path:
    """A repository with two C files under ip/."""
    return make_repo(
        tmp_path / "c-repo",
        {
            "ip/iproute.c": c_file("iproute_list", "iproute_modify", "iproute_flush"),
            "ip/ipaddr.c": c_file("ipaddr_list"),
            "README": "routes\n",
        },
    )


@pytest.fixture
def run(c_repo: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=c_repo)

    return runner


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def remember_anchored(run: Callable[..., CliResult], *anchors: str) -> str:
    args = ["remember", "route changes must hold the rtnl lock", "-c", "gotcha", "--json"]
    for anchor in anchors:
        args += ["--anchor", anchor]
    done = run(*args)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def states(run: Callable[..., CliResult], memory_id: str) -> list[dict[str, Any]]:
    done = run("show", memory_id, "--json")
    assert done.code == 0, done.stderr
    return list(done.json()["anchor_states"])


def recalled(run: Callable[..., CliResult], path: str) -> dict[str, str]:
    done = run("recall", "--file", path, "--no-record", "--json")
    assert done.code == 0, done.stderr
    return {hit["id"]: hit["receipt"] for hit in done.json()["results"]}


def move_function(repo: Path, name: str, source: str, target: str) -> None:
    """Cut the definition of ``name`` out of ``source`` and append it to ``target``."""
    text = (repo / source).read_text()
    start = text.index(f"int {name}(")
    end = text.index("}\n", start) + 2
    (repo / source).write_text(text[:start] + text[end:])
    with (repo / target).open("a") as handle:
        handle.write("\n" + text[start:end])


def test_a_new_anchor_is_current_with_its_body_recorded(run: Callable[..., CliResult]) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    [state] = states(run, memory_id)
    assert state["state"] == "current" and state["path"] == "ip/iproute.c"
    assert state["lines"] == [8, 11]
    assert state["recorded_body"] == state["body"] and state["body"]
    shown = run("show", memory_id)
    assert "symbol ip/iproute.c::iproute_modify: current at ip/iproute.c:8-11" in shown.stdout


def test_a_function_moved_to_another_file_is_relocated_and_recalled_there(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    [state] = states(run, memory_id)
    assert (state["state"], state["path"], state["changed"]) == ("relocated", "ip/ipaddr.c", False)
    receipt = recalled(run, "ip/ipaddr.c")[memory_id]
    assert receipt.startswith("via symbol iproute_modify, moved from ip/iproute.c")
    doctor = run("doctor")
    assert f"{memory_id}: symbol ip/iproute.c::iproute_modify: relocated to ip/ipaddr.c" in (
        doctor.stdout
    )
    # repoint proposes the new place and writes it with --apply; the state is current again
    assert (
        "ip/iproute.c::iproute_modify -> ip/ipaddr.c::iproute_modify"
        in run("repoint", memory_id).stdout
    )
    assert run("repoint", memory_id, "--apply").code == 0
    [state] = states(run, memory_id)
    assert (state["state"], state["path"]) == ("current", "ip/ipaddr.c")


def files_of(run: Callable[..., CliResult], memory_id: str) -> list[str]:
    done = run("show", memory_id, "--json")
    assert done.code == 0, done.stderr
    return list(done.json()["files"])


def test_repoint_of_a_function_moved_away_drops_the_file_it_left(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    proposed = run("repoint", memory_id, "--json").json()
    assert proposed["proposed"] == ["ip/ipaddr.c"]
    assert proposed["files_dropped"] == ["ip/iproute.c"]
    done = run("repoint", memory_id, "--apply")
    assert done.code == 0, done.stderr
    assert "ip/iproute.c: dropped from the files" in done.stdout
    assert files_of(run, memory_id) == ["ip/ipaddr.c"]
    shown = run("show", memory_id, "--json").json()
    assert shown["former_files"] == ["ip/iproute.c"]


def test_repoint_keeps_a_file_another_anchor_is_still_in(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify", "ip/iproute.c::iproute_list")
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    assert run("repoint", memory_id, "--apply").code == 0
    assert files_of(run, memory_id) == ["ip/iproute.c", "ip/ipaddr.c"]


def test_repoint_keeps_a_file_named_without_an_anchor(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    done = run(
        "remember", "route changes must hold the rtnl lock", "-c", "gotcha", "--json",
        "--file", "README", "--anchor", "ip/iproute.c::iproute_modify",
    )  # fmt: skip
    memory_id = str(done.json()["id"])
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    assert run("repoint", memory_id, "--apply").code == 0
    assert files_of(run, memory_id) == ["README", "ip/ipaddr.c"]


def test_a_file_split_in_two_relocates_each_anchor_to_its_half(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_list", "ip/iproute.c::iproute_flush")
    (c_repo / "ip/iproute_list.c").write_text(c_file("iproute_list", "iproute_modify"))
    (c_repo / "ip/iproute_flush.c").write_text(
        "#include <stdio.h>\n\n" + c_function("iproute_flush", "return 2;")
    )
    (c_repo / "ip/iproute.c").unlink()
    commit(c_repo, "split iproute.c")
    found = {s["symbol"]: (s["state"], s["path"]) for s in states(run, memory_id)}
    assert found == {
        "ip/iproute.c::iproute_list": ("relocated", "ip/iproute_list.c"),
        "ip/iproute.c::iproute_flush": ("relocated", "ip/iproute_flush.c"),
    }
    assert "via symbol iproute_flush, moved from ip/iproute.c" in recalled(
        run, "ip/iproute_flush.c"
    ).get(memory_id, "")


def test_a_directory_moved_over_several_commits_is_followed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    git(c_repo, "mv", "ip", "src")
    commit(c_repo, "ip/ becomes src/")
    (c_repo / "README").write_text("routes and addresses\n")
    commit(c_repo, "readme")
    (c_repo / "src/net").mkdir()
    git(c_repo, "mv", "src/iproute.c", "src/net/route.c")
    commit(c_repo, "route code under src/net")
    [state] = states(run, memory_id)
    assert (state["state"], state["path"], state["changed"]) == (
        "relocated",
        "src/net/route.c",
        False,
    )
    assert memory_id in recalled(run, "src/net/route.c")


def test_a_rename_and_an_edit_in_one_commit_is_relocated_and_changed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    text = (c_repo / "ip/iproute.c").read_text().replace("return 1;", "return arg + 1;")
    (c_repo / "ip/iproute.c").unlink()
    (c_repo / "ip/route.c").write_text(text)
    commit(c_repo, "rename and fix")
    [state] = states(run, memory_id)
    assert (state["state"], state["path"], state["changed"]) == ("relocated", "ip/route.c", True)
    assert memory_id in recalled(run, "ip/route.c")
    shown = run("show", memory_id).stdout
    assert "relocated to ip/route.c:8-11, and its code changed since" in shown


def test_an_edit_in_place_is_changed_until_confirmed_and_a_deletion_is_gone(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify", "ip/iproute.c::iproute_list")
    text = (c_repo / "ip/iproute.c").read_text()
    text = text.replace("return 1;", "return -1;")
    start = text.index("int iproute_list(")
    text = text[:start] + text[text.index("}\n", start) + 2 :]
    (c_repo / "ip/iproute.c").write_text(text)
    commit(c_repo, "change one, drop the other")
    found = {s["symbol"]: s["state"] for s in states(run, memory_id)}
    assert found == {
        "ip/iproute.c::iproute_modify": "changed",
        "ip/iproute.c::iproute_list": "gone",
    }
    assert run("confirm", memory_id).code == 0
    found = {s["symbol"]: s["state"] for s in states(run, memory_id)}
    assert found["ip/iproute.c::iproute_modify"] == "current"
    assert found["ip/iproute.c::iproute_list"] == "gone"  # kept, never dropped


def test_reformatting_is_not_a_change(c_repo: Path, run: Callable[..., CliResult]) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    text = (c_repo / "ip/iproute.c").read_text().replace("    return 1;", "\treturn 1;   ")
    (c_repo / "ip/iproute.c").write_text(text)
    commit(c_repo, "tabs")
    assert [s["state"] for s in states(run, memory_id)] == ["current"]


def test_supersede_keeps_the_anchors_unless_new_ones_are_given(
    run: Callable[..., CliResult],
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    done = run(
        "supersede",
        memory_id,
        "route changes hold rtnl and the table lock",
        "-c",
        "gotcha",
        "--json",
    )
    assert done.code == 0, done.stderr
    [state] = states(run, done.json()["id"])
    assert (state["symbol"], state["state"]) == ("ip/iproute.c::iproute_modify", "current")
    again = run(
        "supersede",
        done.json()["id"],
        "flush needs the lock too",
        "-c",
        "gotcha",
        "--anchor",
        "ip/iproute.c::iproute_flush",
        "--json",
    )
    assert [s["symbol"] for s in states(run, again.json()["id"])] == ["ip/iproute.c::iproute_flush"]


def test_confirm_records_the_working_tree_body_not_the_last_indexed_one(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_modify")
    [before] = states(run, memory_id)
    text = (c_repo / "ip/iproute.c").read_text().replace("return 1;", "return arg * 2;")
    (c_repo / "ip/iproute.c").write_text(text)  # an edit not staged: the genome does not see it
    assert run("confirm", memory_id).code == 0
    [after] = states(run, memory_id)
    assert after["recorded_body"] != before["recorded_body"]
    commit(c_repo, "the edit the memory was confirmed against")
    [state] = states(run, memory_id)
    assert (state["state"], state["changed"]) == ("current", False)


def test_a_deletion_beside_a_namesake_is_gone_not_repointed_there(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_anchored(run, "ip/iproute.c::iproute_list")
    with (c_repo / "ip/ipaddr.c").open("a") as handle:  # another function of the same name
        handle.write("\n" + c_function("iproute_list", "return -7;"))
    commit(c_repo, "ipaddr.c gets its own iproute_list")
    text = (c_repo / "ip/iproute.c").read_text()
    start = text.index("int iproute_list(")
    (c_repo / "ip/iproute.c").write_text(text[:start] + text[text.index("}\n", start) + 2 :])
    commit(c_repo, "drop iproute_list")
    [state] = states(run, memory_id)
    assert (state["state"], state["path"]) == ("gone", None)
    refused = run("repoint", memory_id, "--apply")
    assert refused.code == 1 and "no symbol it anchors moved" in refused.stderr
    assert [s["symbol"] for s in states(run, memory_id)] == ["ip/iproute.c::iproute_list"]
    assert "via symbol" not in run("recall", "--file", "ip/ipaddr.c", "--no-record").stdout


def remember_named_and_anchored(run: Callable[..., CliResult]) -> str:
    done = run(
        "remember", "route changes must hold the rtnl lock", "-c", "gotcha", "--json",
        "--file", "ip/iproute.c", "--anchor", "ip/iproute.c::iproute_modify",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_repoint_keeps_a_file_named_with_file_that_an_anchor_moved_away_from(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_named_and_anchored(run)
    memory_file = c_repo / ".tether" / "memories" / f"{memory_id}.md"
    assert "given_files:" in memory_file.read_text(encoding="utf-8")
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    proposed = run("repoint", memory_id, "--json").json()
    assert proposed["proposed"] == ["ip/iproute.c", "ip/ipaddr.c"]
    assert (proposed["files_dropped"], proposed["files_kept"]) == ([], ["ip/iproute.c"])
    done = run("repoint", memory_id, "--apply")
    assert done.code == 0, done.stderr
    assert "ip/iproute.c: kept in the files, named by you" in done.stdout
    assert "dropped" not in done.stdout
    assert files_of(run, memory_id) == ["ip/iproute.c", "ip/ipaddr.c"]
    assert run("show", memory_id, "--json").json()["former_files"] == []


def test_a_supersede_keeps_the_files_the_person_named_in_the_old_memory(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    old_id = remember_named_and_anchored(run)
    done = run("supersede", old_id, "route changes hold the rtnl lock", "-c", "gotcha", "--json")
    assert done.code == 0, done.stderr
    new_id = str(done.json()["id"])
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    assert run("repoint", new_id, "--apply").code == 0
    assert files_of(run, new_id) == ["ip/iproute.c", "ip/ipaddr.c"]


def test_a_file_the_person_named_is_kept_after_export_and_import(
    c_repo: Path, tmp_path: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember_named_and_anchored(run)
    exported = run("export")
    assert exported.code == 0, exported.stderr
    [record] = [json.loads(line) for line in exported.stdout.splitlines()]
    assert record["given_files"] == ["ip/iproute.c"]
    assert run("delete", memory_id).code == 0
    assert run("purge", "--yes").code == 0
    source = tmp_path / "memories.jsonl"
    source.write_text(exported.stdout, encoding="utf-8")
    assert run("import", str(source)).code == 0
    move_function(c_repo, "iproute_modify", "ip/iproute.c", "ip/ipaddr.c")
    commit(c_repo, "move iproute_modify next to the address code")
    assert run("repoint", memory_id, "--apply").code == 0
    assert files_of(run, memory_id) == ["ip/iproute.c", "ip/ipaddr.c"]
