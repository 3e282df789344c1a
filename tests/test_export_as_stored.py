"""A memory file written by hand past a rule a write enforces (control characters in its
text, a guard on a pref or on a memory naming nothing) is loaded and listed; ``tether doctor``
names each such rule with its file and line, ``tether export`` marks the memory's line
``"as_stored": true`` and says so on stderr, and ``tether import`` writes a line so marked
back as it is, with a note: an export imported again loses nothing and rewrites nothing."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo, run_tether

HAND_WRITTEN = {
    "guarded-pref.md": "---\ncategory: pref\nfiles: [src/app.py]\nguard: true\n---\nuse tabs\n",
    "guarded-nothing.md": "---\ncategory: gotcha\nfiles: []\nguard: true\n---\ncovers none\n",
    "controls.md": (
        '---\ncategory: gotcha\nfiles: [src/app.py]\nauthor: "a\\x07b"\n---\n'
        "zero\u200bwidth \x1b[31m red \u202e summary\n\nline one\nline \x01two\n"
    ),
}
"""Each file, and the rule it breaks (its line, as doctor names it, in DOCTOR_LINES)."""

DOCTOR_LINES = {
    ("guarded-pref.md", 4): "a guard protects a decision or gotcha, not a pref",
    ("guarded-nothing.md", 4): "a guard covers the files and symbols its memory names",
    ("controls.md", 6): "its summary holds control characters (\\u200b at character 5, \\x1b",
    ("controls.md", 9): "its details hold a control character (\\x01 at character 6)",
    ("controls.md", 4): "its author holds control characters (\\x07 at character 2)",
}


def _hand_written(repo: Path) -> Path:
    assert run_tether("init", cwd=repo).code == 0
    folder = repo / ".tether" / "memories"
    for name, text in HAND_WRITTEN.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _shown(repo: Path) -> dict[str, dict]:
    listed = run_tether("list", "--json", cwd=repo).json()
    shown = [run_tether("show", m["id"], "--json", cwd=repo).json() for m in listed]
    return {memory["summary"]: memory for memory in shown}


def test_doctor_names_each_broken_rule_with_its_file_and_line(repo: Path) -> None:
    folder = _hand_written(repo)
    assert len(run_tether("list", "--json", cwd=repo).json()) == 3  # all loaded
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 1
    for (name, line), said in DOCTOR_LINES.items():
        assert f"{folder / name}:{line}: " in doctor.stdout
        [found] = [
            row for row in doctor.stdout.splitlines() if row.startswith(f"{folder / name}:{line}: ")
        ]
        assert said in found and "the store loads it as written, but a write refuses it" in found
    rules = [
        e for e in run_tether("doctor", "--json", cwd=repo).json() if e["kind"] == "write-rule"
    ]
    assert sorted((Path(e["path"]).name, e["line"]) for e in rules) == sorted(DOCTOR_LINES)


def test_an_export_imported_again_loses_nothing(repo: Path, tmp_path: Path) -> None:
    _hand_written(repo)
    before = _shown(repo)
    export = run_tether("export", cwd=repo)
    assert export.code == 0, export.stderr
    lines = [json.loads(line) for line in export.stdout.splitlines()]
    assert [line["as_stored"] for line in lines] == [True] * 3
    assert export.stderr.count('its line says "as_stored": true') == 3
    assert "guarded-pref.md" in export.stderr

    other = make_repo(tmp_path / "other")
    done = run_tether("import", "-", cwd=other, stdin=export.stdout)
    assert done.code == 0, done.stderr
    assert "Imported 3 memories, 0 already known, 0 rejected" in done.stdout
    assert done.stderr.count('written as its store held it, as its "as_stored": true asks') == 3
    after = _shown(other)
    assert after.keys() == before.keys()
    for summary, memory in before.items():
        for key in ("category", "details", "author", "guard", "files"):
            assert after[summary][key] == memory[key], key
    doctor = run_tether("doctor", "--json", cwd=other).json()
    assert len([e for e in doctor if e["kind"] == "write-rule"]) == len(DOCTOR_LINES)


def test_a_line_not_marked_as_stored_is_refused_as_before(repo: Path) -> None:
    _hand_written(repo)
    export = run_tether("export", cwd=repo)
    for line in export.stdout.splitlines():
        record = json.loads(line)
        del record["as_stored"]
        done = run_tether("import", "-", "--scope", "project", cwd=repo, stdin=json.dumps(record))
        assert done.code == 2, done.stdout
        assert "-:1: " in done.stderr


def _import_line(repo: Path, record: dict[str, object]):
    return run_tether("import", "-", cwd=repo, stdin=json.dumps(record) + "\n")


TOKEN = "ghp_aBcDeFgHiJkLm{}NoPqRsTuVwXyZ0123456789"
"""A GitHub token's shape, split where a character no one sees can go."""


def test_as_stored_lets_no_nul_and_no_hidden_credential_through(tmp_path: Path) -> None:
    """Control characters come back as stored; a NUL (git would show the file as binary) and a
    credential split by an unseen character (the scan reads the text as a reader does) do not."""
    repo = make_repo(tmp_path / "repo")
    assert run_tether("init", cwd=repo).code == 0
    nul = _import_line(repo, {"summary": "a\x00b", "category": "gotcha", "as_stored": True})
    assert nul.code == 2
    assert "holds a NUL" in nul.stderr
    for hidden in ("\x00", "\u200b", "\u00ad"):
        split = _import_line(
            repo,
            {"summary": "token " + TOKEN.format(hidden), "category": "gotcha", "as_stored": True},
        )
        assert split.code == 2, hidden
        assert "looks like a credential" in split.stderr or "holds a NUL" in split.stderr
    unseen = _import_line(repo, {"summary": "\u200b", "category": "gotcha", "as_stored": True})
    assert unseen.code == 2
    assert "characters no one sees" in unseen.stderr
    assert list((repo / ".tether" / "memories").glob("*.md")) == []


def test_a_credential_split_by_an_unseen_character_in_details_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    done = run_tether(
        "remember",
        "deploy notes",
        "-c",
        "gotcha",
        "--details",
        "key " + TOKEN.format("\u200b"),
        cwd=repo,
    )
    assert done.code != 0
    assert "looks like a credential" in done.stderr


def test_doctor_counts_a_lone_cr_as_a_line_end_as_an_editor_does(repo: Path) -> None:
    """Two keys, and two lines of the details, parted by a lone CR (old Mac line ends): the
    control character is on line 8 as an editor shows the file, character 6 of it."""
    assert run_tether("init", cwd=repo).code == 0
    hand = repo / ".tether" / "memories" / "lone-cr.md"
    hand.write_bytes(
        b"---\ncategory: gotcha\rfiles: [src/app.py]\n---\nA summary\n\nline one\rline \x01two\n"
    )
    [rule] = [
        e for e in run_tether("doctor", "--json", cwd=repo).json() if e["kind"] == "write-rule"
    ]
    assert (Path(rule["path"]), rule["line"]) == (hand, 8)
    assert "(\\x01 at character 6)" in rule["message"]
