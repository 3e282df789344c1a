"""What the browser sends to the terminal and says on its lines when memory files are odd:
control characters in a hand-written file, files that cannot be loaded, text it must refuse."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input, TextArea

from recall.browse.app import BrowseApp
from recall.browse.widgets import ConfirmScreen, MemoryTable, SupersedeScreen

from .conftest import Shelf

pytestmark = pytest.mark.asyncio

SIZE = (160, 40)
HOSTILE = "\x1b]0;PWNED\x07 then \x1b[2J and \u202eevil"
"""A summary a hand-written memory file may hold: a window title, a screen clear, a bidi
override."""
RAW = ("\x1b]0;PWNED", "\x1b[2J", "\x07", "\u202e")


def write_hostile(shelf: Shelf, memory_id: str = "0dd0dd00") -> str:
    """A memory file written by hand whose summary and details hold control characters."""
    (shelf.project.location.memories_dir / f"{memory_id}.md").write_text(
        "---\ncategory: gotcha\nfiles:\n  - src/app.py\ncreated: 2026-01-01T00:00:00Z\n---\n"
        f"{HOSTILE}\n\nline one\n\x1b[2Jline two\n",
        encoding="utf-8",
    )
    shelf.project.refresh()
    return memory_id


def select(app: BrowseApp, memory_id: str) -> None:
    """Put the table cursor on a project memory."""
    table = app.query_one("#memories", MemoryTable)
    table.move_cursor(row=table.get_row_index(f"project:{memory_id}"))


def screen_text(app: BrowseApp) -> str:
    """The characters the current screen shows, cell by cell (styles left out)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def terminal_output(app: BrowseApp) -> str:
    """What a full redraw of the current screen would write to the terminal."""
    return app.screen._compositor.render_full_update().render_segments(app.console)


def assert_nothing_raw(app: BrowseApp) -> None:
    """Neither the screen nor what it writes holds a control sequence from the memory file."""
    output = terminal_output(app)
    text = screen_text(app)
    for raw in RAW:
        assert raw not in output
        assert raw not in text
    assert "\x1b" not in text


async def test_delete_prompt_shows_the_summary_escaped(shelf: Shelf) -> None:
    odd = write_hostile(shelf)
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, odd)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "\\x1b]0;PWNED\\x07 then \\x1b[2J and \\u202eevil" in screen_text(app)
        assert_nothing_raw(app)
        await pilot.press("n")
        await pilot.pause()
    assert shelf.project.get(odd).status == "active"


async def test_supersede_form_shows_escapes_and_refuses_them_until_replaced(
    shelf: Shelf,
) -> None:
    odd = write_hostile(shelf)
    before = shelf.files()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, odd)
        await pilot.press("s")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, SupersedeScreen)
        assert_nothing_raw(app)
        summary = form.query_one("#summary", Input)
        details = form.query_one("#details", TextArea)
        assert summary.value == "\\x1b]0;PWNED\\x07 then \\x1b[2J and \\u202eevil"
        assert details.text.startswith("line one\n\\x1b[2Jline two")
        assert "holds control characters" in screen_text(app)
        summary.value = "\\x1b]0;PWNED then and evil"  # one escape left
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form
        error = str(form.query_one("#form-error").render())
        assert "summary still holds \\x1b" in error
        summary.value = "A clean summary now"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form
        assert "details still holds \\x1b" in str(form.query_one("#form-error").render())
        details.text = "line one\nline two"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SupersedeScreen)
    (new_name,) = shelf.files() - before
    replacement = shelf.project.get(new_name[:-3])
    assert replacement.summary == "A clean summary now"
    assert shelf.fields(odd)["status"] == "superseded"


async def test_supersede_form_of_clean_text_edits_it_as_written(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.gotcha)
        await pilot.press("s")
        await pilot.pause()
        form = app.screen
        assert form.query_one("#summary", Input).value == "Retry the upload twice before failing"
        assert not form.query("#form-note")


def write_broken(shelf: Shelf, memory_id: str) -> None:
    """A hand-edited memory file the loader refuses: its category is misspelt."""
    (shelf.project.location.memories_dir / f"{memory_id}.md").write_text(
        "---\ncategory: gotch\nfiles:\n  - src/app.py\ncreated: 2026-01-01T00:00:00Z\n---\n"
        "Broken by hand\n",
        encoding="utf-8",
    )


