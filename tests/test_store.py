"""The store API: atomic writes, dedupe, lookups, list filters and every lifecycle move.

These run in-process against a temp git repository; the files on disk are checked as the
truth, the index as what the store answers from.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import OpenStore, remember

from recall import frontmatter
from recall.errors import BadInput, NotFound, NothingToDo
from recall.model import Memory
from recall.policy.usage import counters, record_action
from recall.store import MemoryStore


def memory_file(store: MemoryStore, memory_id: str) -> Path:
    """The file of a memory, as the store's folder layout promises."""
    return store.location.memories_dir / f"{memory_id}.md"


def raw_rows(store: MemoryStore) -> int:
    """Memories in the on-disk index, read with a separate connection and no sync."""
    with sqlite3.connect(store.location.index_path) as conn:
        return conn.execute("SELECT count(*) FROM memories").fetchone()[0]


def test_remember_writes_one_file_and_indexes_it(store: MemoryStore) -> None:
    draft = store.prepare_memory(
        summary="Close the pool",
        category="gotcha",
        files=["src/app.py", "src/util.py", "src/app.py"],
        details="Leaks otherwise.\nSecond line.",
        author="Ada",
        anchor="make_pool",
    )
    result = store.remember(draft)
    assert result.duplicate_of is None
    assert result.scope == "project"
    path = memory_file(store, result.id)
    assert result.path == path
    assert sorted(os.listdir(path.parent)) == [path.name]
    text = path.read_text(encoding="utf-8")
    assert text.endswith("---\nClose the pool\n\nLeaks otherwise.\nSecond line.\n")
    memory = store.get(result.id)
    assert memory.files == ("src/app.py", "src/util.py")
    assert memory.anchor == "make_pool"
    assert memory.author == "Ada"
    assert memory.status == "active"
    assert store.count() == 1
    assert raw_rows(store) == 1
    gitignore = (store.location.base / ".gitignore").read_text()
    assert "index.db" in gitignore


