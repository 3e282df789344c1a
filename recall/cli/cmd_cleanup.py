"""``tether cleanup``: stale memories worst first; archive, delete, confirm or keep each.

Three ways to run it: in a terminal it asks one key per memory; ``--json`` lists the candidates
with ids and scores for agents; ``--archive/--delete/--confirm/--keep ID...`` applies decisions
without asking. Asking, or applying decisions, records a cleanup pass (the hint's session count
starts again); a ``--json`` listing does not, since nobody has decided anything yet, nor does a
run where a decision failed.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from recall.agent_text import masked_file
from recall.cli.cmd_maint import project_genome
from recall.cli.context import CommandContext
from recall.cli.render import print_card, scope_option
from recall.display import plural, visible
from recall.errors import EXIT_NOT_FOUND, BadInput, NotFound, TetherError
from recall.lifecycle import CLEANUP_LIST_LIMIT, cleanup
from recall.policy.usage import counters
from recall.std_streams import STDIN_CLOSED
from recall.store import MemoryStore

KEYS = {"a": "archive", "d": "delete", "c": "confirm", "k": "keep", "s": "skip", "q": "quit"}
PROMPT = "[a]rchive [d]elete [c]onfirm [k]eep [s]kip [q]uit: "
PAST = {"archive": "Archived", "delete": "Deleted", "confirm": "Confirmed", "keep": "Kept"}
IN_EFFECT = {"archive": "archived", "delete": "deleted"}
"""The status each decision leaves: a memory in it already is left as it is, not a failure
(a second run of the same decisions, after a first one stopped midway, records the pass)."""
NEEDS_TERMINAL = (
    "tether cleanup asks one question per memory and stdin is not a terminal; "
    "use --json to list the candidates with ids, then --archive/--delete/--confirm/--keep ID... "
    "to apply decisions (or --interactive to answer the questions from stdin)"
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``cleanup`` to the CLI."""
    p = sub.add_parser(
        "cleanup",
        help="review stale memories worst first: archive, delete, confirm or keep each",
    )
    scope_option(p)
    p.add_argument(
        "--limit",
        type=int,
        default=CLEANUP_LIST_LIMIT,
        help=f"candidates to list or ask about (default {CLEANUP_LIST_LIMIT})",
    )
    p.add_argument(
        "--interactive",
        action="store_true",
        help="ask about each candidate even when stdin is not a terminal (answers on stdin)",
    )
    for decision in cleanup.DECISIONS:
        p.add_argument(
            f"--{decision}",
            dest=decision,
            nargs="+",
            action="extend",
            default=[],
            metavar="ID",
            help=f"{decision} these memories without asking",
        )
    p.set_defaults(func=run_cleanup)


def _home(ctx: CommandContext) -> MemoryStore:
    """The store that records sessions: the project's, else the global one."""
    with contextlib.suppress(NotFound):
        return ctx.project()
    return ctx.global_store()


def _record_pass(ctx: CommandContext) -> str | None:
    """Record the pass in the home store (none yet: nothing to record); refused when it is
    read-only."""
    home = _home(ctx)
    return home.write_per_user(cleanup.record_pass) if home.exists else None


def run_cleanup(args: argparse.Namespace, ctx: CommandContext) -> int:
    """List, ask about, or apply decisions on stale memories."""
    if args.limit < 1:
        raise BadInput("--limit must be at least 1")
    wanted = {d: getattr(args, d) for d in cleanup.DECISIONS}
    if any(wanted.values()):
        found: dict[str, tuple[MemoryStore, Any]] = {}

        def resolve(ref: str) -> tuple[str, str]:
            store, memory = found[ref] = ctx.find_memory(ref, args.scope)
            return store.scope, memory.id

        pairs = cleanup.check_decisions(wanted, resolve)
        return _apply(ctx, [(*found[ref], decision) for ref, decision in pairs])
    if not ctx.json and not args.interactive and not sys.stdin.isatty():
        raise BadInput(NEEDS_TERMINAL)
    stores = ctx.stores(args.scope)
    found = cleanup.ranked(stores, lambda store: project_genome(store, ctx))
    if ctx.json:
        listed = found[: args.limit]
        for candidate in listed:  # its text is masked for agents; the person is told the file
            masked_file(stores, candidate.scope, candidate.memory, ctx.notice)
        data = {
            "candidates": [c.to_dict() for c in listed],
            "total": len(found),
            "last_pass": cleanup.last_pass(_home(ctx).conn),
        }
        ctx.emit(data)
        return 0 if found else EXIT_NOT_FOUND
    return _ask(ctx, found, args.limit)


