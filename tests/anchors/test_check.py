"""``tether check``: on real git changes, the memories to review, and the failures a pinned
memory's moved symbol or a guarded memory's edited code give (exit 1), as text, JSON and
GitHub workflow annotations."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall import frontmatter
from tests.closed_pipe import into_closed_pipe

SOURCE = (
    "#include <stdio.h>\n\n"
    "int route_add(int arg)\n{\n    return arg;\n}\n\n"
    "int route_del(int arg)\n{\n    return -arg;\n}\n"
)


@pytest.fixture
def c_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "c-repo", {"ip/route.c": SOURCE, "README": "routes\n"})


@pytest.fixture
def run(c_repo: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=c_repo)

    return runner


def remember(run: Callable[..., CliResult], summary: str, *extra: str) -> str:
    done = run("remember", summary, "-c", "gotcha", "--json", *extra)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_an_edit_lists_the_memories_to_review_on_the_changed_symbol(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    add = remember(run, "route_add must keep the table sorted", "--anchor", "ip/route.c::route_add")
    delete = remember(run, "route_del frees the entry", "--anchor", "ip/route.c::route_del")
    readme = remember(run, "the readme is generated", "-f", "README")
    commit_all(c_repo, "memories")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return arg;", "return arg + 1;"))
    done = run("check", "--json")
    assert done.code == 0, done.stderr
    found = done.json()
    assert found["failures"] == []
    symbol = [f for f in found["review"] if f["reason"] == "the change edits route_add"]
    assert [(f["id"], f["path"], f["line"]) for f in symbol] == [(add, "ip/route.c", 3)]
    assert readme not in {f["id"] for f in found["review"]}
    # route_del's memory names the file, but it is tied to route_del, which the edit leaves
    assert delete not in {f["id"] for f in found["review"]}
    text = run("check")
    assert "review ip/route.c:3" in text.stdout and "0 failures" in text.stdout
    github = run("check", "--format", "github")
    assert github.code == 0
    assert (
        f"::warning file=ip/route.c,line=3,title=Tether gotcha {add}::route_add must keep the "
        "table sorted (the change edits route_add)"
    ) in github.stdout.splitlines()


def test_an_anchored_memory_is_reviewed_for_its_file_only_where_the_anchors_do_not_decide(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    """An edit elsewhere in an anchored symbol's file is no review of the memory; the files it
    names without an anchor, a file it is anchored in that the change deletes, and an anchor
    the base does not define still are."""
    both = remember(
        run, "route_del and the readme agree", "--anchor", "ip/route.c::route_del", "-f", "README"
    )
    missing = remember(run, "route_flush to come", "--anchor", "ip/route.c::route_flush")
    commit_all(c_repo, "memories")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return arg;", "return arg + 1;"))
    found = run("check", "--json").json()
    reasons = {(f["id"], f["reason"]) for f in found["review"]}
    assert (both, "the change edits ip/route.c") not in reasons
    assert (missing, "the change edits ip/route.c") in reasons  # not defined: the file stands
    (c_repo / "README").write_text("routes, regenerated\n")
    reasons = {(f["id"], f["reason"]) for f in run("check", "--json").json()["review"]}
    assert (both, "the change edits README") in reasons
    assert (both, "the change edits ip/route.c") not in reasons
    (c_repo / "ip/route.c").unlink()
    reasons = {(f["id"], f["reason"]) for f in run("check", "--json").json()["review"]}
    assert (both, "the change deletes ip/route.c") in reasons


def test_a_pinned_memory_whose_symbol_moves_fails_until_repointed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember(run, "route_add holds rtnl", "--pin", "--anchor", "ip/route.c::route_add")
    commit_all(c_repo, "memory")
    git(c_repo, "checkout", "-q", "-b", "topic")
    text = SOURCE
    start = text.index("int route_add")
    moved = text[start : text.index("}\n", start) + 2]
    (c_repo / "ip/route.c").write_text(text.replace(moved, ""))
    (c_repo / "ip/table.c").write_text(moved)
    commit_all(c_repo, "route_add moves to table.c")
    done = run("check", "--base", "main", "--json")
    assert done.code == 1
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id
    assert "moves symbol route_add from ip/route.c to ip/table.c" in failure["reason"]
    assert f"tether repoint {memory_id} --apply" in failure["reason"]
    github = run("check", "--base", "main", "--format", "github")
    assert github.code == 1 and github.stdout.startswith("::error file=ip/route.c,")
    assert run("repoint", memory_id, "--apply").code == 0
    again = run("check", "--base", "main", "--json")
    assert again.code == 0, again.stdout
    assert again.json()["failures"] == []


def test_a_guarded_memory_fails_until_confirmed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember(run, "route_del must not free twice", "--anchor", "ip/route.c::route_del")
    path = c_repo / ".tether" / "memories" / f"{memory_id}.md"
    path.write_text(frontmatter.update(path.read_text(), path, {"guard": True}))
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    done = run("check", "--json")
    assert done.code == 1
    [failure] = done.json()["failures"]
    assert "under a guarded memory" in failure["reason"] and failure["line"] == 8
    assert run("confirm", memory_id).code == 0
    assert run("check").code == 0


@pytest.mark.parametrize("gone", ["file", "symbol"])
def test_a_pinned_memory_whose_file_or_symbol_is_deleted_is_told_a_fix_that_works(
    c_repo: Path, run: Callable[..., CliResult], gone: str
) -> None:
    """No rename leads anywhere, so `repoint` (which follows renames) refuses: the failure
    says to supersede or unpin, and either ends it."""
    where = ("-f", "README") if gone == "file" else ("--anchor", "ip/route.c::route_add")
    memory_id = remember(run, "route_add holds rtnl", "--pin", *where)
    commit_all(c_repo, "memory")
    git(c_repo, "checkout", "-q", "-b", "topic")
    if gone == "file":
        (c_repo / "README").unlink()
    else:  # renamed in place: a deleted symbol to the check, nothing for repoint to follow
        (c_repo / "ip/route.c").write_text(SOURCE.replace("int route_add", "int route_insert"))
    commit_all(c_repo, f"the {gone} goes")
    done = run("check", "--base", "main", "--json")
    assert done.code == 1
    [failure] = done.json()["failures"]
    assert f"`tether supersede {memory_id} SUMMARY" in failure["reason"]
    assert f"`tether unpin {memory_id}`" in failure["reason"]
    assert "repoint" not in failure["reason"]
    assert run("repoint", memory_id, "--apply").code == 1  # as the failure no longer says
    assert run("unpin", memory_id).code == 0
    assert run("check", "--base", "main", "--json").json()["failures"] == []


def test_a_base_git_does_not_know_is_a_clear_error(run: Callable[..., CliResult]) -> None:
    done = run("check", "--base", "no-such-branch")
    assert done.code == 2
    assert "--base 'no-such-branch' is not a commit git knows" in done.stderr


def test_a_base_that_shares_no_commit_with_head_is_refused_not_compared_tip_to_tree(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    """With no merge base (unrelated histories here; a shallow clone in CI), comparing with
    the base's tip would lay everything the base did since on the change."""
    main = git(c_repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(c_repo, "checkout", "-q", "--orphan", "elsewhere")
    git(c_repo, "commit", "-q", "-m", "another history")
    git(c_repo, "checkout", "-q", main)
    done = run("check", "--base", "elsewhere")
    assert done.code == 2 and done.stdout == ""
    assert "--base 'elsewhere' and HEAD share no commit git can see" in done.stderr
    assert "their histories are unrelated" in done.stderr


def test_a_shallow_clone_without_the_merge_base_says_to_fetch_the_history(
    c_repo: Path, tmp_path: Path
) -> None:
    from conftest import run_tether

    main = git(c_repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(c_repo, "checkout", "-q", "-b", "feature")
    (c_repo / "NOTES.txt").write_text("feature work\n")
    git(c_repo, "add", "-A")
    git(c_repo, "commit", "-q", "-m", "feature")
    git(c_repo, "checkout", "-q", main)
    (c_repo / "MAIN.txt").write_text("main work\n")
    git(c_repo, "add", "-A")
    git(c_repo, "commit", "-q", "-m", "main moves on")
    shallow = tmp_path / "shallow"
    url = c_repo.as_uri()
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", url, str(shallow))
    git(shallow, "fetch", "-q", "--depth", "1", "origin", f"{main}:refs/remotes/origin/{main}")
    done = run_tether("check", "--base", f"origin/{main}", cwd=shallow)
    assert done.code == 2, done.stdout + done.stderr
    assert "this clone is shallow" in done.stderr and "git fetch --unshallow" in done.stderr
    # a commit older than the clone's depth is not there at all: the same reason is given
    older = run_tether("check", "--base", "HEAD~1", cwd=shallow)
    assert older.code == 2, older.stdout + older.stderr
    assert "is not a commit git knows" in older.stderr
    assert "this clone is shallow" in older.stderr and "git fetch --unshallow" in older.stderr


def move_route_del(repo: Path, body: str = "return -arg;") -> None:
    """Move route_del from ip/route.c to ip/table.c (its body given by ``body``)."""
    start = SOURCE.index("int route_del")
    moved = SOURCE[start:]
    (repo / "ip/route.c").write_text(SOURCE.replace(moved, "").rstrip() + "\n")
    (repo / "ip/table.c").write_text(moved.replace("return -arg;", body))


def guarded(run: Callable[..., CliResult], *where: str) -> str:
    return remember(run, "route_del must not free twice", "--guard", *where)


def guard_failures(done: CliResult) -> list[dict[str, object]]:
    return [f for f in done.json()["failures"] if "guarded" in str(f["reason"])]


def test_a_guarded_memory_whose_symbol_moves_fails_until_repointed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    move_route_del(c_repo)
    git(c_repo, "add", "-A")
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id
    assert "moves symbol route_del from ip/route.c to ip/table.c" in failure["reason"]
    assert f"`tether repoint {memory_id} --apply` after the move" in failure["reason"]
    assert run("repoint", memory_id, "--apply").code == 0
    again = run("check", "--json")
    assert again.code == 0, again.stdout


def test_a_guarded_symbol_moved_and_edited_fails_on_its_new_file(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    move_route_del(c_repo, body="return 0;")
    git(c_repo, "add", "-A")
    # Moved with a new body while its old file stays: table.c did not define it at the base,
    # so repoint follows the move that check reports.
    assert run("repoint", memory_id, "--apply").code == 0
    memory_file = c_repo / ".tether" / "memories" / f"{memory_id}.md"
    assert "ip/table.c::route_del" in memory_file.read_text(encoding="utf-8")
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert failure["path"] == "ip/table.c" and failure["line"] == 1
    assert "the change edits route_del, under a guarded memory" in failure["reason"]


def test_a_guarded_symbol_moved_earlier_is_followed_to_its_new_file(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    move_route_del(c_repo)
    commit_all(c_repo, "route_del moves to table.c")
    (c_repo / "ip/table.c").write_text(
        (c_repo / "ip/table.c").read_text().replace("return -arg;", "return 0;")
    )
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert failure["path"] == "ip/table.c"


def test_a_guarded_symbol_deleted_fails_until_confirmed_and_pinning_does_not_pass(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    start = SOURCE.index("int route_del")
    (c_repo / "ip/route.c").write_text(SOURCE[:start])
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert "deletes symbol route_del" in failure["reason"]
    assert run("pin", memory_id).code == 0
    assert run("check").code == 1
    assert run("unpin", memory_id).code == 0
    assert run("check").code == 1
    assert run("confirm", memory_id).code == 0
    assert run("check").code == 0


def test_a_guarded_symbol_moved_with_a_plain_mv_asks_for_git_add_not_a_confirm(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").rename(c_repo / "ip/routes.c")  # not added: git lists a deletion
    (c_repo / "ip/notes.txt").write_text("route_del\n")  # untracked, of another kind: not read
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id
    assert (
        "the change deletes symbol route_del, anchored at ip/route.c; it is found in "
        "ip/routes.c, a file git does not track yet: `git add ip/routes.c` so that the change "
        "holds the move, and check again"
    ) in failure["reason"]
    assert "tether confirm" not in failure["reason"]
    git(c_repo, "add", "ip/routes.c")
    moved = run("check", "--json")
    assert moved.code == 1
    assert "moves ip/route.c (anchored symbol route_del) to ip/routes.c" in str(moved.json())
    assert run("repoint", memory_id, "--apply").code == 0
    assert run("check").code == 0


def test_an_edit_under_a_guarded_symbol_fails_even_when_the_memory_is_pinned(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    assert run("pin", memory_id).code == 0
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert f"`tether confirm {memory_id}`" in failure["reason"]
    assert "repoint" not in failure["reason"]  # repointing does not confirm an edit


def test_a_guard_without_anchors_passes_only_once_confirmed(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, "-f", "ip/route.c")
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    assert run("pin", memory_id).code == 0
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert failure["line"] == 10
    assert run("confirm", memory_id).code == 0
    assert run("check").code == 0


@pytest.mark.parametrize("where", [("--anchor", "ip/route.c::route_del"), ("-f", "README")])
def test_a_guarded_failure_is_printed_once_as_the_failure_not_also_for_review(
    c_repo: Path, run: Callable[..., CliResult], where: tuple[str, str]
) -> None:
    memory_id = guarded(run, *where)
    commit_all(c_repo, "guarded memory")
    if where[0] == "-f":
        git(c_repo, "mv", "README", "README.txt")
    else:
        (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id and "under a guarded memory" in failure["reason"]
    assert done.json()["review"] == []
    text = run("check")
    assert [line.split()[0] for line in text.stdout.splitlines() if memory_id in line] == ["FAIL"]
    assert "0 memories to review, 1 failure" in text.stdout


def test_a_review_that_says_more_than_the_failure_stays(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = remember(
        run, "route_del must not free twice", "--pin", "--anchor", "ip/route.c::route_del"
    )
    commit_all(c_repo, "pinned memory")
    move_route_del(c_repo, body="return 0;")
    git(c_repo, "add", "-A")
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    assert [f["id"] for f in done.json()["failures"]] == [memory_id]
    assert [(f["id"], f["reason"]) for f in done.json()["review"]] == [
        (memory_id, "the change edits route_del")
    ]


def test_a_new_guarded_memory_in_the_change_is_not_a_failure(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    guarded(run, "-f", "ip/route.c")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    git(c_repo, "add", "-A")
    done = run("check", "--json")
    assert done.code == 0, done.stdout


@pytest.mark.parametrize("anchor", ["ip/route.c::route_dell", "ip/route.c::Table.route_del"])
def test_a_guarded_anchor_not_found_at_the_base_fails_on_its_file(
    c_repo: Path, run: Callable[..., CliResult], anchor: str
) -> None:
    guarded(run, "--anchor", anchor)
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert failure["path"] == "ip/route.c" and failure["line"] == 10


def test_a_guarded_anchor_in_a_binary_file_fails_on_its_file(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    (c_repo / "ip/blob.c").write_bytes(b"int route_del(int arg)\n{\0\n}\n")
    guarded(run, "--anchor", "ip/blob.c::route_del")
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/blob.c").write_bytes(b"int route_del(int arg)\n{\0\0\n}\n")
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    assert len(guard_failures(done)) == 1


def test_check_before_the_first_commit_compares_with_the_empty_tree(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "main.c").write_text(SOURCE)
    git(repo, "add", "-A")
    done = cli("check", "--json", cwd=repo)
    assert done.code == 0, done.stderr
    assert done.json()["files_changed"] == 1
    assert done.json()["base"] == "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree


@pytest.mark.parametrize(
    "config",
    [("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"), ("diff.external", "false")],
)
def test_user_diff_settings_do_not_move_the_changed_line(
    c_repo: Path, run: Callable[..., CliResult], config: tuple[str, str]
) -> None:
    (c_repo / "README").write_text("one\ntwo\nthree\n")
    remember(run, "the readme is generated", "-f", "README")
    commit_all(c_repo, "memory")
    git(c_repo, "config", *config)
    (c_repo / "README").write_text("one\ntwo\nTHREE\n")
    done = run("check", "--json")
    assert done.code == 0, done.stderr
    [finding] = done.json()["review"]
    assert (finding["path"], finding["line"]) == ("README", 3)


def test_a_guarded_anchor_with_an_ambiguous_name_fails_on_its_file(
    c_repo: Path, run: Callable[..., CliResult]
) -> None:
    twice = SOURCE + "\n#ifdef OLD\nint route_del(int arg)\n{\n    return arg;\n}\n#endif\n"
    (c_repo / "ip/route.c").write_text(twice)
    guarded(run, "--anchor", "ip/route.c::route_del")
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(twice.replace("return -arg;", "return 0;"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = guard_failures(done)
    assert "route_del is defined 2 times there at the base" in failure["reason"]


def test_check_outside_a_git_work_tree_says_so_in_one_line(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    advice = "is not inside a git repository; run it in a clone, or `git init` there first"
    before = cli("check", cwd=plain)  # `tether init` would not help: the check needs git
    assert before.code == 2 and advice in before.stderr and "tether init" not in before.stderr
    assert cli("init", cwd=plain).code == 0  # memories work without git; the check does not
    done = cli("check", cwd=plain)
    assert done.code == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert f"{plain} {advice}" in done.stderr
    as_json = cli("--json", "check", cwd=plain)
    assert as_json.code == 2
    assert as_json.stdout == ""
    error = json.loads(as_json.stderr)
    assert error["exit_code"] == 2
    assert advice in error["error"]
    git(plain, "init", "-q")
    assert cli("check", cwd=plain).code == 0  # what the advice said is enough


def test_check_in_a_bare_repository_with_a_store_says_so(
    c_repo: Path, tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    git(tmp_path, "clone", "-q", "--bare", str(c_repo), "bare.git")
    bare = tmp_path / "bare.git"
    (bare / ".tether" / "memories").mkdir(parents=True)  # as an earlier init left it
    done = cli("check", cwd=bare)
    assert done.code == 2
    assert done.stderr.count("\n") == 1
    assert f"{bare / '.tether'} is inside git's own folder {bare}" in done.stderr
    assert "or remove it" in done.stderr


def test_check_outside_any_repository_is_bad_input_and_counts_read_as_words(
    tmp_path: Path, c_repo: Path, run: Callable[..., CliResult]
) -> None:
    """In CI an exit 1 reads as "memories fail": run in the wrong place, it is 2."""
    from conftest import run_tether

    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    done = run_tether("check", cwd=nowhere)
    assert done.code == 2 and "not inside a git repository" in done.stderr
    remember(run, "route_del must not free twice", "--anchor", "ip/route.c::route_del")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    summary = run("check").stdout.splitlines()[-1]
    assert summary.startswith("1 file changed since ") and summary.endswith(
        ": 1 memory to review, 0 failures"
    )


@pytest.mark.parametrize("output", [[], ["--json"], ["--format", "github"]])
def test_a_reader_that_stops_early_does_not_hide_the_failure(
    c_repo: Path, run: Callable[..., CliResult], output: list[str]
) -> None:
    """``tether check | head -1``: the verdict was decided before the first line, so the
    pipe closing early keeps its exit 1 for a script reading ``${PIPESTATUS[0]}``."""
    memory_id = remember(run, "route_del must not free twice", "--anchor", "ip/route.c::route_del")
    path = c_repo / ".tether" / "memories" / f"{memory_id}.md"
    path.write_text(frontmatter.update(path.read_text(), path, {"guard": True}))
    commit_all(c_repo, "guarded memory")
    (c_repo / "ip/route.c").write_text(SOURCE.replace("return -arg;", "return 0;"))
    assert into_closed_pipe(c_repo, "check", *output) == (1, "")
    assert run("confirm", memory_id).code == 0
    assert into_closed_pipe(c_repo, "check", *output) == (0, "")


@pytest.mark.parametrize("order", [("--json", "check"), ("check", "--json")])
def test_json_and_github_annotations_together_are_refused(
    run: Callable[..., CliResult], order: tuple[str, ...]
) -> None:
    done = run(*order, "--format", "github")
    assert (done.code, done.stdout) == (2, "")
    said = json.loads(done.stderr)
    assert said["exit_code"] == 2 and "--format github" in said["error"]
    assert "give one of them" in said["error"]
