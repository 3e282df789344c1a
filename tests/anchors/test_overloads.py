"""Anchors to a C++ or Java name defined several times in one scope (overloads, constructors):
one symbol, recorded with a hash, whose every definition is guarded and nothing between them,
through the real CLI, the pre-edit hook and a real repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

A_JAVA = (
    "class A {\n"  # 1
    "    A() {}\n"  # 2
    "    int x;\n"  # 3
    "    A(int x) { this.x = x; }\n"  # 4
    "    void f(int x) {\n        System.out.println(x);\n    }\n"  # 5-7
    "    void g() {\n        System.out.println(0);\n    }\n"  # 8-10
    "    void f(String s) {\n        System.out.println(s);\n    }\n"  # 11-13
    "}\n"
)
F_INT = "    void f(int x) {\n        System.out.println(x);\n    }\n"
F_STRING = "    void f(String s) {\n        System.out.println(s);\n    }\n"
FOO_H = (
    "#pragma once\nclass Foo {\npublic:\n    void bar(int x);\n    void bar(const char* s);\n};\n"
)
FOO_CPP = (
    '#include "foo.h"\n\n'
    "void Foo::bar(int x) {\n    int y = x + 1;\n    (void)y;\n}\n\n"  # 3-6
    "void Foo::bar(const char* s) {\n    (void)s;\n}\n\n"  # 8-10
    "namespace util {\n"
    "int clamp(int v) {\n    return v < 0 ? 0 : v;\n}\n\n"  # 13-15
    "double clamp(double v) {\n    return v < 0 ? 0 : v;\n}\n"  # 17-19
    "}\n"
)
SESSION = "5b2d3f4a-6c7e-4f80-9a1b-2c3d4e5f6a7b"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo", {"src/A.java": A_JAVA, "src/foo.h": FOO_H, "src/foo.cpp": FOO_CPP}
    )


def guard(cli: Callable[..., CliResult], repo: Path, summary: str, *where: str) -> str:
    """A guarded decision on ``where``, written and committed; its id. Its anchors are
    recorded with a hash, and the write says nothing of them."""
    done = cli("remember", summary, "-c", "decision", "--guard", "--json", *where)
    assert done.code == 0, done.stderr
    assert "anchor_notes" not in done.json(), done.json()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", summary)
    return str(done.json()["id"])


def failing(cli: Callable[..., CliResult]) -> dict[str, str]:
    """``tether check``'s failures: memory id → reason."""
    done = cli("check", "--json")
    assert done.code in (0, 1), done.stderr
    return {f["id"]: f["reason"] for f in done.json()["failures"]}


def rewrite(repo: Path, path: str, old: str, new: str) -> None:
    target = repo / path
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new))


