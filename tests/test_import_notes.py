"""``tether import`` says, line by line, what it wrote otherwise than the line asked: an id it
could not give (taken, or not an id), a key it cannot write as front matter. The memory is
written all the same; nothing changes silently."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

KEY_RULE = (
    "a front-matter key is a plain name (letters, digits, '_' and '-', starting with a letter "
    "or '_', and not a word YAML reads as a value such as 'true' or 'null'); rename it"
)


def _import(repo: Path, *records: dict[str, object], json_out: bool = False):
    source = repo.parent / "memories.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return run_tether("import", str(source), *(["--json"] if json_out else []), cwd=repo)


def test_an_id_not_given_and_a_key_not_stored_are_said_on_their_line(repo: Path) -> None:
    taken = "0a0b0c0d"
    first = _import(repo, {"summary": "the first", "category": "context", "id": taken})
    assert first.code == 0, first.stderr
    assert first.stderr == ""  # given the id it asked for: nothing to say
    done = _import(
        repo,
        {"summary": "asks a taken id", "category": "context", "id": taken},
        {"summary": "asks no id at all", "category": "context", "id": "../../etc/x"},
        {"summary": "has a colour", "category": "context", "the colour": "blue"},
        {"summary": "asks a number", "category": "context", "id": 1234},
    )
    assert done.code == 0, done.stderr
    assert "Imported 4 memories, 0 already known, 0 rejected" in done.stdout
    lines = done.stderr.splitlines()
    source = repo.parent / "memories.jsonl"
    assert lines[0].startswith(f"{source}:1: asked for id '{taken}' (another memory has it); ")
    assert lines[1].startswith(f"{source}:2: asked for id '../../etc/x' (not 8 hex digits); ")
    assert lines[2] == f"{source}:3: 'the colour' not stored: {KEY_RULE}"
    assert lines[3] == f"{source}:4: 'id' must be a string, not 1234; a new id was given"
    assert len(lines) == 4


def test_the_notes_are_in_the_json_of_their_line(repo: Path) -> None:
    done = _import(
        repo,
        {"summary": "has a colour", "category": "context", "the colour": "blue"},
        json_out=True,
    )
    [line] = [json.loads(row) for row in done.stdout.splitlines()]
    assert line["status"] == "created"
    assert line["notes"] == [f"'the colour' not stored: {KEY_RULE}"]
