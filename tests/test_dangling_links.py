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


def _cli_json(repo: Path, *args: str) -> dict[str, object]:
    done = run_tether(*args, "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return json.loads(done.stdout)


def test_a_replacement_deleted_and_purged_is_no_dangling_link(repo: Path) -> None:
    old = _cli_json(repo, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    new = _cli_json(
        repo, "supersede", old["id"], "use the new pool", "-c", "gotcha", "-f", "src/app.py"
    )
    assert run_tether("delete", new["id"], cwd=repo).code == 0
    old_file = repo / ".tether" / "memories" / f"{old['id']}.md"
    before = old_file.read_bytes()
    purge = run_tether("purge", "--yes", cwd=repo)
    assert purge.code == 0, purge.stderr
    assert f"{old['id']} stays superseded, out of recall: its replacement {new['id']}" in (
        " ".join(purge.stderr.split())
    )
    assert f"`tether restore {old['id']}` brings {old['id']} back" in purge.stderr
    assert old_file.read_bytes() == before  # the superseded memory is left as it was
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 0, doctor.stdout
    assert doctor.stdout.strip() == "No problems found."


def test_purged_ids_are_known_to_a_clone(repo: Path, tmp_path: Path) -> None:
    from conftest import git

    old = _cli_json(repo, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    new = _cli_json(
        repo, "supersede", old["id"], "use the new pool", "-c", "gotcha", "-f", "src/app.py"
    )
    run_tether("delete", new["id"], cwd=repo)
    purged = json.loads(run_tether("purge", "--yes", "--json", cwd=repo).stdout)
    assert purged["kept_superseded"] == [{"id": old["id"], "superseded_by": new["id"]}]
    record = repo / ".tether" / "purged.txt"  # beside memories/, and committed with them
    assert new["id"] in record.read_text(encoding="utf-8").splitlines()
    assert "purged.txt" not in (repo / ".tether" / ".gitignore").read_text(encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert run_tether("doctor", cwd=clone).code == 0


def test_an_id_one_store_cannot_look_up_is_looked_up_in_the_next(
    repo: Path, open_store, tether_home: Path
) -> None:
    from recall.lifecycle.links import PURGED_FILE, in_a_store

    twins = [
        {"summary": f"pool note {n}", "category": "gotcha", "id": f"abcd000{n}"} for n in (1, 2)
    ]
    assert _import(repo, *twins).code == 0  # "abcd" is an ambiguous prefix in this store
    mine = ("remember", "a global note", "-c", "pref", "-f", "README.md", "--global")
    assert run_tether(*mine, cwd=repo).code == 0
    (tether_home / PURGED_FILE).write_text("abcd\n", encoding="utf-8")
    project, glob = open_store().store, open_store(scope="global").store
    assert in_a_store("abcd", [project, glob])


def _supersede_delete(repo: Path, *scope: str) -> tuple[str, str]:
    old = _cli_json(
        repo, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py", *scope
    )
    new = _cli_json(
        repo, "supersede", old["id"], "use the new pool", "-c", "gotcha", "-f", "src/app.py"
    )
    assert run_tether("delete", new["id"], cwd=repo).code == 0
    return old["id"], new["id"]


def test_a_record_edited_by_hand_without_its_last_line_break_keeps_ids_on_their_lines(
    repo: Path,
) -> None:
    record = repo / ".tether" / "purged.txt"
    record.parent.mkdir(exist_ok=True)
    record.write_text("# kept by hand, no line break at the end", encoding="utf-8")
    _, new = _supersede_delete(repo)
    assert run_tether("purge", "--yes", cwd=repo).code == 0
    lines = record.read_text(encoding="utf-8").splitlines()
    assert lines == ["# kept by hand, no line break at the end", new]
    assert run_tether("doctor", cwd=repo).code == 0


def test_the_global_store_record_is_private_and_asks_no_commit(
    repo: Path, tether_home: Path
) -> None:
    import stat

    from recall.lifecycle.links import PURGED_FILE

    _, new = _supersede_delete(repo, "--global")
    assert run_tether("purge", "--global", "--yes", cwd=repo).code == 0
    record = tether_home / PURGED_FILE
    assert new in record.read_text(encoding="utf-8").splitlines()
    assert stat.S_IMODE(record.stat().st_mode) & 0o077 == 0
    assert "Commit" not in record.read_text(encoding="utf-8")
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 0, doctor.stdout


REPLACES_NOWHERE = {
    "summary": "use the new pool",
    "category": "gotcha",
    "files": ["src/app.py"],
    "supersedes": "abcdef98",
}


def test_import_says_a_supersedes_naming_an_id_in_neither_store(repo: Path) -> None:
    done = _import(repo, REPLACES_NOWHERE, json_out=True)
    assert done.code == 0, done.stderr
    [row] = [json.loads(line) for line in done.stdout.splitlines()]
    memory = repo / ".tether" / "memories" / f"{row['id']}.md"
    assert row["notes"] == [
        f"{row['id']} supersedes abcdef98, which is in neither store, so the link leads "
        f"nowhere; write the id of the memory it replaces as its supersedes in {memory}, or "
        "remove that line if it replaces none"
    ]


def test_doctor_names_the_file_and_line_of_a_supersedes_leading_nowhere(repo: Path) -> None:
    row = json.loads(_import(repo, REPLACES_NOWHERE, json_out=True).stdout)
    doctor = run_tether("doctor", "--json", cwd=repo)
    assert doctor.code == 1
    [found] = [entry for entry in json.loads(doctor.stdout) if entry["kind"] == "dangling-link"]
    path = repo / ".tether" / "memories" / f"{row['id']}.md"
    line = path.read_text(encoding="utf-8").splitlines().index("supersedes: abcdef98") + 1
    assert found["supersedes"] == "abcdef98"
    assert found["message"] == (
        f"{path}:{line}: {row['id']} supersedes abcdef98, which is in neither store, so the "
        "link leads nowhere; write the id of the memory it replaces as its supersedes, or "
        "remove that line if it replaces none"
    )


def test_a_replaced_memory_deleted_and_purged_is_no_dangling_link(repo: Path) -> None:
    old = _cli_json(repo, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    _cli_json(repo, "supersede", old["id"], "use the new pool", "-c", "gotcha", "-f", "src/app.py")
    assert run_tether("delete", old["id"], cwd=repo).code == 0
    assert run_tether("purge", "--yes", cwd=repo).code == 0
    record = repo / ".tether" / "purged.txt"
    assert old["id"] in record.read_text(encoding="utf-8").splitlines()
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 0, doctor.stdout


ACTIVE_NOWHERE = {key: value for key, value in NOWHERE.items() if key != "status"}
"""A line naming a replacement no store holds without saying it is superseded: active."""


def test_an_active_memory_with_a_link_to_nowhere_is_said_as_in_recall(repo: Path) -> None:
    done = _import(repo, ACTIVE_NOWHERE, json_out=True)
    assert done.code == 0, done.stderr
    [row] = [json.loads(line) for line in done.stdout.splitlines()]
    memory = repo / ".tether" / "memories" / f"{row['id']}.md"
    assert row["notes"] == [
        f"{row['id']} is active, so recall gives it, but its superseded_by names abcdef99, "
        f"which is in neither store; remove that line in {memory} if nothing replaces it, or "
        f"`tether archive {row['id']}` if it should not stand"
    ]
    recalled = run_tether("recall", "--file", "src/app.py", "--json", "--no-record", cwd=repo)
    assert [item["id"] for item in recalled.json()["results"]] == [row["id"]]
    doctor = run_tether("doctor", "--json", cwd=repo)
    assert doctor.code == 1
    [found] = [entry for entry in doctor.json() if entry["kind"] == "dangling-link"]
    line = memory.read_text(encoding="utf-8").splitlines().index("superseded_by: abcdef99") + 1
    assert found["message"] == (
        f"{memory}:{line}: {row['id']} is active, so recall gives it, but its superseded_by "
        f"names abcdef99, which is in neither store; remove that line if nothing replaces it, "
        f"or `tether archive {row['id']}` if it should not stand"
    )
    assert (found["id"], found["superseded_by"]) == (row["id"], "abcdef99")


def test_a_hand_written_link_to_nowhere_on_an_active_memory_is_reported(repo: Path) -> None:
    run_tether("init", cwd=repo)
    memory = repo / ".tether" / "memories" / "note.md"
    memory.write_text(
        "---\ncategory: gotcha\nfiles: [src/app.py]\nsuperseded_by: abcdef99\n---\nby hand\n",
        encoding="utf-8",
    )
    doctor = run_tether("doctor", cwd=repo)
    assert doctor.code == 1
    assert f"{memory}:4: " in doctor.stdout
    assert "is active, so recall gives it, but its superseded_by names abcdef99" in doctor.stdout
