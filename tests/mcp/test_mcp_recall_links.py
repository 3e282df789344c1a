"""``memory_recall`` given a link inside the repository recalls its target's memories, as
``tether recall --file`` does (the one function both read the files through); a link leading
outside the repository is refused by both, naming where it leads, and the file there is never
read. The real server over stdio and the real CLI, on a real repository."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from conftest import git, run_tether

from tests.mcp.raw_wire import INITIALIZE, INITIALIZED, line, server_answers, tool_call


def _remember(repo: Path, summary: str, path: str) -> str:
    done = run_tether("remember", summary, "-c", "gotcha", "-f", path, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _memory_recall(repo: Path, files: list[str]) -> dict[str, Any]:
    """The result of one ``memory_recall`` of ``files`` by a server started in ``repo``."""
    sent = [INITIALIZE, INITIALIZED, tool_call(2, "memory_recall", {"files": files})]
    answers = {a.get("id"): a for a in server_answers(repo, b"".join(line(m) for m in sent))}
    return answers[2]["result"]


def _linked(repo: Path) -> str:
    """include/cfg.h, a committed link to ../src/cfg.h, with a memory on the target and one
    on another file: the target's memory's id."""
    (repo / "src" / "cfg.h").write_text("#define RETRIES 3\n", encoding="utf-8")
    (repo / "include").mkdir()
    os.symlink("../src/cfg.h", repo / "include" / "cfg.h")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "cfg.h, and a link to it")
    _remember(repo, "the app starts slowly", "src/app.py")
    return _remember(repo, "RETRIES is read once at start", "src/cfg.h")


def test_memory_recall_of_a_link_in_the_repository_recalls_its_target_as_the_cli_does(
    repo: Path,
) -> None:
    memory_id = _linked(repo)
    cli = run_tether("recall", "-f", "include/cfg.h", "--no-record", "--json", cwd=repo)
    assert cli.code == 0, cli.stderr

    found = _memory_recall(repo, ["include/cfg.h"])

    assert not found.get("isError"), found
    hits = found["structuredContent"]["results"]
    assert [h["id"] for h in hits] == [h["id"] for h in cli.json()["results"]] == [memory_id]
    assert [h["receipt"] for h in hits] == [h["receipt"] for h in cli.json()["results"]]
    assert "notes" not in found["structuredContent"] and cli.stderr == ""


def test_a_link_leading_outside_the_repository_is_refused_by_both_and_not_read(
    repo: Path, tmp_path: Path
) -> None:
    _linked(repo)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "cfg.h").write_text("#define OUTSIDE_ONLY 1\n", encoding="utf-8")
    os.symlink(outside / "cfg.h", repo / "include" / "away.h")
    where = f"leads through a symlink to {outside / 'cfg.h'}, outside the repository"

    found = _memory_recall(repo, ["include/away.h"])
    cli = run_tether("recall", "-f", "include/away.h", "--no-record", "--json", cwd=repo)

    assert found["isError"] is True
    said = found["content"][0]["text"]
    assert said.startswith("memory_recall: files[0] 'include/away.h' ") and where in said
    assert cli.code == 2 and cli.stdout == ""
    assert f"--file 'include/away.h' {where}" in cli.stderr
    assert "OUTSIDE_ONLY" not in said + cli.stderr
