"""Every ``tether`` command through the real entry point (``python -m recall``) in a temp repo.

Exit codes: 0 ok, 1 not found / nothing to do, 2 bad input. Errors go to stderr and leave
stdout empty; ``--json`` is accepted before and after the subcommand.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import AUTHOR, CliResult, OpenStore, make_repo, remember, run_tether

from recall import frontmatter
from recall.index.sync import RACY_WINDOW_NS
from recall.locations import project_location
from recall.model import STATUSES
from recall.store import MemoryStore
from tests.closed_pipe import into_closed_pipe

Cli = Callable[..., CliResult]


def memories_dir(repo: Path) -> Path:
    """The project memory folder of a repository."""
    return repo / ".tether" / "memories"


def memory_text(repo: Path, memory_id: str) -> str:
    """The text of a project memory file."""
    return (memories_dir(repo) / f"{memory_id}.md").read_text(encoding="utf-8")


def fields(repo: Path, memory_id: str) -> dict[str, object]:
    """The front matter of a project memory file."""
    return frontmatter.parse(memory_text(repo, memory_id), memory_id).fields


def ok(result: CliResult) -> CliResult:
    """Assert a run succeeded (showing its stderr if not)."""
    assert result.code == 0, result
    return result


def add(cli: Cli, summary: str, *args: str, **kwargs: object) -> str:
    """`tether remember --json` and return the new id."""
    if not any(a in args for a in ("-c", "--category")):
        args = (*args, "-c", "gotcha")
    out = ok(cli("remember", summary, *args, "--json", **kwargs)).json()
    assert "duplicate_of" not in out, out
    return str(out["id"])


class Seed:
    """Writes setup memories in-process (fast); the command under test still runs as the CLI."""

    def __init__(self, open_store: Callable[..., OpenStore]) -> None:
        self.open_store = open_store
        self.stores: dict[str, MemoryStore] = {}

    def store(self, scope: str = "project") -> MemoryStore:
        """The (cached) store of a scope."""
        if scope not in self.stores:
            self.stores[scope] = self.open_store(scope=scope).store
        return self.stores[scope]

    def __call__(
        self,
        summary: str,
        *,
        scope: str = "project",
        status: str | None = None,
        files: tuple[str, ...] = ("src/app.py",),
        **kwargs: Any,
    ) -> str:
        store = self.store(scope)
        kwargs.setdefault("author", AUTHOR)
        memory_id = remember(store, summary, files=list(files), **kwargs)
        if status:
            store.set_status(memory_id, status, allowed_from=STATUSES)
        return memory_id

    def close(self) -> None:
        """Close the in-process stores (before a test breaks the index under them)."""
        for store in self.stores.values():
            store.close()


@pytest.fixture
def seed(open_store: Callable[..., OpenStore]) -> Seed:
    """Write setup memories in-process."""
    return Seed(open_store)


def run_all(cli: Cli, runs: list[tuple[str, ...]]) -> list[CliResult]:
    """Run independent CLI commands side by side (each is a separate process); results in order."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda args: cli(*args), runs))


def assert_error(result: CliResult, code: int, *fragments: str) -> None:
    """An error: the exit code, nothing on stdout, each fragment on stderr, no traceback."""
    assert result.code == code, result
    assert result.stdout == "", result
    assert "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


# -- init ------------------------------------------------------------------------------------------


def test_init(cli: Cli, repo: Path) -> None:
    first = ok(cli("init"))
    assert "Created" in first.stdout
    assert memories_dir(repo).is_dir()
    ignore = (repo / ".tether" / ".gitignore").read_text()
    assert "index.db" in ignore
    again = ok(cli("init", "--json")).json()
    assert again == {"created": False, "path": str(repo / ".tether")}


