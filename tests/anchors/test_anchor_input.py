"""What ``remember --anchor PATH::NAME`` says about an anchor it cannot bind, end to end
through the real CLI in a temp git repository: a mistyped symbol gets the closest names (also
in ``--json``), a binary or oversized file is said to be not read for symbols by remember,
confirm and check, a file name holding ``::`` and a path ending in ``/`` are refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall.genome.limits import MAX_SCAN_BYTES

STORE = "def helper():\n    return 1\n\n\ndef helpers_all():\n    return 2\n"
CPP = "namespace ns {\nstruct K {\n  int m() { return 1; }\n};\n}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(
        tmp_path / "repo",
        {"src/store.py": STORE, "we::ird.py": "def w():\n    return 3\n", "src/a.cpp": CPP},
    )
    (root / "blob.bin").write_bytes(b"def x():\0\n    pass\n")
    padding = "# padding line\n" * (MAX_SCAN_BYTES // 15 + 10)
    (root / "long.py").write_text(padding + "def last():\n    pass\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a binary and a long file")
    return root


def remember(cli: Callable[..., CliResult], *args: str) -> CliResult:
    return cli("remember", "anchored knowledge", "-c", "gotcha", "--json", *args)


def test_a_mistyped_symbol_names_the_closest_ones_also_in_json(
    cli: Callable[..., CliResult],
) -> None:
    done = remember(cli, "--anchor", "src/store.py::helpr")
    assert done.code == 0, done.stderr  # kept: a symbol may be still to come
    assert "src/store.py defines no helpr; did you mean helper or helpers_all?" in done.stderr
    notes = done.json()["anchor_notes"]
    assert len(notes) == 1 and "did you mean helper or helpers_all?" in notes[0]
    assert notes[0] in done.stderr
    confirmed = cli("confirm", done.json()["id"])  # the same help where the anchor is checked
    assert confirmed.code == 0, confirmed.stderr
    assert "defines no helpr in src/store.py; did you mean helper or helpers_all?" in " ".join(
        confirmed.stderr.split()
    )


def test_a_name_nothing_is_close_to_gets_no_suggestion(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "--anchor", "src/store.py::zzz")
    assert done.code == 0, done.stderr
    assert "src/store.py defines no zzz)" in done.stderr
    assert "did you mean" not in done.stderr


def test_an_anchor_that_binds_has_no_notes(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "--anchor", "src/store.py::helper")
    assert done.code == 0, done.stderr
    assert "anchor_notes" not in done.json()


@pytest.mark.parametrize(
    ("anchor", "why"),
    [
        ("blob.bin::x", "blob.bin is not read for symbols: it is binary"),
        ("long.py::last", "long.py is not read for symbols: it is 1,0"),
    ],
)
def test_an_unread_file_is_said_so_by_remember_confirm_and_check(
    repo: Path, cli: Callable[..., CliResult], anchor: str, why: str
) -> None:
    done = remember(cli, "--guard", "--anchor", anchor)
    assert done.code == 0, done.stderr
    memory_id = done.json()["id"]
    [note] = done.json()["anchor_notes"]
    assert why in note and "`tether check` reviews the whole file for it" in note
    assert "once it is confirmed" not in note  # confirming cannot read it either
    if anchor.startswith("long"):
        assert f"over the symbol reader's limit of {MAX_SCAN_BYTES:,} bytes" in note
        assert "no setting raises it" in note
    confirmed = cli("confirm", memory_id)
    assert confirmed.code == 0, confirmed.stderr
    assert why in confirmed.stderr
    assert "defines no" not in confirmed.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the memory")
    path = anchor.partition("::")[0]
    with (repo / path).open("ab") as handle:
        handle.write(b"# an edit\n")
    checked = cli("check")
    assert checked.code == 1, checked.stdout + checked.stderr  # guarded: the file stands for it
    assert why in checked.stdout
    assert "is not found there at the base" not in checked.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("-f", "we::ird.py", "--anchor", "w"),
        ("--anchor", "we::ird.py::w"),
        ("-f", "we::ird.py", "--anchor", "we::ird.py::w"),
    ],
)
def test_an_anchor_into_a_file_named_with_the_separator_is_refused(
    repo: Path, cli: Callable[..., CliResult], args: tuple[str, ...]
) -> None:
    done = remember(cli, *args)
    assert done.code == 2, done.stdout + done.stderr
    assert "the file name 'we::ird.py' holds '::'" in done.stderr
    assert "--file 'we::ird.py'" in done.stderr
    assert not list((repo / ".tether" / "memories").glob("*.md"))  # nothing written


def test_the_file_named_with_the_separator_alone_is_kept(cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "-f", "we::ird.py")
    assert done.code == 0, done.stderr
    shown = cli("show", done.json()["id"], "--json").json()
    assert shown["files"] == ["we::ird.py"]


def test_a_qualified_cpp_name_splits_at_the_first_separator(
    cli: Callable[..., CliResult],
) -> None:
    done = remember(cli, "--anchor", "src/a.cpp::ns::K::m")
    assert done.code == 0, done.stderr
    [anchor] = cli("show", done.json()["id"], "--json").json()["anchors"]
    assert (anchor["path"], anchor["name"]) == ("src/a.cpp", "ns::K::m")
    assert anchor["body"] is not None  # found in the file


def test_a_path_ending_in_a_slash_is_refused(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = remember(cli, "--anchor", "src/store.py/::helper")
    assert done.code == 2, done.stdout + done.stderr
    assert "--anchor 'src/store.py/::helper'" in done.stderr
    assert "names a folder" in done.stderr and "src/store.py::helper" in done.stderr
    assert not (repo / ".tether" / "memories").exists() or not list(
        (repo / ".tether" / "memories").glob("*.md")
    )


def test_a_supersede_carries_the_anchor_notes_in_json(cli: Callable[..., CliResult]) -> None:
    old = remember(cli, "-f", "src/store.py")
    assert old.code == 0, old.stderr
    done = cli(
        "supersede", old.json()["id"], "new knowledge", "--anchor", "src/store.py::helpr", "--json"
    )
    assert done.code == 0, done.stderr
    [note] = done.json()["anchor_notes"]
    assert "did you mean helper or helpers_all?" in note