def test_a_java_methods_overloads_are_one_anchored_symbol(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("index").code == 0
    f = guard(cli, repo, "f prints its argument", "--anchor", "src/A.java::A.f")
    ctor = guard(cli, repo, "the constructors set x", "--anchor", "src/A.java::A.A")
    shown = cli("show", f, "--json").json()
    assert shown["anchors"][0]["body"] is not None
    [state] = shown["anchor_states"]
    assert (state["state"], state["lines"]) == ("current", [5, 13])

    rewrite(repo, "src/A.java", "println(s);", "println(s + 1);")  # the second overload
    assert set(failing(cli)) == {f}
    assert failing(cli)[f].startswith("the change edits A.f, under a guarded memory")
    git(repo, "checkout", "-q", "--", "src")
    rewrite(repo, "src/A.java", "println(x);", "println(x + 1);")  # the first
    assert set(failing(cli)) == {f}
    git(repo, "checkout", "-q", "--", "src")
    rewrite(repo, "src/A.java", "this.x = x;", "this.x = x + 1;")  # a constructor, not f
    assert set(failing(cli)) == {ctor}
    git(repo, "checkout", "-q", "--", "src")
    rewrite(repo, "src/A.java", "println(0);", "println(1);")  # g, between the two
    assert failing(cli) == {}
    git(repo, "checkout", "-q", "--", "src")
    rewrite(repo, "src/A.java", F_INT, "")  # one overload deleted
    assert set(failing(cli)) == {f}
    git(repo, "checkout", "-q", "--", "src")
    rewrite(repo, "src/A.java", F_INT, "")
    rewrite(repo, "src/A.java", F_STRING, F_STRING + F_INT)  # moved below the other
    done = cli("check", "--json")
    assert done.code == 0 and done.json()["failures"] == [], done.stdout
    assert f not in {r["id"] for r in done.json()["review"]}


def test_cpp_overloads_and_a_namespaces_free_overloads_are_one_anchored_symbol(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """``Foo::bar`` defined twice in the .cpp and ``util::clamp`` twice in a namespace: each
    is one symbol; the header's declarations are no definition of it."""
    bar = guard(cli, repo, "bar takes both forms", "--anchor", "src/foo.cpp::Foo::bar")
    clamp = guard(cli, repo, "clamp floors at zero", "--anchor", "src/foo.cpp::util::clamp")
    rewrite(repo, "src/foo.cpp", "(void)s;", "(void)s; (void)0;")  # the second bar
    assert set(failing(cli)) == {bar}
    assert cli("index").code == 0
    doctor = cli("doctor", "--json")
    assert doctor.code == 1
    assert [(d["id"], d["state"], d["lines"]) for d in doctor.json()] == [(bar, "changed", [3, 10])]
    git(repo, "checkout", "-q", "--", "src")
    rewrite(
        repo,
        "src/foo.cpp",
        "double clamp(double v) {\n    return v < 0",
        "double clamp(double v) {\n    return v <= 0",
    )
    assert set(failing(cli)) == {clamp}


def test_a_bare_name_overloaded_in_its_file_is_recorded_once(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    """``--anchor f`` with the one file that defines ``A.f`` twice is that symbol (it was
    called ambiguous, listing ``A.f, A.f``)."""
    done = cli(
        "remember", "f prints", "-c", "gotcha", "-f", "src/A.java", "--anchor", "f", "--json"
    )
    assert done.code == 0, done.stderr
    assert "anchor_notes" not in done.json(), done.json()
    shown = cli("show", done.json()["id"], "--json").json()
    assert [(a["symbol"], a["body"] is not None) for a in shown["anchors"]] == [
        ("src/A.java::f", True)
    ]


def pre_edit(cli: Callable[..., CliResult], repo: Path, old: str) -> dict[str, Any] | None:
    """The real pre-edit hook's answer to an Edit of ``src/A.java`` replacing ``old``."""
    payload = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo / "src/A.java"),
            "old_string": old,
            "new_string": "x",
        },
    }
    done = cli("hook", "pre-edit", stdin=json.dumps(payload))
    assert (done.code, done.stderr) == (0, "")
    return json.loads(done.stdout)["hookSpecificOutput"] if done.stdout else None


def test_the_edit_hook_asks_about_each_overload_and_not_the_code_between(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, repo, "f prints its argument", "--anchor", "src/A.java::A.f")
    for inside in ("println(x);", "println(s);", "void f(String s) {"):
        answer = pre_edit(cli, repo, inside)
        assert answer is not None and answer["permissionDecision"] == "ask", inside
    assert pre_edit(cli, repo, "        System.out.println(0);\n") is None  # g's body
    assert pre_edit(cli, repo, "    A() {}\n") is None


def test_the_name_at_a_line_between_two_overloads_is_their_classs() -> None:
    from lsp_server.symbol_at import symbol_at

    assert symbol_at("src/A.java", A_JAVA, 8) == "A.g"  # 0-based: line 9, g's body
    assert symbol_at("src/A.java", A_JAVA, 2) == "A"  # the field between the constructors
    assert symbol_at("src/A.java", A_JAVA, 11) == "A.f"
