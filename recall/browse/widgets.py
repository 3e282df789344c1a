"""The browser's Textual pieces: the memory table, the card, the confirm box and the supersede form.

User text is always handed to Textual as :class:`rich.text.Text`, never as a string, so
brackets in a summary are shown as written instead of being read as markup; and made visible
first (:func:`recall.display.visible`), so a control character in a memory file is shown as its
escape instead of acting on the terminal. The supersede form edits the text as it is, unless it
holds such a character: then it edits the escaped text, and refuses to save while an escape that
stands for one is still there (see :class:`SupersedeScreen`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label, Static, TextArea

from recall.charts import activity_chart, category_lines, hub_chart
from recall.display import CATEGORY_STYLE, LINE_BREAKS, plural, unseen_at, visible
from recall.errors import BadInput
from recall.lifecycle.stats import Overview

from .actions import FAILURES, Card, Outcome
from .view import Entry

PIN_MARK = "*"
FILES_SHOWN = 2  # files listed in a row before "+N"; the card lists them all


def files_cell(files: Sequence[str]) -> str:
    """A row's files column: the first few paths, then how many more."""
    shown = ", ".join(files[:FILES_SHOWN])
    extra = len(files) - FILES_SHOWN
    return f"{shown}, +{extra}" if extra > 0 else shown


class MemoryTable(DataTable):
    """One row per memory, keyed by ``scope:id`` so both stores can hold the same id."""

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "id",
        "category",
        "scope",
        "pin",
        "status",
        "summary",
        "files",
    )

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.entries: dict[str, Entry] = {}

    def on_mount(self) -> None:
        """Add the columns."""
        self.add_columns(*self.COLUMNS)

    @staticmethod
    def key_of(entry: Entry) -> str:
        """The row key of an entry."""
        return f"{entry.scope}:{entry.memory.id}"

    def show(self, entries: Sequence[Entry], keep: str | None = None) -> None:
        """Replace the rows; the cursor stays on memory ``keep`` (an id) when it is still shown."""
        self.clear()
        self.entries = {}
        target = 0
        for index, entry in enumerate(entries):
            memory = entry.memory
            key = self.key_of(entry)
            self.entries[key] = entry
            if keep is not None and memory.id == keep:
                target = index
            self.add_row(
                memory.id,
                Text(memory.category, style=CATEGORY_STYLE.get(memory.category, "")),
                entry.scope,
                PIN_MARK if memory.pinned else "",
                entry.status_label,
                Text(visible(memory.summary)),
                Text(visible(files_cell(memory.files))),
                key=key,
            )
        if entries:
            self.move_cursor(row=target)

    def current(self) -> Entry | None:
        """The entry under the cursor, if any."""
        if not self.entries or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        row_key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return self.entries.get(str(row_key.value))


def card_text(card: Card) -> Text:
    """The full card of a memory: summary, details, files, links, provenance and usage."""
    memory = card.memory
    text = Text()
    text.append(f"[{memory.category}] ", style=CATEGORY_STYLE.get(memory.category, ""))
    text.append(memory.id, style="bold")
    marks = [m for m in ("pinned" if memory.pinned else "", card.status) if m]
    text.append(f"  ({', '.join(marks)})\n\n")
    text.append(visible(memory.summary) + "\n", style="bold")
    if memory.details:
        text.append("\n" + visible(memory.details.rstrip("\n"), keep=LINE_BREAKS) + "\n")
    text.append("\n")
    rows = [("files", "\n       ".join(map(visible, memory.files)) or "(none)")]
    if memory.anchor:
        rows.append(("anchor", visible(memory.anchor)))
    if memory.supersedes:
        rows.append(("replaces", memory.supersedes))
    if memory.superseded_by:
        rows.append(("replaced by", memory.superseded_by))
    author = visible(memory.author) or "unknown"
    rows.append(("created", f"{visible(memory.created)} by {author} ({memory.source})"))
    rows.append(("scope", f"{card.scope}  {visible(str(card.path))}"))
    surfaced = int(card.usage.get("surfaced") or 0)
    acted = int(card.usage.get("acted") or 0)
    rows.append(("usage", f"shown {plural(surfaced, 'time')}, acted on {plural(acted, 'time')}"))
    if card.usage.get("last_acted"):
        rows.append(("last acted", str(card.usage["last_acted"])))
    for label, value in rows:
        text.append(f"{label}: ", style="dim")
        text.append(value + "\n")
    return text


def _closing_keys(opening: str) -> list[BindingType]:
    """Escape, ``q``, enter and the key that opened a text screen close it."""
    return [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding(opening, "close", "Close", show=False),
        Binding("enter", "close", "Close", show=False),
    ]


class _TextScreen(ModalScreen[None]):
    """A text over the table in a scrolling box (id ``box``, the text ``box-text``), and the
    footer; the closing keys of a subclass's bindings return to the table."""

    def __init__(self, box: str, text: Text) -> None:
        super().__init__()
        self._box = box
        self._text = text

    def compose(self) -> ComposeResult:
        """The text in a scrolling box, and the footer."""
        with VerticalScroll(id=self._box):
            yield Static(self._text, id=f"{self._box}-text")
        yield Footer()

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)


