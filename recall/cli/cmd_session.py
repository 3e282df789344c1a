"""``tether session start``: the session-start pass, for agents and scripts without hooks."""

from __future__ import annotations

import argparse
import uuid

from recall.cli.cmd_maint import project_genome
from recall.cli.context import CommandContext
from recall.display import plural, visible
from recall.lifecycle.session_start import cleanup_line, masked_notes, start_session
from recall.locations import PROJECT
from recall.policy.sessions import check_session_id
from recall.store import MemoryStore
from recall.store_settings import store_settings


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``session start`` to the CLI."""
    p = sub.add_parser(
        "session",
        help="start a session: archive ignored memories, say when a cleanup is due",
    )
    p.add_argument("action", choices=("start",), help="what to do with the session")
    p.add_argument("--session", help="the session id (a new one is made and printed if absent)")
    p.set_defaults(func=run_session)


def run_session(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Run the session-start pass and report what it did."""
    session = check_session_id(args.session) if args.session is not None else str(uuid.uuid4())
    stores = ctx.stores("all")
    home = stores[0]
    if home.scope == PROJECT and not home.exists:  # sessions are recorded in it, as memories
        home.create_on_disk()
        ctx.say_created(home)
    both = store_settings(home.repo_root, ctx.notice)
    settings = both.project  # the cleanup hint's thresholds

    def genome_for(store: MemoryStore):
        return project_genome(store, ctx)

    result = start_session(
        home, stores, session, origin="cli", settings=both, genome_for=genome_for
    )

    def render(console) -> None:
        verb = "Started" if result.new else "Resumed"
        # the id is one line whatever it holds (an agent's hook may give any text)
        console.print(visible(f"{verb} session {result.session}"), markup=False, highlight=False)
        for scope, items in result.archived.items():
            console.print(
                f"Archived {plural(len(items), 'ignored memory')} ({scope}); "
                "`tether list --status archived` lists them, `tether restore ID` brings one back:"
            )
            for item in items:
                said = f"shown {item.surfaced}x, never acted on: {item.for_agent}"
                line = f"  {item.memory_id}  {said}"
                console.print(line, markup=False, highlight=False, soft_wrap=True)
        cleanup = result.cleanup
        if cleanup.due:
            console.print(cleanup_line(cleanup), markup=False, highlight=False, soft_wrap=True)
        else:
            console.print(
                "Cleanup not due; it needs "
                + _needed(cleanup.sessions, settings.cleanup_min_sessions, "session")
                + " since the last pass, "
                + _needed(cleanup.active, settings.cleanup_min_active, "active memory")
                + f", {_stale(cleanup.stale, settings.cleanup_min_stale)}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )

        if result.distilled:
            console.print(
                f"Auto-distill proposed {plural(len(result.distilled), 'memory')} from the last "
                f"session's commits: {', '.join(result.distilled)} (review with `tether pending`)",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )

    for line in [*result.notices, *masked_notes(result, stores)]:
        ctx.notice(line)
    ctx.emit(result.to_dict(settings), render)
    return 0


def _needed(count: int, needed: int, noun: str) -> str:
    """``20 sessions (2 so far)``, or ``30 active memories (3017: enough)``."""
    have = f"{count}: enough" if count >= needed else f"{count} so far"
    return f"{plural(needed, noun)} ({have})"


def _stale(stale: int | None, needed: int) -> str:
    if stale is None:  # looked for only once the other two thresholds are met
        return f"{plural(needed, 'stale candidate')} (not counted until the others are met)"
    return _needed(stale, needed, "stale candidate")
