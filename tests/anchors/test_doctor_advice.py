"""``tether doctor`` on an anchored symbol that needs a look says what to do, as its other
findings do: a changed one is reviewed and confirmed (or the memory superseded), a relocated
one repointed, a gone one tied to other code or archived; ``--json`` carries the same line,
with the memory's file as ``path`` like every other finding about a memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

ROUTE = "int route_del(int a, int b)\n{\n    return a - b;\n}\n"
OTHER = "int route_add(int a, int b)\n{\n    return a + b;\n}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"a.c": ROUTE, "b.c": OTHER})


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def remember_guarded(cli: Callable[..., CliResult], repo: Path) -> str:
    summary = "no double free"
    done = cli(
        "remember", summary, "-c", "gotcha", "--anchor", "a.c::route_del", "--guard", "--json"
    )
    assert done.code == 0, done.stderr
    commit(repo, "memory")
    return str(done.json()["id"])


def doctor(cli: Callable[..., CliResult]) -> tuple[str, dict[str, Any]]:
    """The one anchor finding of ``tether doctor``: its line, and its ``--json`` entry."""
    done = cli("doctor")
    assert done.code == 1, done
    [line] = [line for line in done.stdout.splitlines() if ": symbol a.c::route_del: " in line]
    found = cli("doctor", "--json")
    assert found.code == 1, found
    [entry] = [e for e in found.json() if e["kind"] == "anchor"]
    assert entry["message"] == line
    return line, entry


def test_a_changed_anchor_says_to_review_and_confirm(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    memory_id = remember_guarded(cli, repo)
    (repo / "a.c").write_text(ROUTE.replace("a - b", "b - a"), encoding="utf-8")
    commit(repo, "edit")
    line, entry = doctor(cli)
    assert line.endswith(
        "symbol a.c::route_del: changed at a.c:1-4 (its code changed since the memory was "
        f"written or confirmed); review it, then `tether confirm {memory_id}` once the memory "
        f"still holds, or `tether supersede {memory_id} SUMMARY` if it does not"
    ), line
    memory_file = repo / ".tether" / "memories" / f"{memory_id}.md"
    assert line.startswith(f"{memory_file}:")
    assert (entry["path"], entry["id"]) == (str(memory_file), memory_id)
    assert (entry["state"], entry["changed"], entry["symbol_path"]) == ("changed", True, "a.c")
    # the advice, followed, ends the finding
    assert cli("confirm", memory_id).code == 0
    done = cli("doctor")
    assert (done.code, done.stdout.strip()) == (0, "No problems found."), done


def test_a_relocated_anchor_says_to_repoint(cli: Callable[..., CliResult], repo: Path) -> None:
    memory_id = remember_guarded(cli, repo)
    (repo / "a.c").write_text("", encoding="utf-8")
    (repo / "b.c").write_text(OTHER + "\n" + ROUTE, encoding="utf-8")
    commit(repo, "move")
    line, entry = doctor(cli)
    assert line.endswith(
        "symbol a.c::route_del: relocated to b.c:6-9; recall follows it "
        f"(`tether repoint {memory_id} --apply` writes the new place)"
    ), line
    assert (entry["state"], entry["symbol_path"]) == ("relocated", "b.c")
    assert cli("repoint", memory_id, "--apply").code == 0
    assert "route_del" not in cli("doctor").stdout


def test_a_relocated_and_changed_anchor_says_to_review_repoint_and_confirm(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    memory_id = remember_guarded(cli, repo)
    git(repo, "mv", "a.c", "c.c")
    (repo / "c.c").write_text(ROUTE.replace("a - b", "b - a"), encoding="utf-8")
    commit(repo, "rename and edit")
    line, _ = doctor(cli)
    assert line.endswith(
        "symbol a.c::route_del: relocated to c.c:1-4, and its code changed since; review it, "
        f"then `tether repoint {memory_id} --apply` and `tether confirm {memory_id}` once the "
        f"memory still holds, or `tether supersede {memory_id} SUMMARY` if it does not"
    ), line


def test_a_gone_anchor_says_to_supersede_or_archive(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    memory_id = remember_guarded(cli, repo)
    (repo / "a.c").write_text("int unrelated(void)\n{\n    return 0;\n}\n", encoding="utf-8")
    commit(repo, "delete route_del")
    line, entry = doctor(cli)
    assert line.endswith(
        f"symbol a.c::route_del: gone; if the memory holds for other code now, `tether "
        f"supersede {memory_id} SUMMARY --anchor PATH::NAME` ties it there; if it holds no "
        f"more, `tether archive {memory_id}`"
    ), line
    assert (entry["state"], entry["symbol_path"], entry["lines"]) == ("gone", None, None)
    assert cli("archive", memory_id).code == 0
    assert "route_del" not in cli("doctor").stdout
