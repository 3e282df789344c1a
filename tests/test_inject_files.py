"""``tether inject --file`` with a path no file of the repository answers to says so as
``tether recall --file`` does (on stderr, and as ``notes`` with ``--json``), and still exits 0:
hooks and agents' scripts run inject before every turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

Cli = Callable[..., CliResult]


def _remember(cli: Cli, summary: str, path: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", path, "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _recall_notes(cli: Cli, *options: str) -> list[str]:
    """The notes ``tether recall`` gives on stderr for the same files, without their
    ``tether:`` prefix (its "no memory matches" line is no note)."""
    done = cli("recall", *options, "--no-record")
    prefix = "tether: "
    return [
        line.removeprefix(prefix) for line in done.stderr.splitlines() if line.startswith(prefix)
    ]


@pytest.mark.parametrize(
    "options",
    [("-f", "src/ap.py"), ("--open", "src/utl.py"), ("-f", "src")],
    ids=["typo", "opened-typo", "folder"],
)
def test_inject_names_a_path_that_is_no_file_as_recall_does(
    cli: Cli, options: tuple[str, ...]
) -> None:
    _remember(cli, "the app starts slowly", "src/app.py")
    said = _recall_notes(cli, *options)
    assert said and options[1] in said[0]

    plain = cli("inject", *options, "--no-record", stdin="hello")
    assert (plain.code, plain.stdout) == (0, "")
    assert plain.stderr.splitlines() == [f"tether: {note}" for note in said]

    as_json = cli("inject", "--json", *options, "--no-record", stdin="hello")
    assert as_json.code == 0, as_json.stderr
    assert as_json.json() == {"results": [], "text": "", "notes": said}


def test_inject_of_a_file_deleted_from_the_working_tree_recalls_its_memories(
    cli: Cli, repo: Path
) -> None:
    memory_id = _remember(cli, "the helper caches forever", "src/util.py")
    _remember(cli, "the app starts slowly", "src/app.py")
    (repo / "src" / "util.py").unlink()
    said = _recall_notes(cli, "-f", "src/util.py")

    done = cli("inject", "--json", "-f", "src/util.py", "--no-record", stdin="hello")

    assert done.code == 0, done.stderr
    assert [hit["id"] for hit in done.json()["results"]] == [memory_id]
    assert done.json()["notes"] == said


def test_inject_of_files_that_exist_has_no_notes(cli: Cli) -> None:
    memory_id = _remember(cli, "the app starts slowly", "src/app.py")
    done = cli("inject", "--json", "-f", "src/app.py", "--no-record", stdin="hello")
    assert (done.code, done.stderr) == (0, "")
    assert [hit["id"] for hit in done.json()["results"]] == [memory_id]
    assert "notes" not in done.json()
