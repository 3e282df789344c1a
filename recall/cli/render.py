"""Human-readable renderings of memories: the card and the table.

A memory's one-line fields are passed through :func:`recall.display.visible` here, so a line
break or control character in a memory file shows as its escape instead of starting a line or
acting on the terminal (the console escapes the rest: :mod:`recall.cli.terminal`)."""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from recall.display import CATEGORY_STYLE, plural, visible
from recall.model import Memory

if TYPE_CHECKING:
    from rich.console import Console

ID_HELP = "a memory id, or a unique prefix of at least 4 characters"


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (for ``--limit``)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def paths_option(parser: Any, *flags: str, dest: str, help: str, required: bool = False) -> None:
    """A repeatable option naming a file, given once per file (``-f a.py -f b.py``)."""
    parser.add_argument(
        *flags,
        dest=dest,
        action="append",
        default=[],
        required=required,
        metavar="PATH",
        help=help,
    )


def scope_option(parser: Any, default: str = "all") -> None:
    """The ``--scope`` option of commands that read memories, with its help."""
    parser.add_argument(
        "--scope",
        choices=("project", "global", "all"),
        default=default,
        help=f"the repository's memories, the user-wide ones, or both (default {default})",
    )


def badges(memory: Memory, *, disuse: bool = False) -> str:
    """Short markers for pinned, guarded and non-active status (``disuse``: archived by disuse)."""
    marks = []
    if memory.pinned:
        marks.append("pinned")
    if memory.guard:
        marks.append("guarded")
    if disuse and memory.status == "active":
        marks.append("archived by disuse")
    elif memory.status != "active":
        marks.append(memory.status)
    return ", ".join(marks)


def print_card(
    console: Console, memory: Memory, *, scope: str, path: str, usage: dict, disuse: bool = False
) -> None:
    """The full card of one memory (``disuse``: this user's disuse archived it, so its head
    says so as ``tether list`` does)."""
    from rich.markup import escape

    def line(text: str) -> str:  # a one-line field: escaped onto its line, never read as markup
        return escape(visible(text))

    style = CATEGORY_STYLE.get(memory.category, "")
    head = f"[{style}]\\[{memory.category}][/{style}] [bold]{memory.id}[/bold]"
    if badges(memory, disuse=disuse):
        head += f" ({badges(memory, disuse=disuse)})"
    console.print(head)
    console.print(line(memory.summary))
    if memory.details:
        console.print()
        console.print(escape(memory.details))
    console.print()
    console.print(f"files:    {line(', '.join(memory.files)) or '(none)'}")
    if memory.anchor:
        console.print(f"anchor:   {line(memory.anchor)}")
    if memory.supersedes:
        console.print(f"replaces: {memory.supersedes}")
    if memory.superseded_by:
        console.print(f"replaced by: {memory.superseded_by}")
    author = line(memory.author) or "unknown"
    console.print(f"created:  {line(memory.created)} by {author} ({memory.source})")
    console.print(f"scope:    {scope}  file: {line(path)}")
    shown = plural(usage["surfaced"], "time")
    console.print(f"shown {shown}, acted on {plural(usage['acted'], 'time')}")


def write_records(records: Iterable[Sequence[str]]) -> None:
    """Write each record as one line of tab-separated fields on stdout: what listings print when
    stdout is not a terminal, so ``grep``, ``cut`` and ``wc -l`` see whole records: a tab,
    line break or other control character in a field is written as its escape."""
    for fields in records:
        sys.stdout.write("\t".join(map(visible, fields)) + "\n")


NARROW_COLUMNS = 80
"""Below this width a memory table leaves its summary and files a dozen characters each
(the id, category, scope and marks columns and the frame take about 47), one word per line:
each memory is printed as a block of lines instead."""


def _print_stacked(
    console: Console,
    items: Sequence[tuple[Memory, str]],
    *,
    title: str,
    archived_by_disuse: Collection[tuple[str, str]],
) -> None:
    """The memories of a table for a narrow terminal: a heading line (id, category, scope,
    marks), then the summary and the files below it, each wrapped to the terminal's width."""
    from rich.padding import Padding
    from rich.text import Text

    console.print(title, markup=False, highlight=False)
    for memory, scope in items:
        marks = badges(memory, disuse=(memory.id, scope) in archived_by_disuse)
        head = Text(f"{memory.id}  ")
        head.append(memory.category, style=CATEGORY_STYLE.get(memory.category, ""))
        head.append(f"  {scope}" + (f"  ({marks})" if marks else ""))
        console.print(head)
        summary = Padding(Text(visible(memory.summary), overflow="fold"), (0, 0, 0, 2))
        console.print(summary, soft_wrap=False)  # indented under its heading, as a table is
        if memory.files:
            files = Text("files: " + visible(", ".join(memory.files)), overflow="fold")
            console.print(Padding(files, (0, 0, 0, 2)), soft_wrap=False)


def print_table(
    console: Console,
    items: Sequence[tuple[Memory, str]],
    *,
    title: str,
    archived_by_disuse: Collection[tuple[str, str]] = (),
) -> None:
    """A table of memories with the scope each came from; ``archived_by_disuse`` holds the
    (id, scope) pairs to mark as archived by disuse.

    Only a terminal gets the table: piped or redirected, each memory is one line of
    tab-separated fields (id, category, summary, files, scope, marks) and no title, like git
    and ripgrep, so ``grep``, ``cut`` and ``wc -l`` see whole records.
    """
    from rich.markup import escape
    from rich.table import Table

    if not sys.stdout.isatty():
        write_records(
            (
                memory.id,
                memory.category,
                memory.summary,
                ", ".join(memory.files),
                scope,
                badges(memory, disuse=(memory.id, scope) in archived_by_disuse),
            )
            for memory, scope in items
        )
        return

    if not items:  # a title over an empty frame says less than the title alone
        console.print(title, markup=False, highlight=False)
        return
    if console.width < NARROW_COLUMNS:
        _print_stacked(console, items, title=title, archived_by_disuse=archived_by_disuse)
        return
    # The title may quote user text (a search query), so it is never read as markup.
    table = Table(title=escape(title), title_justify="left", show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("category", no_wrap=True)
    table.add_column("summary", overflow="fold")
    table.add_column("files", overflow="fold")
    table.add_column("scope", no_wrap=True)
    table.add_column("marks", no_wrap=True)
    for memory, scope in items:
        style = CATEGORY_STYLE.get(memory.category, "")
        table.add_row(
            memory.id,
            f"[{style}]{memory.category}[/{style}]",
            escape(visible(memory.summary)),
            escape(visible(", ".join(memory.files))),
            scope,
            badges(memory, disuse=(memory.id, scope) in archived_by_disuse),
        )
    console.print(table)
