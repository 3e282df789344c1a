"""The browser application: the table, the filter line, one key per action, and the footer.

Every key runs one :class:`~recall.browse.actions.Browser` call; whatever it fails with is
shown on the message line and the browser carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Input, Static

from recall.clock import now
from recall.display import visible

from .actions import FAILURES, Browser, Outcome
from .view import Entry, View
from .widgets import CardScreen, ConfirmScreen, MemoryTable, OverviewScreen, SupersedeScreen

# What the query line does with its text: filter rows as you type, or run a full-text search.
FILTER = "filter"
SEARCH = "search"

_QUIT_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals taken as ``q``: ``kill PID``, and the terminal closed (no SIGHUP on Windows)."""

LOOK_AGAIN_S = 2.0
"""How often the browser looks at the memory files it could not read, while there are some:
a file fixed or removed in another window shows (and its message goes) within a moment, and
a look is one ``lstat`` per such file."""


class BrowseApp(App[None]):
    """``tether browse``: list, filter, search, open, pin, unpin, delete, restore, supersede."""

    TITLE = "tether browse"
    CSS = """
    #filters { height: 1; padding: 0 1; background: $boost; }
    #query { display: none; }
    #query.-open { display: block; }
    #memories { height: 1fr; }
    #message { height: auto; min-height: 1; padding: 0 1; }
    #card, #confirm, #supersede, #overview {
        width: 90%; height: auto; max-height: 90%;
        border: round $accent; padding: 1 2; background: $surface;
    }
    CardScreen, ConfirmScreen, SupersedeScreen, OverviewScreen { align: center middle; }
    #details { height: 8; }
    #form-error { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open", "Open"),
        Binding("p", "pin", "Pin"),
        Binding("u", "unpin", "Unpin"),
        Binding("d", "delete", "Delete"),
        Binding("r", "restore", "Restore"),
        Binding("s", "supersede", "Supersede"),
        Binding("slash", "query('search')", "Search"),
        Binding("f", "query('filter')", "Filter"),
        Binding("c", "next_category", "Category"),
        Binding("t", "next_status", "Status"),
        Binding("g", "next_scope", "Scope"),
        Binding("a", "overview", "Stats"),
        Binding("escape", "clear", "Clear"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, browser: Browser, view: View | None = None) -> None:
        super().__init__()
        self.browser = browser
        self.view = view or View()
        self.query_mode = FILTER
        self.message = ""  # the last thing said on the message line (tests read it)
        self._unreadable_said = ""
        """What the message line says of the files that could not be read ("" for nothing)."""
        self._query_before = ""

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Filter line, query line (hidden until asked for), table, message line, footer."""
        yield Static(id="filters")
        yield Input(id="query")
        yield MemoryTable(id="memories")
        yield Static(id="message")
        yield Footer()

    def on_mount(self) -> None:
        """Take SIGTERM and SIGHUP as a quit; load the stores and show every memory."""
        loop = asyncio.get_running_loop()
        for number in _QUIT_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                # ``kill PID``, or the terminal closed, then ends the browser as ``q`` does: an
                # action under way finishes (a handler runs between two), the terminal is
                # left out of the alternate screen with mouse reporting off (the default would
                # end the process in the middle of any of them). Not where signals cannot be
                # handled (Windows, a loop off the main thread).
                loop.add_signal_handler(number, self.exit)
        self.reload()
        self.table.focus()
        self.set_interval(LOOK_AGAIN_S, self.look_again)

    def look_again(self) -> None:
        """Re-read the stores when a memory file that could not be read was changed or
        removed since (nothing to do, and no reading, while none was left out)."""
        if self.browser.unreadable_changed():
            self.reload()

    def on_unmount(self) -> None:
        """Give SIGTERM and SIGHUP back their defaults once the browser is gone."""
        loop = asyncio.get_running_loop()
        for number in _QUIT_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(number)

    @property
    def table(self) -> MemoryTable:
        """The memory table."""
        return self.query_one("#memories", MemoryTable)

    @property
    def query_line(self) -> Input:
        """The line where filter and search text is typed."""
        return self.query_one("#query", Input)

    def say(self, message: str, *, error: bool = False) -> None:
        """Show one line on the message line (red for an error)."""
        self.message = message
        shown = Text(visible(message), style="bold red" if error else "")
        self.query_one("#message", Static).update(shown)

    # -- rows ------------------------------------------------------------------------------

    def reload(self, keep: str | None = None) -> None:
        """Re-read the stores, then redraw the rows; the memory files that could not be read
        are named when they change (at start, after a file was broken or fixed), and no
        longer once none is left out."""
        before = self.browser.unreadable
        try:
            self.browser.load()
        except FAILURES as error:
            self.say(f"could not read the stores: {error}", error=True)
        else:
            if self.browser.unreadable != before:
                self._say_unreadable()
        self.redraw(keep)

    def _say_unreadable(self) -> None:
        """Name the files the last load left out after what the message line says, in place
        of what it said of them before (taken away when none is left out)."""
        said, old = self.message, self._unreadable_said
        if old and said.endswith(old):
            said = said[: -len(old)].removesuffix(" · ")
        elif old:  # the line says something else since: nothing of the files to take back
            old = ""
        unreadable = self.browser.unreadable_message()
        self._unreadable_said = unreadable
        if unreadable:
            self.say(f"{said} · {unreadable}" if said else unreadable, error=True)
        elif old:
            self.say(said)

    def redraw(self, keep: str | None = None) -> None:
        """Apply the view to the loaded memories; the cursor stays on ``keep`` when shown."""
        if keep is None and (current := self.table.current()) is not None:
            keep = current.memory.id
        try:
            entries = self.browser.rows(self.view)
        except FAILURES as error:
            self.say(str(error), error=True)
            entries = []
        self.table.show(entries, keep)
        count = f"{len(entries)} shown · "
        self.query_one("#filters", Static).update(Text(count + self.view.describe()))

    def selected(self) -> Entry | None:
        """The entry under the cursor, or None (with a message) when the table is empty."""
        entry = self.table.current()
        if entry is None:
            self.say("No memory selected", error=True)
        return entry

    def attempt(self, act: Callable[[Entry], Outcome]) -> None:
        """Run an action on the selected memory; show what it did or why it failed."""
        entry = self.selected()
        if entry is None:
            return
        try:
            outcome = act(entry)
        except FAILURES as error:
            self.say(str(error), error=True)
            return
        self.say(outcome.message)
        self.reload(outcome.memory_id)

    # -- actions ---------------------------------------------------------------------------

    def action_open(self) -> None:
        """Show the selected memory's card (counts as acting on it, like ``tether show``)."""
        entry = self.selected()
        if entry is None:
            return
        try:
            card = self.browser.card(entry)
        except FAILURES as error:
            self.say(str(error), error=True)
            return
        self.push_screen(CardScreen(card))

    def action_overview(self) -> None:
        """Show use at a glance: per-category numbers, use per week and the hub files."""
        try:
            overview = self.browser.overview(now().date(), self.view.scope)
        except FAILURES as error:
            self.say(str(error), error=True)
            return
        self.push_screen(OverviewScreen(overview, self.view.scope))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row opens it."""
        event.stop()
        self.action_open()

    def action_pin(self) -> None:
        """Pin the selected memory."""
        self.attempt(self.browser.pin)

    def action_unpin(self) -> None:
        """Unpin the selected memory."""
        self.attempt(self.browser.unpin)

    def action_restore(self) -> None:
        """Bring the selected memory back into recall."""
        self.attempt(self.browser.restore)

    def action_delete(self) -> None:
        """Ask, then tombstone the selected memory."""
        entry = self.selected()
        if entry is None:
            return
        memory = entry.memory
        question = f"Delete {memory.id} ({entry.scope}): {memory.summary}?"

        def answered(yes: bool | None) -> None:
            if yes:
                self.attempt(lambda _: self.browser.delete(entry))
            else:
                self.say(f"Kept {memory.id}")

        self.push_screen(ConfirmScreen(question), answered)

    def action_supersede(self) -> None:
        """Open the form for the selected memory's replacement."""
        entry = self.selected()
        if entry is None:
            return
        try:
            self.browser.check_supersedable(entry)
        except FAILURES as error:
            self.say(str(error), error=True)
            return

        def save(summary: str, details: str) -> Outcome:
            return self.browser.supersede(entry, summary, details)

        def closed(outcome: Outcome | None) -> None:
            if outcome is None:
                self.say(f"Nothing written; {entry.memory.id} unchanged")
                return
            self.say(outcome.message)
            self.reload(outcome.memory_id)

        self.push_screen(SupersedeScreen(entry, save), closed)

    def action_next_category(self) -> None:
        """Show the next category only (any, pref, decision, gotcha, context)."""
        self.view = self.view.next_category()
        self.redraw()

    def action_next_status(self) -> None:
        """Show the next status only (all, then each status)."""
        self.view = self.view.next_status()
        self.redraw()

    def action_next_scope(self) -> None:
        """Show the next scope only (all, project, global)."""
        self.view = self.view.next_scope()
        self.redraw()

    # -- the query line --------------------------------------------------------------------

    def action_query(self, mode: str) -> None:
        """Open the query line to filter rows as you type, or to run a full-text search."""
        self.query_mode = mode
        line = self.query_line
        self._query_before = self.view.text if mode == FILTER else self.view.search
        line.placeholder = (
            "filter: words that must all appear (enter keeps, esc cancels)"
            if mode == FILTER
            else "search: full-text search (enter runs, esc cancels)"
        )
        line.value = self._query_before
        line.add_class("-open")
        line.focus()

    def _close_query(self) -> None:
        self.query_line.remove_class("-open")
        self.table.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """A filter applies as it is typed; a search waits for enter."""
        if event.input is self.query_line and self.query_mode == FILTER:
            self.view = replace(self.view, text=event.value)
            self.redraw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter keeps the filter, or runs the search."""
        if event.input is not self.query_line:
            return
        event.stop()
        if self.query_mode == SEARCH:
            self.view = replace(self.view, search=event.value.strip())
            self.redraw()
        self._close_query()

    def action_clear(self) -> None:
        """Cancel the query line when open; otherwise drop the text filter and the search."""
        if self.query_line.has_class("-open"):
            if self.query_mode == FILTER:
                self.view = replace(self.view, text=self._query_before)
                self.redraw()
            self._close_query()
            return
        if self.view.text or self.view.search:
            self.view = replace(self.view, text="", search="")
            self.redraw()
            self.say("Text filter and search cleared")