def test_init_outside_git_creates_the_store_in_place(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    ok(run_tether("init", cwd=plain))
    assert (plain / ".tether" / "memories").is_dir()
    refused = run_tether("remember", "Typo", "-c", "context", "-f", "b.txt", cwd=plain)
    assert refused.code == 2 and f"'b.txt' is not in {plain.resolve()}" in refused.stderr
    (plain / "a.txt").write_text("a\n", encoding="utf-8")
    memory_id = ok(
        run_tether("remember", "No git here", "-c", "context", "-f", "a.txt", "--json", cwd=plain)
    ).json()["id"]
    assert (plain / ".tether" / "memories" / f"{memory_id}.md").exists()


def test_no_command_prints_help_and_exits_2(cli: Cli) -> None:
    result = cli()
    assert result.code == 2
    assert result.stdout == ""
    assert "usage" in result.stderr.lower()


def test_no_command_with_json_is_refused_as_json(cli: Cli) -> None:
    result = cli("--json")
    assert (result.code, result.stdout) == (2, "")
    said = json.loads(result.stderr)
    assert said["exit_code"] == 2 and "no command given" in said["error"]
    assert "usage" not in result.stderr.lower()


@pytest.mark.parametrize("command", ["browse", "lsp", "mcp"])
def test_json_is_left_out_of_the_help_of_a_command_that_refuses_it(cli: Cli, command: str) -> None:
    helped = ok(cli(command, "--help"))
    assert "--json" not in helped.stdout
    refused = cli(command, "--json")
    assert refused.code == 2 and "--json" in refused.stderr, refused  # with the reason
    assert "--json" in ok(cli("list", "--help")).stdout  # every other command takes it


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (("--json", "recall", "--limit", "x"), "argument --limit: invalid int value: 'x'"),
        (("recall", "--limit", "x", "--json"), "argument --limit: invalid int value: 'x'"),
        (("--json", "remember"), "the following arguments are required: summary"),
        (("--json", "frobnicate"), "unknown command 'frobnicate'"),
    ],
)
def test_a_usage_error_asked_for_as_json_is_json(
    cli: Cli, words: tuple[str, ...], said: str
) -> None:
    """A script that gives ``--json`` reads every error as JSON on stderr, usage errors too."""
    result = cli(*words)
    assert result.code == 2 and result.stdout == ""
    error = json.loads(result.stderr)
    assert error["exit_code"] == 2 and error["error"].startswith(said)
    assert "--help" in error["error"]
    plain = cli(*(w for w in words if w != "--json"))
    assert plain.code == 2 and "usage:" in plain.stderr  # for a person, the usage as before


# -- remember --------------------------------------------------------------------------------------


def test_remember_writes_the_file_and_reports_the_id(cli: Cli, repo: Path) -> None:
    result = ok(
        cli(
            "remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py", "-f", "./src//util.py"
        )
    )
    [path] = memories_dir(repo).iterdir()
    memory_id = path.stem
    assert memory_id in result.stdout and "Remembered" in result.stdout
    assert result.stderr.startswith("tether: created ")  # the first memory sets the store up
    data = fields(repo, memory_id)
    assert data["id"] == memory_id
    assert data["category"] == "gotcha"
    assert data["files"] == ["src/app.py", "src/util.py"]
    assert data["author"] == AUTHOR
    assert data["source"] == "user"
    assert data["pinned"] is False
    assert memory_text(repo, memory_id).endswith("---\nClose the pool\n")


def test_remember_json_details_from_stdin_pin_anchor_author(cli: Cli, repo: Path) -> None:
    out = ok(
        cli(
            "remember",
            "Retry budget",
            "--details",
            "-",
            "--category",
            "decision",
            "--file",
            "src/app.py",
            "--pin",
            "--anchor",
            "make_pool",
            "--author",
            "Ada",
            "--source",
            "agent",
            "--json",
            stdin="Three retries.\n\nThen give up.\n",
        )
    ).json()
    assert set(out) >= {"id", "path", "scope"}
    assert out["scope"] == "project"
    assert Path(out["path"]) == memories_dir(repo) / f"{out['id']}.md"
    data = fields(repo, out["id"])
    assert data["pinned"] is True
    assert data["anchor"] == "make_pool"
    assert data["author"] == "Ada"
    assert data["source"] == "agent"
    shown = ok(cli("show", out["id"], "--json")).json()
    assert shown["details"].rstrip("\n") == "Three retries.\n\nThen give up."
    assert shown["summary"] == "Retry budget"


def test_remember_dedupe_reports_duplicate_of(cli: Cli, repo: Path) -> None:
    first = add(cli, "Use the pool", "-f", "src/app.py", "--details", "Always.")
    again = ok(
        cli(
            "remember",
            "  use THE   pool",
            "-c",
            "gotcha",
            "-f",
            "docs/guide.md",
            "--details",
            "always.",
            "--json",
        )
    ).json()
    assert again["id"] == first
    assert again["duplicate_of"] == first
    assert len(list(memories_dir(repo).iterdir())) == 1
    assert again["files_not_on_it"] == ["docs/guide.md"]
    human = ok(cli("remember", "Use the pool", "-c", "gotcha", "--details", "Always."))
    assert first in human.stdout and "Already known" in human.stdout
    assert "does not name" not in human.stdout
    wider = ok(
        cli(
            "remember",
            "Use the pool",
            "-c",
            "gotcha",
            "-f",
            "docs/guide.md",
            "--details",
            "Always.",
        )
    )
    assert "does not name docs/guide.md" in wider.stdout
    assert f"{first}.md" in wider.stdout and "nothing written" in wider.stdout


