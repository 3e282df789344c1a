"""A clone made without ``--recurse-submodules`` has none of a submodule's files on disk: a
memory naming one is not said to be gone (``doctor``, ``show``), an anchor in one is unknown,
and a path in one given to ``remember`` or ``recall`` is said to be in the submodule, with the
command that checks it out. The real CLI, a real submodule."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, make_repo, run_tether

HINT = (
    "in submodule vend/sub, which is not checked out here (`git submodule update --init vend/sub`"
)


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, str]:
    """A plain clone of a repository holding the submodule vend/sub, a memory naming its s.py
    and one anchoring its ``s``: the clone, and the first memory's id."""
    sub = make_repo(tmp_path / "sub", {"s.py": "def s():\n    return 1\n"})
    top = make_repo(tmp_path / "repo", {"top.py": "x = 1\n"})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.as_uri(), "vend/sub")
    git(top, "commit", "-q", "-m", "add the submodule")
    named = run_tether(
        "--json", "remember", "s is slow", "-c", "gotcha", "-f", "vend/sub/s.py", cwd=top
    )
    anchored = run_tether(
        "remember", "s is pure", "-c", "gotcha", "--anchor", "vend/sub/s.py::s", cwd=top
    )
    assert named.code == anchored.code == 0, named.stderr + anchored.stderr
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "memories")
    plain = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(top), str(plain))
    assert not (plain / "vend/sub/s.py").exists()
    return plain, named.json()["id"]


def test_doctor_says_no_file_in_a_submodule_not_checked_out_is_gone(
    clone: tuple[Path, str],
) -> None:
    plain, memory = clone
    doctor = run_tether("doctor", cwd=plain)
    assert (doctor.code, doctor.stdout.strip()) == (0, "No problems found."), doctor.stdout
    assert f"2 memories name files {HINT}" in doctor.stderr
    shown = run_tether("--json", "show", memory, cwd=plain)
    assert HINT in shown.json()["files_now"]["vend/sub/s.py"]


def test_a_path_in_a_submodule_not_checked_out_is_said_to_be_there(
    clone: tuple[Path, str],
) -> None:
    plain, _ = clone
    refused = run_tether("remember", "t too", "-c", "gotcha", "-f", "vend/sub/t.py", cwd=plain)
    assert refused.code == 2
    assert f"--file 'vend/sub/t.py' is {HINT}" in refused.stderr, refused.stderr
    assert "nor in its history" not in refused.stderr
    recalled = run_tether("recall", "-f", "vend/sub/s.py", "--no-record", cwd=plain)
    assert f"vend/sub/s.py is {HINT}" in recalled.stderr, recalled.stderr
    assert "deleted" not in recalled.stderr
