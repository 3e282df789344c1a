"""``tether index``, ``tether neighbours`` and ``tether fanin``: the genome on the command line."""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.cli.render import positive, write_records
from recall.display import visible
from recall.errors import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    BadInput,
    NotFound,
    StoreBusy,
    StoreUnavailable,
)
from recall.genome import Genome, IndexSummary
from recall.index.bookkeeping import waiting_at_most
from recall.index.db import is_busy
from recall.locations import ensure_created
from recall.paths import is_inside, normalize
from recall.store.busy import busy_message

if TYPE_CHECKING:
    from rich.console import Console

    from recall.cli.context import CommandContext

# Neighbours listed when --limit is not given: a screenful, well past the ranker's two.
DEFAULT_NEIGHBOURS = 10

# The refresh's mode when git could not read the repository and nothing was written: the only
# one that fails `tether index` (exit 3); an empty repository, a shallow clone, a detached HEAD
# or a folder without git give fewer signals, but a code map, and exit 0.
FAILED = "failed"

PHASE_LABELS = {
    "probe": "find repository",
    "history": "read history",
    "tree": "list files, scan imports (beside history)",
    "symbols": "parse definitions (after the tree, beside history)",
    "write": "write index",
    "total": "total",
}


def register(subparsers: Any) -> None:
    """Add ``index``, ``neighbours`` and ``fanin`` to the CLI's subcommands."""
    index = subparsers.add_parser(
        "index",
        help="refresh the genome: co-change, renames, existence and import fan-in",
        description="Read new git history and changed files into the genome cache.",
    )
    index.add_argument(
        "--full", action="store_true", help="rebuild from scratch instead of incrementally"
    )
    index.set_defaults(func=run_index)

    neighbours = _path_command(
        subparsers,
        "neighbours",
        "files that historically change together with a file",
        "Files that changed in the same commits as PATH, strongest first.",
    )
    neighbours.add_argument(
        "--limit",
        type=positive,
        default=DEFAULT_NEIGHBOURS,
        metavar="N",
        help=f"list at most N files (default {DEFAULT_NEIGHBOURS})",
    )
    neighbours.set_defaults(func=run_neighbours)

    fanin = _path_command(
        subparsers,
        "fanin",
        "how many files import a file",
        "The number of repository files that import PATH.",
    )
    fanin.set_defaults(func=run_fanin)


def _path_command(subparsers: Any, name: str, summary: str, description: str) -> Any:
    """A subcommand asking about one file of the repository (its PATH argument)."""
    command = subparsers.add_parser(name, help=summary, description=description)
    command.add_argument("path", metavar="PATH", help="a file of the repository")
    return command


def _repo_path(raw: str, root: Path, cwd: Path) -> str:
    """``raw`` as a path of the repository, or BadInput saying the index knows no other files."""
    if not raw.startswith("file:"):
        where = os.path.realpath(os.path.join(cwd, raw))
        if not is_inside(where, os.path.realpath(root)):
            raise BadInput(
                f"PATH {raw!r} is outside the repository {root}; "
                "the index knows only the repository's own files"
            )
    return normalize(raw, root, cwd, label="PATH")


def _genome(ctx: CommandContext) -> tuple[Genome, Path]:
    project = ctx.project()
    if project.repo_root is None:
        raise NotFound("no repository here; run tether inside a git repository")
    return Genome(project.repo_root, project.conn), project.repo_root


def _fresh_genome(ctx: CommandContext) -> tuple[Genome, Path]:
    genome, root = _genome(ctx)
    if genome.is_stale():
        summary = _refreshed(genome, ctx)
        for message in summary.notices:
            ctx.notice(message)
    return genome, root


def _refreshed(genome: Genome, ctx: CommandContext, *, full: bool = False) -> IndexSummary:
    """``genome`` brought up to date, waiting for another writer of the index as a write
    does (the CLI's stores read with the hooks' short wait); past that wait, a
    :class:`StoreBusy` naming the store (nothing was written)."""
    try:
        waited = waiting_at_most(genome.conn, max(int(ctx.write_wait * 1000), 1))
        with waited, ctx.progress() as update:
            return genome.refresh(full=full, progress=update)
    except sqlite3.OperationalError as error:
        if not is_busy(error):
            raise
        raise StoreBusy(busy_message([ctx.project()], waited=ctx.write_wait)) from None


