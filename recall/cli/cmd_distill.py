"""``tether distill`` and ``tether pending``: propose memories from commits, then review them."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from recall.cli.context import CommandContext
from recall.cli.needs_git import needs_git
from recall.cli.render import positive, print_table, scope_option
from recall.display import plural, visible
from recall.distill import (
    SOURCE,
    Commits,
    DistillReport,
    Unread,
    claim,
    distill,
    head_commit,
    latest_session,
    mark_read,
    pending,
    read_commits,
    read_up_to,
    release,
    resolve_commit,
    session_commits,
    unread,
    unread_notice,
)
from recall.errors import BadInput, NothingToDo, TetherError
from recall.model import Memory
from recall.policy.sessions import check_session_id
from recall.policy.usage import record_action
from recall.settings import engine_settings
from recall.store import MemoryStore

# What each review verb does to a pending memory: the status it moves to and its past tense.
REVIEW = {"confirm": ("active", "Confirmed"), "drop": ("deleted", "Dropped")}


def register(sub: argparse._SubParsersAction) -> None:
    """Add distill and pending to the CLI."""
    p = sub.add_parser(
        "distill",
        help="propose pending memories from the knowledge in a session's commit messages",
    )
    since = p.add_mutually_exclusive_group()
    since.add_argument(
        "--session",
        metavar="ID",
        help="commits since this session started (default: the commits no distill has read, "
        "else those since the last session started)",
    )
    since.add_argument("--since", metavar="COMMIT", help="commits after this one")
    p.add_argument("--dry-run", action="store_true", help="show what would be written, write none")
    p.set_defaults(func=run_distill)

    p = sub.add_parser(
        "pending",
        help="auto-distilled memories awaiting review: list them, confirm or drop some",
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=("list", *REVIEW),
        default="list",
        help="list them (default), confirm some (they become active) or drop some",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="the memories to confirm or drop")
    scope_option(p)
    p.add_argument("--limit", type=positive, metavar="N", help="list at most N of them")
    p.set_defaults(func=run_pending)


def run_distill(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Read the commits, write what they teach as pending memories, report every decision."""
    store, root = _git_store(ctx)
    settings = engine_settings(root, ctx.notice)
    claimed: Unread | None = None
    lost: str | None = None
    since = head = None
    if args.since is not None:
        since, head = resolve_commit(root, args.since), head_commit(root)
        commits = read_commits(root, since_commit=since)
        source = f"commits after {args.since}"
    elif args.session is not None:
        session = check_session_id(args.session)
        commits = session_commits(store, session)
        source = f"commits of session {session}"
    else:
        claimed, lost = _claim_unread(store, dry_run=args.dry_run)
        commits, source = claimed.commits, claimed.source or ""
    try:
        report = distill(
            store,
            commits,
            categories=settings.distill_categories,
            limit=settings.distill_max,
            command=settings.distill_command,
            dry_run=args.dry_run,
            cap="per session" if args.session is not None else "per run",
        )
    except BaseException:
        if claimed is not None and claimed.commits and not args.dry_run:
            release(store.conn, claimed.mark, claimed.head)  # read again next time
        raise
    if since is not None and head is not None and not args.dry_run:
        # so a plain `tether distill` reads on from here
        mark_read(store, since, read_up_to(commits, head))
    if lost is not None:
        report.notices.insert(0, lost)
    for notice in report.notices:
        ctx.notice(notice)
    left = unread_notice(commits, _read_on(commits, again=claimed is not None, args=args))
    if left:
        ctx.notice(left)
    data = {**report.to_dict(), "source": source, "dry_run": args.dry_run}
    data["unread"] = commits.unread
    ctx.emit(data, lambda c: _render_report(c, report, source, args.dry_run))
    return 0 if report.written else 1


def _git_store(ctx: CommandContext) -> tuple[MemoryStore, Path]:
    """The project store and its repository's root, or :class:`BadInput` saying that distill
    reads git's commits where there is no git repository (a folder set up by `tether init`
    alone, or none at all): `tether init` would not give it any."""
    from recall.locations import InGitFolder, NoProject
    from recall.work_tree import git_expected

    try:
        store = ctx.project()
    except InGitFolder:
        raise  # said as every command says it, with a clone to run in
    except NoProject:
        raise BadInput(needs_git("distill", _READS, ctx.cwd)) from None
    root = store.repo_root
    if root is None or not git_expected(str(root)):
        raise BadInput(needs_git("distill", _READS, root or ctx.cwd))
    return store, root


_READS = "reads the messages of git's commits"
"""What distill reads in git, as its refusal outside git says it (:func:`needs_git`)."""


