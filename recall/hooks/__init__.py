"""Agent hooks: memory injected into a prompt and gotcha warnings at the moment of an edit.

``tether hook EVENT`` reads the agent's hook JSON on stdin and prints what the agent's hook
protocol expects on stdout. Claude Code's shapes come first; its hooks reference
(https://code.claude.com/docs/en/hooks) documents the input fields used here (``session_id``,
``cwd``, ``hook_event_name``, ``prompt`` for UserPromptSubmit, ``tool_name`` and
``tool_input.file_path`` for PreToolUse / PostToolUse) and, for output, the JSON object
``{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}}`` printed with
exit code 0, which adds TEXT to the model's context for UserPromptSubmit, PreToolUse (without a
``permissionDecision``, so the normal permission flow is unchanged), PostToolUse and
SessionStart.

A hook must never fail the agent: :func:`run` turns every problem (malformed JSON, a missing
field, a cwd outside any repository, an internal error) into "no output"; internal errors are
logged to ``hooks.log`` in the project store's folder (or the global one), never to stdout or
stderr. A missing ``session_id`` alone is no reason to skip: the edit hooks still decide their
guards and show the file's gotchas (noting nothing for a session), and every hook says on
stderr, in one line, what it left undone.

What the hooks share between calls lives in the project index: the turns (``sessions``), the
hint policy's state (:class:`recall.policy.hints.HintLedger`) and the files the session's edit tool
calls touched (``hook_touches``, :mod:`recall.hooks.touches`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recall.hooks import logfile
from recall.hooks.events import HANDLERS, MCP_SELF_SERVE, warning_line
from recall.hooks.input import (
    EDIT_TOOLS,
    EVENTS,
    HOOK_EVENT_NAMES,
    HookInput,
    Skip,
    no_session_line,
    parse_input,
)
from recall.hooks.logfile import LOG_NAME, LOGGER, _log_to, _logger, _say
from recall.hooks.touches import RECENT_FILES, RECENT_TURNS, recent_touches, record_touch

__all__ = [
    "EDIT_TOOLS",
    "EVENTS",
    "HANDLERS",
    "HOOK_EVENT_NAMES",
    "LOGGER",
    "LOG_NAME",
    "MCP_SELF_SERVE",
    "RECENT_FILES",
    "RECENT_TURNS",
    "HookInput",
    "Skip",
    "_log_to",
    "parse_input",
    "recent_touches",
    "record_touch",
    "run",
    "warning_line",
]


def __getattr__(name: str) -> Any:
    """``recall.hooks.log``: the hooks' logger, made when first asked for (PEP 562)."""
    if name == "log":
        return _logger()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _wake(cwd: Path) -> None:
    """Start the warm engine again if it left for want of requests; never fails the hook."""
    try:
        from recall.warm.control import wake_after_idle

        wake_after_idle(str(cwd))
    except Exception:
        _logger().exception("starting the warm engine again from %s failed", cwd)


def run(event: str, raw: str) -> str:
    """Handle one hook call; return its stdout (empty when there is nothing to say).

    Never raises: problems are logged and give an empty answer, so the agent is never failed.
    """
    cwd: Path | None = None
    try:
        if event not in HANDLERS:
            return ""
        hook = parse_input(raw, event)
        cwd = hook.cwd
        if not hook.session_id:
            _say(no_session_line(event))
        logfile._notice_cwd[0] = cwd
        answer = str(HANDLERS[event](hook))
        if event != "session-start":  # which starts the engine itself
            _wake(cwd)
        return answer
    except Skip:
        return ""
    except Exception:  # a hook must never fail the agent
        try:
            _log_to(cwd)
            _logger().exception("tether hook %s failed", event)
        except Exception:  # not even logging may fail the agent
            pass
        return ""
