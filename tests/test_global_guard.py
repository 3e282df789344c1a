"""A guard in the global store would protect nothing (the edit hooks ask only under the
guards of the edited file's repository), so none is written there, whichever way it is asked
for; one already there (written by hand, or before this was refused) is reported by
``tether doctor`` and left as it is, and a supersede does not carry it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

from recall import frontmatter

REFUSED = "a guard protects the files of one repository, and the global store belongs to none"


def _global_files(home: Path) -> list[Path]:
    return sorted((home / "memories").glob("*.md"))


def test_remember_and_guard_refuse_a_guard_in_the_global_store(
    repo: Path, tether_home: Path
) -> None:
    words = ("remember", "app.py is frozen", "-c", "decision", "-f", "src/app.py", "--global")
    done = run_tether(*words, "--guard", cwd=repo)
    assert done.code == 2
    assert REFUSED in done.stderr and "(drop --global) or drop --guard" in done.stderr
    assert not _global_files(tether_home)
    written = run_tether(*words, "--json", cwd=repo)
    assert written.code == 0, written.stderr
    memory_id = json.loads(written.stdout)["id"]
    done = run_tether("guard", memory_id, cwd=repo)
    assert done.code == 2
    assert f"memory {memory_id} is in the global store" in done.stderr
    assert "--guard` inside the repository" in done.stderr
    assert run_tether("show", memory_id, "--json", cwd=repo).json()["guard"] is False
    done = run_tether(
        "supersede", memory_id, "app.py frozen", "-c", "decision", "--guard", cwd=repo
    )
    assert done.code == 2 and REFUSED in done.stderr


def test_an_import_line_with_a_global_guard_is_refused(repo: Path, tether_home: Path) -> None:
    source = repo.parent / "mine.jsonl"
    record = {
        "summary": "app.py is frozen",
        "category": "decision",
        "files": ["src/app.py"],
        "scope": "global",
        "guard": True,
    }
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2
    assert f"{source}:1: {REFUSED}" in done.stderr
    assert "drop 'guard'" in done.stderr
    assert not _global_files(tether_home)


def test_doctor_reports_a_global_guard_and_supersede_does_not_carry_it(
    repo: Path, tether_home: Path
) -> None:
    words = ("remember", "app.py is frozen", "-c", "decision", "-f", "src/app.py", "--global")
    written = run_tether(*words, "--json", cwd=repo)
    memory_id = json.loads(written.stdout)["id"]
    [path] = _global_files(tether_home)
    by_hand = path.read_text(encoding="utf-8").replace(
        "category: decision\n", "category: decision\nguard: true\n"
    )
    path.write_text(by_hand, encoding="utf-8")
    done = run_tether("doctor", "--json", cwd=repo)
    assert done.code == 1
    [found] = [entry for entry in done.json() if entry.get("kind") == "global-guard"]
    assert (found["id"], found["scope"], found["path"]) == (memory_id, "global", str(path))
    assert f"memory {memory_id} is guarded, but it is in the global store" in found["message"]
    assert f"`tether unguard {memory_id}`" in found["message"]
    assert path.read_text(encoding="utf-8") == by_hand  # reported, never rewritten
    done = run_tether("supersede", memory_id, "app.py is frozen still", "-c", "decision", cwd=repo)
    assert done.code == 0, done.stderr
    assert f"{memory_id} was guarded, but it is in the global store" in done.stderr
    [new] = [p for p in _global_files(tether_home) if p != path]
    assert frontmatter.parse(new.read_text(encoding="utf-8"), "new").fields.get("guard") is None