def test_created_defaults_to_the_pinned_clock(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_NOW", "2026-05-06T07:08:09.5+02:00")
    memory_id = remember(store, "Clocked")
    assert store.get(memory_id).created == "2026-05-06T05:08:09+00:00"


def test_dedupe_returns_the_existing_memory(store: MemoryStore) -> None:
    first = remember(store, "Use the Pool", details="Always.")
    again = store.remember(
        store.prepare_memory(
            summary="  use   the pool ",
            category="gotcha",
            files=["docs/guide.md"],
            details="ALWAYS.",
        )
    )
    assert again.id == first
    assert again.duplicate_of == first
    assert again.duplicate_status == "active"
    assert again.to_dict()["duplicate_of"] == first
    # the existing memory names other files: the caller hears which were not recorded
    assert again.files_not_on_it == ("docs/guide.md",)
    assert again.to_dict()["files_not_on_it"] == ["docs/guide.md"]
    assert "docs/guide.md" not in store.get(first).files
    assert store.count() == 1
    other = store.remember(
        store.prepare_memory(
            summary="Use the Pool", category="decision", files=[], details="Always."
        )
    )
    assert other.duplicate_of is None


def test_dedupe_reports_archived_but_ignores_tombstones(store: MemoryStore) -> None:
    archived = remember(store, "Old news")
    store.set_status(archived, "archived", allowed_from=("active",))
    again = store.remember(store.prepare_memory(summary="Old news", category="gotcha", files=[]))
    assert (again.duplicate_of, again.duplicate_status) == (archived, "archived")

    deleted = remember(store, "Gone news")
    store.set_status(deleted, "deleted", allowed_from=("active",))
    fresh = store.remember(store.prepare_memory(summary="Gone news", category="gotcha", files=[]))
    assert fresh.duplicate_of is None
    assert fresh.id != deleted


def test_prepare_memory_validates_input(store: MemoryStore) -> None:
    good = {"summary": "S", "category": "gotcha", "files": []}
    for bad in (
        {"summary": ""},
        {"summary": "a\nb"},
        {"category": "bogus"},
        {"anchor": ""},
        {"anchor": "two\nlines"},
    ):
        with pytest.raises(BadInput):
            store.prepare_memory(**{**good, **bad})
    assert store.prepare_memory(**good, details="   ").details == ""


def test_prepare_memory_rejects_an_unknown_source(store: MemoryStore) -> None:
    # A source the loader refuses would make the written file malformed on the next rebuild.
    with pytest.raises(BadInput, match="source"):
        store.prepare_memory(summary="S", category="gotcha", files=[], source="robot")


def test_get_by_id_and_prefix(store: MemoryStore) -> None:
    ids = [
        store.import_many([(store.prepare_memory(summary=s, category="pref", files=[]), i)])[0].id
        for s, i in (("one", "abcd1111"), ("two", "abcd2222"), ("three", "ffff0000"))
    ]
    assert ids == ["abcd1111", "abcd2222", "ffff0000"]
    assert store.get("ffff0000").summary == "three"
    assert store.get("FFFF").summary == "three"
    assert store.get(" abcd1 ").summary == "one"
    with pytest.raises(BadInput, match="several"):
        store.get("abcd")
    with pytest.raises(NotFound):
        store.get("abc")  # too short for a prefix
    with pytest.raises(NotFound):
        store.get("12345678")
    assert store.find("not-hex!") is None


def test_list_filters(store: MemoryStore) -> None:
    a = remember(store, "on app", files=["src/app.py"], category="gotcha")
    b = remember(store, "on util", files=["src/util.py"], category="decision")
    c = remember(store, "on docs", files=["docs/guide.md"], category="gotcha")
    d = remember(store, "archived app", files=["src/app.py"])
    store.set_status(d, "archived", allowed_from=("active",))

    def ids(**kwargs: object) -> set[str]:
        return {m.id for m in store.list(**kwargs)}  # type: ignore[arg-type]

    assert ids() == {a, b, c}
    assert ids(file="src/app.py") == {a}
    assert ids(file="src") == {a, b}
    assert ids(file="src/") == {a, b}
    assert ids(category="gotcha") == {a, c}
    assert ids(status="archived") == {d}
    assert ids(status="all") == {a, b, c, d}
    assert ids(status=None, file="src/app.py") == {a, d}
    assert ids(file="src/app") == set()
    with pytest.raises(BadInput):
        store.list(status="gone")
    with pytest.raises(BadInput):
        store.list(category="nope")


def test_list_by_folder_is_exact_about_names(store: MemoryStore) -> None:
    # `_` and `%` are LIKE wildcards and LIKE ignores ASCII case; a folder filter must not.
    under = remember(store, "in my_dir", files=["my_dir/a.py"])
    remember(store, "in myXdir", files=["myXdir/a.py"])
    remember(store, "in MY_DIR", files=["MY_DIR/a.py"])
    remember(store, "in 100pct", files=["100pct/a.py"])
    assert [m.id for m in store.list(file="my_dir")] == [under]
    assert [m.summary for m in store.list(file="100%")] == []


def _plan_of_each(store: MemoryStore, run: Callable[[], object], table: str) -> list[str]:
    """SQLite's plan of every statement ``run`` sends that names ``table``, one string each."""
    sent: list[str] = []
    store.conn.set_trace_callback(sent.append)
    try:
        run()
    finally:
        store.conn.set_trace_callback(None)
    return [
        " | ".join(row[3] for row in store.conn.execute(f"EXPLAIN QUERY PLAN {statement}"))
        for statement in sent
        if table in statement
    ]


def test_listing_a_files_memories_searches_the_path_index(store: MemoryStore) -> None:
    # The pre-edit hook lists the edited file's memories on every edit: on a store of tens of
    # thousands of memories, reading every file row to find them cost more than the rest.
    for n in range(30):
        remember(store, f"note {n}", files=[f"src/m{n}.py", "docs/guide.md"])
    on_app = remember(store, "on app", files=["src/app.py"])
    for file in ("src/app.py", "src"):
        [plan] = _plan_of_each(store, lambda f=file: store.list(file=f), "memory_files")
        assert "SCAN memory_files" not in plan, plan
        assert "USING INDEX memory_files_path" in plan, plan
    assert [m.id for m in store.list(file="src/app.py")] == [on_app]


def test_the_memories_hidden_by_disuse_are_found_from_their_usage(store: MemoryStore) -> None:
    from recall.lifecycle.disuse import archived_by_disuse

    for n in range(30):
        remember(store, f"note {n}", files=["src/app.py"])
    [plan] = _plan_of_each(store, lambda: archived_by_disuse(store.conn), "usage")
    # every active memory walked (the status index) and each looked up in usage: a cost that
    # grows with the store where the usage rows flagged are few
    assert "memories_status" not in plan, plan
    assert plan.startswith("SCAN u"), plan


def test_list_orders_newest_first(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    for day, summary in ((1, "old"), (3, "new"), (2, "mid")):
        monkeypatch.setenv("TETHER_NOW", f"2026-01-0{day}T00:00:00Z")
        remember(store, summary)
    assert [m.summary for m in store.list()] == ["new", "mid", "old"]


def test_pin_rewrites_only_that_key(store: MemoryStore) -> None:
    memory_id = remember(store, "Pin me", details="Body stays.\n")
    path = memory_file(store, memory_id)
    before = path.read_text()
    updated = store.set_pinned(memory_id, True)
    after = path.read_text()
    assert updated.pinned is True
    assert after == before.replace("pinned: false\n", "pinned: true\n")
    assert store.get(memory_id).pinned is True
    with pytest.raises(NothingToDo, match="already pinned"):
        store.set_pinned(memory_id, True)
    store.set_pinned(memory_id, False)
    assert path.read_text() == before
    with pytest.raises(NothingToDo):
        store.set_pinned(memory_id, False)


def test_pin_keeps_hand_written_comments_and_keys(store: MemoryStore) -> None:
    store.remember(store.prepare_memory(summary="seed", category="pref", files=[]))
    path = store.location.memories_dir / "notes.md"
    text = (
        "---\n# reviewed by Bob\ncategory: gotcha  # was context\nfiles: [src/app.py]\n"
        "ticket: OPS-12\n---\nHand written\n\nWith details.\n"
    )
    path.write_text(text)
    store.refresh()
    [memory] = [m for m in store.list() if m.summary == "Hand written"]
    store.set_pinned(memory.id, True)
    # the date the index gave a file with no created: is written in with Tether's first rewrite;
    # both keys where Tether writes them, before the person's own
    dated = f"created: {frontmatter.scalar(memory.created)}\n"
    assert path.read_text() == text.replace(
        "files: [src/app.py]\n", f"files: [src/app.py]\npinned: true\n{dated}"
    )
    assert store.get(memory.id).pinned is True


def test_status_transitions(store: MemoryStore) -> None:
    memory_id = remember(store, "Lifecycle")
    path = memory_file(store, memory_id)
    assert store.set_status(memory_id, "archived", allowed_from=("active",)).status == "archived"
    assert "status: archived" in path.read_text()
    with pytest.raises(NothingToDo):
        store.set_status(memory_id, "archived", allowed_from=("active",))
    with pytest.raises(BadInput, match="only active"):
        store.set_status(memory_id, "deleted", allowed_from=("active",))
    store.set_status(memory_id, "active", allowed_from=("archived", "deleted", "superseded"))
    assert store.get(memory_id).status == "active"


def test_supersede_links_both_ways(store: MemoryStore) -> None:
    old_id = remember(store, "Use v1 API")
    result, old = store.supersede(
        old_id, store.prepare_memory(summary="Use v2 API", category="gotcha", files=["src/app.py"])
    )
    new = store.get(result.id)
    assert new.supersedes == old_id
    assert old.superseded_by == result.id
    assert old.status == "superseded"
    new_fields = frontmatter.parse(memory_file(store, result.id).read_text(), "new").fields
    assert new_fields["supersedes"] == old_id
    old_fields = frontmatter.parse(memory_file(store, old_id).read_text(), "old").fields
    assert old_fields["superseded_by"] == result.id
    assert old_fields["status"] == "superseded"
    assert [m.id for m in store.list()] == [result.id]

    with pytest.raises(BadInput, match="only active"):
        store.supersede(old_id, store.prepare_memory(summary="v3", category="gotcha", files=[]))
    with pytest.raises(BadInput, match="same as"):
        store.supersede(
            result.id, store.prepare_memory(summary="use v2 api", category="gotcha", files=[])
        )

    restored = store.set_status(old_id, "active", allowed_from=("superseded",))
    assert restored.superseded_by is None
    assert "superseded_by" not in memory_file(store, old_id).read_text()


def test_supersede_with_text_of_another_memory_is_refused(store: MemoryStore) -> None:
    old_id = remember(store, "old")
    remember(store, "other")
    with pytest.raises(BadInput, match="duplicates"):
        store.supersede(old_id, store.prepare_memory(summary="other", category="gotcha", files=[]))
    assert store.get(old_id).status == "active"


def test_purge_removes_only_tombstones(store: MemoryStore) -> None:
    keep = remember(store, "keep")
    gone = remember(store, "gone")
    archived = remember(store, "archived")
    store.set_status(gone, "deleted", allowed_from=("active",))
    store.set_status(archived, "archived", allowed_from=("active",))
    assert memory_file(store, gone).exists()
    assert store.purge() == [gone]
    assert not memory_file(store, gone).exists()
    assert memory_file(store, keep).exists() and memory_file(store, archived).exists()
    assert store.find(gone) is None
    assert store.purge() == []


def test_purge_by_source(store: MemoryStore) -> None:
    mine = remember(store, "mine")
    auto = remember(store, "auto", source="auto-distilled")
    assert store.purge(source="auto-distilled") == [auto]
    assert [m.id for m in store.list()] == [mine]


def test_import_many_honours_free_ids_and_dedupes(store: MemoryStore) -> None:
    taken = remember(store, "already here")

    def draft(summary: str, created: str | None = None) -> Memory:
        return store.prepare_memory(
            summary=summary, category="gotcha", files=["src/app.py"], created=created
        )

    results = store.import_many(
        [
            (draft("first", "2020-01-02T03:04:05+00:00"), "0000beef"),
            (draft("second"), taken),
            (draft("third"), "NOT-AN-ID"),
            (draft("First"), "11112222"),
            (draft("already here"), None),
        ]
    )
    assert results[0].id == "0000beef" and results[0].duplicate_of is None
    assert results[1].id != taken and results[1].duplicate_of is None
    assert results[2].duplicate_of is None
    assert results[3].duplicate_of == "0000beef"
    assert results[4].duplicate_of == taken
    assert results[3].files_not_on_it == results[4].files_not_on_it == ()  # same files
    wider = store.import_many(
        [
            (
                store.prepare_memory(
                    summary="already here", category="gotcha", files=["src/app.py", "b.py"]
                ),
                None,
            ),
            (store.prepare_memory(summary="new", category="gotcha", files=["a.py"]), None),
            (store.prepare_memory(summary="NEW", category="gotcha", files=["c.py", "a.py"]), None),
        ]
    )
    assert (wider[0].duplicate_of, wider[0].files_not_on_it) == (taken, ("b.py",))
    assert wider[1].duplicate_of is None
    assert (wider[2].duplicate_of, wider[2].files_not_on_it) == (wider[1].id, ("c.py",))
    assert store.get("0000beef").created == "2020-01-02T03:04:05+00:00"
    assert store.count() == 5  # the four above and "new"
    assert raw_rows(store) == 5
    assert len(os.listdir(store.location.memories_dir)) == 5


def test_usage_counters(store: MemoryStore) -> None:
    memory_id = remember(store, "counted")
    assert counters(store.conn, memory_id)["acted"] == 0
    record_action(store.conn, memory_id, when="2026-01-01T00:00:00+00:00")
    record_action(store.conn, memory_id, when="2026-01-02T00:00:00+00:00")
    assert counters(store.conn, memory_id) == {
        "surfaced": 0,
        "acted": 2,
        "last_surfaced": None,
        "last_acted": "2026-01-02T00:00:00+00:00",
    }


def test_a_store_opened_before_it_existed_still_writes_the_real_index(
    store: MemoryStore,
) -> None:
    # A long-lived process (the language server) may list an empty store, then write to it.
    assert store.list() == []
    memory_id = remember(store, "first ever")
    assert store.location.index_path.exists()
    assert raw_rows(store) == 1
    record_action(store.conn, memory_id)
    with sqlite3.connect(store.location.index_path) as conn:
        assert conn.execute("SELECT acted FROM usage").fetchall() == [(1,)]


def test_writes_leave_no_temp_files(store: MemoryStore) -> None:
    ids = [remember(store, f"m{i}") for i in range(5)]
    store.set_pinned(ids[0], True)
    store.set_status(ids[1], "deleted", allowed_from=("active",))
    store.purge()
    names = sorted(os.listdir(store.location.memories_dir))
    assert names == sorted(f"{i}.md" for i in ids if i != ids[1])


def test_reindex_cleans_temp_files_left_by_a_killed_writer(store: MemoryStore) -> None:
    memory_id = remember(store, "survivor")
    leftover = store.location.memories_dir / ".tmp-abc123-deadbeef.md"
    leftover.write_text("---\ncategory: gotcha\n---\nhalf writ")
    store.refresh()
    assert [m.id for m in store.list()] == [memory_id]
    report = store.reindex()
    assert report.added == 1
    assert not leftover.exists()
    assert [m.id for m in store.list()] == [memory_id]


def test_global_store_lives_under_tether_home(
    open_store: Callable[..., OpenStore], tether_home: Path, repo: Path
) -> None:
    glob = open_store(scope="global").store
    assert glob.scope == "global"
    memory_id = remember(glob, "global pref", category="pref", files=["/abs/elsewhere.py"])
    path = tether_home / "memories" / f"{memory_id}.md"
    assert path.exists()
    assert stat.S_IMODE(os.stat(tether_home).st_mode) == 0o700
    assert glob.get(memory_id).files == ("/abs/elsewhere.py",)
    project = open_store().store
    assert project.find(memory_id) is None
    assert not (repo / ".tether").exists()


def test_store_paths_normalize_against_the_repository(store: MemoryStore, repo: Path) -> None:
    assert store.normalize_input("app.py", repo / "src") == "src/app.py"
    assert store.normalize_input(str(repo / "docs" / "guide.md"), repo) == "docs/guide.md"
    with pytest.raises(BadInput, match="outside"):
        store.normalize_input("../../x", repo / "src")


def test_update_fields_refuses_unsafe_rewrites_and_keeps_the_file(store: MemoryStore) -> None:
    store.remember(store.prepare_memory(summary="seed", category="pref", files=[]))
    path = store.location.memories_dir / "odd.md"
    # one `{...}` mapping holding a comment: laid out as lines, the comment would be lost
    text = "---\n{category: gotcha,  # odd\n files: [a.py, b.py]}\n---\nOdd\n"
    path.write_text(text)
    store.refresh()
    [odd] = [m for m in store.list() if m.summary == "Odd"]
    with pytest.raises(BadInput):
        store.update_fields(odd.id, {"files": ["c.py"]})
    assert path.read_text() == text
    assert frontmatter.parse(path.read_text(), path).fields["files"] == ["a.py", "b.py"]


def test_a_long_lived_store_dedupes_against_a_hand_written_file(store: MemoryStore) -> None:
    # The language server keeps one store open; a memory written by hand meanwhile is knowledge
    # it must not write a second time.
    remember(store, "opens the store")
    (store.location.memories_dir / "by-hand.md").write_text(
        "---\ncategory: gotcha\nfiles: [src/app.py]\n---\nWritten by hand\n"
    )
    again = store.remember(
        store.prepare_memory(summary="Written by hand", category="gotcha", files=[])
    )
    assert again.duplicate_of is not None
    assert len(os.listdir(store.location.memories_dir)) == 2


@pytest.mark.parametrize("field", ["author", "anchor"])
def test_prepare_memory_rejects_text_that_cannot_be_written(store: MemoryStore, field: str) -> None:
    # A lone surrogate (an undecodable byte from argv or JSON) cannot be encoded into the file.
    with pytest.raises(BadInput, match="UTF-8"):
        store.prepare_memory(summary="S", category="gotcha", files=[], **{field: "bad \udcff"})


def test_the_guards_of_an_edited_file_are_found_from_the_anchors(store: MemoryStore) -> None:
    from recall.anchors.symbols import SymbolAnchor
    from recall.hooks.guard_moves import anchored_here, moved_in

    # every edit asks for the guarded memories anchored in and around the edited file: walking
    # every active memory (the status index) to find the few anchored ones grows with the store
    for n in range(30):
        remember(store, f"note {n}", files=["src/app.py"])
    draft = store.prepare_memory(summary="helper stays pure", category="decision", files=[])
    anchor = SymbolAnchor("src/util.py", "helper")
    guarded = store.remember(draft.with_changes(guard=True, anchors=(anchor,))).id
    for find in (anchored_here, moved_in):
        [plan] = _plan_of_each(store, lambda f=find: f(store, "src/util.py"), "memory_anchors")
        assert "memories_status" not in plan, plan
        assert plan.startswith("SCAN a"), plan
    assert [m.id for m in anchored_here(store, "src/util.py")] == [guarded]


def test_an_edited_files_warnings_and_guards_are_read_without_its_other_memories(
    store: MemoryStore,
) -> None:
    # a hub file is named by thousands of memories, mostly context: an edit hook building
    # every one of them to keep its few warnings cost more than the rest of the hook
    for n in range(30):
        remember(store, f"background {n}", category="context", files=["src/app.py"])
    gotcha = remember(store, "app gotcha", files=["src/app.py", "docs/guide.md"])
    rejected = remember(store, "tried a cache", category="rejected", files=["src/app.py"])
    draft = store.prepare_memory(
        summary="app stays pure", category="decision", files=["src/app.py"]
    )
    guarded = store.remember(draft.with_changes(guard=True)).id
    remember(store, "under the folder", files=["src/app.py/x.py"])
    remember(store, "elsewhere", files=["src/util.py"])
    archived = remember(store, "old gotcha", files=["src/app.py"])
    store.set_status(archived, "archived", allowed_from=("active",))
    found = store.guarding_or_warning("src/app.py")
    assert [m.id for m in found] == [
        m.id for m in store.list(file="src/app.py") if m.id in {gotcha, rejected, guarded}
    ]
    assert {m.id for m in found} == {gotcha, rejected, guarded}
    [plan] = _plan_of_each(store, lambda: store.guarding_or_warning("src/app.py"), "memories")
    assert "SCAN m" not in plan, plan
    assert "USING INDEX memory_files_path" in plan, plan
