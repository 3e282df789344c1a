"""The session-start hook: the session-start pass, then the project's warm engine started."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall.hooks.input import HookInput, output
from recall.hooks.logfile import _notice
from recall.hooks.session_notes import logged
from recall.hooks.stores import HookStores

if TYPE_CHECKING:
    from collections.abc import Sequence

    from recall.store import MemoryStore
    from recall.store_settings import StoreSettings


def on_session_start(hook: HookInput) -> str:
    """SessionStart: the session-start pass (register, archive by disuse, judge cleanup); says
    what disuse archived and when a cleanup is due, nothing otherwise. Without a session id
    there is no session to register and the pass is left out; the engine is started all the
    same."""
    from recall.store_settings import store_settings

    with HookStores(hook.cwd) as stores:
        project = stores.project
        settings = store_settings(project.repo_root, _notice)
        said = _session_pass(hook, project, stores.searched(), settings) if hook.session_id else ""
        if settings.project.warm_engine and project.repo_root is not None:
            from recall.warm.control import start_in_background

            start_in_background(str(project.repo_root))  # the later hooks answer warm
        return output(hook.event, said)


def _session_pass(
    hook: HookInput,
    project: MemoryStore,
    searched: Sequence[MemoryStore],
    settings: StoreSettings,
) -> str:
    """Run the session-start pass for the hook's session; the lines it has to say."""
    import sqlite3

    from recall.lifecycle.session_start import hint_lines, start_session

    def genome_for(store: MemoryStore) -> Any | None:
        # Asked only once the cleanup's cheap thresholds are met, so a usual session start
        # never loads the genome (or the ranking engine it comes with).
        if store is not project:
            return None
        from recall.repo_signals import open_repo_signals

        return open_repo_signals(project, notice=_notice, symbols=False)

    try:
        result = start_session(
            project,
            searched,
            hook.session_id,
            origin="hook",
            settings=settings,
            genome_for=genome_for,
        )
    except sqlite3.OperationalError as error:
        from recall.index.db import is_busy

        if not is_busy(error):
            raise
        # Another process holds the index past the hook's wait: the pass is the next
        # session start's to make; the engine is started all the same.
        logged("the session-start pass in %s is left for the next session", str(hook.cwd))
        return ""
    for line in result.notices:
        _notice(line)
    return "\n".join(hint_lines(result))
