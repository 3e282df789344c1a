"""Commands that list memories: list (newest first) and search (best match first); a table on a
terminal, one line per memory when piped."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from recall.cli.context import CommandContext
from recall.cli.render import positive, print_table, scope_option
from recall.display import as_given, plural
from recall.errors import BadInput
from recall.lifecycle.disuse import archived_by_disuse, as_seen, seen_state
from recall.locations import PROJECT
from recall.model import CATEGORIES, STATUSES
from recall.newest_first import newest_first
from recall.search import search

if TYPE_CHECKING:
    from recall.store import MemoryStore


def register(sub: argparse._SubParsersAction) -> None:
    """Add list and search to the CLI."""
    p = sub.add_parser(
        "list",
        help="list memories, newest first (a table on a terminal, one per line when piped)",
    )
    p.add_argument(
        "--file", metavar="PATH", help="only memories naming this file, or a file in this folder"
    )
    p.add_argument("--category", choices=CATEGORIES, help="only memories of this category")
    _status_option(p, "only memories in this state (default active)")
    scope_option(p)
    p.add_argument("--limit", type=positive, metavar="N", help="list at most N memories")
    p.set_defaults(func=run_list)

    p = sub.add_parser(
        "search", help="full-text search over summaries and details, best match first"
    )
    p.add_argument("text", help="the words to look for")
    p.add_argument(
        "--limit", type=positive, default=20, metavar="N", help="at most N matches (default 20)"
    )
    _status_option(p, "only matches in this state (default active)")
    scope_option(p)
    p.set_defaults(func=run_search)


def _status_option(parser: argparse.ArgumentParser, helptext: str) -> None:
    """The ``--status`` option of list and search: one status, or all."""
    parser.add_argument("--status", choices=(*STATUSES, "all"), default="active", help=helptext)


def run_list(args: argparse.Namespace, ctx: CommandContext) -> int:
    """List memories, newest first across the stores listed, then cut to ``--limit``."""
    items = []
    hidden: dict[tuple[str, str], str | None] = {}  # (id, scope) -> when archived by disuse
    stores = ctx.stores(args.scope)
    ctx.say_if_not_set_up(stores)
    history = _history(ctx, stores) if args.file is not None else None
    for store in stores:
        file = store.normalize_input(args.file, ctx.cwd) if args.file is not None else None
        # for this user, a memory archived by disuse lists as archived (recall.lifecycle.disuse);
        # a file's earlier names come from the project's history, for every store's memories
        listed, flagged = as_seen(
            store, file=file, category=args.category, status=args.status, history=history
        )
        hidden.update({(k, store.scope): v for k, v in flagged.items()})
        items.extend((m, store.scope) for m in listed)
    items = newest_first(items, lambda item: item[0])  # one listing over both stores
    total = len(items)
    if not items and args.file is not None:  # nothing names it: say when no file answers to it
        _note_unknown_file(ctx, stores, args.file)
    if args.limit is not None:
        items = items[: args.limit]
    data = [_listed(m, scope, hidden) for m, scope in items]
    status = "" if args.status == "all" else f" ({args.status})"
    title = plural(total, "memory") + status
    if len(items) < total:
        title = f"{len(items)} of {title}; --limit {args.limit}"
    disuse = set(hidden)
    ctx.emit(data, lambda c: print_table(c, items, title=title, archived_by_disuse=disuse))
    return 0 if items else 1


def _history(ctx: CommandContext, stores: list[MemoryStore]) -> MemoryStore | None:
    """The store holding the repository's history: the project store, listed or not (as recall
    takes it), None outside any repository."""
    listed = next((store for store in stores if store.scope == PROJECT), None)
    return listed if listed is not None else ctx.folder.project_if_any()


def _note_unknown_file(ctx: CommandContext, stores: list, raw: str) -> None:
    """A note when ``--file`` names no file of the repository (a typo, most likely), with the
    closest names; a deleted file is still a fine filter, so nothing is refused."""
    from recall.known_paths import missing_notes  # git: only for an empty answer

    for store in stores:
        if store.scope == PROJECT and store.repo_root is not None:
            wanted = store.normalize_input(raw, ctx.cwd)
            for note in missing_notes(store.repo_root, [wanted], cwd=ctx.cwd):
                ctx.notice(note)
            return


def _listed(memory, scope: str, hidden: dict[tuple[str, str], str | None]) -> dict:
    """A listed memory's JSON, saying who archived it when it is archived."""
    mine = {memory.id: hidden[(memory.id, scope)]} if (memory.id, scope) in hidden else {}
    return {**memory.to_dict(), "scope": scope, **seen_state(memory, mine)}


def run_search(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Search summaries and details of the memories in ``--status`` (active by default)."""
    if not args.text.strip():
        raise BadInput("nothing to search for: give a word or phrase (`tether list` shows all)")
    try:
        args.text.encode("utf-8")
    except UnicodeEncodeError:  # bytes of another encoding on the command line
        raise BadInput(
            f"the search text {as_given(args.text)} is not valid UTF-8 (typed in another "
            "encoding?); give it in UTF-8"
        ) from None
    found = []
    hidden: dict[tuple[str, str], str | None] = {}  # found, though archived by disuse: marked
    stores = ctx.stores(args.scope)
    ctx.say_if_not_set_up(stores)
    for store in stores:
        hits = search(store.conn, args.text, limit=args.limit + 1, status=args.status)  # +1: more?
        if any(h.disused for h in hits):
            when = archived_by_disuse(store.conn)
            hidden.update(
                {(h.memory.id, store.scope): when.get(h.memory.id) for h in hits if h.disused}
            )
        found.extend((hit, store.scope) for hit in hits)
    found.sort(key=lambda item: (item[0].matched_by != "words", item[0].score))
    more = len(found) > args.limit
    found = found[: args.limit]
    data = [
        {**_listed(h.memory, s, hidden), "score": round(-h.score, 4), "matched_by": h.matched_by}
        for h, s in found
    ]
    title = f"{plural(len(found), 'match')} for {args.text!r}"
    if args.status not in ("active", "all"):
        title += f" ({args.status})"
    if more:
        title += f" (more beyond --limit {args.limit})"
    rows = [(h.memory, s) for h, s in found]
    ctx.emit(data, lambda c: print_table(c, rows, title=title, archived_by_disuse=set(hidden)))
    return 0 if found else 1
