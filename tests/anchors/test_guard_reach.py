"""What a guard on a symbol reaches and how it answers when it cannot tell: decorators and the
lines next to the definition, files whose ranges are only guessed, syntax errors near or far,
line ends written either way, a symbol moved into another file while the symbol index lags,
parallel edits told apart by their tool call ids, and a busy index. The real pre-edit hook
command on a real repository."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, git, make_repo

from recall.cli.cmd_agent_config import HOOK_TIMEOUT_SECONDS
from recall.hooks.events import GUARD_BUSY_MS
from recall.locations import Location, project_location

SESSION = "5d2e8f1a-3b4c-4d5e-9f6a-7b8c9d0e1f2a"

DECORATED = "@functools.lru_cache(maxsize=8)\ndef guarded(x):\n    return x + 1\n\ny = 2\n"
STORE = """\
class Store:
    def save(self, row):
        self.rows.append(row)
        return len(self.rows)

    def load(self, key):
        return self.rows[key]
"""
C_FILE = """\
int first(void) {
  return 1;
}

int second(void) {
  return 2;
}

int third(void) {
  return 3;
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "m.py": DECORATED + "\n\ndef far():\n    return 3\n",
            "src/store.py": STORE,
            "lib.rs": "fn other() {}\n\n#[inline]\n#[must_use]\nfn kept() -> i32 {\n    1\n}\n",
            "app.kt": "fun save() {\n}\n\nfun load() {\n}\n",
            "m.c": C_FILE,
        },
    )


def hook_call(
    cli: Callable[..., CliResult],
    repo: Path,
    path: str,
    *,
    event: str = "PreToolUse",
    tool: str = "Edit",
    tool_use: str | None = None,
    **tool_input: Any,
) -> dict[str, Any] | None:
    """The real hook command's answer to one edit tool call (None: it said nothing)."""
    payload: dict[str, Any] = {
        "session_id": SESSION,
        "cwd": str(repo),
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": {"file_path": str(repo / path), **tool_input},
    }
    if tool_use is not None:
        payload["tool_use_id"] = tool_use
    command = "pre-edit" if event == "PreToolUse" else "post-edit"
    done = cli("hook", command, stdin=json.dumps(payload))
    assert (done.code, done.stderr) == (0, "")
    return json.loads(done.stdout)["hookSpecificOutput"] if done.stdout else None


def asks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("permissionDecision") == "ask"


def guard(cli: Callable[..., CliResult], anchor: str) -> str:
    summary = f"keep {anchor} as it is"
    done = cli("remember", summary, "-c", "decision", "--guard", "--json", "--anchor", anchor)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def edit(old: str, new: str = "x") -> dict[str, str]:
    return {"old_string": old, "new_string": new}


def test_decorators_and_the_lines_beside_the_definition_are_guarded(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "m.py::guarded")
    assert asks(hook_call(cli, repo, "m.py", **edit("@functools.lru_cache(maxsize=8)")))
    # an indented line added after the function, past a blank line, joins its body
    assert asks(hook_call(cli, repo, "m.py", **edit("y = 2", "    launch()\ny = 2")))
    assert not asks(hook_call(cli, repo, "m.py", **edit("    return 3")))
    guard(cli, "lib.rs::kept")
    assert asks(hook_call(cli, repo, "lib.rs", **edit("#[must_use]")))
    assert asks(hook_call(cli, repo, "lib.rs", **edit("#[inline]")))


COMMENTED = {
    "c.py": ("@first\n# why the order matters\n@second\ndef kept():\n    return 1\n", "@first"),
    "c.rs": ("#[inline]\n// a note\nfn kept() -> i32 {\n    1\n}\n", "#[inline]"),
    "c.ts": ("class A {\n  @Dec()\n  // why\n  kept() {\n    return 1;\n  }\n}\n", "@Dec()"),
}


