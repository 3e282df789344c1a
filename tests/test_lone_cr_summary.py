"""A memory file whose summary line ends in a lone CR (old Mac line ends, or a tool that wrote
one): the CR ends the line as a line feed does, so the summary is that line alone and what
follows it the details, and a store indexed when it was read otherwise reads it so too."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from recall.model import content_hash, summary_key

SUMMARY = "Retry the upload twice"
DETAILS = "The first call often times out.\nThe server drops idle sockets."


def _remembered(cli: Callable[..., CliResult]) -> tuple[str, Path, str]:
    """A memory written through the CLI: its id, its file and the file's text."""
    assert cli("init").code == 0
    done = cli("--json", "remember", "-c", "gotcha", "-f", "src/app.py", "--details", DETAILS,
               SUMMARY)  # fmt: skip
    assert done.code == 0, done.stderr
    memory_id = done.json()["id"]
    path = Path(cli("--json", "show", memory_id).json()["path"])
    return memory_id, path, path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "ended",
    [f"{SUMMARY}\r\r", f"{SUMMARY}\r"],
    ids=["blank line after it", "details right after it"],
)
def test_a_summary_line_ended_by_a_lone_cr_is_the_summary_alone(
    cli: Callable[..., CliResult], ended: str
) -> None:
    memory_id, path, text = _remembered(cli)
    edited = text.replace(f"{SUMMARY}\n\n", ended)
    path.write_bytes(edited.encode("utf-8"))

    shown = cli("--json", "show", memory_id)
    listed = cli("--json", "list")
    recalled = cli("recall", "--file", "src/app.py")
    doctor = cli("doctor")

    assert shown.code == 0, shown.stderr
    assert (shown.json()["summary"], shown.json()["details"]) == (SUMMARY, DETAILS)
    assert [m["summary"] for m in listed.json()] == [SUMMARY]
    assert SUMMARY in recalled.stdout and "\\r" not in recalled.stdout
    assert doctor.code == 0, doctor.stdout + doctor.stderr
    # the memory as written with line feeds, by its hash: a second write of it is known
    again = cli("remember", "-c", "gotcha", "-f", "src/app.py", "--details", DETAILS, SUMMARY)
    assert f"Already known as {memory_id}" in again.stdout, again.stdout + again.stderr
    assert path.read_bytes() == edited.encode("utf-8")  # read so, never rewritten


def test_a_store_indexed_before_reads_the_summary_alone_and_keeps_its_counts(
    cli: Callable[..., CliResult],
) -> None:
    memory_id, path, text = _remembered(cli)
    path.write_bytes(text.replace(f"{SUMMARY}\n\n", f"{SUMMARY}\r").encode("utf-8"))
    first_line, rest = DETAILS.split("\n", 1)
    old_summary, old_details = f"{SUMMARY}\r{first_line}", rest  # as version 12 read it
    assert cli("show", memory_id).code == 0  # indexed now, and acted on
    index = path.parent.parent / "index.db"
    with sqlite3.connect(index) as conn:  # the row as an index of version 12 kept it
        conn.execute(
            "UPDATE memories SET summary = ?, details = ?, content_hash = ?, summary_key = ?",
            (
                old_summary,
                old_details,
                content_hash("gotcha", old_summary, old_details),
                summary_key(old_summary),
            ),
        )
        conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
        (acted,) = conn.execute("SELECT acted FROM usage WHERE memory_id = ?", (memory_id,))

    shown = cli("--json", "show", memory_id)

    assert shown.code == 0, shown.stderr
    read = shown.json()
    assert (read["summary"], read["details"]) == (SUMMARY, DETAILS)
    assert read["content_hash"] == content_hash("gotcha", SUMMARY, DETAILS)
    assert read["usage"]["acted"] == acted[0] + 1  # the counts kept: the memory's, by its id
    assert [m["summary"] for m in cli("--json", "list").json()] == [SUMMARY]
    assert cli("doctor").code == 0
