"""recall and inject: memories ranked by what is being touched, for people and for agents."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall import touched_files
from recall.cli.context import CommandContext
from recall.cli.input_files import empty_input, open_input
from recall.cli.render import NARROW_COLUMNS, paths_option, scope_option, write_records
from recall.display import visible
from recall.errors import BadInput
from recall.policy.sessions import check_session_id
from recall.ranking.query import RecallQuery, Touch
from recall.service import RECALL_LIMIT, build_recaller, record_shown
from recall.std_streams import stdin_text
from recall.strict_json import read_line

if TYPE_CHECKING:  # the engine pulls in numpy; it is imported only when a recall runs
    from recall.ranking.engine import Hit, Recaller, RecallResult


def register(sub: argparse._SubParsersAction) -> None:
    """Add recall and inject to the CLI."""
    p = sub.add_parser("recall", help="memories for the files you touch (and an optional prompt)")
    p.add_argument("prompt", nargs="?", help="what you are doing (optional)")
    _touch_options(p)
    p.add_argument(
        "--limit",
        type=int,
        default=RECALL_LIMIT,
        metavar="N",
        help=f"at most N memories (default {RECALL_LIMIT})",
    )
    p.add_argument("--no-record", action="store_true", help="leave every counter untouched")
    p.add_argument("--explain", action="store_true", help="show each channel's contribution")
    p.add_argument(
        "--batch",
        metavar="FILE.jsonl",
        help='one query per line: {"prompt", "files", "limit"}; each answer line names its "line"',
    )
    p.set_defaults(func=run_recall)

    p = sub.add_parser("inject", help="at most three one-line memories for an agent's prompt")
    p.add_argument("prompt", nargs="?", help="the prompt (read from stdin when absent)")
    _touch_options(p)
    p.add_argument("--no-record", action="store_true", help="leave every counter untouched")
    p.set_defaults(func=run_inject)


def _touch_options(parser: argparse.ArgumentParser) -> None:
    paths_option(parser, "--file", "-f", dest="files", help="a file being edited (repeatable)")
    paths_option(
        parser,
        "--open",
        dest="opened",
        help="a file only opened or read (weighs less than an edit)",
    )
    parser.add_argument(
        "--session", help="the agent or editor session this turn belongs to (counts one turn)"
    )
    scope_option(parser)


def _recaller(
    ctx: CommandContext, scope: str, *, short_lived: bool, wait: float | None = None
) -> Recaller:
    """The engine over the stores of ``scope``; ``short_lived`` when it answers one query;
    ``wait``: how long to wait for another writer before reading a store as it is (None: the
    store's default). Outside any repository: global memories only, no repository signals."""
    stores = ctx.stores(scope)
    if wait is not None:
        for store in stores:
            store.wait = wait
    project = next((s for s in stores if s.scope == "project"), None)
    if project is None:
        project = ctx.folder.project_if_any()
    return build_recaller(stores, project, notice=ctx.notice, short_lived=short_lived)


def _touches(
    ctx: CommandContext, recaller: Recaller, edits: list[str], opens: list[str]
) -> tuple[Touch, ...]:
    return touched_files.touches(recaller.stores[0], ctx.cwd, edits, opens)


def _masked(recaller: Recaller, hits: list[Hit]) -> list[str]:
    """Mask a credential in the hits' text as an agent is given it, whoever reads a recall
    (:mod:`recall.agent_text`); the notes naming the files that hold one."""
    from recall.agent_text import mask_hits, masked_notes

    return masked_notes(mask_hits(hits), recaller.stores)


def _record(recaller: Recaller, hits: list[Hit], session: str | None = None) -> None:
    """Count one surfacing per shown memory and, with a session, one turn of it."""
    record_shown(recaller.stores, hits, session=session)


def run_recall(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Rank memories for the touched files and prompt; print them with receipts."""
    if args.limit < 1:
        raise BadInput("--limit must be at least 1")
    batched = args.batch is not None  # an empty --batch is refused, never a single recall
    if args.batch == "":
        raise BadInput(empty_input("--batch", BATCH_INPUT))
    if batched:
        _check_batch_alone(args)
    if args.session is not None:
        check_session_id(args.session)
    if not batched and not (args.prompt or "").strip() and not args.files and not args.opened:
        raise BadInput(
            "nothing to recall for: give a prompt, --file PATH or --open PATH (one or more of them)"
        )
    if not batched and _names_a_file(ctx.cwd, args.prompt):
        # `recall -f a.py b.py` reads b.py as the prompt: a file is never asked for as text
        raise BadInput(
            f"the prompt {args.prompt!r} is a file here: to recall for it, give it as "
            f"--file {args.prompt} (one --file, or -f, for each file)"
        )
    recaller = _recaller(ctx, args.scope, short_lived=not batched)
    if batched:
        return _run_batch(args, ctx, recaller)
    touches = _touches(ctx, recaller, args.files, args.opened)
    paths = [t.path for t in touches]
    root = recaller.stores[0].repo_root
    for note in touched_files.absent_notes(root, recaller.stores, paths, cwd=ctx.cwd):
        ctx.notice(note)  # still recalled for the prompt, if any
    query = RecallQuery(touches, args.prompt, limit=args.limit)
    result = touched_files.recalled(recaller, query)
    for note in _masked(recaller, result.hits):
        ctx.notice(note)
    if not args.no_record:
        _record(recaller, result.hits, args.session)
    data = {
        "results": [h.to_dict() for h in result.hits],
        "elapsed_ms": round(result.elapsed_ms, 2),
        "query": result.query_text,
    }
    if args.explain:
        data["timings_ms"] = {k: round(v, 2) for k, v in result.timings_ms.items()}
    ctx.emit(data, lambda console: _print_hits(console, result, explain=args.explain))
    ctx.say_if_not_set_up(recaller.stores)  # no match then means nothing set up here
    return 0 if result.hits else 1


def _check_batch_alone(args: argparse.Namespace) -> None:
    """Refuse what a ``--batch`` run would otherwise drop: the queries are the batch's lines, so
    a prompt, ``--file``, ``--open`` or ``--session`` given beside it belongs to no line.
    (``--limit``, ``--scope``, ``--no-record`` and ``--explain`` hold for every line.)"""
    given = [
        name
        for name, value in (
            ("the prompt", args.prompt),
            ("--file", args.files),
            ("--open", args.opened),
            ("--session", args.session),
        )
        if value not in (None, [])
    ]
    if not given:
        return
    advice = []
    if args.prompt is not None or args.files:
        advice.append(
            'put the prompt and files on the batch\'s lines ({"prompt": ..., "files": [...]})'
        )
    if args.opened or args.session is not None:
        advice.append(
            "a batch line has no field for --open or --session: run that query without --batch"
        )
    raise BadInput(f"{', '.join(given)} cannot go with --batch; " + "; ".join(advice))


def _names_a_file(cwd: Path, prompt: str | None) -> bool:
    """Whether ``prompt`` is, whole, the path of a file under ``cwd`` (no spaces: a sentence
    that happens to end in a file name is a prompt)."""
    if not prompt or prompt != prompt.strip() or any(c.isspace() for c in prompt):
        return False
    try:
        return (cwd / prompt).is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def _print_hits(console: Any, result: RecallResult, *, explain: bool) -> None:
    """The hits as a table on a terminal; piped, one tab-separated line per hit (rank, id,
    category, summary, why, score, and with ``--explain`` the signals), the timings on stderr."""
    from rich.markup import escape
    from rich.table import Table

    from recall.cli.blocks import packed, print_hit_blocks

    if not sys.stdout.isatty():
        write_records(
            (
                str(rank),
                hit.memory.id,
                hit.memory.category,
                hit.memory.summary,
                hit.receipt,
                f"{hit.score:.3f}",
                *([_signals(hit)] if explain else []),
            )
            for rank, hit in enumerate(result.hits, start=1)
        )
        if not result.hits:
            sys.stderr.write(NO_MATCH + "\n")
        elif explain:
            sys.stderr.write(_timings(result) + "\n")
        return
    if not result.hits:
        console.print(NO_MATCH)
        return
    if console.width < NARROW_COLUMNS:  # as `tether list` does: a block per memory
        print_hit_blocks(console, result.hits)
    else:
        table = Table(show_lines=False, title_justify="left")
        for column in ("#", "id", "category", "summary", "why", "score"):
            folded = column in ("summary", "why")  # an id or a score is never split
            table.add_column(column, overflow="fold", no_wrap=not folded)
        for rank, hit in enumerate(result.hits, start=1):
            table.add_row(
                str(rank),
                hit.memory.id,
                hit.memory.category,
                escape(visible(hit.memory.summary)),
                escape(visible(hit.receipt)),
                f"{hit.score:.3f}",
            )
        console.print(table)
    if explain:
        rows = [(f"{hit.memory.id}: ", _signal_items(hit)) for hit in result.hits]
        rows.append(("time: ", _timing_items(result)))
        for head, items in rows:  # an item never split: whole on a narrow terminal
            pieces = [f"{item}," for item in items[:-1]] + items[-1:]
            hanging = " " * len(head)
            for line in packed(pieces, console.width, first=head, rest=hanging, sep=" "):
                console.print(line, markup=False, highlight=False)


NO_MATCH = "No memory matches what you are touching."

INJECT_BUSY_S = 1.0
"""Seconds ``tether inject`` waits for another writer of a store (an import, a reindex) before
it reads the index as it is: an agent waits on it before each turn, as on the hooks, which
wait as long (``recall.hooks.events.GUARD_BUSY_MS``)."""


def _signal_items(hit: Any) -> list[str]:
    """A hit's channel signals, by name: what ``--explain`` adds to each hit."""
    return [f"{k} {v:+.4f}" for k, v in sorted(hit.signals.items())]


def _signals(hit: Any) -> str:
    return ", ".join(_signal_items(hit))


def _timing_items(result: RecallResult) -> list[str]:
    """Where the recall's time went, stage by stage."""
    return [f"{k} {v:.1f} ms" for k, v in result.timings_ms.items()]


def _timings(result: RecallResult) -> str:
    return "time: " + ", ".join(_timing_items(result))


def _run_batch(args: argparse.Namespace, ctx: CommandContext, recaller: Recaller) -> int:
    """One JSON result line per query line, in order, each naming its line number; malformed
    lines are reported, not skipped (blank lines are no query and get no answer)."""
    source = sys.stdin.buffer if args.batch == "-" else None
    # relative to -C, like every other path argument
    handle = source or open_input(ctx.cwd, args.batch, BATCH_INPUT, label="--batch")
    failed = 0
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise BadInput("not UTF-8 text") from None
                if number == 1:
                    line = line.removeprefix("\ufeff")  # an editor's mark, not part of a query
                query = _batch_query(line, ctx, recaller, args.limit)
            except BadInput as error:
                failed += 1
                sys.stdout.write(json.dumps({"line": number, "error": str(error)}) + "\n")
                sys.stdout.flush()
                continue
            recaller = _following_refreshes(recaller, ctx, args.scope)
            start = time.perf_counter()
            result = touched_files.recalled(recaller, query)
            elapsed = (time.perf_counter() - start) * 1000
            masked = _masked(recaller, result.hits)
            if not args.no_record:
                _record(recaller, result.hits)
            out: dict[str, object] = {
                "line": number,
                "results": [h.to_dict() for h in result.hits],
                "elapsed_ms": round(elapsed, 3),
            }
            paths = query.paths
            root = recaller.stores[0].repo_root if recaller.stores else None
            notes = (
                touched_files.absent_notes(root, recaller.stores, paths, cwd=ctx.cwd)
                if paths
                else []
            )
            notes += masked
            if notes:  # as a single recall says them: a folder, a typo, a deleted file
                out["notes"] = notes
            if args.explain:
                out["timings_ms"] = {k: round(v, 2) for k, v in result.timings_ms.items()}
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()  # a caller on a pipe reads each answer before its next line
    return 2 if failed else 0


def _following_refreshes(recaller: Recaller, ctx: CommandContext, scope: str) -> Recaller:
    """The batch's engine, made anew when another process (``tether index``, a hook) refreshed
    the genome since this one read it, so a long batch never ranks on a genome it outlived."""
    refreshed = getattr(recaller.repo, "refreshed_elsewhere", None)
    if callable(refreshed) and refreshed():
        return _recaller(ctx, scope, short_lived=False)
    return recaller


BATCH_INPUT = 'a JSON Lines file of queries, one {"prompt", "files", "limit"} a line'
"""What ``tether recall --batch`` reads, as said when its file cannot be read."""

BATCH_KEYS = ("prompt", "files", "limit")
"""What a ``--batch`` query line may hold; any other key is refused, so a misspelt one is
never ignored."""


def _batch_query(line: str, ctx: CommandContext, recaller: Recaller, limit: int) -> RecallQuery:
    record = read_line(line)
    if not isinstance(record, dict):
        raise BadInput("each line must be a JSON object")
    unknown = [key for key in record if key not in BATCH_KEYS]
    if unknown:
        import difflib  # only for a line in error: `tether inject` shares this module

        close = difflib.get_close_matches(unknown[0], BATCH_KEYS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        known = ", ".join(BATCH_KEYS)
        raise BadInput(f"unknown key {unknown[0]!r} (a query line takes {known}){hint}")
    prompt = record.get("prompt")
    files = record.get("files", [])
    if prompt is not None and not isinstance(prompt, str):
        raise BadInput("'prompt' must be a string")
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise BadInput("'files' must be a list of paths")
    wanted = record.get("limit", limit)
    if not isinstance(wanted, int) or isinstance(wanted, bool) or wanted < 1:
        raise BadInput("'limit' must be a whole number of at least 1")
    if not (prompt or "").strip() and not files:
        raise BadInput("nothing to recall for: give a 'prompt' or 'files'")
    touches = _touches(ctx, recaller, files, [])
    return RecallQuery(touches, prompt, limit=wanted)


def run_inject(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print the injection block for a prompt (stdin when not given); nothing if nothing fits."""
    from recall.policy import inject as injection
    from recall.policy.trust import Gate

    if args.session is not None:
        check_session_id(args.session)  # before any work, as recall does
    prompt = args.prompt if args.prompt is not None else stdin_text()
    wait = min(INJECT_BUSY_S, ctx.write_wait)  # a shorter ``--wait`` wins over the hooks' second
    recaller = _recaller(ctx, args.scope, short_lived=True, wait=wait)
    query = RecallQuery(
        _touches(ctx, recaller, args.files, args.opened), prompt, limit=RECALL_LIMIT
    )
    # as recall says them; a note, never a failure: hooks and scripts run inject every turn
    notes = touched_files.given_notes(recaller.stores, query.paths, cwd=ctx.cwd)
    result = touched_files.recalled(recaller, query)
    project = next((s for s in recaller.stores if s.scope == "project"), None)
    chosen = injection.select(Gate(project, ctx.notice).hits(result.hits))
    notes += _masked(recaller, chosen)
    if ctx.folder.home_left_out is not None:  # said on stderr already; in --json's notes too
        notes.insert(0, ctx.folder.home_left_out)
    for note in notes:
        ctx.notice(note)
    if not args.no_record:
        _record(recaller, chosen, args.session)
    if ctx.json:
        data = {"results": [h.to_dict() for h in chosen], "text": injection.render(chosen)}
        ctx.emit({**data, "notes": notes} if notes else data)
    else:
        sys.stdout.write(injection.render(chosen))
    return 0