def test_import_names_the_files_a_duplicate_line_could_not_add(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    first = add(cli, "Use the pool", "-f", "src/app.py")
    path = tmp_path / "in.jsonl"
    lines = [
        {"summary": "Use the pool", "category": "gotcha", "files": ["src/app.py"]},
        {"summary": "Use the pool", "category": "gotcha", "files": ["docs/guide.md"]},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")

    out = ok(cli("import", str(path), "--json")).json_lines()
    human = ok(cli("import", str(path)))

    assert [r.get("files_not_on_it") for r in out] == [None, ["docs/guide.md"]]
    assert "Imported 0 memories, 2 already known, 0 rejected" in human.stdout
    assert f"{path}:2: same knowledge as {first}, which does not name docs/guide.md" in (
        human.stderr
    )
    assert ":1:" not in human.stderr


def test_an_import_run_again_counts_one_memory_already_there_in_the_singular(
    cli: Cli, tmp_path: Path
) -> None:
    add(cli, "Use the pool", "-f", "src/app.py")
    path = tmp_path / "out.jsonl"
    path.write_text(ok(cli("export")).stdout, encoding="utf-8")
    again = ok(cli("import", str(path)))
    assert "Imported 0 memories, 1 already known, 0 rejected" in again.stdout
    assert "1 of them was in the store before this run" in again.stdout


def test_remember_bad_input_is_exit_2_and_writes_nothing(cli: Cli, repo: Path) -> None:
    runs = {
        ("remember", "S", "-c", "wisdom", "-f", "src/app.py"): ["category"],
        ("remember", "S", "-f", "src/app.py"): ["category"],
        ("remember", "two\nlines", "-c", "gotcha"): ["one line"],
        ("remember", "   ", "-c", "gotcha"): ["empty"],
        ("remember", "S", "-c", "gotcha", "-f", "../elsewhere.py"): ["outside the repository"],
        ("remember", "S", "-c", "gotcha", "-f", "/etc/passwd"): ["/etc/passwd", "outside the"],
        ("remember", "S", "-c", "gotcha", "-f", "file:///etc/hosts"): ["file:///etc/hosts"],
        ("remember", "S", "-c", "gotcha", "-f", "src/a.py", "-f", "../x"): ["'../x'", "outside"],
        # A byte that is not UTF-8 in argv arrives as a lone surrogate; it cannot go in a file.
        ("remember", "S", "-c", "gotcha", "--author", "bad\udcff"): ["UTF-8"],
        ("remember", "S", "-c", "gotcha", "--anchor", "bad\udcff"): ["UTF-8"],
        ("remember", "S\udcff", "-c", "gotcha"): ["UTF-8"],
        ("remember", "S", "-c", "gotcha", "-f", "bad\udcff.py"): ["UTF-8"],
    }
    for result, fragments in zip(run_all(cli, list(runs)), runs.values(), strict=True):
        assert_error(result, 2, *fragments)
    assert not memories_dir(repo).exists() or not list(memories_dir(repo).iterdir())


def test_remember_accepts_uris_absolute_and_cwd_relative_paths(cli: Cli, repo: Path) -> None:
    uri_id = add(cli, "via uri", "-f", (repo / "src" / "app.py").as_uri())
    abs_id = add(cli, "via absolute", "-f", str(repo / "docs" / "guide.md"))
    rel_id = add(cli, "via subdir", "-f", "util.py", "-f", "../README.md", cwd=repo / "src")
    assert fields(repo, uri_id)["files"] == ["src/app.py"]
    assert fields(repo, abs_id)["files"] == ["docs/guide.md"]
    assert fields(repo, rel_id)["files"] == ["src/util.py", "README.md"]


def test_remember_global(cli: Cli, repo: Path, tether_home: Path, tmp_path: Path) -> None:
    in_repo = add(cli, "global pref", "--global", "-c", "pref", "-f", "src/app.py")
    assert (tether_home / "memories" / f"{in_repo}.md").exists()
    assert not memories_dir(repo).exists()
    plain = tmp_path / "plain"
    plain.mkdir()
    elsewhere = ok(
        run_tether("remember", "outside repos", "--global", "-c", "pref", "-f", "x.py", cwd=plain)
    )
    assert "Remembered" in elsewhere.stdout
    listed = ok(cli("list", "--scope", "global", "--json")).json()
    assert {m["summary"] for m in listed} == {"global pref", "outside repos"}
    assert {m["scope"] for m in listed} == {"global"}
    [pref] = [m for m in listed if m["summary"] == "global pref"]
    assert pref["files"] == ["src/app.py"]
    shown = ok(cli("show", in_repo, "--json")).json()
    assert shown["scope"] == "global"


# -- show / list / search --------------------------------------------------------------------------


def test_show_card_json_usage_and_prefix(cli: Cli, seed: Seed) -> None:
    memory_id = seed("Card me", details="Body [red]text[/red]")
    card = ok(cli("show", memory_id))
    for part in (memory_id, "Card me", "Body [red]text[/red]", "src/app.py", AUTHOR):
        assert part in card.stdout
    shown = ok(cli("show", memory_id[:5], "--json")).json()
    assert shown["id"] == memory_id
    assert shown["usage"]["acted"] == 2
    assert shown["scope"] == "project"
    assert shown["path"].endswith(f"{memory_id}.md")


def test_show_unknown_is_exit_1(cli: Cli, seed: Seed) -> None:
    seed("something")
    assert_error(cli("show", "0000ffff"), 1, "0000ffff")
    assert_error(cli("show", "0000ffff", "--json"), 1)


def test_list_filters(cli: Cli, repo: Path, seed: Seed) -> None:
    a = seed("app gotcha")
    b = seed("util decision", category="decision", files=("src/util.py",))
    c = seed("docs pref", category="pref", files=("docs/guide.md",))
    d = seed("archived app", status="archived")
    g = seed("global app", scope="global")
    expected: dict[tuple[str, ...], set[str]] = {
        (): {a, b, c, g},
        ("--scope", "project"): {a, b, c},
        ("--file", "src/app.py"): {a, g},
        ("--file", "src"): {a, b, g},
        ("--category", "decision"): {b},
        ("--status", "archived"): {d},
        ("--status", "all", "--scope", "project"): {a, b, c, d},
    }
    runs = [("list", *args, "--json") for args in expected]
    runs += [("list",), ("list", "--category", "context"), ("list", "--status", "gone")]
    runs += [("list", "--file", "../../x")]
    results = run_all(cli, runs)
    for args, result in zip(expected, results, strict=False):
        assert {m["id"] for m in ok(result).json()} == expected[args], args
    table, empty, bad_status, outside = results[len(expected) :]
    for memory_id in (a, b, c, g):
        assert memory_id in ok(table).stdout
    assert d not in table.stdout
    assert empty.code == 1
    assert_error(bad_status, 2)
    assert_error(outside, 2, "outside")
    from_subdir = ok(cli("list", "--file", "app.py", "--json", cwd=repo / "src")).json()
    assert {m["id"] for m in from_subdir} == {a, g}


def test_search(cli: Cli, seed: Seed) -> None:
    pool = seed("Pool the DB connections", details="Never per request.")
    seed("Prefer tabs", category="pref")
    human = ok(cli("search", "connections"))
    assert pool in human.stdout
    hits = ok(cli("search", "POOL", "--json")).json()
    assert [h["id"] for h in hits] == [pool]
    assert hits[0]["matched_by"] == "words"
    assert [h["id"] for h in ok(cli("search", "connect", "--json")).json()] == [pool]
    none = cli("search", "kubernetes")
    assert none.code == 1
    assert "Traceback" not in none.stderr
    assert_error(cli("search", "pool", "--limit", "0"), 2, "--limit")
    assert_error(cli("search", " "), 2, "nothing to search for")  # as `recall ''` is refused


def test_search_hostile_text_is_never_a_crash(cli: Cli, seed: Seed) -> None:
    seed("seed memory about NEAR( and [brackets]")
    hostile = ["foo AND (bar", '"', "-x:y*", "NEAR(", "[/bold]", "[red]x", "🚀", "a\x01b"]
    runs = [("search", "--json", "--", text) for text in hostile]
    runs += [("search", "--", text) for text in ("[/bold]", "[red]x", "NEAR(")]
    results = run_all(cli, runs)
    for result in results:
        assert result.code in (0, 1), result
        assert "Traceback" not in result.stderr, result.stderr
    assert "[brackets]" in results[-1].stdout
    assert "NEAR(" in results[-1].stdout


# -- pin / supersede / lifecycle -------------------------------------------------------------------


def test_pin_and_unpin_change_the_file(cli: Cli, repo: Path, seed: Seed) -> None:
    memory_id = seed("Pin me", details="Body.")
    before = memory_text(repo, memory_id)
    pinned = ok(cli("pin", memory_id, "--json")).json()
    assert pinned["pinned"] is True
    assert memory_text(repo, memory_id) == before.replace("pinned: false", "pinned: true")
    assert_error(cli("pin", memory_id), 1, "already pinned")
    ok(cli("unpin", memory_id))
    assert memory_text(repo, memory_id) == before
    assert_error(cli("unpin", memory_id), 1, "already")
    assert_error(cli("pin", "deadbeef"), 1)


def test_supersede_links_both_files(cli: Cli, repo: Path, seed: Seed) -> None:
    old = seed("Use API v1")
    out = ok(
        cli("supersede", old, "Use API v2", "-c", "gotcha", "-f", "src/app.py", "--json")
    ).json()
    new = out["id"]
    assert out["supersedes"] == old
    assert fields(repo, new)["supersedes"] == old
    old_fields = fields(repo, old)
    assert old_fields["superseded_by"] == new
    assert old_fields["status"] == "superseded"
    active = {m["id"] for m in ok(cli("list", "--json")).json()}
    assert active == {new}
    assert {m["id"] for m in ok(cli("list", "--status", "superseded", "--json")).json()} == {old}
    assert_error(cli("supersede", old, "v3", "-c", "gotcha"), 2, "only active")
    assert_error(cli("supersede", "12341234", "v3", "-c", "gotcha"), 1)


def test_archive_restore_delete_purge(cli: Cli, repo: Path, seed: Seed) -> None:
    memory_id = seed("Lifecycle")
    keep = seed("Keeper")
    ok(cli("archive", memory_id))
    assert fields(repo, memory_id)["status"] == "archived"
    assert {m["id"] for m in ok(cli("list", "--json")).json()} == {keep}
    assert_error(cli("archive", memory_id), 1, "already archived")
    ok(cli("restore", memory_id))
    assert fields(repo, memory_id)["status"] == "active"
    assert_error(cli("restore", memory_id), 1, "already active")
    ok(cli("delete", memory_id))
    assert fields(repo, memory_id)["status"] == "deleted"
    ok(cli("restore", memory_id))
    ok(cli("delete", memory_id))
    refused = cli("purge")  # no terminal to ask in
    assert refused.code == 2 and f"1 deleted memory would be removed for good ({memory_id})" in (
        refused.stderr
    )
    assert (memories_dir(repo) / f"{memory_id}.md").exists()
    purged = ok(cli("purge", "--yes", "--json")).json()
    assert purged == {"purged": [memory_id], "kept_superseded": []}
    assert not (memories_dir(repo) / f"{memory_id}.md").exists()
    assert (memories_dir(repo) / f"{keep}.md").exists()
    assert cli("purge").code == 1
    assert_error(cli("show", memory_id), 1)


# -- import / export -------------------------------------------------------------------------------


def test_import_reports_every_line_in_order(
    cli: Cli, repo: Path, tmp_path: Path, seed: Seed
) -> None:
    taken = seed("Already here")
    lines = [
        {"summary": "First", "category": "gotcha", "files": ["src/app.py"], "id": "0000beef",
         "created": "2020-01-02T03:04:05+00:00", "details": "kept"},
        "this is not json",
        {"summary": "Bad category", "category": "wisdom"},
        {"summary": "first", "category": "gotcha", "details": "KEPT"},
        {"summary": "Reuses a taken id", "category": "pref", "id": taken},
        {"summary": "Outside", "category": "pref", "files": ["../../etc/passwd"]},
        {"summary": "Second", "category": "context", "files": "docs/guide.md", "pinned": True},
        {"summary": "Already here", "category": "gotcha"},
        {"summary": "Bad anchor type", "category": "gotcha", "anchor": 5},
        {"summary": "Bad source", "category": "gotcha", "source": "robot"},
        [1, 2],
        {"summary": "Bad author", "category": "gotcha", "author": "lone \ud800"},
    ]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    result = cli("import", str(path), "--json")
    assert result.code == 2, result
    assert "Traceback" not in result.stderr
    out = result.json_lines()
    assert [r["line"] for r in out] == list(range(1, len(lines) + 1))
    status = [r["status"] for r in out]
    assert status == [
        "created", "error", "error", "duplicate", "created", "error",
        "created", "duplicate", "error", "error", "error", "error",
    ]  # fmt: skip
    assert out[0]["id"] == "0000beef"
    assert out[3]["duplicate_of"] == "0000beef"
    assert out[4]["id"] != taken
    assert out[7]["duplicate_of"] == taken
    assert "outside" in out[5]["error"]
    assert all(r["error"] for r in out if r["status"] == "error")
    first = ok(cli("show", "0000beef", "--json")).json()
    assert first["created"] == "2020-01-02T03:04:05+00:00"
    assert first["details"] == "kept"
    second = fields(repo, out[6]["id"])
    assert second["files"] == ["docs/guide.md"]
    assert second["pinned"] is True
    assert len(list(memories_dir(repo).iterdir())) == 4
    assert ok(cli("doctor")).stdout.strip() == "No problems found."


def test_import_refuses_a_created_time_utc_cannot_hold_on_its_line(
    cli: Cli, tmp_path: Path
) -> None:
    lines = [
        {"summary": "Kept", "category": "gotcha"},
        {"summary": "Past the end", "category": "gotcha", "created": "9999-12-31T23:59:59-23:59"},
        {"summary": "Before the start", "category": "gotcha", "created": "0001-01-01T00:00+01:00"},
        {"summary": "At the end", "category": "gotcha", "created": "9999-12-31T23:59:59+00:00"},
    ]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = cli("import", str(path), "--json")
    assert result.code == 2, result
    assert "Traceback" not in result.stderr
    out = result.json_lines()
    assert [r["status"] for r in out] == ["created", "error", "error", "created"]
    assert all("'created'" in r["error"] and "out of range" in r["error"] for r in out[1:3])


def test_import_human_output_and_stdin(cli: Cli, repo: Path) -> None:
    text = (
        json.dumps({"summary": "From stdin", "category": "pref"})
        + "\n\n"
        + "{broken\n"
        + json.dumps({"summary": "Also", "category": "pref"})
    )
    result = cli("import", "-", stdin=text)
    assert result.code == 2
    assert "-:3:" in result.stderr
    assert "Imported 2" in result.stdout
    assert_error(cli("import", "missing.jsonl"), 2, "missing.jsonl")
    assert_error(cli("import", "src"), 2, "src: cannot be read")


def test_import_accepts_a_byte_order_mark_and_crlf(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "windows.jsonl"
    records = [{"summary": f"Saved by Notepad {i}", "category": "pref"} for i in range(2)]
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(json.dumps(r).encode() for r in records))
    result = ok(cli("import", str(path), "--json"))
    assert [r["status"] for r in result.json_lines()] == ["created", "created"]


def test_import_file_path_is_relative_to_dash_c(cli: Cli, repo: Path, tmp_path: Path) -> None:
    (repo / "in.jsonl").write_text(json.dumps({"summary": "via -C", "category": "pref"}) + "\n")
    ok(run_tether("-C", str(repo), "import", "in.jsonl", cwd=tmp_path))
    assert [m["summary"] for m in ok(cli("list", "--json")).json()] == ["via -C"]


def test_an_edit_in_place_after_import_and_index_is_seen_by_the_next_recall(
    cli: Cli, repo: Path
) -> None:
    # An editor that rewrites a file in place changes only that file's modification time,
    # not its folder's: the next recall must still see the edit, whatever it skips to be fast.
    lines = [
        {"summary": f"note {n} on the guide", "category": "context", "files": ["docs/guide.md"]}
        for n in range(20)
    ]
    lines.append({"summary": "the app stays small", "category": "decision", "files": []})
    out = ok(cli("import", "-", "--json", stdin="\n".join(json.dumps(r) for r in lines)))
    edited = out.json_lines()[-1]["id"]
    ok(cli("index", "--json"))
    recall = ("recall", "--file", "src/app.py", "--json", "--no-record")
    assert cli(*recall).json()["results"] == []
    # and once the folder has settled (its listing kept by the index), the same
    past = time.time() - 3600
    for entry in [*memories_dir(repo).iterdir(), memories_dir(repo)]:
        os.utime(entry, (past, past))
    # dating the folder moved its change time, which cannot be set back: wait that out
    settles = (memories_dir(repo).stat().st_ctime_ns + RACY_WINDOW_NS) / 1e9
    time.sleep(max(0.0, settles - time.time()) + 0.05)
    assert cli(*recall).json()["results"] == []
    with contextlib.closing(sqlite3.connect(project_location(repo).index_path)) as conn:
        kept = conn.execute("SELECT count(*) FROM meta WHERE key = 'folder_listing'")
        assert kept.fetchone()[0] == 1  # the edit below must get past a kept listing
    path = memories_dir(repo) / f"{edited}.md"
    folder_before, file_before = memories_dir(repo).stat(), path.stat()
    text = path.read_text(encoding="utf-8")
    with path.open("r+", encoding="utf-8") as handle:  # the same file, rewritten
        handle.write(text.replace("files: []", "files: [src/app.py]").replace("small", "lean"))
        handle.truncate()
    # a clock coarser than the test could leave the mtime as it was: move it on, as time would
    os.utime(path, ns=(file_before.st_atime_ns, file_before.st_mtime_ns + 2_000_000_000))
    assert path.stat().st_ino == file_before.st_ino
    assert memories_dir(repo).stat().st_mtime_ns == folder_before.st_mtime_ns
    [hit] = ok(cli(*recall)).json()["results"]
    assert (hit["id"], hit["summary"]) == (edited, "the app stays lean")


def test_export_import_round_trip(cli: Cli, repo: Path, tmp_path: Path, seed: Seed) -> None:
    seed("Plain", details="Line 1\nLine 2")
    seed("Pinned", category="pref", pinned=True, anchor="main()", author="Ada")
    seed("Archived", category="context", files=("docs/guide.md",), status="archived")
    seed("Deleted", category="decision", status="deleted")
    seed("No author", author="", files=())
    seed("From an agent", source="agent")
    old = seed("Old way", files=("src/util.py",))
    store = seed.store()
    result, _ = store.supersede(
        old, store.prepare_memory(summary="New way", category="gotcha", files=["src/util.py"])
    )
    new_id = result.id

    exported = ok(cli("export"))
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(records) == 8
    assert {r["status"] for r in records} == {"active", "archived", "deleted", "superseded"}

    other = make_repo(tmp_path / "other")
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported.stdout)
    imported = run_tether("import", str(dump), "--json", cwd=other)
    assert imported.code == 0, imported
    assert [r["status"] for r in imported.json_lines()] == ["created"] * 8
    again = run_tether("export", cwd=other)
    assert again.code == 0

    def by_id(text: str) -> dict[str, dict[str, object]]:
        return {r["id"]: r for r in (json.loads(line) for line in text.splitlines())}

    assert by_id(again.stdout) == by_id(exported.stdout)
    assert by_id(again.stdout)[old]["superseded_by"] == new_id


def test_export_empty_store_is_exit_1(cli: Cli) -> None:
    ok(cli("init"))
    result = cli("export")
    assert result.code == 1
    assert result.stdout == ""


# -- maintenance -----------------------------------------------------------------------------------


def test_reindex(cli: Cli, repo: Path, seed: Seed) -> None:
    seed("one")
    seed("two")
    human = ok(cli("reindex"))
    assert "Reindexed 2" in human.stdout
    assert human.stderr == ""
    assert ok(cli("reindex", "--json")).json()["memories"] == 2


def test_doctor_lists_problems_as_path_line(cli: Cli, repo: Path, seed: Seed) -> None:
    seed("fine")
    assert ok(cli("doctor")).stdout.strip() == "No problems found."
    bad = memories_dir(repo) / ("a-rather-long-hand-written-memory-file-name-" * 2 + "bad.md")
    bad.write_text("---\nfiles: []\ncategory: wisdom\n---\nS\n")
    before = bad.read_bytes()
    result = cli("doctor")
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{bad}:3: unknown category 'wisdom'; use one of pref, decision, gotcha, context, rejected"
    ]
    data = cli("doctor", "--json").json()
    assert data == [
        {
            "scope": "project",
            "path": str(bad),
            "line": 3,
            "message": (
                "unknown category 'wisdom'; use one of pref, decision, gotcha, context, rejected"
            ),
        }
    ]
    assert ok(cli("list", "--json")).json()[0]["summary"] == "fine"
    assert bad.read_bytes() == before


