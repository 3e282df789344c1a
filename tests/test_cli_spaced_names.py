"""A file name with spaces at its ends is never silently changed: an exported memory naming
one is imported with the name as written, even where the file is not, and a typed name with
them that names no file, with or without them, is refused naming the name without them."""

from __future__ import annotations

from pathlib import Path

from conftest import make_repo, run_tether


def test_an_exported_name_with_a_leading_space_is_imported_as_written(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "first", {"a.py": "x\n", " lead.py": "y\n"})
    done = run_tether(
        "remember", "the lead file is generated", "-c", "gotcha", "-f", " lead.py", cwd=first
    )
    assert done.code == 0, done.stderr
    exported = run_tether("export", cwd=first)
    assert [row["files"] for row in exported.json_lines()] == [[" lead.py"]]
    source = tmp_path / "out.jsonl"
    source.write_text(exported.stdout, encoding="utf-8")
    second = make_repo(tmp_path / "second", {"a.py": "x\n"})
    done = run_tether("import", str(source), cwd=second)
    assert done.code == 0, done.stderr
    assert "written as given: ' lead.py'" in done.stderr
    again = run_tether("export", cwd=second)
    assert [row["files"] for row in again.json_lines()] == [[" lead.py"]]
    assert run_tether("reindex", cwd=second).code == 0
    listed = run_tether("list", "--file", " lead.py", "--json", cwd=second)
    assert [row["files"] for row in listed.json()] == [[" lead.py"]], listed.stderr


def test_a_typed_name_with_spaces_that_names_no_file_is_refused(repo: Path) -> None:
    done = run_tether(
        "remember", "future", "-c", "gotcha", "-f", " future.py ", "--allow-missing", cwd=repo
    )
    assert done.code == 2
    assert "--file ' future.py ' begins or ends with a space" in done.stderr
    assert "give 'future.py' if the spaces are a slip" in done.stderr
    assert not (repo / ".tether" / "memories").exists() or not list(
        (repo / ".tether" / "memories").glob("*.md")
    )