class CardScreen(_TextScreen):
    """The card of one memory, over the table; any closing key returns to the table."""

    BINDINGS: ClassVar[list[BindingType]] = _closing_keys("o")

    def __init__(self, card: Card) -> None:
        super().__init__("card", card_text(card))
        self.card = card


_OVERVIEW_TITLES: Final = {
    "all": "Both stores (project and global)",
    "project": "The project store",
    "global": "The global store",
}


def overview_text(overview: Overview | None, scope: str = "all") -> Text:
    """The overview screen's text: the numbers of ``tether stats`` and its two charts, for the
    stores of ``scope`` (the browser's scope filter), named on the first line."""
    if overview is None:
        return Text("No memory store here yet: `tether init` makes one.")
    lines = [
        _OVERVIEW_TITLES.get(scope, scope),
        "",
        *category_lines(overview.categories, overview.total),
        *activity_chart(overview.activity),
        *hub_chart(overview.hubs),
    ]
    return Text("\n".join(lines))


class OverviewScreen(_TextScreen):
    """Use at a glance (the numbers and charts of ``tether stats``); any closing key returns."""

    BINDINGS: ClassVar[list[BindingType]] = _closing_keys("a")

    def __init__(self, overview: Overview | None, scope: str = "all") -> None:
        super().__init__("overview", overview_text(overview, scope))
        self.overview = overview


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; only ``y`` says yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "Cancel", show=False),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        """The question and the footer."""
        with Vertical(id="confirm"):
            yield Label(Text(visible(self.question)))
            yield Label(Text("y: yes   n: no", style="dim"))
        yield Footer()

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)


def escapes_in(text: str, keep: str = "") -> set[str]:
    """The escapes :func:`~recall.display.visible` writes for the unseen characters of ``text``
    (but those in ``keep``): ``{"\\x1b", "\\u202e"}``."""
    return {visible(text[at]) for at in unseen_at(text, keep)}


def refuse_escapes(text: str, escapes: set[str], label: str) -> None:
    """Refuse a text of the form still holding one of ``escapes``: each stands for a control
    character of the memory's text, shown escaped because the terminal must not receive it."""
    left = sorted(escape for escape in escapes if escape in text)
    if left:
        raise BadInput(
            f"the {label} still holds {', '.join(left)}: the escape of a control character of "
            "the memory's text; replace it with the text it should say (a memory cannot hold "
            "control characters); nothing written"
        )


class SupersedeScreen(ModalScreen[Outcome | None]):
    """A small form for the replacement's summary and details.

    ``save`` performs the supersede; when it fails (a credential-shaped text, a duplicate) the
    error is shown in the form and the text typed so far stays, so nothing written is lost.

    The editing widgets would send a control character of the memory's text (a hand-written
    file may hold one) to the terminal as it is; such a text is put in the form escaped, with a
    note, and saving is refused while an escape standing for one of them is left.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, entry: Entry, save: Callable[[str, str], Outcome]) -> None:
        super().__init__()
        self.entry = entry
        self.save = save
        memory = entry.memory
        self.summary_escapes = escapes_in(memory.summary)
        self.details_escapes = escapes_in(memory.details, LINE_BREAKS)

    def compose(self) -> ComposeResult:
        """The summary line, the details box, the error line and the footer."""
        memory = self.entry.memory
        with Vertical(id="supersede"):
            yield Label(Text(f"Supersede {memory.id}: write the text that replaces it"))
            if self.summary_escapes or self.details_escapes:
                escapes = ", ".join(sorted(self.summary_escapes | self.details_escapes))
                yield Label(
                    Text(
                        f"This memory's text holds control characters, shown as {escapes}; "
                        "saving refuses them: replace them with clean text",
                        style="bold yellow",
                    ),
                    id="form-note",
                )
            yield Label(Text("summary (one line)", style="dim"))
            yield Input(value=visible(memory.summary), id="summary")
            yield Label(Text("details", style="dim"))
            yield TextArea(visible(memory.details, keep=LINE_BREAKS), id="details", soft_wrap=True)
            yield Static("", id="form-error")
        yield Footer()

    def action_save(self) -> None:
        """Write the replacement; stay open with the error when the store refuses it."""
        summary = self.query_one("#summary", Input).value
        details = self.query_one("#details", TextArea).text
        try:
            refuse_escapes(summary, self.summary_escapes, "summary")
            refuse_escapes(details, self.details_escapes, "details")
            outcome = self.save(summary, details)
        except FAILURES as error:
            shown = Text(visible(str(error), keep=LINE_BREAKS), style="bold red")
            self.query_one("#form-error", Static).update(shown)
            return
        self.dismiss(outcome)

    def action_cancel(self) -> None:
        """Close without writing anything."""
        self.dismiss(None)