# -- cross-cutting ---------------------------------------------------------------------------------


def test_json_flag_before_and_after_the_subcommand(cli: Cli, seed: Seed) -> None:
    memory_id = seed("json anywhere")
    before = ok(cli("--json", "list")).json()
    after = ok(cli("list", "--json")).json()
    assert before == after
    assert [m["id"] for m in before] == [memory_id]
    assert ok(cli("--json", "show", memory_id)).json()["id"] == memory_id


def test_errors_go_to_stderr_only(cli: Cli, seed: Seed) -> None:
    seed("exists")
    plain = cli("show", "ffff0000")
    assert_error(plain, 1, "tether: error:")
    machine = cli("--json", "show", "ffff0000")
    assert_error(machine, 1)
    payload = json.loads(machine.stderr)
    assert payload["exit_code"] == 1
    assert "ffff0000" in payload["error"]


def test_dash_c_runs_in_another_directory(cli: Cli, repo: Path, tmp_path: Path, seed: Seed) -> None:
    memory_id = seed("seen from afar")
    far = run_tether("-C", str(repo), "list", "--json", cwd=tmp_path)
    assert [m["id"] for m in far.json()] == [memory_id]


def test_hand_edit_is_seen_by_the_next_command(cli: Cli, repo: Path) -> None:
    memory_id = add(cli, "Before the edit", "--details", "old body")
    path = memories_dir(repo) / f"{memory_id}.md"
    path.write_text(path.read_text().replace("Before the edit", "After a hand edit, longer"))
    shown = ok(cli("show", memory_id, "--json")).json()
    assert shown["summary"] == "After a hand edit, longer"
    assert [h["id"] for h in ok(cli("search", "hand edit", "--json")).json()] == [memory_id]


