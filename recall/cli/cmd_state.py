"""Commands that change a memory's state: pin, unpin, supersede, archive, restore, delete, and
purge (tombstones removed for good)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from recall.anchors.carry import carry_anchors
from recall.anchors.guards import Replacement, carried_guard, narrowing_note
from recall.anchors.suggest import anchor_fields
from recall.cli.cmd_distill import confirm, purge_auto_distilled, purge_question
from recall.cli.cmd_memory import (
    add_write_options,
    memory_draft,
    refuse_summary_held,
    write_store,
)
from recall.cli.context import CommandContext
from recall.cli.render import ID_HELP, print_table
from recall.display import plural
from recall.errors import BadInput, NotFound
from recall.lifecycle.disuse import bring_back, restored_message
from recall.lifecycle.links import keep_purged_known, left_superseded
from recall.lifecycle.references import (
    named_by_person,
    replacement_files,
    with_given_files,
    with_lifecycle_keys,
)
from recall.model import AUTO_DISTILLED, Memory
from recall.policy.usage import record_action
from recall.store import MemoryStore
from recall.store.changes import refuse_superseding


def register(sub: argparse._SubParsersAction) -> None:
    """Add the state-changing commands to the CLI."""
    for name, helptext in (("pin", "pin a memory"), ("unpin", "unpin a memory")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", help=ID_HELP)
        p.set_defaults(func=run_pin, pinned=(name == "pin"))

    for name, helptext in (
        ("guard", "guard a decision or gotcha: edits under it ask first, check fails"),
        ("unguard", "take a memory's guard off"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", help=ID_HELP)
        p.set_defaults(func=run_guard, guard=(name == "guard"))

    p = sub.add_parser(
        "supersede",
        help="replace a memory with a new one, linked both ways",
        description="Replace a memory with a new one, linked both ways. The new memory keeps "
        "the old one's category unless -c is given, its files unless --file is given (with "
        "new --anchor PATH::NAME, only the files it names for themselves, not those of its "
        "anchors), its symbol anchors unless --anchor PATH::NAME is given, and its pin and "
        "guard; --no-pin, --no-guard and --no-anchors drop them.",
    )
    p.add_argument("old_id", metavar="OLD_ID", help="the memory to replace: " + ID_HELP)
    add_write_options(p, file_required=False, category_kept=True)
    for flag, kept in (
        ("--no-pin", "the old memory's pin"),
        ("--no-guard", "the old memory's guard"),
        ("--no-anchors", "the old memory's symbol anchors"),
    ):
        p.add_argument(flag, action="store_true", help=f"do not carry over {kept}")
    p.set_defaults(func=run_supersede)

    transitions = {
        "archive": ("archived", ("active",), "hide a memory from recall (reversible)"),
        "restore": ("active", ("archived", "deleted", "superseded"), "bring a memory back"),
        "delete": (
            "deleted",
            ("active", "pending", "archived", "superseded"),
            "tombstone a memory",
        ),
    }
    for name, (status, allowed, helptext) in transitions.items():
        p = sub.add_parser(name, help=helptext)
        p.add_argument("id", help=ID_HELP)
        p.set_defaults(func=run_status, status=status, allowed=allowed, verb=name)

    p = sub.add_parser("purge", help="remove tombstoned (deleted) memory files for good")
    p.add_argument(
        "--global", dest="global_", action="store_true", help="purge the user-wide store"
    )
    p.add_argument(
        "--auto-distilled",
        action="store_true",
        help="remove every auto-distilled memory, pending or confirmed (lists them, then asks)",
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="do not list and ask first (for scripts)"
    )
    p.set_defaults(func=run_purge)


def run_pin(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Pin or unpin a memory."""
    store, memory = ctx.find_memory(args.id)
    updated = store.set_pinned(memory.id, args.pinned)  # refuses a deleted or superseded one
    if args.pinned:
        _note_archived(memory, "pin", ctx)
    record_action(store.conn, memory.id)
    verb = "Pinned" if args.pinned else "Unpinned"
    ctx.emit(_echoed(store, updated, ctx), lambda c: c.print(f"{verb} {updated.id}"))
    return 0


