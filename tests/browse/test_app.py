"""The browser driven key by key with Textual's pilot, against real stores in a temp repository.

Each test presses the keys a person would and then reads the memory files on disk: the key
must have done what its footer label says, through the store, and nothing else.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from textual.widgets import Input, TextArea

from recall.anchors.symbols import SymbolAnchor, anchors_to_field
from recall.browse.app import BrowseApp
from recall.browse.view import View
from recall.browse.widgets import (
    CardScreen,
    ConfirmScreen,
    MemoryTable,
    OverviewScreen,
    SupersedeScreen,
)
from recall.lifecycle.disuse import archive_ignored, is_archived_by_disuse
from recall.policy.usage import counters, record_surfacings
from recall.settings import EngineSettings

from .conftest import Shelf

pytestmark = pytest.mark.asyncio

SIZE = (160, 40)


def shown(app: BrowseApp) -> list[str]:
    """The memory ids in the table, top to bottom."""
    table = app.query_one("#memories", MemoryTable)
    return [str(key.value).split(":")[1] for key in table.rows]


def select(app: BrowseApp, memory_id: str, scope: str = "project") -> None:
    """Put the table cursor on a memory."""
    table = app.query_one("#memories", MemoryTable)
    table.move_cursor(row=table.get_row_index(f"{scope}:{memory_id}"))


async def test_lists_both_stores_with_marks(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE):
        table = app.query_one("#memories", MemoryTable)
        assert set(shown(app)) == {shelf.gotcha, shelf.decision, shelf.archived, shelf.pref}
        row = table.get_row(f"project:{shelf.decision}")
        assert [str(cell) for cell in row] == [
            shelf.decision,
            "decision",
            "project",
            "*",
            "active",
            "Guides are written in plain Markdown",
            "docs/guide.md",
        ]
        assert str(table.get_row(f"global:{shelf.pref}")[2]) == "global"
        assert str(table.get_row(f"project:{shelf.archived}")[4]) == "archived"


async def test_footer_names_every_action_key(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE):
        active = {key: b.binding.description for key, b in app.screen.active_bindings.items()}
    for key, label in {
        "o": "Open",
        "p": "Pin",
        "u": "Unpin",
        "d": "Delete",
        "r": "Restore",
        "s": "Supersede",
        "slash": "Search",
        "f": "Filter",
        "c": "Category",
        "t": "Status",
        "g": "Scope",
        "a": "Stats",
        "q": "Quit",
    }.items():
        assert active.get(key) == label


@pytest.mark.parametrize("key", ["o", "enter"])
async def test_open_shows_the_card_and_counts_an_action(shelf: Shelf, key: str) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.gotcha)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, CardScreen)
        text = str(app.screen.query_one("#card-text").render())
        assert "The storage API drops the first request after idle." in text
        assert "src/app.py" in text
        assert "acted on 1 time" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CardScreen)
    assert counters(shelf.project.conn, shelf.gotcha)["acted"] == 1
    assert counters(shelf.project.conn, shelf.decision)["acted"] == 0


async def test_stats_key_shows_numbers_and_charts_of_both_stores(
    shelf: Shelf, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_NOW", "2026-11-30T12:00:00+00:00")
    for day in ("2026-11-02", "2026-11-24", "2026-11-25"):
        record_surfacings(shelf.project.conn, [shelf.gotcha], when=f"{day}T09:00:00+00:00")
    record_surfacings(shelf.global_.conn, [shelf.pref], when="2026-11-26T09:00:00+00:00")
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)
        lines = str(app.screen.query_one("#overview-text").render()).splitlines()
        gotcha = next(line for line in lines if line.startswith("gotcha"))
        assert gotcha.split()[1:4] == ["1", "3", "0"]  # memories, surfaced, acted
        total = next(line for line in lines if line.startswith("total"))
        assert total.split()[1:3] == ["3", "4"]  # the archived memory is not counted
        chart = next(line for line in lines if line.startswith("  gotcha"))
        assert "surfaced ···▅···█     3" in chart
        assert any(line.startswith("  pref") and "surfaced ·······█" in line for line in lines)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, OverviewScreen)
    # looking at the numbers is not acting on a memory
    assert counters(shelf.project.conn, shelf.gotcha)["acted"] == 0


async def test_stats_key_follows_the_scope_filter_and_names_it(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser(), View(scope="project"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await pilot.pause()
        lines = str(app.screen.query_one("#overview-text").render()).splitlines()
        assert lines[0] == "The project store"
        pref = next(line for line in lines if line.startswith("pref"))
        assert pref.split()[1] == "0"  # the one pref is the global store's
        await pilot.press("escape")
        await pilot.press("g")  # project -> global
        await pilot.press("a")
        await pilot.pause()
        lines = str(app.screen.query_one("#overview-text").render()).splitlines()
        assert lines[0] == "The global store"
        assert next(line for line in lines if line.startswith("pref")).split()[1] == "1"


async def test_deleting_a_replacement_says_the_old_memory_stays_out_of_recall(
    shelf: Shelf,
) -> None:
    draft = shelf.project.prepare_memory(
        summary="Guides are MyST", category="decision", files=["docs/guide.md"]
    )
    result, _ = shelf.project.supersede(shelf.decision, draft)
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, result.id)
        await pilot.press("d", "y")
        await pilot.pause()
    assert app.message == (
        f"Deleted {result.id} (restore brings it back); {shelf.decision} stays superseded, out "
        f"of recall: its replacement {result.id} is deleted now; `tether restore "
        f"{shelf.decision}` brings {shelf.decision} back"
    )


async def test_pin_and_unpin_rewrite_the_file(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.gotcha)
        await pilot.press("p")
        assert shelf.fields(shelf.gotcha)["pinned"] is True
        assert app.message == f"Pinned {shelf.gotcha}"
        table = app.query_one("#memories", MemoryTable)
        assert str(table.get_row(f"project:{shelf.gotcha}")[3]) == "*"
        await pilot.press("p")  # already pinned: said, not crashed
        assert "already pinned" in app.message
        await pilot.press("u")
        assert shelf.fields(shelf.gotcha)["pinned"] is False
        assert app.message == f"Unpinned {shelf.gotcha}"
    assert counters(shelf.project.conn, shelf.gotcha)["acted"] == 2


async def test_delete_asks_first_and_only_y_deletes(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.gotcha)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert shelf.fields(shelf.gotcha)["status"] == "active"
        assert app.message == f"Kept {shelf.gotcha}"
        await pilot.press("d", "y")
        await pilot.pause()
        assert shelf.fields(shelf.gotcha)["status"] == "deleted"
        assert f"{shelf.gotcha}.md" in shelf.files()  # a tombstone: the file stays
        table = app.query_one("#memories", MemoryTable)
        assert str(table.get_row(f"project:{shelf.gotcha}")[4]) == "deleted"
        assert table.current() is not None and table.current().memory.id == shelf.gotcha
        await pilot.press("r")
        assert shelf.fields(shelf.gotcha)["status"] == "active"
        assert app.message == f"Restored {shelf.gotcha}"


async def test_restore_brings_back_an_archived_memory(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.archived)
        await pilot.press("r")
        assert shelf.fields(shelf.archived)["status"] == "active"
        await pilot.press("r")
        assert "already active" in app.message


async def test_supersede_writes_the_replacement_through_the_store(shelf: Shelf) -> None:
    before = shelf.files()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.decision)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SupersedeScreen)
        app.screen.query_one("#summary", Input).value = "Guides are written in MyST Markdown"
        app.screen.query_one("#details", TextArea).text = "Sphinx builds them since v2."
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SupersedeScreen)
    (new_name,) = shelf.files() - before
    new_id = new_name[:-3]
    new = shelf.fields(new_id)
    assert new["supersedes"] == shelf.decision
    assert new["files"] == ["docs/guide.md"]
    assert new["category"] == "decision"
    assert new["pinned"] is True
    assert new["author"] == "Browse Tester"
    old = shelf.fields(shelf.decision)
    assert old["status"] == "superseded"
    assert old["superseded_by"] == new_id
    replacement = shelf.project.get(new_id)
    assert replacement.summary == "Guides are written in MyST Markdown"
    assert replacement.details.strip() == "Sphinx builds them since v2."
    assert app.message == f"Wrote {new_id}; {shelf.decision} is now superseded by it"


async def test_supersede_keeps_the_summary_as_typed(shelf: Shelf) -> None:
    """Spaces a person typed are theirs, as `tether supersede` keeps them."""
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.decision)
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#summary", Input).value = "use  yarn  now  "
        await pilot.press("ctrl+s")
        await pilot.pause()
    new_id = shelf.fields(shelf.decision)["superseded_by"]
    assert shelf.project.get(new_id).summary == "use  yarn  now  "


async def test_supersede_refused_secret_stays_in_the_form(shelf: Shelf) -> None:
    before = shelf.files()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.gotcha)
        await pilot.press("s")
        await pilot.pause()
        form = app.screen
        form.query_one("#details", TextArea).text = "use password = hunter2hunter2xyz here"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # still open, with what was typed
        error = str(form.query_one("#form-error").render())
        assert "password" in error
        assert "hunter2hunter2xyz" in form.query_one("#details", TextArea).text
        await pilot.press("escape")
        await pilot.pause()
        assert app.message == f"Nothing written; {shelf.gotcha} unchanged"
    assert shelf.files() == before
    assert shelf.fields(shelf.gotcha)["status"] == "active"


async def test_supersede_of_an_inactive_memory_is_refused_up_front(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.archived)
        await pilot.press("s")
        await pilot.pause()
        assert not isinstance(app.screen, SupersedeScreen)
        assert "only active memories can be superseded" in app.message
        assert f"`tether restore {shelf.archived}` brings it back" in app.message


async def test_cycling_filters(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")  # any -> pref
        assert shown(app) == [shelf.pref]
        await pilot.press("c", "c")  # -> gotcha
        assert shown(app) == [shelf.gotcha]
        await pilot.press("c", "c")  # -> context -> rejected
        assert shown(app) == []
        await pilot.press("c")  # -> any
        assert len(shown(app)) == 4
        await pilot.press("t", "t")  # all -> active -> pending
        assert shown(app) == []
        await pilot.press("t", "t")  # -> superseded -> archived
        assert shown(app) == [shelf.archived]
        await pilot.press("t", "t", "t")  # -> deleted -> all -> active
        await pilot.press("g", "g")  # all -> project -> global
        assert shown(app) == [shelf.pref]
        filters = str(app.query_one("#filters").render())
        assert "status: active" in filters and "scope: global" in filters


async def test_text_filter_applies_as_typed_and_escape_clears(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await pilot.press(*"upload")
        assert shown(app) == [shelf.gotcha]
        await pilot.press("enter")
        assert app.focused is app.query_one("#memories")
        assert shown(app) == [shelf.gotcha]
        await pilot.press("p")  # keys act on rows again once the line is closed
        assert shelf.fields(shelf.gotcha)["pinned"] is True
        await pilot.press("escape")
        assert len(shown(app)) == 4


async def test_search_uses_the_full_text_index(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        await pilot.press(*"storage request")
        assert len(shown(app)) == 4  # a search waits for enter
        await pilot.press("enter")
        assert shown(app) == [shelf.gotcha]
        assert "search: 'storage request'" in str(app.query_one("#filters").render())
        await pilot.press("slash", *"nothing-like-this", "enter")
        assert shown(app) == []
        await pilot.press("o")  # nothing selected: said, not crashed
        assert app.message == "No memory selected"


async def test_restore_of_a_pending_memory_points_to_confirm(shelf: Shelf) -> None:
    pending = shelf.project.remember(
        shelf.project.prepare_memory(
            summary="Never call the API without a timeout",
            category="gotcha",
            files=["src/util.py"],
            source="auto-distilled",
        ).with_changes(status="pending")
    ).id
    app = BrowseApp(shelf.browser(), View(status="pending"))
    async with app.run_test(size=SIZE) as pilot:
        assert shown(app) == [pending]
        await pilot.press("r")
        assert f"tether pending confirm {pending}" in app.message
    assert shelf.fields(pending)["status"] == "pending"


async def test_changes_made_outside_show_after_an_action(shelf: Shelf) -> None:
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        path = shelf.project.path_of(shelf.archived)
        path.unlink()  # removed by hand while the browser is open
        select(app, shelf.gotcha)
        await pilot.press("p")
        assert shelf.archived not in shown(app)


async def test_restore_brings_back_a_memory_archived_by_disuse(shelf: Shelf) -> None:
    conn = shelf.project.conn
    for day in range(1, 7):
        record_surfacings(conn, [shelf.gotcha], when=f"2026-01-0{day}T09:00:00+00:00")
    archived = archive_ignored(conn, EngineSettings(), datetime(2026, 3, 1, tzinfo=UTC))
    assert [a.memory_id for a in archived] == [shelf.gotcha]
    app = BrowseApp(shelf.browser(), View(status="archived"))
    async with app.run_test(size=SIZE) as pilot:
        assert set(shown(app)) == {shelf.gotcha, shelf.archived}
        table = app.query_one("#memories", MemoryTable)
        assert str(table.get_row(f"project:{shelf.gotcha}")[4]) == "archived by disuse"
        select(app, shelf.gotcha)
        await pilot.press("r")
        assert app.message == f"Restored {shelf.gotcha} (it was archived by disuse)"
        assert shown(app) == [shelf.archived]
    assert not is_archived_by_disuse(conn, shelf.gotcha)
    assert shelf.fields(shelf.gotcha)["status"] == "active"  # the file was never touched


async def test_supersede_keeps_the_symbol_anchors_and_the_guard(shelf: Shelf) -> None:
    anchors = (SymbolAnchor("src/app.py", "main", "0123456789ab"),)
    shelf.project.update_fields(
        shelf.decision, {"guard": True, "anchors": anchors_to_field(anchors)}
    )
    before = shelf.files()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        select(app, shelf.decision)
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#summary", Input).value = "Guides are written in MyST Markdown"
        await pilot.press("ctrl+s")
        await pilot.pause()
    (new_name,) = shelf.files() - before
    replacement = shelf.project.get(new_name[:-3])
    assert replacement.anchors == anchors
    assert replacement.guard is True


async def test_control_characters_from_a_memory_file_show_as_escapes(shelf: Shelf) -> None:
    # a file as a cloned repository may bring it: no Tether writer takes such text any more
    odd = "0dd0dd00"
    (shelf.project.location.memories_dir / f"{odd}.md").write_text(
        '---\ncategory: gotcha\nfiles:\n  - src/app.py\nauthor: "Eve\\u202e"\n'
        "created: 2026-01-01T00:00:00Z\n---\n"
        "clears \x1b[2J the screen\n\none\n\x1b]0;T\x07two\n",
        encoding="utf-8",
    )
    shelf.project.refresh()
    app = BrowseApp(shelf.browser())
    async with app.run_test(size=SIZE) as pilot:
        row = app.query_one("#memories", MemoryTable).get_row(f"project:{odd}")
        assert "clears \\x1b[2J the screen" in [str(cell) for cell in row]
        select(app, odd)
        await pilot.press("o")
        await pilot.pause()
        text = str(app.screen.query_one("#card-text").render())
        assert "\x1b" not in text and "\u202e" not in text
        assert "one\n\\x1b]0;T\\x07two" in text
        assert "by Eve\\u202e" in text
