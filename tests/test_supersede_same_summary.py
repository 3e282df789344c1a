"""``tether supersede`` refuses a summary another active memory holds with another category or
other details, as ``tether remember`` does (two cards with one summary read as one), writing
nothing; the memory being superseded may keep its own summary (correcting its category or
details is what a supersede is for)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

Cli = Callable[..., CliResult]


def _remember(cli: Cli, summary: str, category: str, path: str) -> str:
    done = cli("remember", summary, "-c", category, "-f", path, "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _memory_files(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / ".tether" / "memories").glob("*.md"))


def test_supersede_refuses_a_summary_another_memory_holds(cli: Cli, repo: Path) -> None:
    bun = _remember(cli, "always use bun", "pref", "src/app.py")
    old = _remember(cli, "cache keys include tenant", "gotcha", "src/util.py")
    before = _memory_files(repo)

    done = cli("supersede", old, "Always use  bun")

    assert done.code == 1, done.stderr
    assert f"{bun} already has this summary, but its category is pref, not gotcha" in done.stderr
    assert "nothing written" in done.stderr and f"`tether supersede {bun} SUMMARY" in done.stderr
    assert _memory_files(repo) == before
    assert cli("show", old, "--json").json()["status"] == "active"
    assert cli("show", bun, "--json").json()["status"] == "active"


def test_supersede_may_keep_the_superseded_memorys_own_summary(cli: Cli, repo: Path) -> None:
    old = _remember(cli, "always use bun", "pref", "src/app.py")

    done = cli("supersede", old, "always use bun", "-c", "decision", "--json")

    assert done.code == 0, done.stderr
    new = done.json()["id"]
    assert cli("show", new, "--json").json()["category"] == "decision"
    assert cli("show", old, "--json").json()["status"] == "superseded"
