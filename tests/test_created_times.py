"""A memory's ``created`` is a point in time: hand-written ones with any offset order as the
times they name (``list`` newest first), one that names no time is a problem of its file (said
with its line, the file skipped as a file with an unknown category is), and what the loader
reads, export writes and import writes back the same."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, OpenStore, make_repo

from recall.index.schema import SCHEMA_VERSION

Cli = Callable[..., CliResult]

# 07:00, 08:00 and 10:00 UTC, written with offsets that make their text order the other way
BY_OFFSET = {
    "seven utc": "2026-03-01T12:00:00+05:00",
    "eight utc": "2026-03-01T08:00:00+00:00",
    "ten utc": "2026-03-01T05:00:00-05:00",
}


def _write(repo: Path, name: str, summary: str, created: str) -> Path:
    folder = repo / ".tether" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = f"---\ncategory: gotcha\nfiles: [src/app.py]\ncreated: {created}\n---\n{summary}\n"
    path.write_text(text, encoding="utf-8")
    return path


def _summaries(done: CliResult) -> list[str]:
    assert done.code == 0, done.stderr
    return [memory["summary"] for memory in done.json()]


@pytest.mark.parametrize("quoted", [True, False])
def test_list_is_newest_first_by_the_time_each_offset_names(
    cli: Cli, repo: Path, quoted: bool
) -> None:
    assert cli("init").code == 0
    for number, (summary, created) in enumerate(BY_OFFSET.items()):
        _write(repo, f"hand{number}.md", summary, f'"{created}"' if quoted else created)
    newest_first = ["ten utc", "eight utc", "seven utc"]
    assert _summaries(cli("--json", "list")) == newest_first
    assert _summaries(cli("--json", "list", "--limit", "1")) == ["ten utc"]
    listed = {m["summary"]: m["created"] for m in cli("--json", "list").json()}
    assert listed["seven utc"] == "2026-03-01T07:00:00+00:00"  # the same time, in UTC


NAMES_NO_TIME = "is not an ISO-8601 date and time in years 1 to 9999"
NAMES_NO_DAY = "is written as a date but names none (day is out of range for month)"


@pytest.mark.parametrize(
    ("created", "said"),
    [
        ("2026", f"created '2026' {NAMES_NO_TIME}"),
        ("yesterday", f"created 'yesterday' {NAMES_NO_TIME}"),
        ("true", f"created 'true' {NAMES_NO_TIME}"),
        ('"0001-01-01T00:00:00+01:00"', f"created '0001-01-01T00:00:00+01:00' {NAMES_NO_TIME}"),
        # unquoted: YAML's own times, which UTC moves past year 1 or 9999
        ("0001-01-01T00:00:00+01:00", f"created '0001-01-01T00:00:00+01:00' {NAMES_NO_TIME}"),
        ("9999-12-31T23:59:59-05:00", f"created '9999-12-31T23:59:59-05:00' {NAMES_NO_TIME}"),
        ("2026-02-30T10:00:00", f"'2026-02-30T10:00:00' {NAMES_NO_DAY}"),  # YAML's own date
    ],
)
def test_a_created_naming_no_time_is_said_with_its_line_and_the_file_skipped(
    cli: Cli, repo: Path, created: str, said: str
) -> None:
    assert cli("init").code == 0
    path = _write(repo, "retry.md", "retry at most three times", created)
    _write(repo, "fine.md", "a fine note", "2026-03-01T08:00:00Z")
    said = f"{path}:4: {said}"
    listed = cli("list")
    assert "retry at most" not in listed.stdout and "a fine note" in listed.stdout
    assert said in listed.stderr and '"2026-11-30T21:00:00+00:00"' in listed.stderr
    recalled = cli("recall", "-f", "src/app.py")
    assert "retry at most" not in recalled.stdout and said in recalled.stderr
    doctor = cli("doctor")
    assert doctor.code == 1 and said in doctor.stdout
    exported = cli("export")
    assert exported.code == 3 and said in exported.stderr  # the export is not whole


def test_an_anchor_written_as_a_time_past_year_9999_in_utc_is_kept_as_written(
    cli: Cli, repo: Path
) -> None:
    assert cli("init").code == 0
    folder = repo / ".tether" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "late.md").write_text(
        "---\ncategory: gotcha\nfiles: [src/app.py]\nanchor: 9999-12-31T23:59:59-05:00\n---\n"
        "a late anchor\n",
        encoding="utf-8",
    )
    listed = cli("--json", "list")
    assert listed.code == 0, listed.stderr
    assert [m["anchor"] for m in listed.json()] == ["9999-12-31T23:59:59-05:00"]


def test_export_then_import_writes_back_every_created_the_loader_reads(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    assert cli("init").code == 0
    written = {
        "offset": "2026-03-01T12:00:00+05:00",
        "unquoted offset": "2026-03-01 12:00:00.250 +05:00",
        "a date": "2026-03-01",
        "zulu with a fraction": '"2026-03-01T08:00:00.5Z"',
        "naive": '"2026-03-01T08:00"',
    }
    for number, (summary, created) in enumerate(written.items()):
        _write(repo, f"hand{number}.md", summary, created)
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    before = {m["summary"]: m["created"] for m in cli("--json", "list").json()}
    assert before["a date"] == "2026-03-01T00:00:00+00:00"
    assert before["zulu with a fraction"] == "2026-03-01T08:00:00.500000+00:00"
    assert before["unquoted offset"] == "2026-03-01T07:00:00.250000+00:00"
    other = make_repo(tmp_path / "other")
    (tmp_path / "all.jsonl").write_text(exported.stdout, encoding="utf-8")
    imported = cli("import", str(tmp_path / "all.jsonl"), cwd=other)
    assert imported.code == 0, imported.stderr
    after = {m["summary"]: m["created"] for m in cli("--json", "list", cwd=other).json()}
    assert after == before


def test_an_index_from_before_reads_each_created_again_on_upgrade(
    repo: Path, open_store: Callable[..., OpenStore]
) -> None:
    store = open_store().store
    _write(repo, "late.md", "ten utc", '"2026-03-01T05:00:00-05:00"')
    _write(repo, "early.md", "seven utc", '"2026-03-01T12:00:00+05:00"')
    assert [m.summary for m in store.list()] == ["ten utc", "seven utc"]
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # as version 9 kept them: as each file wrote it
        conn.execute(
            "UPDATE memories SET created = '2026-03-01T12:00:00+05:00' WHERE name = ?",
            ("early.md",),
        )
        conn.execute(
            "UPDATE memories SET created = '2026-03-01T05:00:00-05:00' WHERE name = ?", ("late.md",)
        )
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    upgraded, notices = open_store()
    assert notices == []  # migrated, not rebuilt
    assert (
        int(
            upgraded.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[
                0
            ]
        )
        == SCHEMA_VERSION
    )
    assert [m.summary for m in upgraded.list()] == ["ten utc", "seven utc"]
    assert upgraded.list()[0].created == "2026-03-01T10:00:00+00:00"


def test_export_keeps_the_created_it_read_as_json_text(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    _write(repo, "hand.md", "a dated note", "2026-03-01")
    done = cli("export")
    assert done.code == 0, done.stderr
    [line] = [json.loads(text) for text in done.stdout.splitlines()]
    assert line["created"] == "2026-03-01T00:00:00+00:00"
