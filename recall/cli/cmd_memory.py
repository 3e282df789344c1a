"""Commands that write or read one memory: init, remember and show (listing is in
:mod:`recall.cli.cmd_listing`, state changes in :mod:`recall.cli.cmd_state`)."""

from __future__ import annotations

import argparse
from typing import Any

from recall.anchors.guards import check_guard
from recall.anchors.suggest import anchor_fields
from recall.anchors.symbols import SEPARATOR, split_anchor_options
from recall.anchors.write import bare_name_anchor, record_anchors, refuse_separator_files
from recall.card_facts import card_facts
from recall.cli.context import CommandContext
from recall.cli.maint_messages import drift_message
from recall.cli.render import ID_HELP, paths_option, print_card
from recall.display import visible
from recall.errors import BadInput, MalformedMemory
from recall.ignored_store import PRIVATE_SETTING, IgnoredMemories
from recall.known_paths import is_git
from recall.lifecycle.disuse import archived_by_disuse, seen_state
from recall.lifecycle.references import with_given_files
from recall.locations import PROJECT, Location, ensure_created
from recall.model import CATEGORIES, Memory
from recall.named_files import check_named_files
from recall.paths import refuse_spaced_new
from recall.per_user_ignored import Unignored, add_missing, unignored
from recall.policy.usage import counters, record_action
from recall.private_store import memory_files_in_git
from recall.read_as import ReadAs
from recall.repo import git_user_name
from recall.same_summary import refuse_same_summary, supersede_command
from recall.secret_lines import lines_of
from recall.std_streams import stdin_text
from recall.store import MemoryStore
from recall.text_checks import check_text, refuse_blank_details


