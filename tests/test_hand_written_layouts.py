"""A memory file written by hand in any form YAML reads and Tether loads (one ``{...}``
mapping, a quoted key) is rewritten by every command that changes its front matter, the rest
of the file as written; a supersede whose old file cannot be rewritten leaves no replacement."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from recall import frontmatter

Cli = Callable[..., CliResult]

FLOW = '---\n{"category": "gotcha", "files": ["src/app.py"]}\n---\nretry at most three times\n'
QUOTED = (
    '---\ncategory: gotcha\nfiles:\n  - src/app.py\n"pinned": false\n---\n'
    "retry at most three times\n"
)


def test_a_flow_mapping_is_laid_out_one_key_a_line_as_written() -> None:
    new = frontmatter.update(FLOW, "m.md", {"status": "archived"})
    assert new == (
        '---\n"category": "gotcha"\n"files": ["src/app.py"]\nstatus: archived\n---\n'
        "retry at most three times\n"
    )


def test_a_laid_out_value_reads_back_the_same() -> None:
    text = (
        "---\r\n{category: gotcha, created: 2024-05-01, ticket,\r\n"
        ' files: [src/a.py,\r\n   src/b.py], note: "two\r\n  lines"}\r\n---\r\nS\r\n'
    )
    new = frontmatter.update(text, "m.md", {"pinned": True})
    assert new.endswith("\r\n---\r\nS\r\n")
    assert "\n" not in new.replace("\r\n", "")  # one kind of line ending
    fields = frontmatter.parse(new, "m.md").fields
    assert fields == {
        "category": "gotcha",
        "created": datetime.date(2024, 5, 1),
        "ticket": None,
        "files": ["src/a.py", "src/b.py"],
        "note": "two lines",
        "pinned": True,
    }


def test_a_quoted_key_is_rewritten_in_place() -> None:
    new = frontmatter.update(QUOTED, "m.md", {"pinned": True})
    assert new == QUOTED.replace('"pinned": false', '"pinned": true')
    removed = frontmatter.update(QUOTED, "m.md", {"pinned": frontmatter.REMOVE})
    assert removed == QUOTED.replace('"pinned": false\n', "")


def _hand_written(repo: Path, cli: Cli, text: str) -> str:
    assert cli("init").code == 0
    (repo / ".tether" / "memories" / "retry.md").write_text(text, encoding="utf-8")
    listed = cli("list", "--json")
    assert listed.code == 0, listed.stderr
    return str(json.loads(listed.stdout)[0]["id"])


@pytest.mark.parametrize("text", [FLOW, QUOTED], ids=["flow", "quoted-key"])
def test_every_command_rewrites_a_hand_written_file(repo: Path, cli: Cli, text: str) -> None:
    memory = _hand_written(repo, cli, text)
    path = repo / ".tether" / "memories" / "retry.md"
    for command in (["pin"], ["unpin"], ["guard"], ["archive"], ["restore"], ["delete"]):
        done = cli(*command, memory)
        assert done.code == 0, f"{command}: {done.stderr}"
        fields = frontmatter.parse(path.read_text(encoding="utf-8"), path).fields
        assert fields["category"] == "gotcha"
        assert fields["files"] == ["src/app.py"]
    assert cli("doctor").code == 0


@pytest.mark.parametrize("text", [FLOW, QUOTED], ids=["flow", "quoted-key"])
def test_supersede_of_a_hand_written_file(repo: Path, cli: Cli, text: str) -> None:
    old = _hand_written(repo, cli, text)
    done = cli("--json", "supersede", old, "retry at most five times")
    assert done.code == 0, done.stderr
    shown = json.loads(cli("show", old, "--json").stdout)
    assert (shown["status"], shown["superseded_by"]) == ("superseded", done.json()["id"])


def test_a_supersede_that_cannot_mark_the_old_file_writes_nothing(repo: Path, cli: Cli) -> None:
    commented = FLOW.replace('"gotcha", ', '"gotcha",  # why\n ')
    old = _hand_written(repo, cli, commented)
    refused = cli("supersede", old, "retry at most five times")
    assert refused.code == 2
    assert "retry.md:2: cannot rewrite " in refused.stderr
    assert "'status', 'superseded_by'" in refused.stderr
    assert "bad YAML" not in refused.stderr
    assert sorted(p.name for p in (repo / ".tether" / "memories").iterdir()) == ["retry.md"]
    listed = json.loads(cli("list", "--status", "all", "--json").stdout)
    assert [(m["id"], m["status"]) for m in listed] == [(old, "active")]
    path = repo / ".tether" / "memories" / "retry.md"
    assert path.read_text(encoding="utf-8") == commented
    assert cli("doctor").code == 0
