"""``tether check`` applies the guards as the base has them, and does not pass a memory file it
cannot read: a change that deletes, unguards or breaks a guarded memory and edits the code
under it fails; one that only lifts a guard is said for review."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

LIB = "pub fn free(p: u32) -> u32 {\n    p + 1\n}\n\npub fn other() {}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "rs-repo", {"src/lib.rs": LIB})


@pytest.fixture
def run(repo: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    return runner


@pytest.fixture
def guarded(repo: Path, run: Callable[..., CliResult]) -> str:
    assert run("index").code == 0
    done = run(
        "remember", "free must not free twice", "-c", "gotcha", "--json",
        "--anchor", "src/lib.rs::free", "--guard",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    return str(done.json()["id"])


def memory_file(repo: Path, memory_id: str) -> Path:
    return repo / ".tether" / "memories" / f"{memory_id}.md"


def edit_free(repo: Path) -> None:
    (repo / "src/lib.rs").write_text(LIB.replace("p + 1", "p + 2"))


def test_a_broken_memory_file_fails_the_check_and_is_named(
    repo: Path, run: Callable[..., CliResult], guarded: str
) -> None:
    path = memory_file(repo, guarded)
    path.write_text(path.read_text().replace("files:\n", "files: [src/lib.rs\n"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [broken] = done.json()["unreadable"]
    where = f".tether/memories/{guarded}.md"
    assert broken["path"] == where and broken["line"] > 1
    assert f"{where}:{broken['line']}: " in done.stderr
    assert "cannot vouch for this memory" in done.stderr
    text = run("check")
    assert text.code == 1 and "1 unreadable memory file" in text.stdout
    github = run("check", "--format", "github")
    assert github.code == 1
    assert f"::error file={where},line={broken['line']}," in github.stdout


def test_each_memory_file_check_cannot_read_is_named_once(
    repo: Path, run: Callable[..., CliResult], guarded: str
) -> None:
    """A broken memory file and a folder named like one: each said once on stderr, in check's
    own words, not also as every reading command says a skipped file."""
    path = memory_file(repo, guarded)
    path.write_text(path.read_text().replace("files:\n", "files: [src/lib.rs\n"))
    (repo / ".tether" / "memories" / "dir.md").mkdir()
    for args in (("check",), ("check", "--json"), ("check", "--format", "github")):
        done = run(*args)
        assert done.code == 1, done
        said = done.stderr.splitlines()
        assert len(said) == 2, done.stderr
        for name in (f"{guarded}.md", "dir.md"):
            (line,) = [line for line in said if name in line]
            assert "cannot vouch for this memory" in line


def test_a_broken_guarded_memory_still_guards_the_code_under_it(
    repo: Path, run: Callable[..., CliResult], guarded: str
) -> None:
    path = memory_file(repo, guarded)
    path.write_text(path.read_text().replace("files:\n", "files: [src/lib.rs\n"))
    edit_free(repo)
    done = run("check", "--json")
    assert done.code == 1
    [failure] = done.json()["failures"]
    assert failure["id"] == guarded and "the change edits free" in failure["reason"]


@pytest.mark.parametrize("lift", ["delete", "unguard"])
def test_lifting_a_guard_and_editing_its_code_in_one_change_fails(
    repo: Path, run: Callable[..., CliResult], guarded: str, lift: str
) -> None:
    path = memory_file(repo, guarded)
    if lift == "delete":
        git(repo, "rm", "-q", str(path))
    else:
        path.write_text(path.read_text().replace("guard: true", "guard: false"))
    edit_free(repo)
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == guarded and "the change edits free" in failure["reason"]
    how = "deletes its file" if lift == "delete" else "takes its guard off"
    assert f"guarded at the base and the change {how}" in failure["reason"]
    assert "a guard is lifted in a change of its own" in failure["reason"]


@pytest.mark.parametrize("lift", ["delete", "unguard"])
def test_lifting_a_guard_alone_is_said_for_review(
    repo: Path, run: Callable[..., CliResult], guarded: str, lift: str
) -> None:
    if lift == "delete":
        git(repo, "rm", "-q", str(memory_file(repo, guarded)))
    else:
        assert run("unguard", guarded).code == 0
    done = run("check", "--json")
    assert done.code == 0, done.stdout
    [review] = done.json()["review"]
    assert review["id"] == guarded and review["path"] == f".tether/memories/{guarded}.md"
    assert "guarded at the base" in review["reason"]


def test_a_guard_carried_by_a_supersede_is_not_lifted(
    repo: Path, run: Callable[..., CliResult], guarded: str
) -> None:
    assert run("supersede", guarded, "free must not free twice, nor leak").code == 0
    done = run("check", "--json")
    assert done.code == 0, done.stdout
    assert not [f for f in done.json()["review"] if "guarded at the base" in f["reason"]]


def test_a_supersede_by_hand_guarding_other_files_lifts_the_guard(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    # written by hand: a guarded replacement on another file does not carry the guard on lib.rs
    done = run("remember", "lib.rs frees once", "-c", "decision", "-f", "src/lib.rs", "--guard")
    assert done.code == 0, done.stderr
    [path] = (repo / ".tether" / "memories").glob("*.md")
    guarded = path.stem
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    (repo / "README.md").write_text("# demo\n")
    elsewhere = "---\nid: feedbeef\ncategory: decision\nguard: true\nfiles: [README.md]\n"
    elsewhere += f"supersedes: {guarded}\n---\nthe readme says how to free\n"
    (repo / ".tether" / "memories" / "feedbeef.md").write_text(elsewhere)
    text = path.read_text()
    assert "status: active\n" in text
    text = text.replace("status: active\n", "status: superseded\nsuperseded_by: feedbeef\n")
    path.write_text(text)
    edit_free(repo)
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    assert any(f["id"] == guarded for f in done.json()["failures"]), done.stdout


def test_the_bases_guards_unread_is_said_not_skipped(
    repo: Path, run: Callable[..., CliResult], guarded: str
) -> None:
    # the memory folder's tree at the base lost (a damaged clone): its guards cannot be read
    tree = git(repo, "rev-parse", "HEAD:.tether/memories").strip()
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    edit_free(repo)
    done = run("check")
    assert done.code != 0, done
    assert "could not read the memory files as the base has them" in done.stderr, done
