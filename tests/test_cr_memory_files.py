"""A memory file written with old Mac line ends (a lone CR ending every line, the front matter's
too) is a memory file: read as one written with line feeds, never rewritten by a read, and a
key Tether writes into it later ends its line with a CR as the others do."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

MEMORY_ID = "0c0ffee1"
TEXT = (
    "---\r"
    f"id: {MEMORY_ID}\r"
    "category: gotcha\r"
    "files:\r"
    "  - src/app.py\r"
    "ticket: OPS-12  # mine\r"
    "---\r"
    "Retry the upload twice\r"
    "\r"
    "The first call often times out.\r"
    "The server drops idle sockets.\r"
)


def _written(cli: Callable[..., CliResult], repo: Path, text: str = TEXT) -> Path:
    """The store set up, with ``text`` as a memory file written by hand."""
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / f"{MEMORY_ID}.md"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_file_of_lone_cr_line_ends_is_read_as_a_memory_and_left_as_written(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    path = _written(cli, repo)

    shown = cli("--json", "show", MEMORY_ID)
    listed = cli("--json", "list")
    recalled = cli("recall", "--file", "src/app.py")
    doctor = cli("doctor")
    exported = cli("export")

    assert shown.code == 0, shown.stderr
    read = shown.json()
    assert read["summary"] == "Retry the upload twice"
    assert read["details"] == "The first call often times out.\nThe server drops idle sockets."
    assert (read["category"], read["files"]) == ("gotcha", ["src/app.py"])
    assert [m["id"] for m in listed.json()] == [MEMORY_ID]
    assert "Retry the upload twice" in recalled.stdout
    assert doctor.code == 0, doctor.stdout + doctor.stderr
    assert "front matter" not in doctor.stdout + doctor.stderr
    assert exported.code == 0, exported.stderr
    assert '"ticket": "OPS-12"' in exported.stdout
    assert path.read_bytes() == TEXT.encode("utf-8")  # read so, never rewritten


def test_a_problem_in_such_a_file_is_said_on_its_line(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    _written(cli, repo, TEXT.replace("category: gotcha", "category: gotch"))

    doctor = cli("doctor")

    assert doctor.code == 1
    assert f"{MEMORY_ID}.md:3: unknown category 'gotch'" in doctor.stdout


@pytest.mark.parametrize(
    ("command", "written"),
    [(("pin", MEMORY_ID), "pinned: true\r"), (("archive", MEMORY_ID), "status: archived\r")],
    ids=["pin", "archive"],
)
def test_a_key_tether_writes_into_such_a_file_keeps_its_line_ends(
    cli: Callable[..., CliResult], repo: Path, command: tuple[str, ...], written: str
) -> None:
    path = _written(cli, repo)

    done = cli(*command)

    assert done.code == 0, done.stderr
    after = path.read_bytes().decode("utf-8")
    assert "\n" not in after
    assert written in after
    front, body = after.split("---\r", 2)[1:]
    assert "ticket: OPS-12  # mine\r" in front  # the person's own line as written
    assert body == TEXT.split("---\r", 2)[2]  # the text byte for byte
    assert cli("--json", "show", MEMORY_ID).json()["summary"] == "Retry the upload twice"


def test_a_store_that_skipped_such_a_file_before_reads_it_now(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    # indexed as a problem (here an unknown category, as a version that read no front matter
    # in it refused it), then the same stat with the text that loads: only an upgrade of the
    # index reads it again, as a file unchanged since it was refused is not
    broken = TEXT.replace("category: gotcha", "category: gotchx")
    path = _written(cli, repo, broken)
    long_ago = (1_600_000_000_000_000_000, 1_600_000_000_000_000_000)  # not a racy time
    os.utime(path, ns=long_ago)
    assert "unknown category 'gotchx'" in cli("list").stderr
    path.write_bytes(TEXT.encode("utf-8"))
    os.utime(path, ns=long_ago)
    assert cli("--json", "list").json() == []  # unchanged, so still the problem it was
    with sqlite3.connect(repo / ".tether" / "index.db") as conn:
        conn.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")

    listed = cli("--json", "list")

    assert [m["id"] for m in listed.json()] == [MEMORY_ID], listed.stderr
    assert path.read_bytes() == TEXT.encode("utf-8")
