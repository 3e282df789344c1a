"""Commands that move memories in and out in bulk: import and export."""

from __future__ import annotations

import argparse
import json
import sys

from recall.cli.context import CommandContext, json_text
from recall.cli.input_files import input_problem, open_input
from recall.cli.render import scope_option
from recall.display import LINE_BREAKS, plural, visible
from recall.errors import EXIT_FAILURE, BadInput, NotFound, NothingToDo
from recall.import_links import follow_moved_ids, note_dangling
from recall.import_scopes import by_scope, told_otherwise
from recall.importer import LineResult, import_lines
from recall.locations import GLOBAL, PROJECT, SCOPES, HomeUnusable, user_wide_unavailable
from recall.model import STATUSES
from recall.repo import find_root, git_user_name
from recall.std_streams import input_text, stdin_input_text
from recall.store import MemoryStore, not_on_it_note

IMPORT_INPUT = "a JSON Lines file of memories, one a line, as `tether export` writes them"
"""What ``tether import`` reads, as said when its FILE cannot be read."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add import and export to the CLI."""
    p = sub.add_parser("import", help="import memories from a JSON Lines file ('-' for stdin)")
    p.add_argument(
        "file", metavar="FILE", help="a JSON Lines file, one memory per line (as export writes)"
    )
    into = p.add_mutually_exclusive_group()
    into.add_argument(
        "--scope",
        choices=SCOPES,
        default=None,
        help="write every line to this store, whatever its 'scope' (default: each line to the "
        "store its 'scope' names, the project store when it names none)",
    )
    into.add_argument(
        "--global",
        dest="scope",
        action="store_const",
        const=GLOBAL,
        help="write every line to the user-wide store (--scope global)",
    )
    p.set_defaults(func=run_import)

    p = sub.add_parser("export", help="print memories as JSON Lines")
    p.add_argument(
        "--format", choices=("jsonl",), default="jsonl", help="JSON Lines, the only format"
    )
    scope_option(p, default="project")
    p.add_argument(
        "--status",
        choices=(*STATUSES, "all"),
        default="all",
        help="only memories in this state (default all)",
    )
    p.set_defaults(func=run_export)


