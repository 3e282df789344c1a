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
stderr.

What the hooks share between calls lives in the project index: the turns (``sessions``), the
hint policy's state (:class:`recall.hints.HintLedger`) and the files the session's edit tool
calls touched (``hook_touches``, created here).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from recall.disuse import archived_by_disuse
from recall.hints import Candidate, HintLedger, is_self_serve
from recall.sessions import MAX_SESSION_ID
from recall.trust import Gate

if TYPE_CHECKING:
    import logging
    import sqlite3

    from recall.store import MemoryStore

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

RECENT_FILES: Final = 5
"""How many of the session's recently edited files a prompt's recall is given."""

RECENT_TURNS: Final = 10
"""How far back (in turns) an edited file still counts as recently touched."""

WARNING_SUMMARY_CAP: Final = 160

LOG_NAME: Final = "hooks.log"

DDL: Final = """
CREATE TABLE IF NOT EXISTS hook_touches(
    session TEXT NOT NULL,
    path TEXT NOT NULL,
    turn INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY(session, path)
);
"""

MCP_SELF_SERVE: Final = frozenset({"memory_recall", "memory_get", "memory_write", "memory_list"})
"""Tether MCP tools that mean the agent reads or writes memory on its own (hint rule 1): the
twins of the self-serve CLI commands (recall.hints.SELF_SERVE_COMMANDS). Pin, supersede and
archive react to what was shown, as their CLI twins do, so they leave the hints on."""
_MCP_TOOL = re.compile(r"mcp__(?:[A-Za-z0-9_-]*_)?tether__(memory_[a-z_]+)")
"""Claude Code names an MCP tool ``mcp__<server>__<tool>``; a plugin's server name carries a
plugin prefix, so any server name ending in ``tether`` counts."""
_TETHER_COMMAND = re.compile(r"(?:^|[\s;&|(])tether\s+(?:-\S+\s+(?:\S+\s+)?)*([a-z-]+)")

LOGGER: Final = "recall.hooks"
"""The logger writing the ``hooks.log`` file; this module's ``log`` attribute is that logger,
made on first use (see :func:`__getattr__`)."""


def _logger() -> logging.Logger:
    """The hooks' logger. ``logging`` is imported here, on first use, not above: most hook
    calls log nothing, and each is a whole process on the agent's clock."""
    import logging

    return logging.getLogger(LOGGER)


def __getattr__(name: str) -> Any:
    """``recall.hooks.log``: the hooks' logger, made when first asked for (PEP 562)."""
    if name == "log":
        return _logger()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Skip(Exception):
    """Nothing to do for this input (not an error worth logging)."""


@dataclass(frozen=True)
class HookInput:
    """The fields of one hook call that Tether uses."""

    session_id: str
    cwd: Path
    event: str
    prompt: str | None = None
    tool_name: str | None = None
    file_path: str | None = None
    command: str | None = None


def parse_input(raw: str, event: str) -> HookInput:
    """Read the hook JSON; raises :class:`Skip` when it is malformed or lacks what is needed."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, ValueError):
        raise Skip("input is not JSON") from None
    if not isinstance(data, dict):
        raise Skip("input is not a JSON object")
    session = data.get("session_id")
    cwd = data.get("cwd")
    if not isinstance(session, str) or not session.strip() or len(session) > MAX_SESSION_ID:
        raise Skip("no usable session_id")
    if "\x00" in session or not _is_utf8(session):
        raise Skip("no usable session_id")
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
            command = _valid_text(value)
    return HookInput(
        session_id=session,
        cwd=Path(cwd),
        event=hook_event,
        prompt=_valid_text(prompt) if isinstance(prompt, str) else None,
        tool_name=tool if isinstance(tool, str) else None,
        file_path=file_path,
        command=command,
    )


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


def _valid_text(text: str) -> str:
    """Text with any lone surrogate replaced by U+FFFD, so it can be searched and stored."""
    if _is_utf8(text):
        return text
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def output(event_name: str, text: str) -> str:
    """The stdout of a hook adding ``text`` to the model's context (Claude Code's JSON shape)."""
    if not text:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False) + "\n"


# -- the stores ------------------------------------------------------------------------------


class _Stores:
    """The project store (and the global one for prompts), opened for one hook call."""

    def __init__(self, cwd: Path) -> None:
        from recall.containment import UnsafeStore
        from recall.errors import NotFound
        from recall.locations import project_location
        from recall.store import MemoryStore

        try:
            location = project_location(cwd.resolve())
        except UnsafeStore as error:  # logged to the user's own folder, never the repository's
            _notice(str(error))
            raise Skip("the project store is unsafe") from None
        except (NotFound, OSError):
            raise Skip("cwd is outside any repository") from None
        self.project = MemoryStore(location, notice=_notice)
        self.opened: list[MemoryStore] = [self.project]
        if not self.project.exists:
            raise Skip("no project store here")

    def global_store(self) -> MemoryStore | None:
        from recall.locations import global_location
        from recall.store import MemoryStore

        store = MemoryStore(global_location(self.project.location.base), notice=_notice)
        self.opened.append(store)
        return store if store.exists else None

    def close(self) -> None:
        for store in self.opened:
            store.close()


_notice_cwd: list[Path | None] = [None]
"""The working directory of the hook call being handled: where its notices are logged."""


def _notice(message: str) -> None:
    """A notice for the person (a settings key ignored, a store read-only): the hook's answer
    goes to the agent, so notices go to ``hooks.log`` in the project's store folder."""
    try:
        _log_to(_notice_cwd[0])
    except Exception:  # logging must never fail the agent
        return
    _logger().warning("notice: %s", message)