def run_index(args: argparse.Namespace, ctx: CommandContext) -> int:
    """``tether index [--full]``: refresh the genome and print what was read. A repository
    without a store gets one first (as ``tether init`` makes it): the genome lives in the
    store's index, and one built into nothing would be thrown away."""
    project = ctx.project()
    if project.repo_root is not None and not project.exists:
        try:
            made = ensure_created(project.location)
        except OSError as error:
            raise StoreUnavailable(
                f"cannot set up {project.location.base} to keep the code map in "
                f"({error.strerror}); run `tether index` where the repository can be written"
            ) from None
        ctx.notice(
            f"set up {project.location.base} to keep the code map in (commit its memories/ "
            "folder; the index stays out of git)"
        )
        if made is not None and made.rules_in_exclude is not None:
            ctx.notice(made.rules_in_exclude.message())
    project.require_writable()  # the genome lives in the index: read-only means refused
    genome, root = _genome(ctx)
    summary = _refreshed(genome, ctx, full=args.full)
    if summary.mode == FAILED:
        raise StoreUnavailable(
            f"{root}: {'; '.join(summary.notices)}; fix what `git status` says there, then run "
            "`tether index` again"
        )
    # The memory files checked once more, now that a folder written just before (an import)
    # has had the refresh's time to settle: the index keeps its listing for the next recall.
    # Only a head start for that recall, which syncs anyway: a busy or unavailable store here
    # must not fail a command whose genome is already written.
    with contextlib.suppress(sqlite3.Error, OSError, StoreUnavailable):
        ctx.project().refresh()
    for message in summary.notices:
        ctx.notice(message)
    for message in summary.symbol_fallbacks:
        ctx.notice(f"{message}: its symbols come from the regex finder")
    ctx.emit(summary.to_dict(), lambda console: _render_summary(console, summary))
    return EXIT_OK


def _render_summary(console: Console, summary: IndexSummary) -> None:
    from rich.table import Table

    table = Table(title=f"genome ({summary.mode})", show_header=False, box=None)
    table.add_column(style="bold", overflow="fold")  # wrapped, as every table's cells are
    table.add_column(justify="right", overflow="fold")
    skipped = sum(summary.files_skipped.values())
    detail = ", ".join(f"{n} {kind}" for kind, n in summary.files_skipped.items() if n)
    rows = [
        ("commits read", f"{summary.commits_read:,}"),
        ("skipped as too large", f"{summary.commits_skipped_large:,}"),
        ("co-change pairs kept", f"{summary.cochange_pairs:,}"),
        ("renames", f"{summary.renames:,}"),
        ("files in the tree", f"{summary.files_tracked:,}"),
        ("files scanned for imports", f"{summary.files_scanned:,}"),
        ("scans reused from cache", f"{summary.files_cached:,}"),
        ("files skipped", f"{skipped:,}" + (f" ({detail})" if detail else "")),
        ("import edges", f"{summary.import_edges:,}"),
        ("files parsed for symbols", f"{summary.symbol_files_parsed:,}"),
        ("symbol parses reused", f"{summary.symbol_files_reused:,}"),
    ]
    for label, value in rows:
        table.add_row(label, value)
    for phase, label in PHASE_LABELS.items():
        if phase in summary.elapsed_ms:
            table.add_row(f"elapsed: {label}", f"{summary.elapsed_ms[phase]:,.0f} ms")
    console.print(table)


