"""The session-start pass, shared by ``tether session start`` and the ``session-start`` hook.

It registers the session (no turn counted), archives the memories disuse has retired
(:mod:`recall.lifecycle.disuse`) in every store given, and says whether the cleanup hint is due
(:mod:`recall.lifecycle.cleanup`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from recall.clock import now, now_iso
from recall.errors import TetherError
from recall.lifecycle.cleanup import CleanupStatus, GenomeFor, status
from recall.lifecycle.disuse import Archived, archive_ignored
from recall.policy.hints import HintLedger
from recall.policy.sessions import check_session_id
from recall.settings import EngineSettings
from recall.store import MemoryStore
from recall.store_settings import StoreSettings

NO_COMMAND_ORIGINS: Final = frozenset({"hook"})
"""Session starts that never run a configured distill command: an agent kills a session-start
hook after a few seconds (Claude Code: 10, ``recall.cli.cmd_agent_config``), and one LLM call
per commit cannot be promised to fit; killed midway, the hook would also lose the archive and
cleanup lines it owes. They leave the commits unread (the mark does not move), so the next
``tether session start``, language-server start or ``tether distill`` reads them, command
and all; nothing is lost, and the hook says that commits wait."""


@dataclass(frozen=True)
class SessionStart:
    """What the pass did and found."""

    session: str
    new: bool
    cleanup: CleanupStatus
    archived: dict[str, list[Archived]] = field(default_factory=dict)
    """Per scope, the memories archived by this pass."""
    distilled: list[str] = field(default_factory=list)
    """Ids of the pending memories auto-distill proposed from the commits since it last read."""
    distill_waiting: int = 0
    """Commits auto-distill left for a caller that may run the configured command."""
    notices: list[str] = field(default_factory=list)
    """Problems the pass met and went past (a failing distill command, say)."""

    @property
    def archived_count(self) -> int:
        """How many memories this pass archived, in every store."""
        return sum(len(items) for items in self.archived.values())

    def to_dict(self, settings: EngineSettings) -> dict[str, Any]:
        """JSON-ready form, for agents and scripts: a credential in a summary masked, with
        ``secret_masked`` (:mod:`recall.agent_text`)."""
        return {
            "session": self.session,
            "new": self.new,
            "archived": [
                _archived_dict(a, scope) for scope, items in self.archived.items() for a in items
            ],
            "cleanup": self.cleanup.to_dict(settings),
            "distilled": self.distilled,
            "distill_waiting": self.distill_waiting,
            "notices": self.notices,
        }


def _archived_dict(item: Archived, scope: str) -> dict[str, Any]:
    """One memory the pass archived, as :meth:`SessionStart.to_dict` lists it."""
    data: dict[str, Any] = {
        "id": item.memory_id,
        "scope": scope,
        "summary": item.for_agent,
        "surfaced": item.surfaced,
    }
    if item.holds_secret:
        data["secret_masked"] = True
    return data


def masked_notes(result: SessionStart, stores: Sequence[MemoryStore]) -> list[str]:
    """A note for the person naming the file of each memory ``result`` names (archived, or a
    worst offender of the cleanup hint) whose text holds a credential, shown masked."""
    from recall.agent_text import file_of, masked_note

    by_scope = {store.scope: store for store in stores}
    held = [
        (s, a.memory_id) for s, items in result.archived.items() for a in items if a.holds_secret
    ]
    held += [(c.scope, c.memory.id) for c in result.cleanup.worst if c.memory.holds_secret]
    return [
        masked_note(memory_id, file_of(by_scope[scope], memory_id))
        for scope, memory_id in dict.fromkeys(held)
        if scope in by_scope
    ]


def register(home: MemoryStore, session: str, origin: str) -> bool:
    """Record that ``session`` started (turn 0); return False when it was already known."""
    conn = home.conn
    moment = now_iso()
    with conn:
        cursor = conn.execute(
            "INSERT OR IGNORE INTO sessions(id, started, last_seen, turns, origin) "
            "VALUES(?, ?, ?, 0, ?)",
            (check_session_id(session), moment, moment, origin),
        )
    HintLedger(session, origin=origin).state(conn, ())  # the hint policy's row for it
    return cursor.rowcount > 0


def start_session(
    home: MemoryStore,
    stores: Sequence[MemoryStore],
    session: str,
    *,
    origin: str,
    settings: StoreSettings,
    genome_for: GenomeFor,
) -> SessionStart:
    """Run the pass: register the session in ``home``, archive by disuse in each of ``stores``
    that exists, each by its own settings (the user-wide store never by a repository's:
    :mod:`recall.store_settings`), then judge the cleanup hint over them."""
    new = register(home, session, origin)
    moment = now()
    archived = {
        store.scope: found
        for store in stores
        if store.exists and (found := archive_ignored(store.conn, settings.of(store), moment))
    }
    cleanup = status(home, stores, settings.project, genome_for)
    distilled = _distill_unread(home, session, settings.project, origin) if new else _Distilled()
    return SessionStart(
        session,
        new,
        cleanup,
        archived,
        distilled=distilled.ids,
        distill_waiting=distilled.waiting,
        notices=distilled.notices,
    )


@dataclass(frozen=True)
class _Distilled:
    """What auto-distill gave a session start."""

    ids: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    waiting: int = 0


def _distill_unread(
    home: MemoryStore, session: str, settings: EngineSettings, origin: str
) -> _Distilled:
    """Auto-distill the commits no run has read yet, when the settings turn it on.

    Its proposals are held as pending; a failure is reported and never stops the session.
    """
    if not settings.auto_distill or home.scope != "project":
        return _Distilled()
    from recall.distill import auto_distill

    try:
        report = auto_distill(
            home, settings, session=session, run_command=origin not in NO_COMMAND_ORIGINS
        )
    except TetherError as error:
        return _Distilled(notices=[f"auto-distill skipped: {error}"])
    if report is None:
        return _Distilled()
    ids = [o.id for o in report.written if o.id]
    too_large = [
        f"auto-distill did not write {o.summary!r} (from commit {o.commit}): {o.reason}"
        for o in report.too_large
    ]
    return _Distilled(ids, [*report.notices, *too_large], report.waiting)


def archived_line(count: int) -> str:
    """The one line reporting what disuse archived."""
    noun = "memory" if count == 1 else "memories"
    return f"tether: {count} ignored {noun} archived (tether list --status archived)"


def cleanup_line(cleanup: CleanupStatus) -> str:
    """The cleanup hint, with the worst offenders by id."""
    worst = ", ".join(f"{c.memory.id} ({', '.join(c.reasons)})" for c in cleanup.worst)
    return (
        f"tether: memory cleanup due: {cleanup.sessions} sessions since the last pass, "
        f"{cleanup.active} active memories, {cleanup.stale} stale; worst: {worst}. "
        "Run `tether cleanup` to archive, delete, confirm or keep each "
        "(`tether cleanup --json` lists them with ids)."
    )


def hint_lines(result: SessionStart) -> list[str]:
    """What a session start tells the agent or person: nothing when all is well."""
    lines: list[str] = []
    if result.archived_count:
        lines.append(archived_line(result.archived_count))
    if result.cleanup.due:
        lines.append(cleanup_line(result.cleanup))
    if result.distilled:
        count = len(result.distilled)
        noun = "memory" if count == 1 else "memories"
        verb = "awaits" if count == 1 else "await"
        lines.append(
            f"tether: {count} {noun} distilled from your recent commits {verb} review "
            "(tether pending)"
        )
    if result.distill_waiting:
        count = result.distill_waiting
        noun = "commit waits" if count == 1 else "commits wait"
        lines.append(
            f"tether: {count} {noun} for your distill_command, which session hooks do not run "
            "(too slow for them); `tether distill` runs it now"
        )
    return lines
