"""``tether supersede -f`` with no ``--anchor``, of a memory anchored in a file git renamed
since (or whose definition moved to another file): the anchor follows its definition to
where it is now, said, and a guard carried with it is not narrowed (nor lifted, for ``tether
check``); an anchor whose new file is not among the files given goes, said with the name to
give to keep it."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.cli.main import main
from tests.conftest import git, make_repo, run_tether

UTIL_PY = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
APP_PY = "def start():\n    return 3\n"
HELPERS_PY = "".join(f"def h{n}():\n    return {n}\n\n\n" for n in range(12))


def _anchored(tmp_path: Path, *flags: str) -> tuple[Path, str]:
    """A repository whose memory on util.py::f (with ``flags``) is committed; the memory id."""
    repo = make_repo(tmp_path / "repo", {"util.py": UTIL_PY, "app.py": APP_PY})
    made = run_tether(
        "--json",
        "remember",
        "f must stay pure",
        "-c",
        "gotcha",
        "-f",
        "util.py",
        "--anchor",
        "util.py::f",
        *flags,
        cwd=repo,
    )
    assert made.code == 0, made.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    return repo, made.json()["id"]


def _rename(repo: Path) -> None:
    git(repo, "mv", "util.py", "legacy.py")
    git(repo, "commit", "-q", "-m", "util becomes legacy")


def _symbols(memory: dict) -> list[str]:
    return [a if isinstance(a, str) else a["symbol"] for a in memory.get("anchors") or []]


def test_a_guarded_anchor_follows_its_file_renamed(tmp_path: Path) -> None:
    repo, old_id = _anchored(tmp_path, "--guard")
    _rename(repo)
    done = run_tether(
        "--json", "supersede", old_id, "f must stay pure, in legacy", "-f", "legacy.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    assert "util.py::f is carried over as legacy.py::f" in done.stderr
    assert "narrowed" not in done.stderr  # the guard covers f where it is now
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["files"] == ["legacy.py"]  # no file gone from the working tree
    assert _symbols(new) == ["legacy.py::f"]
    assert new["guard"] is True
    old = run_tether("--json", "show", old_id, cwd=repo).json()
    assert new["anchors"][0]["body"] == old["anchors"][0]["body"]  # a change still shows
    checked = run_tether("--json", "check", cwd=repo)  # the guard is carried, not lifted
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.json()["review"] == [] and checked.json()["failures"] == []


def test_following_a_guarded_anchor_and_weighing_its_guard_open_the_genome_once(
    tmp_path: Path, genome_opens: list[Path | None], capsys: pytest.CaptureFixture[str]
) -> None:
    """The genome opened to carry the anchor to its renamed file is the one the guard it
    carries is weighed on (through the rename, then where the definition is), in one process
    as ``tether supersede`` runs: not opened a second time."""
    repo, old_id = _anchored(tmp_path, "--guard", "-f", "app.py")
    _rename(repo)
    code = main(["-C", str(repo), "--json", "supersede", old_id, "f in legacy", "-f", "legacy.py"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "util.py::f is carried over as legacy.py::f" in err
    assert "narrowed: app.py is no longer guarded" in err  # util.py followed to legacy.py
    assert genome_opens == [repo]


def test_an_anchor_renamed_out_of_the_files_given_goes_with_its_new_name(
    tmp_path: Path,
) -> None:
    repo, old_id = _anchored(tmp_path)
    _rename(repo)
    done = run_tether("--json", "supersede", old_id, "start is pure", "-f", "app.py", cwd=repo)
    assert done.code == 0, done.stderr
    assert "util.py::f (now legacy.py::f) is not carried over" in done.stderr
    assert "give legacy.py::f with --anchor PATH::NAME" in done.stderr
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["files"] == ["app.py"]
    assert not new.get("anchors")


def test_a_guarded_anchor_follows_its_definition_moved(tmp_path: Path) -> None:
    repo, old_id = _anchored(tmp_path, "--guard")
    git(repo, "rm", "-q", "util.py")  # f moves into a file of other code: no git rename
    (repo / "helpers.py").write_text(HELPERS_PY + UTIL_PY.split("\n\n\n")[0] + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "f moves to helpers")
    done = run_tether(
        "--json", "supersede", old_id, "f stays pure in helpers", "-f", "helpers.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    assert "util.py::f is carried over as helpers.py::f" in done.stderr
    assert "narrowed" not in done.stderr
    new = run_tether("--json", "show", done.json()["id"], cwd=repo).json()
    assert new["files"] == ["helpers.py"]
    assert _symbols(new) == ["helpers.py::f"]
    assert new["guard"] is True


def test_check_reads_a_guard_superseded_onto_the_renamed_file_as_carried(
    tmp_path: Path,
) -> None:
    repo, old_id = _anchored(tmp_path, "--guard")
    _rename(repo)
    done = run_tether(
        "--json",
        "supersede",
        old_id,
        "f must stay pure, in legacy",
        "-f",
        "legacy.py",
        "--anchor",
        "legacy.py::f",
        cwd=repo,
    )
    assert done.code == 0, done.stderr
    checked = run_tether("--json", "check", cwd=repo)
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.json()["review"] == [], checked.stdout


def test_check_reads_a_guard_superseded_onto_a_name_the_change_itself_gives_as_carried(
    tmp_path: Path,
) -> None:
    # the rename and the supersede in one change, checked before the commit (a pre-commit hook)
    repo, old_id = _anchored(tmp_path, "--guard")
    git(repo, "mv", "util.py", "legacy.py")  # staged, not committed
    done = run_tether(
        "--json", "supersede", old_id, "f must stay pure, in legacy", "-f", "legacy.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    checked = run_tether("--json", "check", cwd=repo)
    assert checked.code == 0, checked.stdout + checked.stderr
    assert checked.json()["failures"] == [], checked.stdout
    # a supersede onto other code is still a guard narrowed in the change of its own
    repo2, other_id = _anchored(tmp_path / "second", "--guard")
    git(repo2, "mv", "util.py", "legacy.py")
    moved = run_tether(
        "supersede", other_id, "start must stay pure", "-f", "app.py", "--anchor", "app.py::start",
        cwd=repo2,
    )  # fmt: skip
    assert moved.code == 0, moved.stderr
    git(repo2, "add", "-A")
    assert run_tether("check", cwd=repo2).code == 1