def run_neighbours(args: argparse.Namespace, ctx: CommandContext) -> int:
    """``tether neighbours PATH [--limit N]``: co-change neighbours of a file."""
    genome, root = _fresh_genome(ctx)
    path = _repo_path(args.path, root, ctx.cwd)
    found = genome.neighbours(path, args.limit)
    now = None if found else _renamed_to(genome, path)
    unknown = None if found or now else _not_a_file(root, path, "neighbours", ctx.cwd)
    data: dict[str, Any] = {"path": path, "neighbours": [n.to_dict() for n in found]}
    if now is not None:
        data["renamed_to"] = now
    if unknown is not None:
        data["notes"] = [unknown]

    def render(console: Console) -> None:
        """The neighbours as a table on a terminal (piped: one tab-separated line each, file,
        commits together, commits of the file, confidence), or a line saying there are none
        (or that no file of the repository has the name)."""
        if not found:
            shown = _as_typed(root, ctx.cwd, path)
            said = unknown or f"no co-change neighbours recorded for {shown}"
            _say_missing(console, said, "neighbours", _as_typed(root, ctx.cwd, now))
            return
        if not sys.stdout.isatty():
            write_records(
                (n.path, str(n.support), str(n.commits_of_path), f"{n.confidence:.2f}")
                for n in found
            )
            return
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(visible(f"changes together with {path}")))
        # A path too long for its column wraps, as `tether list` wraps one: cut short, two
        # files of one folder would show as the same row.
        table.add_column("file", overflow="fold")
        table.add_column("together", justify="right", no_wrap=True)
        table.add_column("confidence", justify="right", no_wrap=True)
        for item in found:
            table.add_row(
                Text(visible(item.path)),
                f"{item.support} of {item.commits_of_path}",
                f"{item.confidence:.0%}",
            )
        console.print(table)

    verdict = EXIT_OK if found else EXIT_NOT_FOUND
    ctx.emit(data, render, verdict=verdict)
    return verdict


def _say_missing(console: Console, said: str, command: str, now: str | None) -> None:
    """One line saying a file has nothing to show, with the command for its current name when
    git shows it renamed to ``now``; a path's line breaks escaped, nothing read as markup. Piped,
    it goes to standard error, as ``tether recall`` says it finds nothing: a script reading the
    rows must not read the sentence as one."""
    hint = f"; git shows it renamed to {now}: `tether {command} {now}`" if now else ""
    if not sys.stdout.isatty():
        sys.stderr.write(visible(said + hint) + "\n")
        return
    console.print(visible(said + hint), soft_wrap=True, markup=False, highlight=False)


def _as_typed(root: Path, cwd: Path, path: str | None) -> str | None:
    """``path`` (of the repository) as it is typed from ``cwd``, where the command was given
    its path (:func:`recall.known_paths.typed_from`): a command offered must work there."""
    from recall.known_paths import typed_from

    return None if path is None else typed_from(root, cwd)(path)


def _not_a_file(root: Path, path: str, command: str, cwd: Path) -> str | None:
    """What to say of ``path`` when no file of the repository answers to it, as ``tether
    recall`` and ``tether list --file`` say it (:mod:`recall.known_paths`): a folder, with a
    few of its files, or a name neither on disk nor tracked, with the closest names. None for
    a file on disk or tracked by git."""
    from recall.known_paths import folder_lines, missing_notes  # git: for such a path only

    advice = f"`tether {command}` takes one of its files"
    said = folder_lines(root, [path], label="PATH", advice=advice, cwd=cwd) or missing_notes(
        root, [path], cwd=cwd
    )
    return said[0] if said else None


def _renamed_to(genome: Genome, path: str) -> str | None:
    """The name the file renamed away from ``path`` has now, when the genome knows one and a
    file has it."""
    now = genome.renamed_to(path)
    return now if now and now != path and genome.exists(now) else None


def run_fanin(args: argparse.Namespace, ctx: CommandContext) -> int:
    """``tether fanin PATH``: how many files of the repository import a file."""
    genome, root = _fresh_genome(ctx)
    path = _repo_path(args.path, root, ctx.cwd)
    exists = genome.exists(path)
    count = genome.fan_in(path) if exists else 0
    now = None if exists else _renamed_to(genome, path)
    unknown = None if exists or now else _not_a_file(root, path, "fanin", ctx.cwd)
    data: dict[str, Any] = {"path": path, "exists": exists, "fan_in": count}
    if now is not None:
        data["renamed_to"] = now
    if unknown is not None:
        data["notes"] = [unknown]

    def render(console: Console) -> None:
        """One sentence with the count."""
        if not exists:
            said = unknown or f"{_as_typed(root, ctx.cwd, path)} is not a file of the working tree"
            _say_missing(console, said, "fanin", _as_typed(root, ctx.cwd, now))
        else:
            noun = "file imports" if count == 1 else "files import"
            console.print(visible(f"{count} {noun} {path}"), markup=False, highlight=False)

    verdict = EXIT_OK if exists else EXIT_NOT_FOUND
    ctx.emit(data, render, verdict=verdict)
    return verdict
