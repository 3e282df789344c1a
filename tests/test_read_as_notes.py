"""A value of a memory file written unquoted that YAML reads as something else (``1.10`` the
number 1.1, ``on`` true, ``0x10`` 16) is said by ``tether doctor`` and ``tether show`` with its
file and line, both values and how to quote it: a problem for a key Tether reads as text (the
memory is not what was written), a note that fails nothing for a key of one's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

MEMORY_ID = "0c0ffee2"


def _written(cli: Callable[..., CliResult], repo: Path, keys: str) -> Path:
    """The store set up, with a memory file written by hand giving ``keys`` as well."""
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / f"{MEMORY_ID}.md"
    text = (
        f"---\nid: {MEMORY_ID}\ncategory: gotcha\nfiles:\n  - src/app.py\n{keys}---\n"
        "The release train leaves on tuesdays\n"
    )
    path.write_text(text, encoding="utf-8")
    return path


def test_doctor_says_a_key_tether_reads_that_yaml_reads_otherwise_and_fails(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    path = _written(cli, repo, "anchor: 1.10\nauthor: on\n")

    doctor = cli("doctor")
    found = cli("doctor", "--json").json()

    assert doctor.code == 1, doctor.stdout + doctor.stderr
    assert doctor.stdout.splitlines() == [
        f"{path}:6: {MEMORY_ID}: front-matter key 'anchor' is written 1.10, which YAML reads "
        'as 1.1, so Tether takes it as "1.1"; quote it there (anchor: "1.10") to keep it as text',
        f"{path}:7: {MEMORY_ID}: front-matter key 'author' is written on, which YAML reads as "
        'true, so Tether takes it as "True"; quote it there (author: "on") to keep it as text',
    ]
    read_as = [entry for entry in found if entry["kind"] == "read-as"]
    assert [entry["message"] for entry in read_as] == doctor.stdout.splitlines()
    assert [
        (e["path"], e["id"], e["key"], e["line"], e["written"], e["read"], e["kept"])
        for e in read_as
    ] == [
        (str(path), MEMORY_ID, "anchor", 6, "1.10", 1.1, "1.1"),
        (str(path), MEMORY_ID, "author", 7, "on", True, "True"),
    ]
    assert all(entry["read_by_tether"] for entry in read_as)


def test_doctor_notes_a_key_of_ones_own_that_yaml_reads_otherwise_and_passes(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    path = _written(cli, repo, "ticket: 0x10  # hex\n")

    doctor = cli("doctor")
    [entry] = cli("doctor", "--json").json()

    assert doctor.code == 0, doctor.stdout + doctor.stderr
    assert doctor.stdout.splitlines() == [
        f"{path}:6: {MEMORY_ID}: note: front-matter key 'ticket' is written 0x10, which YAML "
        "reads as 16 (an export carries that, and an import writes it back); quote it there "
        '(ticket: "0x10") to keep it as text',
        "No problems found.",
    ]
    assert (entry["kind"], entry["key"], entry["read"], entry["read_by_tether"]) == (
        "read-as",
        "ticket",
        16,
        False,
    )


def test_values_meant_as_yaml_reads_them_are_not_said(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    _written(
        cli,
        repo,
        "pinned: on\nguard: yes\ncreated: 2026-11-30T12:00:00Z\nauthor: 42\n"
        'ticket: 12\nrelease: "1.10"\n',
    )

    doctor = cli("doctor")
    shown = cli("show", MEMORY_ID)

    assert (doctor.code, doctor.stdout) == (0, "No problems found.\n"), doctor.stderr
    assert shown.code == 0 and shown.stderr == "", shown.stderr


def test_show_says_it_on_stderr_and_shows_what_tether_read(
    cli: Callable[..., CliResult], repo: Path
) -> None:
    path = _written(cli, repo, "author: on\nticket: 0x10\n")
    assert cli("list").code == 0  # indexed: show says nothing else on stderr

    shown = cli("--json", "show", MEMORY_ID)
    card = cli("show", MEMORY_ID)

    assert shown.code == 0, shown.stderr
    assert shown.json()["author"] == "True"  # the data as Tether holds it
    notes = [
        f"tether: {path}:6: front-matter key 'author' is written on, which YAML reads as true, "
        'so Tether takes it as "True"; quote it there (author: "on") to keep it as text',
        f"tether: {path}:7: front-matter key 'ticket' is written 0x10, which YAML reads as 16 "
        "(an export carries that, and an import writes it back); quote it there "
        '(ticket: "0x10") to keep it as text',
    ]
    assert shown.stderr.splitlines() == notes
    assert card.stderr.splitlines() == notes
    assert "YAML" not in card.stdout and "by True" in card.stdout