@pytest.mark.parametrize("path", sorted(COMMENTED))
def test_a_comment_between_the_decorators_does_not_cut_the_guarded_span(
    tmp_path: Path, cli: Callable[..., CliResult], path: str
) -> None:
    text, first = COMMENTED[path]
    repo = make_repo(tmp_path / "repo", {path: text})
    symbol = "A.kept" if path.endswith(".ts") else "kept"
    guard(cli, f"{path}::{symbol}")
    assert asks(hook_call(cli, repo, path, **edit(first)))


def test_guessed_ranges_ask_as_for_the_whole_file(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "app.kt::save")
    answer = hook_call(cli, repo, "app.kt", **edit("fun load() {"))
    assert asks(answer)
    assert (
        "could not tell where the edit falls: asking as for the whole file"
        in (answer["permissionDecisionReason"])
    )


def test_a_syntax_error_costs_the_placement_only_near_it(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "m.c::first")
    (repo / "m.c").write_text(C_FILE.replace("return 3;", "return 3 +;"))
    assert not asks(hook_call(cli, repo, "m.c", **edit("  return 2;")))
    assert asks(hook_call(cli, repo, "m.c", **edit("  return 1;")))
    (repo / "m.c").write_text(C_FILE.replace("return 2;", "return 2 +;"))
    assert asks(hook_call(cli, repo, "m.c", **edit("  return 3;")))  # beside the edit
    (repo / "m.c").write_text(C_FILE.replace("}\n\nint second", "}\n)\nint second"))
    assert asks(hook_call(cli, repo, "m.c", **edit("  return 3;")))  # beside the guarded code


def test_line_ends_written_either_way_match(repo: Path, cli: Callable[..., CliResult]) -> None:
    guard(cli, "src/store.py::Store.save")
    text = STORE + "\n    def drop(self, key):\n        del self.rows[key]\n"
    (repo / "src/store.py").write_bytes(text.replace("\n", "\r\n").encode())
    outside = edit("    def drop(self, key):\n        del self.rows[key]")
    assert not asks(hook_call(cli, repo, "src/store.py", **outside))
    assert asks(hook_call(cli, repo, "src/store.py", **edit("row)\r\n        return len")))


