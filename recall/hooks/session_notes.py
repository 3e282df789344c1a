"""The hooks' own notes in the project index (the session's turn, the hint ledger, the
agent's own memory command) and what another process holding the index does to them: a hook
waits at most :data:`recall.hooks.stores.GUARD_BUSY_MS` for it, then answers all the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall.hooks.logfile import _log_to, _logger, _notice, _notice_cwd
from recall.hooks.touches import _current_turn

if TYPE_CHECKING:
    import sqlite3

    from recall.hooks.input import HookInput
    from recall.policy.hints import HintLedger
    from recall.store import MemoryStore


def hint_ledger(hook: HookInput, store: MemoryStore) -> HintLedger:
    """The hook session's hint ledger in ``store``. Imported here: an edit of a file without
    gotchas, the usual case, consults no hint policy (its module is five frozen dataclasses,
    about 1% of a pre-edit hook's instructions).

    A note the index could not take is kept in the store's ``cache`` folder; a store not on
    disk has none, and nothing is made in a repository never set up."""
    from recall.policy.hints import HintLedger

    held_in = store.location.base / "cache" if store.exists else None
    return HintLedger(hook.session_id, origin="hook", held_in=held_in)


def turn_read(conn: sqlite3.Connection, session: str) -> int:
    """The session's current turn, read only (0 when no turn was ever counted)."""
    try:
        return _current_turn(conn, session)
    except Exception:  # no sessions table yet
        return 0


def logged(message: str, path: str) -> None:
    """Log the exception being handled to ``hooks.log`` (never to the agent): an index held
    by another process past the hook's wait on one line (it is expected, and says itself
    what happened), any other failure with its traceback."""
    import sqlite3
    import sys

    from recall.index.db import is_busy

    error = sys.exc_info()[1]
    try:
        _log_to(_notice_cwd[0])
        if isinstance(error, sqlite3.Error) and is_busy(error):
            _logger().warning("%s: another process holds the index (%s)", message % path, error)
        else:
            _logger().exception(message, path)
    except Exception:  # logging must never fail the agent
        pass


def runs_self_serve(command: str) -> bool:
    """Whether a Bash call runs ``tether recall|show|search|list|remember``."""
    from recall.hooks.tether_calls import subcommands
    from recall.policy.hints import is_self_serve

    return any(is_self_serve(name) for name in subcommands(command))


def note_self_serve(project: MemoryStore, hook: HookInput) -> None:
    """The session ran a memory command of its own: the hints end (rule 1). With the index
    held past the hook's wait, the note is kept beside it and written by a later hook."""
    import sqlite3

    from recall.index.db import is_busy, is_unwritable_error

    ledger = hint_ledger(hook, project)
    conn = project.conn  # an index held at the opening is served from a copy, not kept
    held = project.read_only
    if held is None:
        try:
            ledger.mark_self_serve(conn)
            return
        except sqlite3.OperationalError as error:
            if not (is_busy(error) or is_unwritable_error(error)):
                raise  # not a held or read-only index: a failure, logged with its traceback
            held = str(error)
    base = project.location.base
    try:
        ledger.keep_self_serve()
    except OSError as error:
        _notice(
            f"the index of {base} could not be written ({held}) and the session's note could "
            f"not be kept in {base / 'cache'} ({error}): hints stay on for this session; make "
            "that folder writable to keep such notes"
        )
        return
    _notice(
        f"the index of {base} could not be written ({held}): the session's own memory command "
        "is kept beside it and written there by a later hook once the index can be written"
    )
