"""A listing over both stores is one listing, newest first, cut to its limit only after the
project's and the global store's memories are merged: a newer global memory is never dropped
for an older project one. Through the real CLI, in a real repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from recall.lifecycle.stats import HUB_FILES
from tests.conftest import CliResult


def imported(cli: Callable[..., CliResult], tmp_path: Path, scope: str, lines: list[dict]) -> None:
    """Write ``lines`` (import records) into the store of ``scope`` with ``tether import``."""
    source = tmp_path / f"{scope}.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = cli("import", str(source), "--scope", scope)
    assert done.code == 0, done.stderr


def note(summary: str, created: str, **more: object) -> dict:
    """An import line: a gotcha on src/app.py written at ``created``."""
    return {"summary": summary, "category": "gotcha", "files": ["src/app.py"], "created": created,
            **more}  # fmt: skip


def interleaved(cli: Callable[..., CliResult], tmp_path: Path, **more: object) -> None:
    """Project memories of the 1st and 3rd of March, a global one of the 2nd and one of the
    4th, the newest of all."""
    imported(cli, tmp_path, "project", [
        note("project oldest", "2026-03-01T10:00:00+00:00", **more),
        note("project third", "2026-03-03T10:00:00+00:00", **more),
    ])  # fmt: skip
    imported(cli, tmp_path, "global", [
        note("global second", "2026-03-02T10:00:00+00:00", **more),
        note("global newest", "2026-03-04T10:00:00+00:00", **more),
    ])  # fmt: skip


def test_list_all_is_one_listing_newest_first_across_both_stores(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    interleaved(cli, tmp_path)
    done = cli("list", "--scope", "all", "--json")
    assert done.code == 0, done.stderr
    assert [(m["summary"], m["scope"]) for m in done.json()] == [
        ("global newest", "global"),
        ("project third", "project"),
        ("global second", "global"),
        ("project oldest", "project"),
    ]
    piped = cli("list", "--scope", "all")
    rows = [line.split("\t") for line in piped.stdout.splitlines()]
    assert [(row[2], row[4]) for row in rows] == [
        ("global newest", "global"),
        ("project third", "project"),
        ("global second", "global"),
        ("project oldest", "project"),
    ]


def test_the_limit_cuts_the_merged_listing(cli: Callable[..., CliResult], tmp_path: Path) -> None:
    interleaved(cli, tmp_path)
    done = cli("list", "--limit", "1", "--json")  # --scope all is the default
    assert done.code == 0, done.stderr
    assert [(m["summary"], m["scope"]) for m in done.json()] == [("global newest", "global")]
    two = cli("list", "--scope", "all", "--limit", "2", "--json").json()
    assert [m["summary"] for m in two] == ["global newest", "project third"]


def test_memories_written_at_one_moment_list_by_id_whatever_their_store(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    moment = "2026-03-01T10:00:00+00:00"
    imported(cli, tmp_path, "project", [note("project f", moment, id="ffffffff"),
                                        note("project 1", moment, id="11111111")])  # fmt: skip
    imported(cli, tmp_path, "global", [note("global 8", moment, id="88888888")])
    ids = [m["id"] for m in cli("list", "--json").json()]
    assert ids == ["11111111", "88888888", "ffffffff"]
    assert [m["id"] for m in cli("list", "--limit", "2", "--json").json()] == ids[:2]


def test_pending_lists_both_stores_newest_first_before_its_limit(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    interleaved(cli, tmp_path, status="pending")
    done = cli("pending", "list", "--scope", "all", "--limit", "1", "--json")
    assert done.code == 0, done.stderr
    assert [(m["summary"], m["scope"]) for m in done.json()] == [("global newest", "global")]


def test_stats_adds_up_the_files_of_both_stores_before_it_picks_the_most_named(
    cli: Callable[..., CliResult], tmp_path: Path, repo: Path
) -> None:
    # the project names HUB_FILES files twice each and src/app.py once, the global store
    # src/app.py twice: three memories in all, the most of any file
    names = [f"src/hub{n}.py" for n in range(HUB_FILES)]
    for name in names:
        (repo / name).write_text("x = 1\n", encoding="utf-8")
    lines = [
        {"summary": f"{name} note {n}", "category": "gotcha", "files": [name]}
        for name in names
        for n in range(2)
    ]
    imported(cli, tmp_path, "project", [*lines, note("app once here", "2026-03-01")])
    imported(cli, tmp_path, "global", [note("app global a", "2026-03-01"),
                                       note("app global b", "2026-03-02")])  # fmt: skip
    done = cli("stats", "--scope", "all", "--json")
    assert done.code == 0, done.stderr
    assert done.json()["hub_files"][0] == {"path": "src/app.py", "memories": 3}