@pytest.mark.parametrize("damage", ["delete", "garbage"])
def test_broken_index_is_rebuilt_with_one_notice(
    cli: Cli, repo: Path, damage: str, seed: Seed
) -> None:
    ids = {seed("first"), seed("second")}
    seed.close()
    index = repo / ".tether" / "index.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    if damage == "garbage":
        index.write_bytes(b"\x00garbage" * 512)
    result = ok(cli("list", "--json"))
    assert {m["id"] for m in result.json()} == ids
    notices = result.stderr.splitlines()
    assert len(notices) == 1, result.stderr
    assert notices[0].startswith("tether: ") and str(index) in notices[0]
    calm = ok(cli("list", "--json"))
    assert calm.stderr == ""
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 2


@pytest.mark.parametrize("command", ["show", "stats", "list"])
def test_a_reader_that_stops_reading_early_is_no_failure(
    cli: Cli, repo: Path, command: str
) -> None:
    """``tether show ID | head -1``: the reader took what it wanted and closed the pipe. The
    command ends quietly with 0, as under ``set -o pipefail`` a script must not see exit 1
    ("not found") for a memory that was found."""
    memory_id = cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py", "--json")
    args = [command, memory_id.json()["id"]] if command == "show" else [command]
    assert into_closed_pipe(repo, *args) == (0, "")