def _read_on(commits: Commits, *, again: bool, args: argparse.Namespace) -> str:
    """How to read the commits a run left unread after ``commits``: a plain run again (``again``:
    it read the unread range and moved the mark), else after the last one read."""
    if again and not args.dry_run:
        return "run `tether distill` again to read them"
    dry = " --dry-run" if args.dry_run else ""
    last = commits[-1].short if commits else "HEAD"
    return f"run `tether distill{dry} --since {last}` to read them"


def _claim_unread(store: MemoryStore, *, dry_run: bool) -> tuple[Unread, str | None]:
    """The commits no distill has read yet (see :func:`recall.distill.unread`), claimed so
    auto-distill does not read them again (not on a dry run), and None; none, with the notice
    saying so, when another run claimed them first."""
    session = latest_session(store.conn) if store.exists else None
    found = unread(store, session)
    if found is None:
        raise NothingToDo("this repository has no commits yet")
    if found.source is None:
        raise BadInput(
            "plain `tether distill` reads on from where the last distill stopped, else the "
            "commits since the last session started, and neither is recorded in this "
            "repository yet: pass --since COMMIT (for example --since HEAD~5) or --session ID"
        )
    if dry_run or claim(store.conn, found.mark, found.head):
        return found, None
    notice = "another Tether run read these commits a moment ago; nothing left to read"
    return replace(found, commits=Commits()), notice


def _render_report(console: Any, report: DistillReport, source: str, dry_run: bool) -> None:
    def say(line: str) -> None:  # one line each: a session id may hold a line break
        console.print(visible(line), markup=False, highlight=False, soft_wrap=True)

    verb = "would write" if dry_run else "wrote"
    say(f"Read {plural(report.commits, 'commit')} ({source}); {verb} {len(report.written)} pending")
    for outcome in report.written:
        label = outcome.id or "-"
        say(f"  {label}  {outcome.category}  {outcome.summary}  (from {outcome.commit})")
    for line in skipped_lines(report.outcomes):
        say(line)
    if report.written and not dry_run:
        say("Review: `tether pending` lists; `tether pending confirm ID` keeps, `drop` deletes")


def skipped_lines(outcomes: list[Any]) -> list[str]:
    """One line per skipped commit, except that commits skipped for one same reason without a
    proposal (over the cap, no knowledge found...) share a single line with their count: a
    --since over a long history would otherwise repeat one sentence hundreds of times."""
    skipped = [o for o in outcomes if o.action == "skipped"]
    shared: dict[str, list[str]] = {}
    for outcome in skipped:
        if not outcome.summary:
            shared.setdefault(outcome.reason, []).append(outcome.commit)
    lines: list[str] = []
    for outcome in skipped:
        commits = shared.get(outcome.reason, []) if not outcome.summary else []
        if len(commits) > 1:
            if outcome.commit == commits[0]:
                span = f"{commits[0]} … {commits[-1]}"
                lines.append(f"  skipped {len(commits)} commits ({span}): {outcome.reason}")
            continue
        what = f"{outcome.summary!r}: " if outcome.summary else ""
        lines.append(f"  skipped {outcome.commit}: {what}{outcome.reason}")
    return lines


def run_pending(args: argparse.Namespace, ctx: CommandContext) -> int:
    """List pending memories, or confirm / drop the ones named."""
    if args.action == "list":
        if args.ids:
            raise BadInput("`tether pending` lists them all; to review some, say confirm or drop")
        return _list_pending(args, ctx)
    if not args.ids:
        raise BadInput(f"give the ids to {args.action} (`tether pending` lists them)")
    status, past = REVIEW[args.action]
    done: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    worst = 0
    reviewed: set[tuple[str, str]] = set()  # one memory named twice (a prefix and its id)
    for ref in args.ids:
        try:
            # the ids meant are those awaiting review
            store, memory = ctx.find_memory(ref, args.scope, listing="tether pending")
            if (store.scope, memory.id) in reviewed:
                continue
            reviewed.add((store.scope, memory.id))
            if memory.status != "pending":
                raise BadInput(_not_pending(store, memory, args.action))
            updated = store.set_status(memory.id, status, allowed_from=("pending",))
            if args.action == "confirm":
                record_action(store.conn, memory.id)
        except TetherError as error:
            failed.append({"id": ref, "error": str(error), "exit_code": error.exit_code})
            worst = max(worst, error.exit_code)
            ctx.notice(f"error: {error}")
            continue
        done.append({"id": updated.id, "scope": store.scope, "status": updated.status})

    def render(console: Any) -> None:
        for item in done:
            console.print(f"{past} {item['id']}", markup=False, highlight=False)

    ctx.emit({args.action: done, "errors": failed}, render)
    return worst


