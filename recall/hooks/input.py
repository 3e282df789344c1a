"""What a hook call says and answers: the agent's hook JSON read into a :class:`HookInput`, and
the JSON a hook prints to add text to the model's context."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from recall.display import without_lone_surrogates
from recall.hooks.edit_writes import EditWrites, edit_writes
from recall.policy.sessions import MAX_SESSION_ID

EVENTS: Final = ("prompt", "pre-edit", "post-edit", "session-start")
"""The ``tether hook`` subcommands."""

HOOK_EVENT_NAMES: Final = {
    "prompt": "UserPromptSubmit",
    "pre-edit": "PreToolUse",
    "post-edit": "PostToolUse",
    "session-start": "SessionStart",
}
"""The Claude Code event each subcommand answers (used when the input does not name it)."""

EDIT_TOOLS: Final = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
"""Claude Code's file-editing tools; ``NotebookEdit`` names its file ``notebook_path``."""


NO_SESSION: Final = {
    "prompt": "no memories injected: what a prompt is shown is decided per session",
    "pre-edit": "guards still ask, at every edit, and the file's gotchas are shown; "
    "nothing is noted for the session",
    "post-edit": "the file's gotchas are shown; nothing is noted for the session, so a "
    "guard asks again at the next edit",
    "session-start": "the session-start pass (archiving by disuse, the cleanup hint) did not run",
}
"""What each hook does without a usable ``session_id`` (said on stderr, one line)."""


class Skip(Exception):
    """Nothing to do for this input (not an error worth logging)."""


@dataclass(frozen=True)
class HookInput:
    """The fields of one hook call that Tether uses."""

    session_id: str
    """The agent's session ('' when the input sends none usable: nothing is then noted for a
    session, and the guards are still decided)."""
    cwd: Path
    event: str
    prompt: str | None = None
    tool_name: str | None = None
    file_path: str | None = None
    command: str | None = None
    replaced: tuple[str, ...] | None = None
    """The texts an Edit or MultiEdit replaces (``old_string``), None when the tool does not
    name them (Write replaces the whole file) or one is missing or empty."""
    tool_use_id: str = ""
    """The id of the tool call a PreToolUse and its PostToolUse share ('' when not sent)."""
    writes: EditWrites = field(default_factory=EditWrites)
    """What the edit writes (a Write's text, an Edit's or a MultiEdit's replacements)."""


def parse_input(raw: str, event: str) -> HookInput:
    """Read the hook JSON; raises :class:`Skip` when it is malformed or lacks what is needed."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, ValueError):
        raise Skip("input is not JSON") from None
    if not isinstance(data, dict):
        raise Skip("input is not a JSON object")
    session = _session_id(data.get("session_id"))
    cwd = data.get("cwd")
    if not isinstance(cwd, str) or not cwd or not _is_path(cwd):
        raise Skip("no usable cwd")
    name = data.get("hook_event_name")
    hook_event = name if isinstance(name, str) and name else HOOK_EVENT_NAMES[event]
    prompt = data.get("prompt")
    tool = data.get("tool_name")
    tool_input = data.get("tool_input")
    file_path = command = None
    if isinstance(tool_input, dict):
        for key in ("file_path", "notebook_path"):
            value = tool_input.get(key)
            if isinstance(value, str) and value and _is_path(value):
                file_path = value
                break
        value = tool_input.get("command")
        if isinstance(value, str):
            command = without_lone_surrogates(value)
        replaced = _replaced(tool if isinstance(tool, str) else None, tool_input)
        writes = edit_writes(tool_input)
    else:
        replaced, writes = None, EditWrites()
    return HookInput(
        session_id=session,
        cwd=Path(cwd),
        event=hook_event,
        prompt=without_lone_surrogates(prompt) if isinstance(prompt, str) else None,
        tool_name=tool if isinstance(tool, str) else None,
        file_path=file_path,
        command=command,
        replaced=replaced,
        tool_use_id=_tool_use_id(data.get("tool_use_id")),
        writes=writes,
    )


def _session_id(value: object) -> str:
    """The session id when it is a usable text, else ''."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_SESSION_ID:
        return ""
    return value if "\x00" not in value and _is_utf8(value) else ""


def no_session_line(event: str) -> str:
    """The stderr line of a hook whose input has no usable ``session_id``."""
    return f"tether hook {event}: no usable session_id in the hook input; {NO_SESSION[event]}"


def _tool_use_id(value: object) -> str:
    """The tool call's id when it is a usable text, else ''."""
    if not isinstance(value, str) or len(value) > MAX_SESSION_ID or not _is_utf8(value):
        return ""
    return value if "\x00" not in value else ""


def _replaced(tool: str | None, tool_input: dict) -> tuple[str, ...] | None:
    """The ``old_string`` of an Edit, or of each of a MultiEdit's ``edits``; None for another
    tool or when any of them is not a non-empty text."""
    if tool == "Edit":
        items: object = [tool_input]
    elif tool == "MultiEdit":
        items = tool_input.get("edits")
    else:
        return None
    if not isinstance(items, list) or not items:
        return None
    texts: list[str] = []
    for item in items:
        old = item.get("old_string") if isinstance(item, dict) else None
        if not isinstance(old, str) or not old:
            return None
        texts.append(old)
    return tuple(texts)


def _is_utf8(text: str) -> bool:
    """Whether text can be stored as UTF-8 (JSON may carry lone surrogates, which cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_path(text: str) -> bool:
    """Whether text can name a file here: no NUL, and encodable for the file system."""
    if "\x00" in text:
        return False
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return False
    return True


def ask(event_name: str, reason: str, text: str = "") -> str:
    """The stdout of a PreToolUse hook that leaves the call to the person: Claude Code asks
    them, showing ``reason`` (the agent is never blocked silently); ``text``, when given, goes
    to the model's context as in :func:`output`."""
    specific = {
        "hookEventName": event_name,
        "permissionDecision": "ask",
        "permissionDecisionReason": reason,
    }
    if text:
        specific["additionalContext"] = text
    return json.dumps({"hookSpecificOutput": specific}, ensure_ascii=False) + "\n"


def output(event_name: str, text: str) -> str:
    """The stdout of a hook adding ``text`` to the model's context (Claude Code's JSON shape)."""
    if not text:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False) + "\n"
