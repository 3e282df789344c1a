"""What each hook event does: a prompt gets at most three memories the hint policy allows, an
edit gets the gotchas of its file, a session start runs the session-start pass."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from recall.agent_text import file_of, for_agent, masked_note
from recall.file_names import EarlierName
from recall.hooks.edited import real_path
from recall.hooks.guard_moves import anchored_here, moved_in
from recall.hooks.guard_names import (
    catch_up_renames,
    dated_earlier,
    earlier_or_none,
    every_guard,
    with_link,
)
from recall.hooks.guard_own_file import guarded_by_its_file, guarded_superseded_by
from recall.hooks.guard_scope import guards_hit
from recall.hooks.guard_unloaded import unloaded_asks
from recall.hooks.guarded import not_yet_allowed, record_allowed, record_asked
from recall.hooks.input import EDIT_TOOLS, HookInput, Skip, ask, output
from recall.hooks.logfile import _notice
from recall.hooks.on_file import memories_on_file
from recall.hooks.session_notes import (
    hint_ledger,
    logged,
    note_self_serve,
    runs_self_serve,
    turn_read,
)
from recall.hooks.start import on_session_start
from recall.hooks.stores import GUARD_BUSY_MS as GUARD_BUSY_MS  # its place before
from recall.hooks.stores import HookStores
from recall.hooks.touches import _current_turn, recent_touches, record_touch
from recall.hooks.wording import (
    guard_line,
    more_line,
    own_file_line,
    retiring_line,
    unloaded_line,
    warning_line,
)
from recall.lifecycle.disuse import archived_by_disuse
from recall.model import WARNING_CATEGORIES
from recall.paths import link_target
from recall.policy.trust import Gate

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.policy.hints import Candidate, HintLedger
    from recall.store import MemoryStore

MCP_SELF_SERVE: Final = frozenset({"memory_recall", "memory_get", "memory_write", "memory_list"})
"""Tether MCP tools that mean the agent reads or writes memory on its own (hint rule 1): the
twins of the self-serve CLI commands (recall.policy.hints.SELF_SERVE_COMMANDS). Pin, supersede and
archive react to what was shown, as their CLI twins do, so they leave the hints on."""
_MCP_TOOL = re.compile(r"mcp__(?:[A-Za-z0-9_-]*_)?tether__(memory_[a-z_]+)")
"""Claude Code names an MCP tool ``mcp__<server>__<tool>``; a plugin's server name carries a
plugin prefix, so any server name ending in ``tether`` counts."""


def _relative(store: MemoryStore, raw: str, cwd: Path) -> str:
    from recall.errors import TetherError

    try:
        return store.normalize_input(raw, cwd)
    except TetherError:
        raise Skip("file is outside the repository") from None


def on_prompt(hook: HookInput) -> str:
    """UserPromptSubmit: count the turn; inject at most three memories the policy allows
    (nothing without a session to keep the policy's state in)."""
    if not hook.session_id:
        return ""
    from recall.agent_text import mask_hits, masked_notes
    from recall.policy import inject
    from recall.policy.hints import Candidate
    from recall.ranking.query import RecallQuery, Touch
    from recall.service import RECALL_LIMIT, build_recaller, record_shown

    with HookStores(hook.cwd) as stores:
        project = stores.project
        # The turn and the session's files are per-user rows, not memories: the folder's check
        # may run beside the ranking, whose recall asks for its verdict before anything is shown.
        project.defer_first_check()
        conn, ledger = project.conn, hint_ledger(hook, project)
        # The writes are notes: with another writer holding the index past the hook's wait
        # (GUARD_BUSY_MS) the memories are still injected, once waited for, and the notes lost.
        busy = False
        try:  # recall.policy.sessions.count_turn(conn, id, origin="hook")
            turn = ledger.next_turn(conn)
        except Exception:
            logged("the prompt hook's turn count in %s failed", str(hook.cwd))
            busy, turn = True, turn_read(conn, hook.session_id)
        files = recent_touches(conn, hook.session_id, turn)
        prompt = (hook.prompt or "").strip()
        if not prompt and not files:
            return ""
        searched = stores.searched()
        recaller = build_recaller(searched, project, notice=_notice, short_lived=True)
        touches = tuple(Touch(path, "edit") for path in files)
        result = recaller.recall(RecallQuery(touches, prompt or None, limit=RECALL_LIMIT))
        chosen = inject.select(Gate(project, _notice).hits(result.hits))
        if not chosen:
            return ""
        candidates = [Candidate(h.memory.id, pinned=h.memory.pinned) for h in chosen]
        choice = ledger.preview(conn, candidates) if busy else None
        try:
            choice = choice or ledger.select(conn, candidates)
        except Exception:
            logged("the prompt hook's hint notes in %s failed", str(hook.cwd))
            busy, choice = True, ledger.preview(conn, candidates)
        shown = [h for h in chosen if h.memory.id in set(choice.shown)]
        for note in masked_notes(mask_hits(shown), searched):  # for the person, in hooks.log
            _notice(note)
        new = set(choice.new)
        try:  # the turn is counted
            if not busy:
                record_shown(searched, [h for h in shown if h.memory.id in new])
        except Exception:
            logged("the prompt hook's surfacing counts in %s failed", str(hook.cwd))
        return output(hook.event, inject.render(shown))


def on_edit(hook: HookInput) -> str:
    """Pre/PostToolUse: record the edited file; ask before an edit under a guard; warn about
    the file's gotchas the policy allows. The ask is decided before any write, and whatever
    goes wrong in deciding it asks about every guard of the file: never a silent skip.

    The session's store answers; for a file in a nested repository with a store of its own,
    that store answers too, each with its guards and gotchas on the file by its own name
    (:mod:`recall.hooks.edited`)."""
    edited = hook.file_path if hook.tool_name in EDIT_TOOLS else None
    with HookStores(hook.cwd, edited) as stores:
        project = stores.project
        if hook.tool_name == "Bash" and hook.command:
            if hook.session_id and runs_self_serve(hook.command):
                note_self_serve(project, hook)
            return ""
        mcp = _MCP_TOOL.fullmatch(hook.tool_name or "")
        if mcp is not None:
            if hook.session_id and mcp.group(1) in MCP_SELF_SERVE:
                note_self_serve(project, hook)
            return ""
        if hook.tool_name not in EDIT_TOOLS or not hook.file_path:
            return ""
        reasons, lines, warned = _answer(project, hook, hook.file_path, 0)
        real = real_path(hook.file_path, hook.cwd) if stores.nested else None
        for store in stores.nested:  # its own name for the file: the real path's
            try:
                more = _answer(store, hook, real or hook.file_path, warned, nested=True)
            except Skip:  # a path it refuses: the session's store has answered
                continue
            except Exception:  # an unusable store (its index unreadable): the same
                logged("the nested store's answer on %s failed", str(store.location.base))
                continue
            reasons, lines, warned = reasons + more[0], lines + more[1], warned + more[2]
        if reasons:  # the person decides, once per session, memory and file
            return ask(hook.event, "\n".join(reasons), "\n".join(lines))
        return output(hook.event, "\n".join(lines))


def _answer(
    project: MemoryStore, hook: HookInput, raw: str, warned: int, nested: bool = False
) -> tuple[list[str], list[str], int]:
    """One store's answer to an edit of ``raw``: why it asks (one line per guard to ask
    about), the gotcha warnings to show (``warned`` already shown by another store for this
    edit) and how many there are; ``nested`` for a nested repository's store. Raises
    :class:`Skip` for a path the store refuses."""
    conn = project.conn
    typed = _relative(project, raw, hook.cwd)
    path = link_target(project.repo_root, typed)  # an edit of a link writes its target
    link = typed if typed != path else None
    on_file: list[Memory] = []
    ask_now: list[Memory] = []
    unplaced: frozenset[str] = frozenset()
    own: frozenset[str] = frozenset()  # guarded memories whose own file this is
    retired: frozenset[str] = frozenset()  # guarded memories this edit links as superseded
    names: tuple[str, ...] = (path,) if link is None else (path, link)
    earlier: list[EarlierName] | None = None
    catch_up_renames(project, path)  # the full check and its fallback read renames as of HEAD
    staged = hook.event == "PreToolUse"  # and before the edit, a rename only staged too
    try:
        hidden = archived_by_disuse(conn)  # out of recall for this user, so out of hints too
        earlier = dated_earlier(project, path, staged)
        names = with_link((path, *(n.name for n in earlier)), link)
        on_file = _on_file(project, path, names, hidden, earlier)
        if hook.event == "PreToolUse":
            guarded = _guarded(project, path, on_file, hidden)
            hits = guards_hit(project.repo_root, path, guarded, hook.replaced)
            by_file = [m for m in guarded_by_its_file(project, path) if m not in hits.memories]
            own = frozenset(m.id for m in by_file)
            linked = guarded_superseded_by(project, path, hook.writes)
            retired = frozenset(m.id for m in linked) - own - {m.id for m in hits.memories}
            by_file += [m for m in linked if m.id in retired]
            ask_now = [*hits.memories, *by_file]
            if hook.session_id:  # without one, nothing was allowed: every guard hit asks
                ask_now = not_yet_allowed(conn, hook.session_id, path, ask_now)
            unplaced = hits.unplaced
    except Exception:  # a guard is never skipped for an error in finding it
        logged("the guard check of %s failed", path)
        on_file, ask_now = [], []
        if hook.event == "PreToolUse":
            if earlier is None:  # failed before the file's earlier names were known
                earlier = earlier_or_none(project, path, staged)
                names = with_link((path, *(n.name for n in earlier)), link)
            ask_now = every_guard(project, names, earlier)
        unplaced = frozenset(m.id for m in ask_now)
    broken = unloaded_asks(project, hook.session_id, path, names, ask_now) if staged else []
    lines: list[str] = []
    shown = 0
    asking = [*ask_now, *(u.memory for u in broken)]
    try:
        lines, shown = _bookkeeping(project, hook, path, on_file, asking, link, warned, nested)
    except Exception:  # notes of what happened: losing one costs a repeated ask at most
        logged("the edit hook's notes on %s failed", path)
    reasons = [
        own_file_line(m, path)
        if m.id in own
        else retiring_line(m, path)
        if m.id in retired
        else guard_line(m, path, m.id in unplaced, names, link)
        for m in ask_now
    ]
    reasons += [unloaded_line(u.memory, path, u.file, u.problem, u.read) for u in broken]
    return reasons, lines, shown


def _on_file(
    project: MemoryStore,
    path: str,
    names: tuple[str, ...],
    hidden: Mapping[str, Any],
    earlier: Sequence[EarlierName] = (),
) -> list[Memory]:
    """The memories that guard ``path`` or warn about it by its ``names``
    (:func:`recall.hooks.on_file.memories_on_file`), those this hook may show."""
    return Gate(project, _notice).memories(memories_on_file(project, path, names, hidden, earlier))


def _guarded(
    project: MemoryStore, path: str, on_file: list[Memory], hidden: Mapping[str, Any]
) -> list[Memory]:
    """Every guard over ``path``: the file's own, those anchored on a symbol in it, those whose
    symbol moved into it."""
    guarded = [m for m in on_file if m.guard]
    named = {m.id for m in guarded} | hidden.keys()
    extra = [m for m in anchored_here(project, path) if m.id not in named]
    named |= {m.id for m in extra}
    extra += [m for m in moved_in(project, path) if m.id not in named]
    return guarded + (Gate(project, _notice).memories(extra) if extra else [])


def _bookkeeping(
    store: MemoryStore,
    hook: HookInput,
    path: str,
    on_file: list[Memory],
    ask_now: list[Memory],
    link: str | None = None,
    warned: int = 0,
    nested: bool = False,
) -> tuple[list[str], int]:
    """The writes of an edit hook call in ``store`` (the touch, the guard ledger, the hint
    policy, the surfacings); returns the lines to show and how many gotcha warnings they hold,
    at most :data:`recall.ranking.weights.EDIT_WARNINGS_MAX` less the ``warned`` another store
    showed for the same edit. An edit through ``link`` touches the link's target ``path`` and
    the link both, so recall finds the memories naming either. ``nested`` when the store is a
    nested repository's (:func:`recall.hooks.wording.more_line`)."""
    import sqlite3

    from recall.policy.usage import record_surfacings

    conn, root = store.conn, store.repo_root
    gotchas = [m for m in on_file if m.category in WARNING_CATEGORIES]
    if gotchas:
        from recall.ranking.ties import tie_key

        # pinned first, then as recall orders equal file evidence (the newest first)
        gotchas.sort(key=lambda m: (not m.pinned, *tie_key(m.category, m.created), m.id))
    ledger: HintLedger | None = None
    first: list[Candidate] = []
    more = 0
    if gotchas:  # decided reading only: the notes below may meet a held index
        from recall.policy.hints import Candidate
        from recall.ranking.weights import EDIT_WARNINGS_MAX

        candidates = [Candidate(m.id, pinned=m.pinned) for m in gotchas]
        if hook.session_id:
            ledger = hint_ledger(hook, store)
            allowed = set(ledger.preview(conn, candidates).new)
        else:  # no session to keep a shown warning quiet in
            allowed = {c.memory_id for c in candidates}
        room = max(EDIT_WARNINGS_MAX - warned, 0)
        first = [c for c in candidates if c.memory_id in allowed][:room]
        more = len(allowed) - len(first)  # not marked shown: the next edit of the file shows them
    new = {c.memory_id for c in first}  # what is shown when nothing can be noted
    # Without a session nothing is noted: no session to note it for, and counting the surfacings
    # of warnings shown at every edit would make their memories look ignored.
    try:
        if hook.session_id:
            _notes(store, hook, path, link, ask_now)
            # Within one turn the policy keeps a hint visible; an agent would read the same
            # warning on every edit of the file, so a hook shows only the hints new in this call.
            new = set(ledger.select(conn, first).new) if ledger is not None and first else set()
            shown = {m.id for m in gotchas if m.id in new} | {m.id for m in ask_now}
            if shown:
                record_surfacings(conn, sorted(shown))
    except sqlite3.OperationalError as error:
        from recall.index.db import is_busy

        if not is_busy(error):
            raise
        # Another process holds the index past the hook's wait: the warnings decided above
        # are shown all the same, and shown again by a later edit unless the hint ledger's
        # marks were committed before the write that failed.
        logged("the edit hook's notes on %s are not recorded", path)
        new = {c.memory_id for c in first}
    after = hook.event == "PostToolUse"
    warned = [m for m in gotchas if m.id in new]
    lines = [warning_line(for_agent(m).summary, m.id, m.category, after_edit=after) for m in warned]
    # what an edit shows of a memory (a warning, or the reason a guard asks) is masked when
    # its text holds a credential; the person is told which file holds it, in hooks.log
    for memory in {m.id: m for m in [*warned, *ask_now]}.values():
        if memory.holds_secret:
            _notice(masked_note(memory.id, file_of(store, memory.id)))
    warnings = len(lines)
    if more:
        lines.append(more_line(more, path, root, hook.cwd, nested=nested))
    return lines, warnings


def _notes(
    store: MemoryStore, hook: HookInput, path: str, link: str | None, ask_now: list[Memory]
) -> None:
    """The session's notes on an edit of ``path`` (through ``link``): the touch, and the guard
    ledger's ask or allow."""
    conn = store.conn
    turn = _current_turn(conn, hook.session_id)
    if link is not None:
        record_touch(conn, hook.session_id, link, turn)
    record_touch(conn, hook.session_id, path, turn)
    if hook.event == "PostToolUse":  # the edit ran: the person allowed it
        record_allowed(conn, hook.session_id, path, hook.tool_use_id)
    elif hook.event == "PreToolUse":
        record_asked(conn, hook.session_id, path, ask_now, hook.tool_use_id)


HANDLERS: Final[Mapping[str, Any]] = {
    "prompt": on_prompt,
    "pre-edit": on_edit,
    "post-edit": on_edit,
    "session-start": on_session_start,
}
