"""A guarded function renamed in a change: what ``tether check`` tells a person to do works.
Superseding the memory onto the new name carries the guard (the old name is gone, so the
new memory cannot also anchor it); writing the new name into the memory's anchors and
confirming it does too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, make_repo

C = "int route_del(int a, int b)\n{\n    return a - b;\n}\n"


def _renamed(tmp_path: Path, cli: Callable[..., CliResult]) -> tuple[Path, Callable, str]:
    """A guarded memory on route_del, committed; then route_del renamed route_remove."""
    repo = make_repo(tmp_path / "repo", {"a.c": C})

    def run(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    done = run(
        "remember", "no double free", "-c", "gotcha", "--guard", "--anchor", "a.c::route_del"
    )
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    (repo / "a.c").write_text(C.replace("route_del", "route_remove"))
    [memory_file] = (repo / ".tether" / "memories").iterdir()
    before = run("check")
    assert before.code == 1, before.stdout
    assert "the change deletes symbol route_del" in before.stdout
    return repo, run, memory_file.stem


def test_superseding_onto_the_new_name_carries_the_guard(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    _, run, memory_id = _renamed(tmp_path, cli)
    new = ("no double free in route_remove", "--anchor", "a.c::route_remove")
    superseded = run("supersede", memory_id, *new)
    assert superseded.code == 0
    assert "narrowed" not in superseded.stderr  # route_del is gone: nothing is left unguarded
    after = run("check")
    assert after.code == 0, after.stdout
    assert "guard" not in after.stdout  # no guard said to be lifted


def test_the_same_text_is_told_how_to_tie_the_memory_to_the_new_name(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    repo, run, memory_id = _renamed(tmp_path, cli)
    refused = run("supersede", memory_id, "no double free", "--anchor", "a.c::route_remove")
    assert refused.code == 2
    memory_file = repo / ".tether" / "memories" / f"{memory_id}.md"
    assert f"edit `files:` or `anchors:` in {memory_file}" in refused.stderr
    assert f"`tether confirm {memory_id}`" in refused.stderr
    text = memory_file.read_text()
    memory_file.write_text(text.replace("a.c::route_del", "a.c::route_remove"))
    assert run("confirm", memory_id).code == 0
    after = run("check")
    assert after.code == 0, after.stdout


def test_after_a_committed_file_rename_the_anchors_still_decide_what_concerns_the_memory(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    source = "def save(k):\n    return k\n\n\ndef load(k):\n    return k\n"
    repo = make_repo(tmp_path / "repo", {"store.py": source})

    def run(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    done = run("remember", "g", "-c", "gotcha", "--guard", "--anchor", "store.py::save", "--json")
    memory_id = str(done.json()["id"])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    git(repo, "mv", "store.py", "storage.py")
    assert run("confirm", memory_id).code == 0
    git(repo, "commit", "-q", "-a", "-m", "renamed")
    (repo / "storage.py").write_text(
        source.replace("return k\n", "return k * 1\n").replace("return k * 1\n", "return k\n", 1)
    )
    elsewhere = run("check", "--json")
    assert elsewhere.code == 0, elsewhere.stdout
    assert elsewhere.json()["review"] == [], elsewhere.stdout  # only load was edited
    (repo / "storage.py").write_text(source.replace("return k\n", "return None\n", 1))
    under = run("check", "--json")
    assert under.code == 1, under.stdout
    [failure] = under.json()["failures"]
    assert "the change edits save" in str(failure["reason"])


def test_deleting_a_guarded_function_and_moving_the_guard_onto_another_still_fails(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    """A rename gives the file a name it did not have; deleting the guarded function and
    superseding the memory onto one that was there all along lifts the guard, and fails."""
    source = "def foo(x):\n    return x + 1\n\n\ndef bar(y):\n    return y * 2\n"
    repo = make_repo(tmp_path / "repo", {"a.py": source})

    def run(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    done = run("remember", "foo adds one", "-c", "decision", "--guard", "--anchor", "a.py::foo")
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    [memory_file] = (repo / ".tether" / "memories").iterdir()
    (repo / "a.py").write_text("def bar(y):\n    return y * 2\n")
    moved = run("supersede", memory_file.stem, "bar doubles", "--anchor", "a.py::bar")
    assert moved.code == 0, moved.stderr
    assert "a.py::foo is guarded and not among them" in moved.stderr  # said: narrowed
    after = run("check")
    assert after.code == 1, after.stdout
    assert "the change deletes symbol foo" in after.stdout
    assert "a guard is lifted in a change of its own" in after.stdout
