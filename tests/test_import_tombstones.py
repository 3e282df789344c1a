"""An export of deleted memories imported again is known, as the other statuses are: a re-run
writes nothing twice. A deleted memory still does not stand for a live line of its text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliResult, run_tether

from recall import forked
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore


def _tether(repo: Path, *args: str) -> CliResult:
    done = run_tether(*args, cwd=repo)
    assert done.code == 0, done.stderr
    return done


def _files(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / ".tether" / "memories").glob("*.md"))


def test_an_export_with_a_deleted_memory_imported_again_writes_nothing(repo: Path) -> None:
    gone = _tether(repo, "remember", "keep me deleted", "-c", "gotcha", "-f", "src/app.py")
    gone_id = gone.stdout.split()[1]
    kept = _tether(repo, "remember", "keep me archived", "-c", "gotcha", "-f", "src/app.py")
    archived_id = kept.stdout.split()[1]
    _tether(repo, "archive", archived_id)
    _tether(repo, "remember", "keep me active", "-c", "gotcha", "-f", "src/app.py")
    _tether(repo, "delete", gone_id)
    exported = _tether(repo, "export").stdout
    assert '"status": "deleted"' in exported
    (repo / "x.jsonl").write_text(exported)
    before = {name: (repo / ".tether" / "memories" / name).read_bytes() for name in _files(repo)}
    for _ in range(3):
        again = _tether(repo, "import", "x.jsonl")
        assert "Imported 0 memories, 3 already known, 0 rejected" in again.stdout
        assert again.stderr == ""  # no line "written as" another id
    after = {name: (repo / ".tether" / "memories" / name).read_bytes() for name in _files(repo)}
    assert after == before
    lines = _tether(repo, "import", "x.jsonl", "--json").json_lines()
    assert {line["status"] for line in lines} == {"duplicate"}
    assert gone_id in {line["duplicate_of"] for line in lines}


def test_a_live_line_of_a_deleted_memorys_text_is_still_written(repo: Path) -> None:
    gone_id = _tether(repo, "remember", "once deleted", "-c", "gotcha").stdout.split()[1]
    _tether(repo, "delete", gone_id)
    exported = json.loads(_tether(repo, "export").stdout)
    assert exported["status"] == "deleted"
    live = {**exported, "status": "active"}
    (repo / "x.jsonl").write_text(json.dumps(exported) + "\n" + json.dumps(live) + "\n")
    done = _tether(repo, "import", "x.jsonl", "--json")
    tombstone, written = done.json_lines()
    assert (tombstone["status"], tombstone["duplicate_of"]) == ("duplicate", gone_id)
    assert written["status"] == "created" and written["id"] != gone_id
    listed = _tether(repo, "list").stdout  # the active ones
    assert listed.startswith(f"{written['id']}\t") and "once deleted" in listed


def test_a_deleted_line_does_not_swallow_a_live_line_of_its_text(repo: Path) -> None:
    """In one import, a tombstone written first is no more a live line's duplicate than a
    stored one is."""
    record = {"summary": "said twice", "category": "gotcha", "files": ["src/app.py"]}
    lines = [{**record, "status": "deleted", "id": "d0d0d0d0"}, {**record, "id": "a0a0a0a0"}]
    (repo / "x.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = _tether(repo, "import", "x.jsonl", "--json")
    assert [r["status"] for r in done.json_lines()] == ["created", "created"]
    assert _tether(repo, "list").stdout.startswith("a0a0a0a0\t")
    assert _tether(repo, "list", "--status", "deleted").stdout.startswith("d0d0d0d0\t")


def test_a_live_line_does_not_swallow_a_deleted_line_of_its_text_either(repo: Path) -> None:
    """An export lists the newest first: a text deleted, then remembered again, comes as its
    live line and then its tombstone, and both are memories of their own."""
    record = {"summary": "said twice", "category": "gotcha", "files": ["src/app.py"]}
    lines = [{**record, "id": "a0a0a0a0"}, {**record, "status": "deleted", "id": "d0d0d0d0"}]
    (repo / "x.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = _tether(repo, "import", "x.jsonl", "--json")
    assert [r["status"] for r in done.json_lines()] == ["created", "created"]
    assert _tether(repo, "list", "--status", "deleted").stdout.startswith("d0d0d0d0\t")


@pytest.mark.parametrize("draft_elsewhere_from", [10**9, 0], ids=["here", "elsewhere"])
def test_tombstones_imported_again_are_known_however_drafted(
    repo: Path, draft_elsewhere_from: int
) -> None:
    """Drafted in this process (a small import) or in a forked one (a large one): the same."""
    if draft_elsewhere_from == 0 and not forked.can_fork():
        pytest.skip("drafting forks on Linux only")
    lines = [
        json.dumps(
            {
                "summary": f"gone note {n}",
                "category": "gotcha",
                "files": ["src/app.py"],
                "status": "deleted" if n % 2 else "active",
                "id": f"{0xD0000000 + n:08x}",
            }
        )
        for n in range(300)  # more than one drafting chunk: some drafted by the child
    ]
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    try:

        def normalize(raw: str) -> str:
            return store.normalize_input(raw, repo)

        first = import_lines(
            store, lines, normalize, "tester", draft_elsewhere_from=draft_elsewhere_from
        )
        assert {r.status for r in first} == {"created"}
        again = import_lines(
            store, lines, normalize, "tester", draft_elsewhere_from=draft_elsewhere_from
        )
        assert [(r.status, r.duplicate_of) for r in again] == [
            ("duplicate", f"{0xD0000000 + n:08x}") for n in range(300)
        ]
        assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 300
    finally:
        store.close()