def _apply(ctx: CommandContext, resolved: list[tuple[MemoryStore, Any, str]]) -> int:
    """Apply decisions given on the command line (every id found before any is applied); a
    run where one failed records no cleanup pass."""
    results: list[dict[str, Any]] = []
    code = 0
    for store, memory, decision in resolved:
        entry: dict[str, Any] = {"id": memory.id, "scope": store.scope, "decision": decision}
        if memory.status == IN_EFFECT.get(decision):
            results.append({**entry, "status": memory.status, "already": True})
            continue
        try:
            updated, notes = cleanup.apply(store, memory, decision, _genome(ctx, store, decision))
        except TetherError as error:
            entry["error"] = str(error)
            code = code or error.exit_code
        else:
            entry["status"] = updated.status
            if notes:  # an anchored symbol that could not be confirmed
                entry["notes"] = notes
        results.append(entry)
    data: dict[str, Any] = {"applied": results, "last_pass": None}
    try:
        if not code:  # a decision that failed leaves the pass to do
            data["last_pass"] = _record_pass(ctx)
    except TetherError as error:  # the decisions above stand: say what was done all the same
        data["pass_error"] = str(error)
        code = code or error.exit_code

    def render(console) -> None:
        for entry in results:
            if "error" in entry:
                ctx.notice(f"{entry['id']}: could not {entry['decision']}: {entry['error']}")
            elif entry.get("already"):
                line = f"{entry['id']} is already {entry['status']}; left as it is"
                console.print(line, highlight=False)
            else:
                console.print(f"{PAST[entry['decision']]} {entry['id']}", highlight=False)
                for note in entry.get("notes", []):
                    ctx.notice(visible(note))
        if "pass_error" in data:
            ctx.notice(f"the cleanup pass was not recorded: {data['pass_error']}")
        elif code:
            ctx.notice(
                "the cleanup pass was not recorded: a decision above failed; do what it says, or "
                "run again without that id"
            )

    ctx.emit(data, render)
    return code


def _genome(ctx: CommandContext, store: MemoryStore, decision: str) -> Any | None:
    """The project's genome when ``decision`` confirms a memory of it (its anchors are
    recorded anew), else None: no other decision reads the repository."""
    return project_genome(store, ctx) if decision == "confirm" else None


def _ask(ctx: CommandContext, found: list[cleanup.Candidate], limit: int) -> int:
    """One question per candidate, worst first; quitting keeps what was decided so far."""
    if sys.stdin.closed:  # before the pass is recorded: no question could be answered
        raise BadInput(STDIN_CLOSED)
    console = ctx.console()
    stamp = _record_pass(ctx)
    if not found:
        console.print("No stale memories: nothing to clean up.")
        return EXIT_NOT_FOUND
    shown = found[:limit]
    more = f" (the worst {len(shown)} of {len(found)})" if len(found) > len(shown) else ""
    console.print(f"{plural(len(found), 'stale memory')}, worst first{more}.")
    done: dict[str, int] = {}
    for number, candidate in enumerate(shown, start=1):
        store = ctx.store(candidate.scope)
        memory = candidate.memory
        console.print()
        days = candidate.idle_days
        idle = "" if days is None else f", no action for {days:.0f} days"
        console.print(
            f"[{number}/{len(shown)}] score {candidate.score:.2f}: "
            f"{', '.join(candidate.reasons)}{idle}",
            markup=False,
            highlight=False,
        )
        for line in candidate.symbols:  # where a symbol went: a name may hold a line break
            console.print(visible(f"symbol {line}"), markup=False, highlight=False, soft_wrap=True)
        usage = counters(store.conn, memory.id)
        path = str(store.path_of(memory.id))
        print_card(console, memory, scope=store.scope, path=path, usage=usage)
        answer = _answer(console)
        if answer == "quit":
            break
        if answer == "skip":
            continue
        try:
            _, notes = cleanup.apply(store, memory, answer, _genome(ctx, store, answer))
        except TetherError as error:
            ctx.notice(f"{memory.id}: {error}")
            continue
        console.print(f"{PAST[answer]} {memory.id}", highlight=False)
        for note in notes:
            ctx.notice(visible(note))
        done[answer] = done.get(answer, 0) + 1
    summary = ", ".join(f"{PAST[k].lower()} {v}" for k, v in done.items()) or "nothing changed"
    console.print()
    console.print(f"Cleanup recorded at {stamp}: {summary}." if stamp else f"Done: {summary}.")
    return 0


def _answer(console) -> str:
    """Read one answer, asking again until it is a key or a whole word; end of input counts
    as quit."""
    while True:
        try:
            raw = input(PROMPT)
        except EOFError:
            console.print()
            return "quit"
        answer = parse_answer(raw)
        if answer is not None:
            return answer
        console.print(
            f"Answer one of {', '.join(KEYS)} or the whole word "
            f"({', '.join(KEYS.values())}); got {raw.strip()!r}.",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def parse_answer(raw: str) -> str | None:
    """The decision ``raw`` names: one key or the whole word, case and surrounding spaces aside;
    None for anything else (``done`` is not ``delete``: a first letter alone never decides)."""
    text = raw.strip().lower()
    if text in KEYS:
        return KEYS[text]
    return text if text in KEYS.values() else None
