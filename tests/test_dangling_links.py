"""A superseded memory whose replacement is in neither store is out of recall with nothing in
its place: ``tether import`` says so on the line that wrote it (the memory is written all the
same), and ``tether doctor`` names its file and line with what to do."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

NOWHERE = {
    "summary": "use the old pool",
    "category": "gotcha",
    "files": ["src/app.py"],
    "status": "superseded",
    "superseded_by": "abcdef99",
}


def _import(repo: Path, *records: dict[str, object], json_out: bool = False):
    source = repo.parent / "memories.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return run_tether("import", str(source), *(["--json"] if json_out else []), cwd=repo)


def test_import_says_a_replacement_in_neither_store(repo: Path) -> None:
    done = _import(repo, NOWHERE, json_out=True)
    assert done.code == 0, done.stderr
    [row] = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["status"] == "created"
    memory = repo / ".tether" / "memories" / f"{row['id']}.md"
    assert memory.exists()
    assert row["notes"] == [
        f"{row['id']} is superseded by abcdef99, which is in neither store, so it is out of "
        f"recall with nothing in its place; `tether restore {row['id']}` brings it back, or "
        f"write the id of the memory that replaces it as its superseded_by in {memory}"
    ]


def test_a_replacement_written_later_in_the_file_is_no_notice(repo: Path) -> None:
    replacement = {"summary": "use the new pool", "category": "gotcha", "id": "abcdef99"}
    done = _import(repo, NOWHERE, replacement)
    assert done.code == 0, done.stderr
    assert done.stderr == ""
    doctor = run_tether("doctor", cwd=repo)
    assert "superseded by" not in doctor.stdout


def test_doctor_names_the_file_and_line_of_the_link(repo: Path) -> None:
    row = json.loads(_import(repo, NOWHERE, json_out=True).stdout)
    doctor = run_tether("doctor", "--json", cwd=repo)
    assert doctor.code == 1
    [found] = [entry for entry in json.loads(doctor.stdout) if entry["kind"] == "dangling-link"]
    path = repo / ".tether" / "memories" / f"{row['id']}.md"
    line = path.read_text(encoding="utf-8").splitlines().index("superseded_by: abcdef99") + 1
    assert found["message"].startswith(
        f"{path}:{line}: {row['id']} is superseded by abcdef99, which is in neither store"
    )
    assert f"`tether restore {row['id']}` brings it back" in found["message"]
    assert run_tether("restore", row["id"], cwd=repo).code == 0
    assert run_tether("doctor", cwd=repo).stdout.strip() == "No problems found."


def test_a_replacement_in_the_global_store_is_found(repo: Path) -> None:
    mine = run_tether(
        "remember",
        "use the new pool",
        "-c",
        "gotcha",
        "-f",
        "src/app.py",
        "--global",
        "--json",
        cwd=repo,
    )
    assert mine.code == 0, mine.stderr
    linked = {**NOWHERE, "superseded_by": json.loads(mine.stdout)["id"]}
    done = _import(repo, linked)
    assert done.code == 0, done.stderr
    assert done.stderr == ""
    assert "superseded by" not in run_tether("doctor", cwd=repo).stdout