def test_the_category_option_names_every_category(cli: Cli) -> None:
    from recall.model import CATEGORIES

    for command in ("remember", "supersede"):
        shown = " ".join(ok(cli(command, "--help")).stdout.split())
        said = shown.split("--category")[-1]
        assert all(f"{name}," in said or f"{name} " in said for name in CATEGORIES), said
        assert "rejected (an approach tried before and rejected)" in said


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (["hook", "prompt"], "hook"),
        (["-C", "hook", "recall"], "recall"),  # a folder named hook
        (["--wait", "3", "--json", "hook"], "hook"),
        (["remember", "hook", "-c", "gotcha"], "remember"),
        (["--json"], None),
    ],
)
def test_the_command_a_line_runs_is_told_past_the_options_and_their_values(
    words: list[str], command: str | None
) -> None:
    from recall.cli.parser import command_word

    assert command_word(words) == command


def test_an_id_prefix_held_in_both_stores_is_ambiguous(cli: Cli, repo: Path) -> None:
    """A prefix is taken only when it names one memory: one in the project store and one in
    the global store are two, and the project's is not picked silently."""
    for scope, memory_id in (("project", "a031d834"), ("global", "a031ffff")):
        source = repo.parent / f"{scope}.jsonl"
        record = {"id": memory_id, "summary": f"a {scope} note", "category": "context"}
        source.write_text(json.dumps(record) + "\n", encoding="utf-8")
        ok(cli("import", str(source), *(["--global"] if scope == "global" else [])))
    both = cli("show", "a031")
    assert both.code == 2
    assert "id prefix 'a031' matches several memories" in both.stderr
    assert "a031d834 (project), a031ffff (global)" in both.stderr
    assert ok(cli("show", "a031d", "--json")).json()["id"] == "a031d834"
    assert ok(cli("show", "a031f", "--json")).json()["id"] == "a031ffff"
    assert ok(cli("pin", "a031ffff", "--json")).json()["pinned"] is True