async def test_files_that_cannot_be_read_are_named_on_the_message_line(shelf: Shelf) -> None:
    write_broken(shelf, "badbad00")
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        assert "badbad00" not in [key.value for key in app.query_one(MemoryTable).rows]
        assert app.message.startswith("1 memory file could not be read and is not shown: ")
        assert "badbad00.md (project, line" in app.message
        assert "gotch" in app.message
        assert "badbad00.md" in screen_text(app)
        select(app, shelf.gotcha)
        await pilot.press("p")  # an action's own message comes first; unchanged, not repeated
        assert app.message == f"Pinned {shelf.gotcha}"


async def test_many_unreadable_files_are_counted_and_point_to_doctor(shelf: Shelf) -> None:
    for n in range(5):
        write_broken(shelf, f"badbad0{n}")
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE):
        assert app.message.startswith("5 memory files could not be read and are not shown: ")
        assert "badbad00.md" in app.message and "badbad02.md" in app.message
        assert "badbad04.md" not in app.message
        assert "and 2 more: `tether doctor` lists them all" in app.message


async def until(pilot: object, check: Callable[[], bool]) -> bool:
    """Let the browser run until ``check`` holds (True), or give up after a while (False): a
    guard against a hang, not a measure of speed."""
    for _ in range(300):
        if check():
            return True
        await pilot.pause(0.1)  # type: ignore[attr-defined]
    return check()


def fix_broken(shelf: Shelf, memory_id: str) -> None:
    """Correct the misspelt category of :func:`write_broken`'s file, as a person would."""
    path = shelf.project.location.memories_dir / f"{memory_id}.md"
    path.write_text(path.read_text(encoding="utf-8").replace("gotch\n", "gotcha\n"), "utf-8")


async def test_the_message_on_unreadable_files_goes_once_they_are_fixed(shelf: Shelf) -> None:
    write_broken(shelf, "badbad00")
    write_broken(shelf, "badbad01")
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        assert app.message.startswith("2 memory files could not be read")
        fix_broken(shelf, "badbad00")  # one fixed: the other is still named
        assert await until(pilot, lambda: app.message.startswith("1 memory file could not"))
        assert "badbad01.md" in app.message and "badbad00.md" not in app.message
        rows = [key.value for key in app.query_one(MemoryTable).rows]
        assert "project:badbad00" in rows
        fix_broken(shelf, "badbad01")
        assert await until(pilot, lambda: app.message == "")
        assert "could not be read" not in screen_text(app)
        assert "project:badbad01" in [key.value for key in app.query_one(MemoryTable).rows]


async def test_a_removed_unreadable_file_is_no_longer_named_and_the_action_message_stays(
    shelf: Shelf,
) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        assert app.message == ""
        write_broken(shelf, "badbad00")
        select(app, shelf.gotcha)
        await pilot.press("p")  # the action's reload finds the file: both are said
        assert app.message.startswith(f"Pinned {shelf.gotcha} · 1 memory file could not be read")
        (shelf.project.location.memories_dir / "badbad00.md").unlink()
        assert await until(pilot, lambda: app.message == f"Pinned {shelf.gotcha}")
        assert "could not be read" not in screen_text(app)


async def supersede_with(shelf: Shelf, app: BrowseApp, pilot: object, details: str) -> str:
    """Open the form on the gotcha, put ``details`` in it, save; the form's error line."""
    select(app, shelf.gotcha)
    await pilot.press("s")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    form = app.screen
    form.query_one("#details", TextArea).text = details
    await pilot.press("ctrl+s")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert app.screen is form  # refused: still open, with what was typed
    assert form.query_one("#details", TextArea).text == details
    return str(form.query_one("#form-error").render())


async def test_supersede_refuses_details_of_whitespace_only_in_the_form(shelf: Shelf) -> None:
    before = shelf.files()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        error = await supersede_with(shelf, app, pilot, "  \n\t\n")
        assert "details holds only whitespace; nothing written" in error
    assert shelf.files() == before
    assert shelf.project.get(shelf.gotcha).status == "active"


async def test_supersede_secret_refusal_gives_advice_the_browser_can_follow(
    shelf: Shelf,
) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        error = await supersede_with(shelf, app, pilot, "use password = hunter2hunter2xyz here")
        assert "refusing to write what looks like a credential" in error
        assert "allow_secret" not in error and "pass --allow-secret" not in error
        assert f"`tether supersede {shelf.gotcha} SUMMARY -c gotcha" in error
        assert "--allow-secret`" in error
