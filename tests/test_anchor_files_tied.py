"""A memory file written by hand whose ``anchors`` name files its ``files`` leaves out is tied
to those files as a write with ``--anchor`` ties it (recalled and listed for them, said in
``files``), read so and never rewritten; an export says them and comes back the same."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, OpenStore, make_repo, run_tether

from recall.anchors.base_guards import parse_memory
from recall.index.schema import SCHEMA_VERSION

Cli = Callable[..., CliResult]

FILES = {
    "src/a.py": "def foo():\n    return 1\n",
    "other.py": "VALUE = 2\n",
    "README.md": "# demo\n",
}
PLAIN = (
    "---\ncategory: gotcha\nfiles: [other.py]\nanchors:\n  - src/a.py::foo\n---\n"
    "foo must stay free of side effects\n"
)
MAPPING = (
    "---\ncategory: gotcha\nfiles:\n  - other.py\n"
    "anchors:\n  - symbol: ./src/a.py::foo  # the loader\n---\n"
    "foo must stay free of side effects\n"
)


@pytest.fixture
def anchored(tmp_path: Path) -> Path:
    """A repository defining ``foo`` in src/a.py, with its memory folder."""
    root = make_repo(tmp_path / "anchored", FILES)
    assert run_tether("init", cwd=root).code == 0
    return root


def _write(root: Path, text: str) -> Path:
    path = root / ".tether" / "memories" / "hand.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", [PLAIN, MAPPING], ids=["path::name", "symbol-mapping"])
def test_a_memory_is_recalled_and_listed_for_its_anchors_files(anchored: Path, text: str) -> None:
    path = _write(anchored, text)

    recalled = run_tether("--json", "recall", "-f", "src/a.py", cwd=anchored)
    listed = run_tether("--json", "list", "--file", "src/a.py", cwd=anchored)

    assert recalled.code == 0, recalled.stderr
    [hit] = recalled.json()["results"]
    assert hit["summary"] == "foo must stay free of side effects"
    assert hit["files"] == ["other.py", "src/a.py"]
    assert [m["id"] for m in listed.json()] == [hit["id"]]
    also = run_tether("--json", "list", "--file", "other.py", cwd=anchored)
    assert [m["id"] for m in also.json()] == [hit["id"]]
    shown = run_tether("--json", "show", hit["id"], cwd=anchored)
    assert shown.json()["files"] == ["other.py", "src/a.py"]
    assert "files:    other.py, src/a.py" in run_tether("show", hit["id"], cwd=anchored).stdout
    assert path.read_text(encoding="utf-8") == text  # read so, never written


def test_an_export_says_the_anchors_files_and_comes_back_the_same(
    anchored: Path, tmp_path: Path
) -> None:
    _write(anchored, PLAIN)
    exported = run_tether("export", cwd=anchored)
    assert exported.code == 0, exported.stderr
    [line] = exported.json_lines()
    assert line["files"] == ["other.py", "src/a.py"]
    (tmp_path / "export.jsonl").write_text(exported.stdout, encoding="utf-8")
    fresh = make_repo(tmp_path / "fresh", FILES)

    imported = run_tether("import", str(tmp_path / "export.jsonl"), cwd=fresh)

    assert imported.code == 0, imported.stderr
    again = run_tether("export", cwd=fresh)
    assert again.stdout == exported.stdout
    [written] = (fresh / ".tether" / "memories").glob("*.md")
    assert "files:\n  - other.py\n  - src/a.py\n" in written.read_text(encoding="utf-8")


def test_an_index_from_before_ties_the_anchors_files_on_upgrade(
    anchored: Path, open_store: Callable[..., OpenStore]
) -> None:
    _write(anchored, PLAIN)
    store = open_store(anchored).store
    assert [m.files for m in store.list()] == [("other.py", "src/a.py")]
    index = store.location.index_path
    store.close()
    with sqlite3.connect(index) as conn:  # as version 10 kept it: the files as written
        conn.execute("DELETE FROM memory_files WHERE path = 'src/a.py'")
        conn.execute("UPDATE memories SET files = '[\"other.py\"]'")
        conn.execute("DROP INDEX memories_summary_key")  # added by version 12
        conn.execute("ALTER TABLE memories DROP COLUMN summary_key")
        conn.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")

    upgraded, notices = open_store(anchored)

    assert notices == []  # migrated, not rebuilt
    version = upgraded.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
    assert int(version.fetchone()[0]) == SCHEMA_VERSION
    assert [m.files for m in upgraded.list()] == [("other.py", "src/a.py")]
    listed = run_tether("--json", "list", "--file", "src/a.py", cwd=anchored)
    assert len(listed.json()) == 1


def test_a_memory_read_from_a_commit_is_tied_to_its_anchors_files() -> None:
    # the guards `tether check` reads at the base of a change
    memory = parse_memory("hand.md", PLAIN.encode(), lambda path: path)
    assert memory is not None
    assert memory.files == ("other.py", "src/a.py")
