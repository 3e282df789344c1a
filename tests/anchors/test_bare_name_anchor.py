"""``--anchor NAME`` with one ``--file`` that defines NAME is a symbol anchor on that file, which
follows the code; a name the file does not define, or several files, is kept as written and
said, naming the argument; a line range stays inside the file as written."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, run_tether


def _remember(repo: Path, *args: str):
    return run_tether("remember", "helper stays pure", "-c", "gotcha", *args, "--json", cwd=repo)


def _shown(repo: Path, memory_id: str) -> dict[str, object]:
    return json.loads(run_tether("show", memory_id, "--json", cwd=repo).stdout)


def test_a_name_the_one_file_defines_is_a_symbol_anchor_that_follows_it(repo: Path) -> None:
    done = _remember(repo, "-f", "src/util.py", "--anchor", "helper", "--pin")
    assert done.code == 0, done.stderr
    memory_id = json.loads(done.stdout)["id"]
    shown = _shown(repo, memory_id)
    assert shown["anchor"] is None
    assert [a["symbol"] for a in shown["anchors"]] == ["src/util.py::helper"]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    (repo / "src/util.py").write_text("", encoding="utf-8")
    (repo / "src/tools.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    check = run_tether("check", "--json", cwd=repo)
    assert check.code == 1
    [failure] = json.loads(check.stdout)["failures"]
    assert "moves symbol helper from src/util.py to src/tools.py" in failure["reason"]


def test_a_name_the_file_does_not_define_is_kept_as_written_and_said(repo: Path) -> None:
    done = _remember(repo, "-f", "src/app.py", "--anchor", "helper")
    assert done.code == 0, done.stderr
    assert "--anchor 'helper' is kept as a name inside src/app.py (src/app.py defines no " in (
        done.stderr
    )
    assert "will not follow the code; give the symbol where it is as --anchor PATH::NAME" in (
        done.stderr
    )
    shown = _shown(repo, json.loads(done.stdout)["id"])
    assert (shown["anchor"], shown["anchors"]) == ("helper", [])


def test_a_name_with_several_files_is_kept_as_written_and_said(repo: Path) -> None:
    done = _remember(repo, "-f", "src/app.py", "-f", "src/util.py", "--anchor", "helper")
    assert done.code == 0, done.stderr
    assert "--anchor 'helper' is kept as a name inside the memory's files (2 files" in (done.stderr)
    assert "give it with its file as --anchor PATH::helper" in done.stderr


def test_a_line_range_stays_inside_the_file(repo: Path) -> None:
    done = _remember(repo, "-f", "src/util.py", "--anchor", "1-2")
    assert done.code == 0, done.stderr
    shown = _shown(repo, json.loads(done.stdout)["id"])
    assert (shown["anchor"], shown["anchors"]) == ("1-2", [])