def test_a_folder_at_the_index_name_is_named_with_what_to_do(cli: Cli, repo: Path) -> None:
    """The index is derived: a folder where it belongs (left by a script, a bad restore) is
    said for what it is, and how to clear it; reads go on from the memory files, a write and
    a reindex are refused with the fix, and no command fails with a traceback."""
    ok(cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py"))
    index = repo / ".tether" / "index.db"
    index.unlink()
    index.mkdir()
    listed = ok(cli("list", "--json"))
    assert [m["summary"] for m in listed.json()] == ["Close the pool"]
    for words in (("remember", "Open it late", "-c", "gotcha", "-f", "src/app.py"), ("reindex",)):
        refused = cli(*words)
        assert refused.code == 3, refused.stderr
        assert f"{index} is not a file" in refused.stderr
        assert f"remove it (`rm -r {index}`)" in refused.stderr
        assert "Traceback" not in refused.stderr
    index.rmdir()
    assert ok(cli("remember", "Open it late", "-c", "gotcha", "-f", "src/app.py"))


def test_a_file_at_the_memory_folders_name_is_said_for_what_it_is(cli: Cli, repo: Path) -> None:
    ok(cli("remember", "Close the pool", "-c", "gotcha", "-f", "src/app.py"))
    folder = repo / ".tether" / "memories"
    kept = repo.parent / "memories-kept"
    folder.rename(kept)
    folder.write_text("hi\n", encoding="utf-8")
    said = f"{folder} is not a folder (a file or a link has its name)"
    listed = cli("list")
    assert listed.code == 1 and said in listed.stderr and "tether init" not in listed.stderr
    written = cli("remember", "Open it late", "-c", "gotcha", "-f", "src/app.py")
    assert written.code == 3 and said in written.stderr and "permissions" not in written.stderr
    doctor = cli("doctor", "--json")
    assert doctor.code == 1 and [e["kind"] for e in doctor.json()] == ["folder"]
    assert folder.read_text(encoding="utf-8") == "hi\n"  # left as it was
    folder.unlink()
    kept.rename(folder)
    assert [m["summary"] for m in ok(cli("list", "--json")).json()] == ["Close the pool"]
