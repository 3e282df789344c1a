"""An anchored symbol renamed or edited in the working tree, not committed nor indexed yet, is
said the same way by every command: ``check`` reads the working tree, and so do ``show`` (text
and ``--json``), ``doctor`` and the ``cleanup`` review for an anchored file the working tree
holds otherwise than the symbol index read it (the index follows HEAD and git's index, so it
still holds the old name)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from tests.anchors.test_anchor_suggestions import CORE_PY, GONE_SAID, remember, renamed_fix

ANCHOR = "src/core.py::load_session"
SAVE = "src/core.py::Store.save"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/core.py": CORE_PY})


def indexed_memories(repo: Path, cli: Callable[..., CliResult]) -> tuple[str, str]:
    """A memory anchored to load_session and one to Store.save, committed and indexed: ids."""
    renamed = remember(cli, "--anchor", ANCHOR).json()["id"]
    kept = cli("remember", "saves are atomic", "-c", "gotcha", "--json", "--anchor", SAVE)
    assert kept.code == 0, kept.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two memories")
    assert cli("index").code == 0
    return renamed, kept.json()["id"]


def edit_core(repo: Path, old: str, new: str) -> None:
    """Replace ``old`` with ``new`` in src/core.py, in the working tree only."""
    core = repo / "src/core.py"
    core.write_text(core.read_text().replace(old, new))


def anchor_entries(cli: Callable[..., CliResult]) -> list[dict[str, object]]:
    """The anchor findings of ``doctor --json``."""
    return [entry for entry in cli("doctor", "--json").json() if entry["kind"] == "anchor"]


def test_a_rename_not_committed_is_gone_in_show_and_doctor_as_in_check(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id, other = indexed_memories(repo, cli)
    edit_core(repo, "def load_session(", "def load_sessions(")
    [review] = cli("check", "--json").json()["review"]
    assert review["anchor_suggestions"] == {ANCHOR: ["load_sessions"]}
    shown = cli("show", memory_id, "--json").json()
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]
    assert shown["anchor_suggestions"] == review["anchor_suggestions"]
    card = " ".join(cli("show", memory_id).stdout.split())
    assert GONE_SAID in card and renamed_fix(memory_id) in card
    [entry] = anchor_entries(cli)  # the other anchor is still current
    assert (entry["id"], entry["state"]) == (memory_id, "gone")
    assert entry["anchor_suggestions"] == {ANCHOR: ["load_sessions"]}
    assert GONE_SAID in " ".join(cli("doctor").stdout.split())
    still = cli("show", other, "--json").json()
    [state] = still["anchor_states"]
    assert (state["state"], state["lines"]) == ("current", [2, 3])


def test_the_cleanup_review_says_a_rename_not_committed_gone_as_show_does(
    repo: Path, cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_NOW", "2026-01-01T00:00:00+00:00")  # written long before
    memory_id, other = indexed_memories(repo, cli)
    edit_core(repo, "def load_session(", "def load_sessions(")
    later = {"TETHER_NOW": "2028-01-01T00:00:00+00:00"}  # both idle since: both reviewed
    listed = {c["id"]: c for c in cli("cleanup", "--json", env=later).json()["candidates"]}
    said = "src/core.py::load_session: gone; did you mean load_sessions?"
    assert (listed[memory_id]["symbols"], listed[other]["symbols"]) == ([said], [])
    review = cli("cleanup", "--interactive", stdin="s\ns\n", env=later)  # both skipped
    assert review.code == 0, review.stderr
    assert f"symbol {said}" in review.stdout


def test_an_edit_not_committed_is_a_change_at_its_lines_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id, _ = indexed_memories(repo, cli)
    edit_core(repo, "def load_session(path):\n", "\n\ndef load_session(path):\n    path += 1\n")
    assert "the change edits load_session" in cli("check").stdout
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["changed"], state["lines"]) == ("changed", True, [11, 13])
    [entry] = anchor_entries(cli)
    assert (entry["id"], entry["state"], entry["symbol_path"]) == (
        memory_id,
        "changed",
        "src/core.py",
    )


def test_a_file_indexed_while_edited_is_read_anew_once_edited_again(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    # the index reads a file that differs from git's index as it is then, known by its size
    # and time: edited again since, the file is read anew
    memory_id, _ = indexed_memories(repo, cli)
    edit_core(repo, "class Store:\n", "# stores\nclass Store:\n")
    assert cli("index").code == 0
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["lines"]) == ("current", [10, 11])
    edit_core(repo, "def load_session(", "def load_sessions(")
    shown = cli("show", memory_id, "--json").json()
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]
    assert shown["anchor_suggestions"] == {ANCHOR: ["load_sessions"]}


def test_a_file_deleted_and_not_committed_leaves_no_names_to_offer(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id, _ = indexed_memories(repo, cli)
    (repo / "src/core.py").unlink()
    shown = cli("show", memory_id, "--json").json()
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]
    assert "anchor_suggestions" not in shown


SESSION = "def load_session(path):\n    return path\n"


def move_out(repo: Path, into: str, before: str = "") -> None:
    """Move load_session out of src/core.py into ``into`` (after ``before``), in the working
    tree only."""
    edit_core(repo, SESSION, "")
    (repo / into).parent.mkdir(parents=True, exist_ok=True)
    (repo / into).write_text(before + "\n\n" + SESSION)


def committed(repo: Path, files: dict[str, str]) -> None:
    """Add ``files`` to ``repo`` in a commit of their own."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more files")