def _list_pending(args: argparse.Namespace, ctx: CommandContext) -> int:
    """List the memories pending review, each as agents and scripts are given it (a session
    start points an agent here): a credential in its text masked, with ``secret_masked``, and
    its file named on stderr; ``tether show ID`` shows it as written."""
    from recall.agent_text import for_agent, masked_file, record_for_agent

    stores = ctx.stores(args.scope)
    ctx.say_if_not_set_up(stores)  # an empty list then says `tether init` comes first
    items = pending(stores)
    total = len(items)
    if args.limit is not None:
        items = items[: args.limit]
    for memory, scope in items:
        masked_file(stores, scope, memory, ctx.notice)
    data = [{**record_for_agent(m), "scope": scope} for m, scope in items]
    items = [(for_agent(m), scope) for m, scope in items]
    title = plural(total, "pending memory")
    if len(items) < total:
        title = f"{len(items)} of {title}; --limit {args.limit}"

    def render(console: Any) -> None:
        if not items:
            console.print("No memories are pending review.")
            return
        print_table(console, items, title=title)
        if not sys.stdout.isatty():  # piped: the records alone
            return
        console.print(
            "`tether show ID` reads one; `tether pending confirm ID...` keeps them, "
            "`tether pending drop ID...` deletes them",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    ctx.emit(data, render)
    return 0 if items else 1


def purge_auto_distilled(store: MemoryStore, ctx: CommandContext, *, yes: bool) -> int:
    """``tether purge --auto-distilled``: list every auto-distilled memory (pending, confirmed,
    dropped), ask, then remove their files for good; ``--yes`` answers for scripts."""
    doomed = [(m, store.scope) for m in store.list(status="all") if m.source == SOURCE]
    if not doomed:
        raise NothingToDo(f"no auto-distilled memories in the {store.scope} store")
    ids = " ".join(m.id for m, _ in doomed)
    if not yes:
        if ctx.json or not sys.stdin.isatty():
            raise BadInput(
                f"{plural(len(doomed), 'auto-distilled memory')} would be removed for good "
                f"({ids}); pass --yes to confirm"
            )
        console = ctx.console()
        print_table(console, doomed, title=f"{plural(len(doomed), 'auto-distilled memory')}")
        if not confirm(purge_question(len(doomed))):
            console.print("Nothing removed.")
            return 1
    from recall.lifecycle.links import keep_purged_known

    kept = keep_purged_known(store, [m.id for m, _ in doomed], ctx.stores("all"), ctx.notice)
    removed = store.purge(source=SOURCE)
    from recall.agent_text import record_for_agent  # a credential in a gone file, masked

    gone = [{**record_for_agent(m), "scope": scope} for m, scope in doomed if m.id in removed]
    ctx.emit(
        {"purged": removed, "memories": gone, "kept_superseded": kept},
        lambda c: c.print(
            f"Purged {plural(len(removed), 'auto-distilled memory')}: {' '.join(removed)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        ),
    )
    return 0 if removed else 1


def purge_question(count: int) -> str:
    """What ``purge`` asks before removing ``count`` memory files for good."""
    these = "this memory file" if count == 1 else f"these {count} memory files"
    return f"Remove {these} for good? [y/N] "


def confirm(question: str) -> bool:
    """Ask ``question`` on the terminal; only y or yes is a yes. End of input (Ctrl-D) is a
    no, said on a line of its own."""
    try:
        answer = input(question)
    except EOFError:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def _not_pending(store: MemoryStore, memory: Memory, action: str) -> str:
    """Why ``memory`` cannot be confirmed or dropped (``action``) as a pending one, and what
    brings it where the person seems to want it."""
    from recall.lifecycle.references import with_lifecycle_keys
    from recall.store.changes import DELETED_FROM_KEY

    said = f"memory {memory.id} is {memory.status}, not pending"
    if memory.status == "active":
        return f"{said}: it is in recall already" + (
            "" if action == "confirm" else f" (`tether archive {memory.id}` takes it out)"
        )
    if with_lifecycle_keys(store, memory).extra.get(DELETED_FROM_KEY) == "pending":
        back = f"`tether restore {memory.id}` brings it back to pending review"
        if action == "drop":
            return f"{said}: it was dropped already; {back}"
        return f"{said}: it was dropped; {back}, then `tether pending confirm {memory.id}`"
    return f"{said}; `tether restore {memory.id}` brings it back"
