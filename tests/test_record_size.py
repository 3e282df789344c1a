"""A memory file over the size limit is refused naming the field that makes it so, whichever
field that is: the text, the head's names (author, anchors) or a hand-written front-matter key
an import line carries."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

from recall.model import Memory
from recall.record_size import field_sizes, over_limit
from recall.records import render_memory


def _files(repo: Path) -> list[Path]:
    return sorted((repo / ".tether" / "memories").glob("*.md"))


def test_an_import_line_too_large_by_a_key_of_its_own_names_that_key(repo: Path) -> None:
    line = {
        "summary": "big2",
        "details": "x",
        "category": "gotcha",
        "files": [],
        "extra": "y" * 70_000,
    }
    done = run_tether("import", "-", cwd=repo, stdin=json.dumps(line) + "\n")
    assert done.code == 2, done.stderr
    assert "-:1: front-matter key 'extra' is 70,00" in done.stderr
    assert "shorten the value of front-matter key 'extra', or leave that key out" in done.stderr
    assert "summary is" not in done.stderr
    assert _files(repo) == []


def test_an_author_too_large_is_named(repo: Path) -> None:
    done = run_tether("remember", "short", "-c", "gotcha", "--author", "a" * 70_000, cwd=repo)
    assert done.code == 2, done.stderr
    assert "author is 70,000 bytes" in done.stderr and "shorter author" in done.stderr
    assert _files(repo) == []


def test_each_field_a_person_gives_is_sized() -> None:
    memory = Memory(
        id="0000000a",
        category="gotcha",
        summary="s",
        details="dd",
        files=("a.py",),
        anchor="foo",
        author="me",
        extra={"ticket": "ABC-1"},
    )
    sizes = field_sizes(memory)
    assert sizes == {
        "summary": 1,
        "details": 2,
        "files": 4,
        "anchors": 0,
        "anchor": 3,
        "author": 2,
        "front-matter key 'ticket'": len("ticket: ABC-1\n"),
    }
    text = render_memory(memory)
    assert over_limit(memory, text, len(text.encode("utf-8"))) is None
    what, _advice = over_limit(memory, text, 10) or ("", "")
    assert what.startswith("front-matter key 'ticket' is 14 bytes")