def test_a_move_into_a_tracked_file_not_committed_is_followed_as_check_follows_it(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    committed(repo, {"src/io.py": "def read_all(path):\n    return path\n"})
    memory_id, other = indexed_memories(repo, cli)
    move_out(repo, "src/io.py", before="def read_all(path):\n    return path\n")
    assert "moves symbol load_session from src/core.py to src/io.py" in cli("check").stdout
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["path"], state["lines"]) == ("relocated", "src/io.py", [5, 6])
    assert "relocated to src/io.py:5-6" in cli("show", memory_id).stdout
    [entry] = anchor_entries(cli)
    assert (entry["id"], entry["state"], entry["symbol_path"]) == (
        memory_id,
        "relocated",
        "src/io.py",
    )
    [kept] = cli("show", other, "--json").json()["anchor_states"]
    assert kept["state"] == "current"


def test_a_move_into_a_new_file_not_tracked_yet_is_followed(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id, _ = indexed_memories(repo, cli)
    move_out(repo, "src/sessions/load.py", before="import os")
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["path"], state["lines"]) == (
        "relocated",
        "src/sessions/load.py",
        [3, 4],
    )


def test_a_file_that_defined_the_name_all_along_is_not_where_it_went(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    # another load_session, committed in another file long before: an edit there (not the
    # move) does not make it the anchored one
    other_module = "def load_session(path):\n    return None\n"
    committed(repo, {"tools/cli.py": other_module})
    memory_id, _ = indexed_memories(repo, cli)
    edit_core(repo, SESSION, "")
    (repo / "tools/cli.py").write_text("# edited\n" + other_module)
    shown = cli("show", memory_id, "--json").json()
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]


def test_a_file_elsewhere_deleted_and_not_committed_defines_nothing_now(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    # the index still holds io.py's load_session; the working tree has neither copy
    memory_id, _ = indexed_memories(repo, cli)
    edit_core(repo, SESSION, "")
    (repo / "src/io.py").write_text(SESSION)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "moved")
    assert cli("index").code == 0
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["path"]) == ("relocated", "src/io.py")
    (repo / "src/io.py").unlink()
    shown = cli("show", memory_id, "--json").json()
    assert [s["state"] for s in shown["anchor_states"]] == ["gone"]


def test_the_changed_files_read_are_bounded_the_newest_first(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    from recall.genome import limits

    assert limits.MAX_CHANGED_FILES_READ == 64
    memory_id, _ = indexed_memories(repo, cli)
    for n in range(limits.MAX_CHANGED_FILES_READ + 6):  # generated, not ignored
        (repo / "gen" / f"g{n}.py").parent.mkdir(exist_ok=True)
        (repo / "gen" / f"g{n}.py").write_text(f"def g{n}():\n    pass\n")
    move_out(repo, "src/sessions/load.py", before="import os")  # written last
    [state] = cli("show", memory_id, "--json").json()["anchor_states"]
    assert (state["state"], state["path"]) == ("relocated", "src/sessions/load.py")
