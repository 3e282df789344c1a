"""Guarded memories and tried-and-rejected approaches: written through the CLI, asked about by the
pre-edit hook once per session, memory and file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import CliResult, remember
from test_hooks import edit_input, hook

from recall.store import MemoryStore

DECISION = "retries stay at three: the upstream rate limit counts every attempt"


def guarded(
    cli: Callable[..., CliResult], summary: str = DECISION, path: str = "src/app.py"
) -> str:
    done = cli("remember", summary, "-c", "decision", "-f", path, "--guard", "--json")
    assert done.code == 0, done.stderr
    return done.json()["id"]


def asked(out: str) -> dict[str, Any]:
    """The PreToolUse answer that asks the person; fails on any other answer."""
    specific = json.loads(out)["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "ask"
    return specific


def test_remember_guard_writes_it_to_the_file_and_guard_commands_toggle_it(
    cli: Callable[..., CliResult], store: MemoryStore
) -> None:
    memory_id = guarded(cli)
    assert "guard: true" in store.path_of(memory_id).read_text(encoding="utf-8")
    shown = cli("show", memory_id, "--json").json()
    assert shown["guard"] is True
    assert f"[decision] {memory_id} (guarded)" in cli("show", memory_id).stdout
    (listed,) = cli("list").stdout.splitlines()  # piped: one tab-separated line
    assert listed.split("\t")[-1] == "guarded"
    done = cli("unguard", memory_id, "--json")
    assert done.code == 0 and done.json()["guard"] is False
    assert "guard" not in store.path_of(memory_id).read_text(encoding="utf-8")
    again = cli("unguard", memory_id)
    assert again.code != 0 and f"memory {memory_id} is already not guarded" in again.stderr
    assert cli("guard", memory_id).code == 0
    assert cli("guard", memory_id).code != 0


def test_a_guard_on_a_kind_that_takes_none_is_refused_and_nothing_is_written(
    cli: Callable[..., CliResult], store: MemoryStore
) -> None:
    done = cli("remember", "the build uses meson", "-c", "context", "-f", "src/app.py", "--guard")
    assert done.code == 2
    assert "guard is for a gotcha, decision or rejected memory, not a context" in done.stderr
    assert cli("list", "--json").json() == []
    context = remember(store, "the build uses meson", category="context")
    refused = cli("guard", context)
    assert refused.code == 2 and "not a context" in refused.stderr


def test_pre_edit_asks_once_per_session_after_the_edit_went_ahead(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = guarded(cli)
    question = asked(hook("pre-edit", edit_input(repo, "src/app.py")))
    reason = question["permissionDecisionReason"]
    assert reason.startswith("Tether: src/app.py is guarded.")
    assert f'a guarded decision "{DECISION}" [{memory_id}]' in reason
    # Refused: no PostToolUse follows, so the next try asks again.
    asked(hook("pre-edit", edit_input(repo, "src/app.py")))
    # Allowed: the edit ran and PostToolUse says so; the same session is not asked again.
    hook("post-edit", edit_input(repo, "src/app.py", event="PostToolUse"))
    assert hook("pre-edit", edit_input(repo, "src/app.py")) == ""
    other = "0b9a7f1e-2c3d-4e5f-8a9b-1c2d3e4f5a6b"
    asked(hook("pre-edit", edit_input(repo, "src/app.py", session=other)))
    assert hook("pre-edit", edit_input(repo, "src/util.py")) == ""


def test_a_lifted_or_replaced_guard_no_longer_asks(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    lifted = guarded(cli)
    replaced = guarded(cli, "never cache the token", path="src/util.py")
    assert cli("unguard", lifted).code == 0
    assert hook("pre-edit", edit_input(repo, "src/app.py")) == ""
    done = cli("supersede", replaced, "cache the token for 60 s", "-c", "decision")
    assert done.code == 0, done.stderr
    assert hook("pre-edit", edit_input(repo, "src/util.py")) == ""


def test_a_guarded_gotcha_is_asked_about_and_warned_of_in_one_answer(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = cli("remember", "never log the token", "-c", "gotcha", "-f", "src/app.py", "--guard")
    assert done.code == 0, done.stderr
    question = asked(hook("pre-edit", edit_input(repo, "src/app.py")))
    assert 'a guarded gotcha "never log the token"' in question["permissionDecisionReason"]
    assert '· gotcha "never log the token"' in question["additionalContext"]


def test_a_rejected_approach_is_warned_of_as_tried_before(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    summary = "a process pool for parsing: pickling the AST cost more than it saved"
    done = cli("remember", summary, "-c", "rejected", "-f", "src/app.py", "--json")
    assert done.code == 0, done.stderr
    memory_id = done.json()["id"]
    out = hook("pre-edit", edit_input(repo, "src/app.py"))
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert context == (
        f'· tried before and rejected: "{summary}" [{memory_id}] — review before editing'
    )
