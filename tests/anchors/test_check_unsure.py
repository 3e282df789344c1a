"""``tether check`` where an anchored name is no longer one definition or cannot be read: a
method of the same name added to another type, a name that stands for several definitions
at the base, a file with syntax errors. None of them is a deleted symbol."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, git, make_repo

GO = "package g\n\ntype Server struct{}\n\nfunc (s Server) Stop() {\n}\n"
TS = (
    "class Foo {\n  run(): number { return 2; }\n}\nclass Bar {\n  run(): number { return 3; }\n}\n"
)
C = "int add(int a)\n{\n    return a;\n}\n\nint route_del(int a, int b)\n{\n    return a - b;\n}\n"


def _guarded(
    tmp_path: Path, cli: Callable[..., CliResult], files: dict[str, str], anchor: str
) -> tuple[Path, Callable[..., CliResult], str]:
    """A repository holding ``files`` and a guarded memory anchored at ``anchor``, committed."""
    repo = make_repo(tmp_path / "repo", files)

    def run(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    done = run("remember", "keep it safe", "-c", "gotcha", "--guard", "--anchor", anchor, "--json")
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    return repo, run, str(done.json()["id"])


def test_a_same_named_method_added_to_another_type_deletes_nothing(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    repo, run, memory_id = _guarded(tmp_path, cli, {"d.go": GO}, "d.go::Stop")
    (repo / "d.go").write_text(GO + "\ntype Client struct{}\n\nfunc (c Client) Stop() {\n}\n")
    done = run("check", "--json")
    assert done.code == 0, done.stdout
    assert done.json()["failures"] == []
    # its card finds it by the code recorded (the other Stop is new), once the index has both
    assert run("index").code == 0
    assert "symbol d.go::Stop: current at d.go:5-6" in run("show", memory_id).stdout
    # the anchor still follows the method it stood for at the base: an edit of it fails
    (repo / "d.go").write_text(
        GO.replace("Stop() {\n", "Stop() {\n\tdrain()\n")
        + "\ntype Client struct{}\n\nfunc (c Client) Stop() {\n}\n"
    )
    edited = run("check", "--json")
    assert edited.code == 1, edited.stdout
    [failure] = edited.json()["failures"]
    assert failure["id"] == memory_id
    assert "the change edits Stop" in failure["reason"]


def test_a_name_standing_for_several_definitions_at_the_base_is_said_ambiguous(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    repo, run, memory_id = _guarded(tmp_path, cli, {"b.ts": TS}, "b.ts::run")
    (repo / "b.ts").write_text(TS.replace("return 2", "return 5"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert "anchored symbol run is ambiguous there at the base (Foo.run, Bar.run)" in str(
        failure["reason"]
    )
    assert "not found" not in str(failure["reason"])
    confirmed = run("confirm", memory_id)
    assert "run is ambiguous in b.ts (Foo.run, Bar.run)" in confirmed.stderr
    assert "defines no run" not in confirmed.stderr


def test_a_guarded_symbol_in_a_file_that_no_longer_parses_is_not_called_deleted(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    repo, run, _ = _guarded(tmp_path, cli, {"a.c": C}, "a.c::route_del")
    (repo / "a.c").write_text(C.replace("    return a;", "    if (a) {\n    return a;"))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert "route_del cannot be read in a.c: the file has syntax errors" in str(failure["reason"])
    assert "fix the syntax errors, then check again" in str(failure["reason"])
    assert "the change deletes symbol" not in str(failure["reason"])


KOTLIN = (
    "class Widget {\n    fun render(x: Int): Int {\n        return x * 2\n    }\n}\n\n"
    "fun topLevel(): Int {\n    return 1\n}\n"
)


def test_a_qualified_anchor_in_a_file_the_fallback_reader_reads_is_found_as_remember_found_it(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    """The fallback reader knows no classes: ``Widget.render`` is its ``render`` there."""
    repo, run, memory_id = _guarded(tmp_path, cli, {"W.kt": KOTLIN}, "W.kt::Widget.render")
    (repo / "W.kt").write_text(KOTLIN.replace("return 1", "return 2"))
    elsewhere = run("check", "--json")
    assert elsewhere.code == 0, elsewhere.stdout
    assert elsewhere.json()["review"] == []
    (repo / "W.kt").write_text(KOTLIN.replace("x * 2", "x * 3"))
    under = run("check", "--json")
    assert under.code == 1, under.stdout
    [failure] = under.json()["failures"]
    assert failure["id"] == memory_id
    assert "the change edits Widget.render" in str(failure["reason"])


def test_an_anchored_file_unread_at_the_base_is_read_there_once(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    """An anchor whose file the base holds as binary is told so (the whole file standing for
    it), from the one read of that file at the base (``git show``, counted in git's trace)."""
    repo, _, memory_id = _guarded(tmp_path, cli, {"add.c": C}, "add.c::route_del")
    (repo / "add.c").write_bytes(C.encode() + b"\0binary\n")
    git(repo, "commit", "-q", "-am", "add.c becomes binary")
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "add.c").write_text(C.replace("a - b", "b - a"))
    trace = tmp_path / "check.trace"

    done = cli("check", "--base", base, "--json", cwd=repo, env={"GIT_TRACE": str(trace)})

    [failure] = [f for f in done.json()["failures"] if f["id"] == memory_id]
    assert (
        "anchored symbol route_del: add.c is not read for symbols: it is binary"
        in (failure["reason"])
    )
    assert "so the whole file stands for it" in failure["reason"]
    ran = [line for line in trace.read_text().splitlines() if "built-in: git show " in line]
    assert len([line for line in ran if line.endswith(f" {base}:add.c")]) == 1, ran
