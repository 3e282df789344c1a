"""A line of ``tether import`` that asks for an id another memory holds is written under a new
one; a supersede link of the same import naming that id follows the line's memory to its new
id (and says so), or, when lines ending in different memories asked for it, is left as written
with a note saying what to do. It never points at the unrelated memory silently."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

from recall.frontmatter import scalar

TAKEN = "0a0b0c0d"


def _import(repo: Path, *records: dict[str, object], code: int = 0) -> list[dict[str, object]]:
    source = repo.parent / "memories.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    done = run_tether("import", str(source), "--json", cwd=repo)
    assert done.code == code, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _front(repo: Path, memory_id: object) -> list[str]:
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    return path.read_text(encoding="utf-8").splitlines()


def _take(repo: Path) -> None:
    [held] = _import(repo, {"summary": "an unrelated note", "category": "context", "id": TAKEN})
    assert held["id"] == TAKEN


def test_a_superseded_by_follows_the_earlier_line_to_its_new_id(repo: Path) -> None:
    _take(repo)
    new, old = _import(
        repo,
        {"summary": "use the new pool", "category": "gotcha", "id": TAKEN},
        {
            "summary": "use the old pool",
            "category": "gotcha",
            "status": "superseded",
            "superseded_by": TAKEN,
        },
    )
    assert new["id"] != TAKEN
    assert f"superseded_by: {scalar(new['id'])}" in _front(repo, old["id"])
    assert old["notes"] == [
        f"superseded_by '{TAKEN}' is the id line 1 of this import asked for, whose memory is "
        f"{new['id']}: linked to {new['id']}"
    ]
    shown = run_tether("show", str(old["id"]), "--json", cwd=repo)
    assert json.loads(shown.stdout)["superseded_by"] == new["id"]


def test_a_supersedes_follows_the_line_too(repo: Path) -> None:
    _take(repo)
    old, new = _import(
        repo,
        {"summary": "use the old pool", "category": "gotcha", "id": TAKEN},
        {"summary": "use the new pool", "category": "gotcha", "supersedes": TAKEN},
    )
    assert f"supersedes: {scalar(old['id'])}" in _front(repo, new["id"])
    assert f"linked to {old['id']}" in " ".join(new["notes"])  # type: ignore[arg-type]


def test_two_lines_asking_the_id_leave_the_link_as_written_and_say_so(repo: Path) -> None:
    _take(repo)
    first, second, old = _import(
        repo,
        {"summary": "use the new pool", "category": "gotcha", "id": TAKEN},
        {"summary": "use the newer pool", "category": "gotcha", "id": TAKEN},
        {
            "summary": "use the old pool",
            "category": "gotcha",
            "status": "superseded",
            "superseded_by": TAKEN,
        },
    )
    assert f"superseded_by: {TAKEN}" in _front(repo, old["id"])
    path = repo / ".tether" / "memories" / f"{old['id']}.md"
    assert old["notes"] == [
        f"superseded_by '{TAKEN}' is the id lines 1 and 2 of this import asked for, whose "
        f"memories are {first['id']}, {second['id']}: which one is meant cannot be told, so the "
        f"link is left naming {TAKEN}; write the right id as its superseded_by in {path}"
    ]


def test_a_line_given_the_id_it_asked_for_is_linked_without_a_note(repo: Path) -> None:
    new, old = _import(
        repo,
        {"summary": "use the new pool", "category": "gotcha", "id": TAKEN},
        {
            "summary": "use the old pool",
            "category": "gotcha",
            "status": "superseded",
            "superseded_by": TAKEN,
        },
    )
    assert new["id"] == TAKEN
    assert f"superseded_by: {TAKEN}" in _front(repo, old["id"])
    assert "notes" not in old


def test_a_link_to_the_id_of_a_later_line_follows_it_too(repo: Path) -> None:
    _take(repo)
    old, new = _import(
        repo,
        {
            "summary": "use the old pool",
            "category": "gotcha",
            "status": "superseded",
            "superseded_by": TAKEN,
        },
        {"summary": "use the new pool", "category": "gotcha", "id": TAKEN},
    )
    assert f"superseded_by: {scalar(new['id'])}" in _front(repo, old["id"])
    assert f"the id line 2 of this import asked for, whose memory is {new['id']}" in (
        " ".join(old["notes"])  # type: ignore[arg-type]
    )


def test_a_link_to_the_id_of_a_rejected_line_is_said(repo: Path) -> None:
    _take(repo)
    rejected, old = _import(
        repo,
        {"summary": "use the new pool", "category": "no such category", "id": TAKEN},
        {
            "summary": "use the old pool",
            "category": "gotcha",
            "status": "superseded",
            "superseded_by": TAKEN,
        },
        code=2,  # a line was rejected
    )
    assert rejected["status"] == "error"
    path = repo / ".tether" / "memories" / f"{old['id']}.md"
    assert old["notes"] == [
        f"superseded_by '{TAKEN}' is the id line 1 of this import asked for, which was "
        f"rejected: the link is left naming {TAKEN}; import that line again once it is fixed, "
        f"or write the right id as its superseded_by in {path}"
    ]
