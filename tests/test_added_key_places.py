"""A rewrite that adds a key Tether knows (a supersede's ``superseded_by``, a pin's ``pinned``,
a guard, a ``created`` written in) puts it where the writer of memory files puts it among the
keys present, moving none of them: a file rewritten so is the file an export and import write
back, byte for byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, make_repo, run_tether
from hypothesis import given, settings
from hypothesis import strategies as st

from recall import frontmatter
from recall.anchors.symbols import SymbolAnchor
from recall.model import Memory
from recall.records import KNOWN_KEYS, front_matter_fields

Cli = Callable[..., CliResult]

FULL = Memory(
    id="1a2b3c4d",
    category="gotcha",
    summary="retry at most three times",
    details="The upstream rate-limits a fourth.",
    files=("src/app.py",),
    anchor="L3-9",
    anchors=(SymbolAnchor("src/util.py", "helper"),),
    pinned=True,
    guard=True,
    supersedes="0000aaaa",
    superseded_by="1111bbbb",
    created="2026-01-01T00:00:00+00:00",
    author="Dana",
    extra={"ticket": "T-1"},
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(KNOWN_KEYS), unique=True))  # any keys, any order
def test_keys_added_to_a_written_file_go_where_the_writer_puts_them(added: list[str]) -> None:
    fields = front_matter_fields(FULL)
    partial = {key: value for key, value in fields.items() if key not in added}
    text = frontmatter.render(partial, FULL.summary, FULL.details)

    new = frontmatter.update(
        text, "m.md", {key: fields[key] for key in added}, key_order=KNOWN_KEYS
    )

    assert new == frontmatter.render(fields, FULL.summary, FULL.details)


def test_a_key_added_to_a_file_in_its_own_order_moves_none_of_it() -> None:
    text = (
        "---\n"
        "source: user\n"
        "files:\n"
        "  - src/app.py\n"
        "# the category is the point\n"
        "category: gotcha\n"
        "ticket: T-1  # mine\n"
        "---\n"
        "retry at most three times\n"
    )
    changes = {"created": "2026-01-01T00:00:00+00:00", "pinned": True, "superseded_by": "1111bbbb"}

    new = frontmatter.update(text, "m.md", changes, key_order=KNOWN_KEYS)

    # each after the last key present the writer puts before it (category), in the writer's
    # order; the person's keys, comments and order as written
    assert new == (
        "---\n"
        "source: user\n"
        "files:\n"
        "  - src/app.py\n"
        "# the category is the point\n"
        "category: gotcha\n"
        "pinned: true\n"
        "superseded_by: 1111bbbb\n"
        'created: "2026-01-01T00:00:00+00:00"\n'
        "ticket: T-1  # mine\n"
        "---\n"
        "retry at most three times\n"
    )


def test_a_key_the_writer_puts_first_goes_before_the_keys_it_precedes() -> None:
    text = "---\n# mine\nstatus: active\ncategory: gotcha\n---\nS\n"

    new = frontmatter.update(text, "m.md", {"files": ["a.py"]}, key_order=KNOWN_KEYS)

    # after category, the one key present the writer puts before files
    assert new == "---\n# mine\nstatus: active\ncategory: gotcha\nfiles:\n  - a.py\n---\nS\n"
    alone = "---\n# mine\nstatus: active\n---\nS\n"
    new = frontmatter.update(alone, "m.md", {"category": "gotcha"}, key_order=KNOWN_KEYS)
    assert new == "---\n# mine\ncategory: gotcha\nstatus: active\n---\nS\n"


def _id(done: CliResult) -> str:
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def _files(root: Path) -> dict[str, bytes]:
    folder = root / ".tether" / "memories"
    return {path.name: path.read_bytes() for path in sorted(folder.glob("*.md"))}


def _round_trip(repo: Path, tmp_path: Path, cli: Cli) -> tuple[str, Path]:
    """Export ``repo``'s memories, import them into a fresh clone-alike: its export and root."""
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    (tmp_path / "export.jsonl").write_text(exported.stdout, encoding="utf-8")
    fresh = make_repo(tmp_path / "fresh")
    imported = run_tether("import", str(tmp_path / "export.jsonl"), cwd=fresh)
    assert imported.code == 0, imported.stderr
    again = run_tether("export", cwd=fresh)
    assert again.code == 0, again.stderr
    return again.stdout, fresh


def test_rewritten_files_come_back_from_an_export_byte_for_byte(
    repo: Path, tmp_path: Path, cli: Cli
) -> None:
    old = _id(cli("--json", "remember", "retry twice", "-c", "gotcha", "-f", "src/app.py"))
    kept = _id(cli("--json", "remember", "helper is pure", "-c", "decision", "-f", "src/util.py"))
    assert cli("supersede", old, "retry at most three times").code == 0
    assert cli("guard", kept).code == 0
    assert cli("pin", kept).code == 0
    assert cli("confirm", kept).code == 0
    written = _files(repo)
    text = written[f"{old}.md"].decode()
    assert text.index("superseded_by:") < text.index("created:")
    text = written[f"{kept}.md"].decode()
    assert text.index("guard: true") < text.index("status:")

    exported_again, fresh = _round_trip(repo, tmp_path, cli)

    assert exported_again == cli("export").stdout
    assert _files(fresh) == written


def test_a_pin_of_a_hand_written_file_comes_back_from_an_export_as_written(
    repo: Path, tmp_path: Path, cli: Cli
) -> None:
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / "1a2b3c4d.md"
    path.write_text(
        "---\nid: 1a2b3c4d\ncategory: gotcha\nfiles:\n  - src/app.py\nstatus: active\n"
        'created: "2026-01-01T00:00:00+00:00"\nauthor: Dana\nsource: user\n---\n'
        "retry at most three times\n",
        encoding="utf-8",
    )
    assert cli("pin", "1a2b3c4d").code == 0
    pinned = path.read_text(encoding="utf-8")
    assert "  - src/app.py\npinned: true\nstatus: active\n" in pinned

    _, fresh = _round_trip(repo, tmp_path, cli)

    assert _files(fresh) == {path.name: pinned.encode()}
    shown = json.loads(run_tether("--json", "show", "1a2b3c4d", cwd=fresh).stdout)
    assert shown["pinned"] is True
