"""``tether import`` of a line naming a folder or one of git's own files, which ``remember``
refuses as the file of no memory: the memory is written as given (a line of an export gives
back what its store held) and its line says which file and what to do, as ``doctor`` would."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

GOTCHA = {"category": "gotcha"}


def test_a_folder_or_a_file_of_git_is_written_with_a_note_naming_it(repo: Path) -> None:
    text = "".join(
        json.dumps(record) + "\n"
        for record in (
            {"summary": "about src", "files": ["src"], **GOTCHA},
            {"summary": "git config", "files": [".git/config", "src/app.py"], **GOTCHA},
            {"summary": "a plain file", "files": ["src/app.py"], **GOTCHA},
        )
    )
    done = run_tether("import", "-", "--json", cwd=repo, stdin=text)
    assert done.code == 0, done.stderr
    folder, git_own, plain = [json.loads(row) for row in done.stdout.splitlines()]
    assert [folder["status"], git_own["status"], plain["status"]] == ["created"] * 3
    assert folder["unfit_files"] == ["src"]
    [note] = folder["notes"]
    assert "file 'src' is a folder; name the files it is about (src/app.py, src/util.py)" in note
    assert f".tether/memories/{folder['id']}.md" in note
    assert git_own["unfit_files"] == [".git/config"]
    assert "file '.git/config' is one of git's own files" in git_own["notes"][0]
    assert "unfit_files" not in plain and "notes" not in plain

    again = run_tether(
        "import", "-", cwd=repo, stdin=json.dumps({"summary": "b", "files": ["src"], **GOTCHA})
    )
    assert again.code == 0, again.stderr
    assert "-:1: written as given, though `remember` refuses it: file 'src' is a folder" in (
        again.stderr
    )