def test_a_moved_symbol_is_found_while_the_symbol_index_lags(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = guard(cli, "src/store.py::Store.save")
    assert cli("index").code == 0
    git(repo, "mv", "src/store.py", "src/records.py")
    git(repo, "commit", "-qm", "store.py becomes records.py")
    prompt = {"session_id": SESSION, "cwd": str(repo), "prompt": "tidy the records"}
    assert cli("hook", "prompt", stdin=json.dumps(prompt)).code == 0
    answer = hook_call(cli, repo, "src/records.py", **edit("self.rows.append(row)"))
    assert asks(answer)
    assert (
        f"[{memory_id}] covers src/records.py (symbol Store.save, moved here from "
        in (answer["permissionDecisionReason"])
    )
    assert f"`tether unguard {memory_id}`" in answer["permissionDecisionReason"]
    assert not asks(hook_call(cli, repo, "src/records.py", **edit("return self.rows[key]")))


def test_an_edit_that_ran_allows_only_what_its_own_call_asked(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "src/store.py::Store.save")
    path = "src/store.py"
    outside, inside = edit("return self.rows[key]"), edit("self.rows.append(row)")
    assert not asks(hook_call(cli, repo, path, tool_use="toolu_b", **outside))
    assert asks(hook_call(cli, repo, path, tool_use="toolu_a", **inside))  # refused
    hook_call(cli, repo, path, event="PostToolUse", tool_use="toolu_b", **outside)
    assert asks(hook_call(cli, repo, path, tool_use="toolu_c", **inside))
    hook_call(cli, repo, path, event="PostToolUse", tool_use="toolu_c", **inside)
    assert not asks(hook_call(cli, repo, path, tool_use="toolu_d", **inside))


def test_a_busy_index_still_gets_the_question(repo: Path, cli: Callable[..., CliResult]) -> None:
    guard(cli, "src/store.py::Store.save")
    location = project_location(repo)
    age_memories(location)
    assert cli("list").code == 0  # the index settled: opening it writes nothing
    index = location.index_path
    holder = sqlite3.connect(index, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process writing the index all along
        answer = hook_call(cli, repo, "src/store.py", **edit("self.rows.append(row)"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert asks(answer)


def test_the_busy_wait_of_an_edit_hook_stays_well_within_its_timeout() -> None:
    assert GUARD_BUSY_MS * 5 <= HOOK_TIMEOUT_SECONDS * 1000


def test_a_question_pending_over_a_reindex_is_allowed_when_its_edit_runs(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "src/store.py::Store.save")
    inside = edit("self.rows.append(row)")
    assert asks(hook_call(cli, repo, "src/store.py", tool_use="toolu_a", **inside))
    assert cli("reindex").code == 0
    hook_call(cli, repo, "src/store.py", event="PostToolUse", tool_use="toolu_a", **inside)
    assert not asks(hook_call(cli, repo, "src/store.py", tool_use="toolu_b", **inside))


def test_a_store_held_by_another_writer_still_gets_the_question(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    guard(cli, "src/store.py::Store.save")  # just written: the next open re-reads it
    location = project_location(repo)
    lock = os.open(location.lock_path, os.O_RDWR | os.O_CREAT)
    holder = sqlite3.connect(location.index_path, isolation_level=None)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another writer, an import say, holds the store
        holder.execute("BEGIN IMMEDIATE")
        answer = hook_call(cli, repo, "src/store.py", **edit("self.rows.append(row)"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        os.close(lock)
    assert asks(answer)


def age_memories(location: Location) -> None:
    """Date the memory files an hour back: old enough to be trusted by their stat."""
    for memory in location.memories_dir.iterdir():
        os.utime(memory, (memory.stat().st_mtime - 3600,) * 2)


def prompt_while_the_index_is_busy(cli: Callable[..., CliResult], repo: Path) -> CliResult:
    """The prompt hook's run while another process holds the index's write lock throughout."""
    holder = sqlite3.connect(project_location(repo).index_path, isolation_level=None)
    prompt = {"session_id": SESSION, "cwd": str(repo), "prompt": "keep Store.save as it is"}
    try:
        holder.execute("BEGIN IMMEDIATE")
        return cli("hook", "prompt", stdin=json.dumps(prompt))
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_busy_index_still_gets_the_prompt_its_memories(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = guard(cli, "src/store.py::Store.save")
    location = project_location(repo)
    age_memories(location)
    assert cli("index").code == 0  # the index and the code map settled: reading writes nothing
    done = prompt_while_the_index_is_busy(cli, repo)
    assert (done.code, done.stderr) == (0, "")
    assert memory_id in done.stdout


def test_a_busy_store_is_served_as_of_its_last_commit(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    kept = guard(cli, "src/store.py::Store.save")
    location = project_location(repo)
    age_memories(location)
    assert cli("list").code == 0  # the index settled
    lock = os.open(location.lock_path, os.O_RDWR | os.O_CREAT)
    holder = sqlite3.connect(location.index_path, isolation_level=None)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # an import holds the store, writing memory files
        holder.execute("BEGIN IMMEDIATE")
        imported = "0b0b0b0b"
        text = (location.memories_dir / f"{kept}.md").read_text()
        (location.memories_dir / f"{imported}.md").write_text(text.replace(kept, imported))
        answer = hook_call(cli, repo, "src/store.py", **edit("self.rows.append(row)"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        os.close(lock)
    assert asks(answer)
    assert answer is not None
    assert f"[{kept}]" in answer["permissionDecisionReason"]
    assert imported not in answer["permissionDecisionReason"]  # not read until the store is free


def test_a_busy_index_with_a_code_map_behind_still_gets_the_prompt_its_memories(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = guard(cli, "src/store.py::Store.save")
    location = project_location(repo)
    age_memories(location)
    assert cli("index").code == 0
    (repo / "NEWS").write_text("a commit the code map has not seen\n", encoding="utf-8")
    git(repo, "add", "NEWS")
    git(repo, "commit", "-q", "-m", "news")
    done = prompt_while_the_index_is_busy(cli, repo)
    assert done.code == 0
    assert memory_id in done.stdout
