"""``tether import`` puts each line in the store its ``scope`` names: a user's own global
memories, exported with the project's (``tether export --scope all``), go back to the global
store, never into the repository's committed memories. Told one store for every line
(``--scope``, ``--global``), it says of each line whose scope names the other store."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo, run_tether


def _exported_both(tmp_path: Path) -> Path:
    """An export of one project and one global memory, made in another repository with
    another Tether home."""
    first = make_repo(tmp_path / "first")
    env = {"TETHER_HOME": str(tmp_path / "first-home")}
    for words in (
        ("remember", "prefer tabs in every language", "-c", "pref", "-f", "README.md", "--global"),
        ("remember", "close the pool after the app exits", "-c", "gotcha", "-f", "src/app.py"),
    ):
        assert run_tether(*words, cwd=first, env=env).code == 0
    done = run_tether("export", "--scope", "all", cwd=first, env=env)
    assert done.code == 0, done.stderr
    source = tmp_path / "both.jsonl"
    source.write_text(done.stdout, encoding="utf-8")
    return source


def _summaries(repo: Path, scope: str) -> list[str]:
    done = run_tether("list", "--scope", scope, "--json", cwd=repo)
    return [memory["summary"] for memory in json.loads(done.stdout)] if done.code == 0 else []


def test_a_global_record_goes_back_to_the_global_store(
    tmp_path: Path, repo: Path, tether_home: Path
) -> None:
    source = _exported_both(tmp_path)
    done = run_tether("import", str(source), "--json", cwd=repo)
    assert done.code == 0, done.stderr
    went = {row["id"]: row["scope"] for row in map(json.loads, done.stdout.splitlines())}
    assert sorted(went.values()) == ["global", "project"]
    assert _summaries(repo, "project") == ["close the pool after the app exits"]
    assert _summaries(repo, "global") == ["prefer tabs in every language"]
    [committed] = (repo / ".tether" / "memories").glob("*.md")
    assert went[committed.stem] == "project"
    assert (tether_home / "memories" / f"{committed.stem}.md").exists() is False

    again = run_tether("import", str(source), cwd=repo)  # a re-import finds both where they are
    assert "Imported 0 memories, 2 already known, 0 rejected" in again.stdout


def test_the_summary_says_where_the_global_memories_went(tmp_path: Path, repo: Path) -> None:
    done = run_tether("import", str(_exported_both(tmp_path)), cwd=repo)
    assert done.code == 0, done.stderr
    assert "1 memory with scope 'global' written to the global store (" in done.stdout
    assert "`--scope project` imports every line into the project store" in done.stdout


def test_told_one_store_each_line_of_the_other_scope_is_said(tmp_path: Path, repo: Path) -> None:
    source = _exported_both(tmp_path)
    done = run_tether("import", str(source), "--scope", "project", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    rows = {row["scope"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert list(rows) == ["project"]
    [told] = [row for row in map(json.loads, done.stdout.splitlines()) if "notes" in row]
    assert told["notes"] == [
        "its scope is 'global', but the import was told to put every line in the project "
        "store (--scope project); import it without --scope or --global to put it in the "
        "global store"
    ]
    assert len(_summaries(repo, "project")) == 2
    assert _summaries(repo, "global") == []


def test_global_option_says_the_project_lines_it_moves(tmp_path: Path, repo: Path) -> None:
    source = _exported_both(tmp_path)
    done = run_tether("import", str(source), "--global", cwd=repo)
    assert done.code == 0, done.stderr
    assert f"{source}:1: its scope is 'project'" in done.stderr
    assert "1 line with scope 'project' imported into the global store" in done.stdout
    assert len(_summaries(repo, "global")) == 2


def test_a_scope_that_names_no_store_is_refused_on_its_line(repo: Path) -> None:
    source = repo.parent / "bad.jsonl"
    record = {"summary": "a team note", "category": "context", "scope": "team"}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2
    assert f"{source}:1: 'scope' must be 'project' or 'global', not 'team'" in done.stderr


def test_global_lines_import_outside_any_repository(tmp_path: Path) -> None:
    source = tmp_path / "mine.jsonl"
    record = {"summary": "prefer tabs", "category": "pref", "scope": "global"}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    outside = tmp_path / "plain"
    outside.mkdir()
    done = run_tether("import", str(source), "--json", cwd=outside)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["scope"] == "global"


def test_outside_a_repository_the_summary_offers_no_project_store(tmp_path: Path) -> None:
    source = tmp_path / "mine.jsonl"
    record = {"summary": "prefer tabs", "category": "pref", "scope": "global"}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    outside = tmp_path / "plain"
    outside.mkdir()
    done = run_tether("import", str(source), cwd=outside)
    assert done.code == 0, done.stderr
    assert "1 memory with scope 'global' written to the global store (" in done.stdout
    assert "this repository" not in done.stdout
    assert "--scope project" not in done.stdout


def test_outside_a_repository_an_unreadable_line_is_its_own_error(tmp_path: Path) -> None:
    source = tmp_path / "mine.jsonl"
    good = {"summary": "prefer tabs", "category": "pref", "scope": "global"}
    other = {"summary": "prefer short names", "category": "pref", "scope": "global"}
    team = {"summary": "a team note", "category": "context", "scope": "team"}
    lines = [json.dumps(good), '{"summary": "cut short', "[1, 2]", json.dumps(team)]
    source.write_text("\n".join([*lines, json.dumps(other)]) + "\n", encoding="utf-8")
    outside = tmp_path / "plain"
    outside.mkdir()
    done = run_tether("import", str(source), cwd=outside)
    assert done.code == 2, done.stderr
    assert "Imported 2 memories, 0 already known, 3 rejected" in done.stdout
    for number in (2, 3, 4):
        assert f"{source}:{number}: " in done.stderr
    assert "not in a repository" not in done.stderr.lower()
    assert f"{source}:4: 'scope' must be 'project' or 'global', not 'team'" in done.stderr
    assert sorted(_summaries(outside, "global")) == ["prefer short names", "prefer tabs"]


def test_a_scope_spelled_with_escapes_is_still_read(repo: Path, tmp_path: Path) -> None:
    # Most lines are routed without parsing them (no "global" in them); a record may spell
    # the word with JSON escapes, which must still send it to the global store, while a body's
    # escaped line breaks and quotes do not make a line look global.
    source = tmp_path / "escaped.jsonl"
    source.write_text(
        '{"summary": "prefer tabs in every language", "category": "pref", '
        '"scope": "gl\\u006fbal"}\n'
        '{"summary": "close the pool after the app exits", "category": "gotcha", '
        '"details": "first line\\nsecond \\"quoted\\" line", "files": ["src/app.py"]}\n',
        encoding="utf-8",
    )
    done = run_tether("import", str(source), "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert [json.loads(row)["scope"] for row in done.stdout.splitlines()] == ["global", "project"]
    assert _summaries(repo, "global") == ["prefer tabs in every language"]
    assert _summaries(repo, "project") == ["close the pool after the app exits"]
