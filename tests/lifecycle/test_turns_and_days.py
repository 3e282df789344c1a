"""Turns and days through the real entry points: the prompt hook's hint goes quiet and returns
on the exact turns and counts a surfacing only when it hints; recall sessions over weeks
ignore a memory until the session start that archives it, after which nothing shows it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import remember

from recall import hooks
from recall.lifecycle.session_start import archived_line
from recall.policy.hints import QUIET_TURNS
from recall.store import MemoryStore

from .conftest import Clock, at, hook_session_start, tether, usage_row

GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"
QUESTION = "Why does login raise a KeyError for user_id?"


def prompt(repo: Path, session: str, text: str = QUESTION) -> str:
    payload = {
        "session_id": session,
        "cwd": str(repo),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    return hooks.run("prompt", json.dumps(payload))


def edit(repo: Path, session: str, path: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / path)},
    }
    return hooks.run("pre-edit", json.dumps(payload))


def test_prompt_hint_quiet_from_turn_2_back_in_turn_12_and_counted_only_when_shown(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    memory = remember(store, GOTCHA, files=["src/app.py"])
    store.close()
    assert hook_session_start(repo, "monday") == ""
    shown_in: list[int] = []
    for turn in range(1, QUIET_TURNS + 3):
        clock.set(turn / 1440)  # a minute per turn
        if memory in prompt(repo, "monday"):
            shown_in.append(turn)
    assert shown_in == [1, QUIET_TURNS + 2]
    row = usage_row(store, memory)
    assert (row["surfaced"], row["first_surfaced"], row["last_surfaced"]) == (
        2,
        at(1 / 1440),
        at(12 / 1440),
    )

    clock.set(1)  # the next day, a new session: its own turns, its own quiet periods
    assert hook_session_start(repo, "tuesday") == ""
    assert memory in prompt(repo, "tuesday")
    assert memory not in prompt(repo, "tuesday")
    assert usage_row(store, memory)["surfaced"] == 3


def test_weeks_of_ignored_recalls_archive_it_at_the_next_session_start(
    store: MemoryStore, clock: Clock, repo: Path
) -> None:
    memory = remember(store, GOTCHA, files=["src/app.py"])
    store.close()
    for day in (0, 9, 18, 27, 36):
        clock.set(day)
        found = tether(repo, "recall", "--file", "src/app.py", "--session", f"day-{day}")
        assert found.code == 0 and memory in found.stdout
    clock.set(44)
    assert hook_session_start(repo, "day-44") == ""  # five showings: not enough
    clock.set(45)
    assert tether(repo, "recall", "--file", "src/app.py", "--session", "day-45").code == 0
    assert usage_row(store, memory)["surfaced"] == 6
    out = json.loads(hook_session_start(repo, "day-45"))
    assert out["hookSpecificOutput"]["additionalContext"] == archived_line(1)

    clock.set(46)
    assert hook_session_start(repo, "day-46") == ""
    assert edit(repo, "day-46", "src/app.py") == ""
    assert prompt(repo, "day-46") == ""
    nothing = tether(repo, "recall", "--file", "src/app.py", "--session", "day-46")
    assert nothing.code == 1 and memory not in nothing.stdout
    assert usage_row(store, memory)["surfaced"] == 6  # hidden is not shown
    turns = store.conn.execute("SELECT turns FROM sessions WHERE id = 'day-46'").fetchone()[0]
    store.close()
    assert turns == 2  # the prompt and the recall each counted a turn