def run_import(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Import a JSONL file, each line into the store its ``scope`` names unless ``--scope``
    names one for all; exit 2 when any line was rejected (the others are still imported)."""
    if args.file == "-":
        lines = stdin_input_text().split("\n")
    else:  # relative to -C, like every other path argument
        with open_input(ctx.cwd, args.file, IMPORT_INPUT, label="FILE") as handle:
            try:
                lines = input_text(handle.read()).split("\n")
            except OSError as error:  # a read that fails past the opening (an I/O error)
                raise BadInput(input_problem(args.file, error, IMPORT_INPUT)) from None
    if not any(line.strip() for line in lines):
        raise NothingToDo(f"{args.file}: nothing to import, the input holds no line")
    in_repository = find_root(ctx.cwd) is not None  # a project store to send lines to
    parts = {args.scope: lines} if args.scope else by_scope(lines, project=in_repository)
    stores = import_stores(parts, args, ctx, project=in_repository)  # before any is written
    results: list[LineResult] = []
    with ctx.progress() as update:
        for scope, part in parts.items():
            store = stores[scope]
            results += import_lines(
                store,
                part,
                lambda raw, store=store: store.normalize_input(
                    raw, store.repo_root or ctx.cwd, exact=True
                ),
                git_user_name(store.repo_root),
                update,
                taken_elsewhere=other_store_ids(scope, ctx),
            )
    results.sort(key=lambda result: result.line)
    check_links(results, stores, ctx)
    for store in stores.values():  # where a store set up on the way put its ignore rules
        ctx.say_set_up(store)
    created = sum(r.status == "created" for r in results)
    dupes = sum(r.status == "duplicate" for r in results)
    errors = [r for r in results if r.status == "error"]
    if ctx.json:  # one write: an import of 30,000 lines has as many results
        sys.stdout.write("".join(json.dumps(result.to_dict()) + "\n" for result in results))
    else:
        for result in errors:
            say = f"{args.file}:{result.line}: {result.error}"
            print(visible(say, keep=LINE_BREAKS), file=sys.stderr)
        for result in results:
            for line_note in result.notes:
                print(visible(f"{args.file}:{result.line}: {line_note}"), file=sys.stderr)
            if result.files_not_on_it or result.anchors_not_on_it or result.marks_not_on_it:
                memory_id = result.id or ""
                holder = stores[result.scope or PROJECT]
                note = not_on_it_note(
                    memory_id,
                    result.files_not_on_it,
                    holder.path_of(memory_id),
                    result.anchors_not_on_it,
                    result.marks_not_on_it,
                    result.duplicate_status,
                )
                print(visible(f"{args.file}:{result.line}: {note}"), file=sys.stderr)
        print(
            f"Imported {plural(created, 'memory')}, {dupes} already known, {len(errors)} rejected"
        )
        for line in scope_summary(results, stores, told=args.scope, project=in_repository):
            print(line)
        allowed = sum(r.allowed_secret and r.status != "error" for r in results)
        if allowed:
            print(
                'Taken past the credential scan, as their "allow_secret": true asks: '
                f"{plural(allowed, 'line')} (--json marks each)"
            )
        before = already_present(results)
        if before:
            print(
                f"{before} of them {'was' if before == 1 else 'were'} in the store before this "
                "run (imported earlier, or "
                "by an import that was stopped midway); none was written twice"
            )
        if created and PROJECT in stores and code_map_missing(stores[PROJECT]):
            print(
                "Next: `tether index` reads the repository's history once (the files that "
                "change together, renames, imports); until it has run, the first recall reads "
                "it itself, an agent's first prompt waiting on it"
            )
    return 2 if errors else 0


def import_stores(
    parts: dict[str, list[str]], args: argparse.Namespace, ctx: CommandContext, *, project: bool
) -> dict[str, MemoryStore]:
    """The store of each part of the import, all found before any is written. In a repository
    (``project``), a part for the global store with ``TETHER_HOME`` unusable here refuses the
    whole import (exit 2): no line is written, none silently dropped, and the lines held up
    and the way to import them all into the project's store are named."""
    reason = ctx.folder.unusable_home() if project and args.scope is None else None
    if reason is not None and GLOBAL in parts:
        held = sum(1 for line in parts[GLOBAL] if line.strip())
        raise HomeUnusable(
            f"{args.file}: nothing was imported: {plural(held, 'line')} of it "
            f"{'has' if held == 1 else 'have'} scope 'global', and "
            f"{user_wide_unavailable(reason)}; an import goes in whole or not at all: import "
            "it again once that is fixed, or with `--scope project` to put every line in this "
            "repository's store"
        )
    return {scope: ctx.store(scope) for scope in parts}


def other_store_ids(scope: str, ctx: CommandContext) -> set[str]:
    """The ids of the store other than ``scope``'s (read after an earlier part of the import
    wrote to it): none when it does not exist, outside a repository for the project's, or
    when ``TETHER_HOME`` cannot be used here for the global one (said)."""
    other = ctx.folder.global_if_usable() if scope == PROJECT else ctx.folder.project_if_any()
    return other.ids() if other is not None and other.exists else set()


def check_links(
    results: list[LineResult], stores: dict[str, MemoryStore], ctx: CommandContext
) -> None:
    """The supersede links of the written lines: one naming an id a line of the import asked
    for and did not get follows that line's memory, and one naming an id in neither store is
    noted (see :mod:`recall.import_links`)."""
    if not any(r.status == "created" and (r.supersedes or r.superseded_by) for r in results):
        return
    follow_moved_ids(results, stores)
    project = stores.get(PROJECT) or ctx.folder.project_if_any()
    known = (project, ctx.folder.global_if_usable())
    note_dangling(results, [store for store in known if store is not None])


def scope_summary(
    results: list[LineResult],
    stores: dict[str, MemoryStore],
    *,
    told: str | None,
    project: bool = True,
) -> list[str]:
    """What the summary says of the stores the lines went to: the global memories of an
    import that was not told a store (in a repository, ``project``: they are not its), or how
    many lines named the other scope than the store the import was told to write them all to."""
    if told is not None:
        elsewhere = sum(told_otherwise(r.notes) for r in results)
        if not elsewhere:
            return []
        other = PROJECT if told == GLOBAL else GLOBAL
        return [
            f"{plural(elsewhere, 'line')} with scope {other!r} imported into the {told} store, "
            f"as --scope {told} asks; without --scope or --global they go to the {other} store"
        ]
    went = sum(1 for r in results if r.scope == GLOBAL and r.status == "created")
    if not went:
        return []
    folder = stores[GLOBAL].location.memories_dir
    written = f"{plural(went, 'memory')} with scope 'global' written to the global store ({folder})"
    if not project:  # outside any repository there is no other store to offer
        return [written]
    return [
        f"{written}, not this repository's; `--scope project` imports every line into the "
        "project store"
    ]


def code_map_missing(store: MemoryStore) -> bool:
    """Whether the project store's repository was never indexed (``tether index``, the
    language server or an earlier recall): its first recall would read the whole history."""
    if store.scope != PROJECT or store.repo_root is None or not store.exists:
        return False
    from recall.genome.headref import find_git_dir
    from recall.genome.schema import read_state, schema_current

    if find_git_dir(store.repo_root) is None:
        return False
    return not (schema_current(store.conn) and read_state(store.conn))


def already_present(results: list[LineResult]) -> int:
    """How many lines were duplicates of memories in the store before this import (not of
    another line of the same file): what a re-run of an interrupted import finds done."""
    created = {r.id for r in results if r.status == "created"}
    return sum(r.status == "duplicate" and r.duplicate_of not in created for r in results)


def run_export(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Write every memory as one JSON object per line on stdout, with every key of its file's
    front matter (those the index does not keep are read from the file; see
    :mod:`recall.extra_keys`), and ``"allow_secret": true`` on the line of a memory the
    credential scan would refuse (:mod:`recall.export_secrets`). Exit 3 when the export is not
    whole: a file could not be read again for them, or a memory file cannot be loaded at all
    (each is named on stderr)."""
    from recall.export_secrets import allowance_note, credential_shapes
    from recall.extra_keys import anchor_notes, exported
    from recall.read_as import retyped
    from recall.stored_rules import AS_STORED_KEY, broken_rules, export_note

    count = 0
    stores = ctx.stores(args.scope)
    incomplete = ctx.say_skipped(stores) > 0
    ctx.say_if_not_set_up(stores)  # an empty export then says why
    for store in stores:
        for memory in store.list(status=args.status):
            record = memory.to_dict()
            record["scope"] = store.scope
            try:
                kept, written, path = store.extra_lines_of(memory.id, derived=True)
                extra, notes = exported(kept, written, path)
                notes += [found.export_note(path) for found in retyped(store.text_of(memory.id)[0])]
            except (BadInput, NotFound) as error:
                extra, incomplete = {}, True
                notes = [f"exported without the front matter only its file holds: {error}"]
            notes += anchor_notes(memory)
            record.update(extra)
            shapes = credential_shapes(memory, extra)
            if shapes:  # written past the scan: an import would refuse it otherwise
                record["allow_secret"] = True
                notes.append(allowance_note(shapes))
            broken = broken_rules(memory, scope=store.scope)
            if broken:  # written by hand past a write's rules: an import would refuse it
                record[AS_STORED_KEY] = True
                notes.append(export_note(broken, store.path_of(memory.id)))
            for note in notes:
                print(visible(f"tether: export: {memory.id}: {note}"), file=sys.stderr)
            sys.stdout.write(json_text(record) + "\n")
            count += 1
    if incomplete:
        return EXIT_FAILURE
    return 0 if count else 1