def add_write_options(
    parser: argparse.ArgumentParser, *, file_required: bool, category_kept: bool = False
) -> None:
    """The options of a command that writes a memory (remember, supersede; ``category_kept``:
    the category may be left out, to keep the one of the memory replaced)."""
    parser.add_argument("summary", help="one-line summary of the knowledge")
    parser.add_argument("--details", help="the longer explanation; '-' reads it from stdin")
    parser.add_argument(
        "--category",
        "-c",
        choices=CATEGORIES,
        required=not category_kept,
        help=f"{', '.join(CATEGORIES[:-1])} or {CATEGORIES[-1]} (an approach tried before and "
        "rejected): what kind of knowledge it is"
        + (" (default: the old memory's)" if category_kept else ""),
    )
    paths_option(
        parser,
        "--file",
        "-f",
        dest="files",
        required=file_required,
        help="a file the memory is about (repeatable)",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="name a --file that is not in the repository's files nor its history (a file to come)",
    )
    parser.add_argument(
        "--anchor",
        action="append",
        default=[],
        metavar="PATH::NAME",
        help="a symbol the memory is about, as path::name (repeatable; it follows the code "
        "when it moves); or, with one --file, a symbol name it defines (recorded as "
        "FILE::NAME) or a line range inside it",
    )
    parser.add_argument("--pin", action="store_true", help="pin it: ranks higher, never decays")
    parser.add_argument(
        "--guard",
        action="store_true",
        help="a decision or gotcha edits must not break by accident: an agent's edit under it "
        "asks you first, and `tether check` fails until it is confirmed",
    )
    parser.add_argument("--global", dest="global_", action="store_true", help="user-wide store")
    parser.add_argument("--author", help="who wrote it (default: git config user.name)")
    parser.add_argument(
        "--source", choices=("user", "agent"), default="user", help="who is writing"
    )
    parser.add_argument(
        "--allow-secret",
        action="store_true",
        help="write it even though it contains text shaped like a credential",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the single-memory commands to the CLI."""
    p = sub.add_parser("init", help="create .tether/ in this repository")
    p.set_defaults(func=run_init)

    p = sub.add_parser("remember", help="write a memory about one or more files")
    add_write_options(p, file_required=False)
    p.set_defaults(func=run_remember)

    p = sub.add_parser("show", help="the full card of a memory (counts as acting on it)")
    p.add_argument("id", help=ID_HELP)
    p.set_defaults(func=run_show)


def _read_details(value: str | None) -> str | None:
    if value == "-":
        read = stdin_text()
        refuse_blank_details(read, "--details", given=" (read from stdin)")
        return read
    refuse_blank_details(value, "--details")
    return value


def _author(value: str) -> str:
    """``--author`` as given, refused when blank: a memory always names who wrote it."""
    if not value.strip():
        raise BadInput(
            "--author is empty: give the name of who wrote the memory, or leave --author out "
            "for your git config user.name"
        )
    return check_text(value, "--author") or value


def memory_draft(
    args: argparse.Namespace,
    ctx: CommandContext,
    store: MemoryStore,
    anchor_notes: list[str] | None = None,
) -> Memory:
    """The memory the write options describe, checked and ready for ``store`` (paths the
    repository never had are refused unless ``--allow-missing``); each note about an
    ``--anchor`` is said, and added to ``anchor_notes`` when given (for ``--json``)."""
    said = anchor_notes if anchor_notes is not None else []
    legacy, symbols = split_anchor_options(
        [check_text(value, "--anchor") or "" for value in args.anchor]
    )
    symbols = [
        (store.normalize_input(path, ctx.cwd, names="a file", label="--anchor"), name)
        for path, name in symbols
    ]
    files = [store.normalize_input(raw, ctx.cwd, names="a file") for raw in args.files]
    for raw, path in zip(args.files, files, strict=True):
        refuse_spaced_new(raw, path, store.repo_root, label="--file")
    files += [path for path, _ in symbols if path not in files]  # the memory is about them
    if legacy is not None and SEPARATOR in legacy:  # ``we::ird.py::f``: its path reads as "we"
        _refuse_separator_legacy(store, ctx, legacy)
    if legacy is not None and not files:
        raise BadInput(
            f"--anchor {legacy!r} names a symbol or line range inside the memory's file, but "
            "the memory names no file: give the file with --file PATH (a whole file needs "
            "--file alone), or the symbol as --anchor PATH::NAME"
        )
    bare_note = None
    if legacy is not None:  # a name inside the one file given is a symbol that follows it
        pair, bare_note = bare_name_anchor(store.repo_root, files[: len(args.files)], legacy)
        if pair is not None:
            legacy = None
            symbols.append(pair)
    refuse_separator_files(store.repo_root, symbols)
    # checked (and scanned for credentials) before a notice about its files repeats a name
    draft = store.prepare_memory(
        summary=args.summary,
        category=args.category,
        files=files,
        details=_read_details(args.details),
        pinned=args.pin,
        anchor=legacy,
        author=(
            _author(args.author) if args.author is not None else git_user_name(store.repo_root)
        ),
        source=args.source,
        allow_secret=args.allow_secret,
        symbols=[f"{path}::{name}" for path, name in symbols],
    )
    if bare_note:
        ctx.notice(bare_note)
        said.append(bare_note)
    named = [(path, "--file") for path in files[: len(args.files)]]
    named += [(path, "--anchor") for path, _ in symbols]
    for note in check_named_files(
        store, named, allow_missing=args.allow_missing, let_through="--allow-missing", cwd=ctx.cwd
    ):
        ctx.notice(note)
    anchors, notes = record_anchors(store.repo_root, symbols)
    for note in notes:
        ctx.notice(note)
    said += notes
    guard = check_guard(
        args.guard, args.category, covers=bool(draft.files or anchors), scope=store.scope
    )
    if anchors or guard:
        draft = draft.with_changes(anchors=anchors, guard=guard)
    return with_given_files(draft, files[: len(args.files)])  # kept by a repoint: see the key


def _refuse_separator_legacy(store: MemoryStore, ctx: CommandContext, legacy: str) -> None:
    """Refuse a bare ``--anchor`` that is an anchor into a file whose name holds ``::``
    (``we::ird.py::f`` reads as path ``we``, so it was not taken as ``PATH::NAME``)."""
    path, _, name = legacy.strip().partition(SEPARATOR)
    try:
        path = store.normalize_input(path.strip(), ctx.cwd)
    except BadInput:
        return  # not a path at all: a name inside the file, such as C++'s ``Foo::bar``
    refuse_separator_files(store.repo_root, [(path, name.strip())])


def write_store(args: argparse.Namespace, ctx: CommandContext) -> MemoryStore:
    """The store a write goes to: the global one with ``--global``, else the project's."""
    return ctx.global_store() if args.global_ else ctx.project(create=False)


def run_init(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Create the project store."""
    store = ctx.project(create=True)
    made = ensure_created(store.location)
    created = made is not None
    in_git = store.repo_root is None or is_git(store.repo_root)
    if not in_git:
        ctx.notice(
            f"{store.repo_root} is not in a git repository: memories work, but without "
            "history (co-change, renames, deleted files) or review in pull requests; "
            "run `git init` there first if you want those"
        )
    data: dict[str, Any] = {"created": created, "path": str(store.location.base)}
    moved = made.rules_in_exclude if made is not None else None
    if moved is not None:
        data["ignore_rules"] = moved.to_dict()
        ctx.notice(moved.message())
    found = memory_files_in_git(store.location, ctx.notice) if created and in_git else None
    if found is not None:
        data["git_ignored" if isinstance(found, IgnoredMemories) else "not_private"] = (
            found.to_dict()
        )
    private = isinstance(found, IgnoredMemories) and found.intended
    memories = (
        f"memories/ stays private to this clone, as {PRIVATE_SETTING} says;"
        if private
        else "commit memories/,"
    )
    per_user = per_user_rules(store.location) if in_git else None
    if per_user is not None:
        data["per_user_ignored"] = per_user.to_dict()
    index = (
        "git would commit the index: see below"
        if per_user and per_user.problem
        else ("the index stays out of git")
    )
    ctx.emit(
        data,
        lambda c: c.print(
            f"{'Created' if created else 'Already set up:'} {store.location.base} "
            f"({memories} {index})",
            markup=False,  # a path is not markup, and a wrapped path cannot be copied
            soft_wrap=True,
        ),
    )
    if found is not None:  # "commit memories/" would not happen, or would though private
        ctx.notice(found.message())
    if per_user is not None:
        ctx.notice(per_user.message())
    return 0


def per_user_rules(location: Location) -> Unignored | None:
    """The store's per-user files git would commit after ``init`` added the rules it could
    (:mod:`recall.per_user_ignored`); None when git ignores them all."""
    found = unignored(location)
    return add_missing(location, found) if found is not None else None


def run_remember(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Write a new memory, or report the existing one holding the same knowledge."""
    store = write_store(args, ctx)
    fresh = store.scope == PROJECT and not store.exists
    anchor_notes: list[str] = []
    draft = memory_draft(args, ctx, store, anchor_notes)
    if store.exists:
        refuse_summary_held(store, draft)
    result = store.remember(draft)
    if fresh and result.duplicate_of is None:
        ctx.say_created(store)
    if store.scope == PROJECT and result.duplicate_of is None and not draft.files:
        ctx.notice(
            f"{result.id} names no file: it is the whole repository's, recalled by its words "
            f"alone, never for a file; to tie it to files, list them under files: in "
            f"{result.path} (or give -f PATH next time)"
        )

    def render(console) -> None:
        if result.duplicate_of:
            if result.not_on_it:
                console.print(f"Already known: {result.note()}", markup=False, soft_wrap=True)
            else:
                console.print(
                    f"Already known as {result.id} ({result.duplicate_status}); nothing written."
                    + _how_to_bring_back(store, result.id, result.duplicate_status),
                    markup=False,
                    soft_wrap=True,
                )
            if result.duplicate_status == "pending":
                console.print(f"It awaits review: `tether pending confirm {result.id}` keeps it.")
        else:
            console.print(f"Remembered {result.id} in {result.path}", markup=False, soft_wrap=True)

    data = {**result.to_dict(), **anchor_fields(anchor_notes)}
    ctx.emit(data, render)
    return 0


def _how_to_bring_back(store: MemoryStore, memory_id: str, status: str | None) -> str:
    """For a duplicate that is out of recall, the command that brings it back."""
    if status == "superseded":
        memory = store.find(memory_id)
        by = f" by {memory.superseded_by}" if memory and memory.superseded_by else ""
        return f" It was replaced{by}; `tether restore {memory_id}` brings it back."
    if status == "archived":
        return f" It is archived; `tether restore {memory_id}` brings it back."
    return ""


def refuse_summary_held(store: MemoryStore, draft: Memory, other_than: str | None = None) -> None:
    """Refuse a memory whose summary another already has (:mod:`recall.same_summary`), but for
    ``other_than``: the memory a supersede replaces."""
    refuse_same_summary(store.conn, draft, supersede_command, other_than=other_than)


def run_show(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Print one memory's full card and count it as acted on."""
    store, memory = ctx.find_memory(args.id)
    if store.exists:
        record_action(store.conn, memory.id)
    usage = counters(store.conn, memory.id)
    path = str(store.path_of(memory.id))
    facts = card_facts(store, memory, notice=ctx.notice)
    former, moved, states, spot = facts.former_files, facts.files_now, facts.states, facts.spot
    data = {**memory.to_dict(), "scope": store.scope, "path": path, "usage": usage}
    data.update(facts.fields())
    hidden = archived_by_disuse(store.conn) if store.exists else {}
    data.update(seen_state(memory, hidden))  # as `tether list` says it

    def render(console) -> None:
        print_card(
            console, memory, scope=store.scope, path=path, usage=usage, disuse=memory.id in hidden
        )
        if memory.id in hidden:
            when = f" on {hidden[memory.id]}" if hidden[memory.id] else ""
            line = (
                f"archived by disuse{when}: hidden from your recall, file unchanged "
                f"(`tether restore {memory.id}` brings it back)"
            )
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        if former:
            line = f"formerly: {', '.join(map(str, former))}"
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        for name, now in moved.items():
            line = f"file {name}: {now}"
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        if any(now.startswith("renamed to") for now in moved.values()):
            line = f"`tether repoint {memory.id} --apply` writes the new names into its file"
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        for state in states:
            line = f"symbol {state.describe()}{state.renamed_fix(memory.id)}"
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        if spot is not None:
            line = drift_message(spot)
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)

    ctx.emit(data, render)
    for retyped in _retyped(store, memory.id):  # said, as the card shows what Tether read
        ctx.notice(f"{path}:{retyped.line}: {retyped.note()}")
    if memory.holds_secret:  # shown as written: the person's own file, and theirs to fix
        for found in lines_of(store, memory.id):
            ctx.notice(found.message(shown_here=True))
    return 0


def _retyped(store: MemoryStore, memory_id: str) -> list[ReadAs]:
    """The values of a memory's file that YAML reads as other than their text; none when the
    file cannot be read again now (the card shows what the index holds)."""
    from recall.read_as import retyped  # YAML: only for a file it may tell of

    try:
        return retyped(store.text_of(memory_id)[0])
    except MalformedMemory:
        return []
