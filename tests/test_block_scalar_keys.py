"""A key written as a YAML block scalar (``why: |``) reads as YAML reads the front matter in a
file of its own, last line break included, wherever it stands; a rewrite adding a key after it
keeps it reading the same, and one that cannot names the key's line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from recall import frontmatter
from recall.errors import MalformedMemory

Cli = Callable[..., CliResult]

LAST = (
    "---\ncategory: gotcha\nfiles:\n  - src/app.py\n"
    "why: |\n  Found in the nightly job.\n---\nretry\n"
)


@pytest.mark.parametrize(
    ("header", "read"),
    [("|", "a\nb\n"), (">", "a b\n"), ("|-", "a\nb"), ("|+", "a\nb\n")],
)
def test_a_block_scalar_at_the_end_reads_as_yaml_reads_it(header: str, read: str) -> None:
    text = f"---\ncategory: gotcha\nnote: {header}\n  a\n  b\n---\nbody\n"
    assert frontmatter.parse(text, "m.md").fields["note"] == read
    crlf = text.replace("\n", "\r\n")
    assert frontmatter.parse(crlf, "m.md").fields["note"] == read


def test_a_key_added_after_a_block_scalar_keeps_it_reading_the_same() -> None:
    confirmed = frontmatter.update(LAST, "m.md", {"confirmed": "2026-01-01"})
    assert confirmed.endswith('  Found in the nightly job.\nconfirmed: "2026-01-01"\n---\nretry\n')
    assert frontmatter.parse(confirmed, "m.md").fields["why"] == "Found in the nightly job.\n"


def test_blank_lines_a_block_scalar_keeps_stay_in_it_when_a_key_goes_after_it() -> None:
    text = "---\ncategory: gotcha\nticket: |+\n  T-1\n\n---\nbody\n"
    order = ("category", "ticket", "pinned")
    pinned = frontmatter.update(text, "m.md", {"pinned": True}, key_order=order)
    assert pinned == "---\ncategory: gotcha\nticket: |+\n  T-1\n\npinned: true\n---\nbody\n"


def test_a_refused_rewrite_names_the_line_of_the_value_it_would_change() -> None:
    text = "---\ncategory: gotcha\npinned: &seen false\nreviewed: *seen\n---\nbody\n"
    with pytest.raises(MalformedMemory) as refused:
        frontmatter.update(text, "m.md", {"pinned": True})
    assert refused.value.line == 4
    assert "'reviewed'" in str(refused.value)


def _memory(repo: Path, cli: Cli) -> tuple[str, Path]:
    done = cli(
        "--json", "remember", "keep the nightly job idempotent", "-c", "gotcha", "-f", "src/app.py"
    )
    assert done.code == 0, done.stderr
    memory = str(done.json()["id"])
    path = repo / ".tether" / "memories" / f"{memory}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("source: user\n", "source: user\nwhy: |\n  Found.\n"), "utf-8")
    return memory, path


def test_commands_rewrite_a_memory_whose_last_key_is_a_block_scalar(repo: Path, cli: Cli) -> None:
    memory, path = _memory(repo, cli)
    for command in (["guard", memory], ["confirm", memory], ["supersede", memory, "the new rule"]):
        done = cli(*command)
        assert done.code == 0, f"{command}: {done.stderr}"
        assert frontmatter.parse(path.read_text("utf-8"), path).fields["why"] == "Found.\n"


def test_export_carries_the_block_scalar_as_yaml_reads_it(repo: Path, cli: Cli) -> None:
    memory, _ = _memory(repo, cli)
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    assert json.loads(exported.stdout.splitlines()[0])["why"] == "Found.\n"
    shown = cli("show", memory, "--json")
    assert shown.code == 0, shown.stderr
