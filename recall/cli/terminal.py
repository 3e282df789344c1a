"""The console the commands print to a person with: no text it is given reaches the terminal
with a control character in it.

Every string rich prints (a line, a table's cell or title) passes through
:meth:`rich.console.Console.render_str`, so that is where :func:`recall.display.visible` is
applied, once for every command. A line break or tab is kept, since a command may print several
lines at once; a field that must stay on one line is escaped by its printer
(:mod:`recall.cli.render`). A :class:`rich.text.Text` is printed as it is: build it from text
made visible first.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from recall.display import LINE_BREAKS, visible


class ShownConsole(Console):
    """A rich console that writes each control character of the text it prints as its escape."""

    def render_str(self, text: str, **options: Any) -> Text:
        """The text made visible (see :func:`recall.display.visible`), then rendered by rich."""
        return super().render_str(visible(text, keep=LINE_BREAKS), **options)

    def on_broken_pipe(self) -> None:
        """The reader went away (``tether show ID | head -1``): what it read is all it wanted.
        Rich would exit 1, the code for "not found"; the command instead ends as one whose
        plain output is cut short does (:func:`recall.cli.main.main`): quietly, with exit 0, or
        with the verdict it decided before printing (``tether check``'s 1 for a failure)."""
        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the exit's own flush must not fail again
        os.close(devnull)
        raise BrokenPipeError


def console() -> Console:
    """A console on stdout for a person to read, which prints each line whole (soft wrap).

    Rich would otherwise wrap a long line itself, at the terminal's width or, piped, at 80
    columns: the line breaks (and kept spaces) it puts into a memory's details or splits a
    long path with are then part of what ``grep`` reads and a person copies. A terminal
    wraps a whole line for display and copies it back whole. A table still fits its cells to
    the width, and a layout that wants rich's wrapping asks for it (``soft_wrap=False``).

    Emoji codes are left as written: rich would print ``user:id:session`` as ``user🆔session``
    and ``:smile:`` as 😄, in a memory's text as much as in our own."""
    return ShownConsole(highlight=False, soft_wrap=True, emoji=False)