def _relative(store: MemoryStore, raw: str, cwd: Path) -> str:
    from recall.errors import TetherError

    try:
        return store.normalize_input(raw, cwd)
    except TetherError:
        raise Skip("file is outside the repository") from None


# -- the session's touched files -------------------------------------------------------------


def record_touch(conn: sqlite3.Connection, session: str, path: str, turn: int) -> None:
    """Remember that the session's edit tool touched ``path`` in ``turn``."""
    conn.executescript(DDL)
    with conn:
        seq = conn.execute(
            "SELECT coalesce(max(seq), 0) + 1 FROM hook_touches WHERE session = ?", (session,)
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO hook_touches(session, path, turn, seq) VALUES(?, ?, ?, ?) "
            "ON CONFLICT(session, path) DO UPDATE SET turn = excluded.turn, seq = excluded.seq",
            (session, path, turn, seq),
        )


def recent_touches(conn: sqlite3.Connection, session: str, turn: int) -> list[str]:
    """The files the session edited in the last :data:`RECENT_TURNS` turns, newest first."""
    conn.executescript(DDL)
    rows = conn.execute(
        "SELECT path FROM hook_touches WHERE session = ? AND turn >= ? ORDER BY seq DESC LIMIT ?",
        (session, turn - RECENT_TURNS, RECENT_FILES),
    ).fetchall()
    return [row[0] for row in rows]


def _current_turn(conn: sqlite3.Connection, session: str) -> int:
    row = conn.execute("SELECT turns FROM sessions WHERE id = ?", (session,)).fetchone()
    return int(row[0]) if row else 0


# -- the events ------------------------------------------------------------------------------


def warning_line(summary: str, memory_id: str) -> str:
    """The inline gotcha warning, worded as an instruction."""
    from recall.inject import safe_field  # here, not above: see recall.cli.main.LEAN_COMMANDS

    text = safe_field(summary, WARNING_SUMMARY_CAP).replace('"', "'")
    return f'· gotcha "{text}" [{memory_id}] — review before editing'


def on_prompt(hook: HookInput) -> str:
    """UserPromptSubmit: count the turn; inject at most three memories the policy allows."""
    from recall import inject
    from recall.ranking.query import RecallQuery, Touch
    from recall.service import RECALL_LIMIT, build_recaller, record_shown

    stores = _Stores(hook.cwd)
    try:
        project = stores.project
        conn = project.conn
        ledger = HintLedger(hook.session_id, origin="hook")
        turn = ledger.next_turn(conn)  # recall.sessions.count_turn(conn, id, origin="hook")
        files = recent_touches(conn, hook.session_id, turn)
        prompt = (hook.prompt or "").strip()
        if not prompt and not files:
            return ""
        searched = [project]
        other = stores.global_store()
        if other is not None:
            searched.append(other)
        recaller = build_recaller(searched, project, notice=_notice, short_lived=True)
        touches = tuple(Touch(path, "edit") for path in files)
        result = recaller.recall(RecallQuery(touches, prompt or None, limit=RECALL_LIMIT))
        chosen = inject.select(Gate(project, _notice).hits(result.hits))
        if not chosen:
            return ""
        choice = ledger.select(
            conn, [Candidate(h.memory.id, pinned=h.memory.pinned) for h in chosen]
        )
        shown = [h for h in chosen if h.memory.id in set(choice.shown)]
        new = set(choice.new)
        record_shown(searched, [h for h in shown if h.memory.id in new])  # the turn is counted
        return output(hook.event, inject.render(shown))
    finally:
        stores.close()