def run_guard(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Guard or unguard a memory."""
    from recall.anchors.guards import set_guard

    store, memory = ctx.find_memory(args.id)
    updated = set_guard(store, memory.id, args.guard)  # refuses a deleted or superseded one
    if args.guard:
        _note_archived(memory, "guard", ctx)
    record_action(store.conn, memory.id)
    verb = "Guarded" if args.guard else "Unguarded"
    ctx.emit(_echoed(store, updated, ctx), lambda c: c.print(f"{verb} {updated.id}"))
    return 0


def _echoed(store: MemoryStore, memory: Memory, ctx: CommandContext) -> dict[str, Any]:
    """The memory a command changed, as its ``--json`` gives it to agents and scripts: a
    credential in its text masked (``secret_masked``), its file named on stderr."""
    from recall.agent_text import masked_file, record_for_agent

    if ctx.json:  # the text output names the memory by id alone
        masked_file([store], store.scope, memory, ctx.notice)
    return record_for_agent(memory)


def _note_archived(memory: Memory, verb: str, ctx: CommandContext) -> None:
    """Say that a memory a person archived, pinned or guarded all the same (confirm vouches for
    one too), stays out of recall until restored. A deleted or superseded one is refused by the
    store itself (:func:`recall.store.changes.refuse_retired`), on every surface."""
    from recall.store.changes import archived_note

    note = archived_note(memory, verb)
    if note is not None:
        ctx.notice(note)


def run_supersede(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Replace a memory by a new one; the old leaves recall but stays in the record. Its files,
    anchors, pin and guard carry over unless given anew or dropped with a ``--no-`` flag."""
    for given, dropped, flags in (
        (args.pin, args.no_pin, "--pin and --no-pin"),
        (args.guard, args.no_guard, "--guard and --no-guard"),
    ):
        if given and dropped:
            raise BadInput(f"{flags} contradict each other; give one of them")
    store, old = ctx.find_memory(args.old_id)
    refuse_superseding(old, store.find)  # said before what its files would lose
    if args.global_ and store.scope != "global":
        raise BadInput(f"memory {old.id} is in the {store.scope} store; drop --global")
    if args.category is None:  # the new text is the same kind of knowledge
        args.category = old.category
    anchor_notes: list[str] = []
    draft = memory_draft(args, ctx, store, anchor_notes)
    refuse_summary_held(store, draft, other_than=old.id)  # two cards with one summary read as one
    if args.no_anchors and draft.anchors:
        raise BadInput("--anchor PATH::NAME and --no-anchors contradict each other; give one")
    # the files the person named: given now, else in the old memory
    said: list[str] = []  # said once the write is done: a refused one changes nothing
    named = named_by_person(draft if args.files else with_lifecycle_keys(store, old))
    changes: dict[str, Any] = {}
    if not args.files:  # the new text is about the same files (and any newly anchored ones)
        # new anchors replace the old: a file there only for an old anchor goes with it
        files = tuple(replacement_files(old, named, draft.files, new_anchors=bool(draft.anchors)))
        if files != draft.files:
            changes["files"] = files
    opened = None  # the repository's signals, once carrying anchors has opened them
    if old.anchors and not draft.anchors and not args.no_anchors:  # about the same code
        carried = old.anchors
        if args.files:  # files named anew: an anchor in a file left out goes, and is said
            guarded = carried_guard(old, draft.category, store.scope)[0] and not args.no_guard
            carry = carry_anchors(
                store,
                old.anchors,
                draft.files,
                "--anchor PATH::NAME",
                guarded=guarded,
                notice=ctx.notice,
            )
            carried, opened = carry.anchors, carry.signals
            said.extend(carry.notes)
        if carried:
            changes["anchors"] = carried
        given = changes.get("files", draft.files)
        anchored = tuple(a.path for a in carried if a.path not in given)
        if anchored:  # a memory's files hold the files of its anchors, as a write does
            changes["files"] = (*given, *dict.fromkeys(anchored))
    if old.pinned and not draft.pinned and not args.no_pin:
        changes["pinned"] = True
    guard, note = carried_guard(old, draft.category, store.scope)
    if guard and not draft.guard and not args.no_guard:
        changes["guard"] = True
    elif note and not draft.guard and not args.no_guard:
        said.append(note)
    if changes:
        draft = draft.with_changes(**changes)
    if changes.get("guard"):  # carried: a person may narrow it, and is told so
        narrowing = narrowing_note(
            Replacement(store, old, draft.files, draft.anchors, notice=ctx.notice, opened=opened)
        )
        if narrowing:
            said.append(narrowing)
    draft = with_given_files(draft, named)  # for a later repoint
    if old.details and not draft.details:  # the new text stands on its own: said, not silent
        said.append(
            f"the details of {old.id} are not carried over (`tether show {old.id}` keeps them); "
            "give --details to write the new memory's own"
        )
    result, updated = store.supersede(old.id, draft)
    for note in said:
        ctx.notice(note)
    record_action(store.conn, old.id)
    data = {**result.to_dict(), "supersedes": updated.id, **anchor_fields(anchor_notes)}
    ctx.emit(data, lambda c: c.print(f"Wrote {result.id}; {updated.id} is now superseded by it"))
    return 0


def run_status(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Archive, restore or delete (tombstone) a memory."""
    store, memory = ctx.find_memory(args.id)
    past = {"archive": "Archived", "restore": "Restored", "delete": "Deleted (restorable)"}
    if args.verb == "restore":
        restored = bring_back(store, memory, args.allowed)
        data = _echoed(store, restored.memory, ctx)
        if restored.from_disuse:
            data["restored_from"] = "disuse"
        if restored.unreplaced:  # the memories that said they supersede it no longer do
            data["no_longer_replaced_by"] = restored.unreplaced
        if restored.replaces_no_more:  # its own supersedes named a memory restored before it
            data["no_longer_supersedes"] = restored.replaces_no_more
        ctx.emit(data, lambda c: c.print(restored_message(restored)))
        return 0
    else:
        updated = store.set_status(memory.id, args.status, allowed_from=args.allowed)
    data = _echoed(store, updated, ctx)
    left = left_superseded(store, updated.id, args.status)
    if left is not None:  # the memory it replaced is out of recall with nothing in its place
        data["left_superseded"], said = left
        ctx.notice(said)
    ctx.emit(data, lambda c: c.print(f"{past[args.verb]} {updated.id}"))
    return 0


def run_purge(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Remove tombstoned (or auto-distilled) memory files."""
    store = write_store(args, ctx)
    if not store.exists:
        raise NotFound(f"no {store.scope} store yet at {store.location.base}")
    if args.auto_distilled:
        return purge_auto_distilled(store, ctx, yes=args.yes)
    deleted = store.list(status="deleted")
    doomed = [(m, store.scope) for m in deleted if m.source != AUTO_DISTILLED]
    dropped = len(deleted) - len(doomed)
    if dropped:  # their tombstones are what keeps distill from proposing them again
        ctx.notice(
            f"{plural(dropped, 'dropped auto-distill proposal')} kept, so that distill does not "
            "propose it again (`tether purge --auto-distilled` removes every auto-distilled "
            "memory)"
        )
    if doomed and not args.yes:
        ids = " ".join(m.id for m, _ in doomed)
        if ctx.json or not sys.stdin.isatty():
            raise BadInput(
                f"{plural(len(doomed), 'deleted memory')} would be removed for good ({ids}); "
                "pass --yes to confirm"
            )
        console = ctx.console()
        print_table(console, doomed, title=plural(len(doomed), "deleted memory"))
        if not confirm(purge_question(len(doomed))):
            console.print("Nothing removed.")
            return 1
    kept = keep_purged_known(store, [m.id for m, _ in doomed], ctx.stores("all"), ctx.notice)
    removed = store.purge()
    ctx.emit(
        {"purged": removed, "kept_superseded": kept},
        lambda c: c.print(f"Purged {plural(len(removed), 'memory')}"),
    )
    return 0 if removed else 1
