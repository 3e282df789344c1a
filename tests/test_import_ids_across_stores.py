"""One id in both stores could be reached by no command (``show``, ``pin``, ``delete`` would
act on the project's copy unasked), so ``tether import`` treats an id the other store holds
as taken, as it does one its own store holds: the line is written under a new id, with a
note, and the links of the same import follow it. A pair already on disk (written by hand)
is refused by name, with both files and what to do."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether


def _line(summary: str, memory_id: str, **more: object) -> str:
    record = {"summary": summary, "category": "pref", "files": [], "id": memory_id, **more}
    return json.dumps(record) + "\n"


def _ids(repo: Path, scope: str) -> dict[str, str]:
    done = run_tether("list", "--scope", scope, "--status", "all", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    return {memory["summary"]: memory["id"] for memory in json.loads(done.stdout)}


def test_a_global_line_asking_for_a_project_id_gets_a_new_one(repo: Path) -> None:
    assert run_tether("import", "-", cwd=repo, stdin=_line("project one", "deadbeef")).code == 0
    done = run_tether(
        "import", "-", "--json", cwd=repo, stdin=_line("global one", "deadbeef", scope="global")
    )
    assert done.code == 0, done.stderr
    [row] = done.json_lines()
    assert row["scope"] == "global" and row["id"] != "deadbeef"
    assert any("project store has it" in note for note in row["notes"])
    assert _ids(repo, "global") == {"global one": row["id"]}
    shown = run_tether("show", "deadbeef", cwd=repo)
    assert shown.code == 0 and "project one" in shown.stdout


def test_exporting_into_the_global_store_keeps_ids_apart_and_links_follow(repo: Path) -> None:
    lines = _line("old way", "aaaa0001", status="superseded", superseded_by="aaaa0002")
    lines += _line("new way", "aaaa0002", supersedes="aaaa0001")
    assert run_tether("import", "-", cwd=repo, stdin=lines).code == 0
    exported = run_tether("export", cwd=repo)
    assert exported.code == 0, exported.stderr
    done = run_tether("import", "-", "--global", "--json", cwd=repo, stdin=exported.stdout)
    assert done.code == 0, done.stderr
    copies = _ids(repo, "global")
    assert set(copies.values()).isdisjoint({"aaaa0001", "aaaa0002"})
    old = run_tether("show", copies["old way"], "--json", cwd=repo).json()
    assert old["superseded_by"] == copies["new way"]
    assert run_tether("show", "aaaa0001", "--json", cwd=repo).json()["scope"] == "project"


def test_an_id_both_stores_already_hold_is_refused_naming_both_files(
    repo: Path, tether_home: Path
) -> None:
    text = "---\nid: deadbeef\ncategory: pref\nfiles: []\n---\n{}\n"
    for folder, summary in (
        (repo / ".tether" / "memories", "mine"),
        (tether_home / "memories", "yours"),
    ):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "deadbeef.md").write_text(text.format(summary), encoding="utf-8")
    for command in (("show", "deadbeef"), ("show", "dead"), ("pin", "deadbeef")):
        done = run_tether(*command, cwd=repo)
        assert done.code == 2, (command, done.stdout)
        assert "both stores hold" in done.stderr
        assert str(repo / ".tether" / "memories" / "deadbeef.md") in done.stderr
        assert str(tether_home / "memories" / "deadbeef.md") in done.stderr
        assert "give more digits" not in done.stderr
    assert "pinned: true" not in (repo / ".tether" / "memories" / "deadbeef.md").read_text()
