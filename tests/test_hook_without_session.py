"""A hook input without a usable ``session_id``: the edit hooks still decide their guards and
show the file's gotchas, noting nothing for a session; every hook says on stderr, in one
line, what it left undone, and exits 0. The real hook command, a real repository."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, make_repo

from recall.policy.sessions import MAX_SESSION_ID
from recall.policy.usage import counters
from recall.store import MemoryStore

SAVE = "def save(k):\n    return k\n\n\ndef load(k):\n    return k + 1\n"
MISSING = object()
"""A ``session_id`` left out of the input altogether."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"s.py": SAVE})


def remember(cli: Callable[..., CliResult], summary: str, *where: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", "--json", *where)
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def edit(
    cli: Callable[..., CliResult],
    repo: Path,
    old: str,
    *,
    event: str = "pre-edit",
    session: Any = MISSING,
) -> tuple[dict[str, Any] | None, str]:
    """The hook's answer to an Edit of s.py replacing ``old`` (None: it said nothing), and its
    stderr."""
    payload: dict[str, Any] = {
        "cwd": str(repo),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "s.py"), "old_string": old, "new_string": "x"},
    }
    if session is not MISSING:
        payload["session_id"] = session
    done = cli("hook", event, stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"] if done.stdout else None
    return answer, done.stderr


def asks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("permissionDecision") == "ask"


def test_an_edit_under_a_guarded_symbol_asks_without_a_session_id(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    memory_id = remember(cli, "save must not return None", "--anchor", "s.py::save", "--guard")
    answer, stderr = edit(cli, repo, "    return k\n")
    assert asks(answer), answer
    assert f"[{memory_id}] covers s.py (symbol save)" in answer["permissionDecisionReason"]
    assert stderr.count("\n") == 1
    assert stderr.startswith("tether hook pre-edit: no usable session_id in the hook input; ")
    assert "guards still ask" in stderr
    # an edit outside the guarded symbol asks nothing, as with a session
    answer, _ = edit(cli, repo, "    return k + 1\n")
    assert not asks(answer)


@pytest.mark.parametrize("session", ["", "   ", 7, None, "a\x00b", "s" * (MAX_SESSION_ID + 1)])
def test_an_unusable_session_id_is_no_session_id(
    repo: Path, cli: Callable[..., CliResult], session: Any
) -> None:
    remember(cli, "save must not return None", "--anchor", "s.py::save", "--guard")
    answer, stderr = edit(cli, repo, "    return k\n", session=session)
    assert asks(answer)
    assert "no usable session_id" in stderr


def test_without_a_session_id_an_edit_that_ran_allows_no_later_one(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    remember(cli, "save must not return None", "--anchor", "s.py::save", "--guard")
    assert asks(edit(cli, repo, "    return k\n")[0])
    _, stderr = edit(cli, repo, "    return k\n", event="post-edit")
    assert "a guard asks again at the next edit" in stderr
    assert asks(edit(cli, repo, "    return k\n")[0])
    # nor does a session's allowance reach an edit without a session id
    assert asks(edit(cli, repo, "    return k\n", session="s1")[0])
    edit(cli, repo, "    return k\n", event="post-edit", session="s1")
    assert not asks(edit(cli, repo, "    return k\n", session="s1")[0])
    assert asks(edit(cli, repo, "    return k\n")[0])


def test_gotchas_are_shown_at_every_edit_and_not_counted_as_surfaced(
    repo: Path, cli: Callable[..., CliResult], store: MemoryStore
) -> None:
    memory_id = remember(cli, "load adds one on purpose", "-f", "s.py")
    for _ in range(2):
        answer, _ = edit(cli, repo, "    return k + 1\n")
        assert answer is not None and not asks(answer)
        assert f"[{memory_id}]" in answer["additionalContext"]
    assert counters(store.conn, memory_id)["surfaced"] == 0


@pytest.mark.parametrize(
    ("event", "undone"),
    [
        ("prompt", "no memories injected"),
        ("session-start", "the session-start pass (archiving by disuse, the cleanup hint) did not"),
    ],
)
def test_a_hook_that_needs_a_session_says_so_on_stderr(
    repo: Path, cli: Callable[..., CliResult], event: str, undone: str
) -> None:
    remember(cli, "load adds one on purpose", "-f", "s.py")
    payload = {"cwd": str(repo), "prompt": "why does load add one?"}
    done = cli("hook", event, stdin=json.dumps(payload))
    assert (done.code, done.stdout) == (0, "")
    said = f"tether hook {event}: no usable session_id in the hook input; {undone}"
    assert done.stderr.startswith(said)
    assert done.stderr.count("\n") == 1
    # with one, the prompt is answered
    if event == "prompt":
        done = cli("hook", event, stdin=json.dumps({**payload, "session_id": "s1"}))
        assert (done.code, done.stderr) == (0, "") and "load adds one on purpose" in done.stdout