def on_edit(hook: HookInput) -> str:
    """Pre/PostToolUse: record the edited file; warn about its gotchas the policy allows."""
    stores = _Stores(hook.cwd)
    try:
        project = stores.project
        conn = project.conn
        ledger = HintLedger(hook.session_id, origin="hook")
        if hook.tool_name == "Bash" and hook.command:
            _note_self_serve(conn, ledger, hook.command)
            return ""
        mcp = _MCP_TOOL.fullmatch(hook.tool_name or "")
        if mcp is not None:
            if mcp.group(1) in MCP_SELF_SERVE:
                ledger.mark_self_serve(conn)
            return ""
        if hook.tool_name not in EDIT_TOOLS or not hook.file_path:
            return ""
        path = _relative(project, hook.file_path, hook.cwd)
        record_touch(conn, hook.session_id, path, _current_turn(conn, hook.session_id))
        hidden = archived_by_disuse(conn)  # out of recall for this user, so out of hints too
        gotchas = [
            m
            for m in project.list(file=path, category="gotcha")
            if path in m.files and m.id not in hidden
        ]
        gotchas = Gate(project, _notice).memories(gotchas)
        if not gotchas:
            return ""
        gotchas.sort(key=lambda m: (not m.pinned, m.id))
        choice = ledger.select(conn, [Candidate(m.id, pinned=m.pinned) for m in gotchas])
        # Within one turn the policy keeps a hint visible; an agent would read the same warning
        # on every edit of the file, so a hook shows only the hints new in this call.
        new = set(choice.new)
        from recall.usage import record_surfacings

        record_surfacings(conn, [m.id for m in gotchas if m.id in new])
        lines = [warning_line(m.summary, m.id) for m in gotchas if m.id in new]
        return output(hook.event, "\n".join(lines))
    finally:
        stores.close()


def _note_self_serve(conn: sqlite3.Connection, ledger: HintLedger, command: str) -> None:
    """A Bash call running ``tether recall|show|search|list|remember`` ends the hints (rule 1)."""
    for match in _TETHER_COMMAND.finditer(command):
        if is_self_serve(match.group(1)):
            ledger.mark_self_serve(conn)
            return


def on_session_start(hook: HookInput) -> str:
    """SessionStart: the session-start pass (register, archive by disuse, judge cleanup); says
    what disuse archived and when a cleanup is due, nothing otherwise."""
    from recall.session_start import hint_lines, start_session
    from recall.settings import engine_settings

    stores = _Stores(hook.cwd)
    try:
        project = stores.project
        searched = [project]
        other = stores.global_store()
        if other is not None:
            searched.append(other)

        def genome_for(store: MemoryStore) -> Any | None:
            # Asked only once the cleanup's cheap thresholds are met, so a usual session start
            # never loads the genome (or the ranking engine it comes with).
            if store is not project:
                return None
            from recall.repo_signals import open_repo_signals

            return open_repo_signals(project, notice=_notice)

        settings = engine_settings(project.repo_root, _notice)
        result = start_session(
            project,
            searched,
            hook.session_id,
            origin="hook",
            settings=settings,
            genome_for=genome_for,
        )
        for line in result.notices:
            _notice(line)
        return output(hook.event, "\n".join(hint_lines(result)))
    finally:
        stores.close()


HANDLERS: Final[Mapping[str, Any]] = {
    "prompt": on_prompt,
    "pre-edit": on_edit,
    "post-edit": on_edit,
    "session-start": on_session_start,
}


# -- the whole call --------------------------------------------------------------------------


def _log_to(cwd: Path | None) -> None:
    """Send this module's log to ``hooks.log`` in the project store's folder (or the global).

    The file is opened for appending without following a link at its name (a cloned
    repository may have committed one), and every record is written on one line with control
    characters escaped, so text read from the repository cannot forge or break log lines.
    """
    log = _logger()
    if log.handlers:
        return
    import logging

    from recall.locations import global_base, project_location

    base: Path | None = None
    if cwd is not None:
        try:
            base = project_location(cwd.resolve()).base
        except Exception:  # no repository, or an unsafe store: the global folder instead
            base = None
    if base is None or not base.is_dir():
        from recall import privacy

        base = global_base()  # the user's private folder: kept owner-only
        base.mkdir(parents=True, exist_ok=True, mode=privacy.DIR_MODE)
        privacy.create_private(base / LOG_NAME)
    from recall.safe_log import one_line_file_handler

    handler = one_line_file_handler(base / LOG_NAME)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


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
        _notice_cwd[0] = cwd
        return str(HANDLERS[event](hook))
    except Skip:
        return ""
    except Exception:  # a hook must never fail the agent
        try:
            _log_to(cwd)
            _logger().exception("tether hook %s failed", event)
        except Exception:  # not even logging may fail the agent
            pass
        return ""
