"""The agent's own memory command, seen by a hook while another connection holds the index.

An import, a reindex or an editor's server may hold the index past a hook's wait. The note that
the session ran ``tether recall`` (or a Tether MCP memory tool) must not be lost then: hints end
for the session at once, and the note reaches the index once it is free."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import remember

from recall import hooks
from recall.policy import held_notes
from recall.policy.hints import HintLedger
from recall.policy.sessions import count_turn
from recall.store import MemoryStore

SESSION = "0b7e4f7c-3c55-4d0e-9a51-6f1e2d3c4b5a"
GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"
PROMPT = "Why does login raise a KeyError for user_id?"


def _hook(event: str, payload: dict[str, Any]) -> str:
    return hooks.run(event, json.dumps(payload))


def _prompt(repo: Path) -> str:
    return _hook(
        "prompt",
        {
            "session_id": SESSION,
            "cwd": str(repo),
            "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPT,
        },
    )


def _tool(repo: Path, tool: str, tool_input: dict[str, Any]) -> str:
    return _hook(
        "post-edit",
        {
            "session_id": SESSION,
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        },
    )


def _said(store: MemoryStore, caplog: pytest.LogCaptureFixture) -> str:
    """What the hooks logged: their log file's lines, or the records the test run caught
    (a process opens its log once, so a test run's later hooks may log elsewhere)."""
    log = store.location.base / "hooks.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    for record in caplog.records:
        if record.name == hooks.LOGGER:
            lines.append(record.getMessage())
            if record.exc_info:
                lines.append("Traceback")
    return "\n".join(lines)


def _self_serve(store: MemoryStore) -> int | None:
    """The session's self-serve column in the index on disk (None: no row or no table yet)."""
    reader = sqlite3.connect(store.location.index_path)
    try:
        row = reader.execute(
            "SELECT self_serve FROM hint_sessions WHERE session = ?", (SESSION,)
        ).fetchone()
    except sqlite3.OperationalError:  # no hint table: no session was ever noted
        return None
    finally:
        reader.close()
    return None if row is None else int(row[0])


@pytest.mark.parametrize("at_rest", [False, True], ids=["opened-held", "held-at-the-write"])
@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "tether recall 'login user_id'"}),
        ("mcp__tether__memory_recall", {"prompt": "login user_id"}),
    ],
)
def test_a_memory_command_seen_while_the_index_is_held_ends_the_hints(
    repo: Path,
    store: MemoryStore,
    tool: str,
    tool_input: dict[str, Any],
    at_rest: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Held when the hook opens the index (it is then served from a copy), or, for a store at
    rest that opens without writing, held only when the hook writes its note."""
    remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    if at_rest:
        _settled(repo, store)
    holder = sqlite3.connect(store.location.index_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another writer, past the hook's wait
        assert _tool(repo, tool, tool_input) == ""
        # the hints end at once, though the index could not take the note
        assert _prompt(repo) == ""
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _self_serve(store) in (None, 0)  # nothing written while the index was held
    said = _said(store, caplog)
    assert "the session's own memory command is kept" in said
    assert "Traceback" not in said  # told, not logged as a failure
    assert _prompt(repo) == ""  # the index free: the note is written there
    assert _self_serve(store) == 1
    assert not held_notes.note_path(store.location.base / "cache", SESSION).exists()


def _edit(repo: Path, path: str) -> str:
    return _hook(
        "pre-edit",
        {
            "session_id": SESSION,
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / path), "old_string": "a", "new_string": "b"},
        },
    )


def _settled(repo: Path, store: MemoryStore) -> None:
    """The memory files as written a minute ago, read by a hook: the index then trusts what it
    last saw, and the next hook opens it without writing (as on any store at rest)."""
    past = time.time() - 60
    for path in (*store.location.memories_dir.iterdir(), store.location.memories_dir):
        os.utime(path, (past, past))
    assert _edit(repo, "src/util.py") == ""


def test_an_edit_while_the_index_is_held_still_shows_the_files_gotchas(
    repo: Path, store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    memory_id = remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    _settled(repo, store)
    holder = sqlite3.connect(store.location.index_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another writer, past the hook's wait
        held = _edit(repo, "src/app.py")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert f"[{memory_id}]" in held and "review before editing" in held
    said = _said(store, caplog)
    assert "the edit hook's notes on src/app.py are not recorded" in said
    assert "Traceback" not in said
    again = _edit(repo, "src/app.py")  # nothing marked it shown: the next edit shows it
    assert f"[{memory_id}]" in again
    assert _edit(repo, "src/app.py") == ""  # now marked: quiet for the rest of the turn


def test_a_prompt_while_the_index_is_held_is_answered_and_its_notes_told_on_one_line(
    repo: Path, store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    _settled(repo, store)
    holder = sqlite3.connect(store.location.index_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another writer, past the hook's wait
        answered = _prompt(repo)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert GOTCHA in answered
    said = _said(store, caplog)
    assert "the prompt hook's turn count" in said and "another process holds the index" in said
    assert "Traceback" not in said


def test_without_the_note_the_same_prompt_is_hinted(repo: Path, store: MemoryStore) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    count_turn(store.conn, SESSION, origin="hook")
    assert _tool(repo, "Bash", {"command": "git status"}) == ""
    assert GOTCHA in _prompt(repo)


def test_a_kept_note_is_read_as_written_and_given_back_by_the_next_write(
    store: MemoryStore,
) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    folder = store.location.base / "cache"
    ledger = HintLedger(SESSION, origin="hook", held_in=folder)
    ledger.keep_self_serve()
    ledger.keep_self_serve()  # a second hook of the session while still held: the same note
    assert ledger.peek(store.conn, ()).self_serve  # read only, from the kept note
    assert HintLedger("another session", held_in=folder).peek(store.conn, ()).self_serve is False
    assert ledger.state(store.conn, ()).self_serve  # written now
    assert not held_notes.note_path(folder, SESSION).exists()
    assert _self_serve(store) == 1
    assert HintLedger(SESSION, origin="hook", held_in=folder).peek(store.conn, ()).self_serve


def test_a_link_at_the_notes_name_is_never_followed(store: MemoryStore, tmp_path: Path) -> None:
    remember(store, GOTCHA, files=["src/app.py"])
    folder = store.location.base / "cache"
    folder.mkdir(exist_ok=True)
    outside = tmp_path / "outside.txt"
    outside.write_text(SESSION, encoding="utf-8")  # read through, it would pass for the note
    link = held_notes.note_path(folder, SESSION)
    os.symlink(outside, link)  # as a cloned repository might have it
    ledger = HintLedger(SESSION, origin="hook", held_in=folder)
    assert ledger.peek(store.conn, ()).self_serve is False  # never read through
    ledger.keep_self_serve()  # the link is replaced, not written through
    assert outside.read_text(encoding="utf-8") == SESSION
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == SESSION
    assert ledger.peek(store.conn, ()).self_serve


def test_a_note_left_empty_is_written_over(tmp_path: Path) -> None:
    held_notes.note_path(tmp_path, SESSION).write_bytes(b"")  # its writer killed midway
    assert not held_notes.is_kept(tmp_path, SESSION)
    held_notes.keep(tmp_path, SESSION)
    assert held_notes.is_kept(tmp_path, SESSION)
    assert [p.name for p in tmp_path.iterdir()] == [held_notes.note_path(tmp_path, SESSION).name]


def test_notes_of_sessions_long_idle_are_removed_when_another_is_kept(tmp_path: Path) -> None:
    assert held_notes.STALE_AFTER_DAYS == 30  # a session idle a month is over
    old, recent = "an old session", "a recent session"
    for session in (old, recent):
        held_notes.keep(tmp_path, session)
    half_written = tmp_path / f"{held_notes.PREFIX}tmp-0123456789ab"
    half_written.write_bytes(b"an")
    other = tmp_path / "vectors.npy"  # the cache's own files are not the notes'
    other.write_bytes(b"x")
    month = time.time() - 31 * 86_400
    for path in (held_notes.note_path(tmp_path, old), half_written, other):
        os.utime(path, (month, month))
    held_notes.keep(tmp_path, SESSION)
    assert not held_notes.is_kept(tmp_path, old) and not half_written.exists()
    assert held_notes.is_kept(tmp_path, recent) and held_notes.is_kept(tmp_path, SESSION)
    assert other.exists()


def test_a_long_session_id_gets_a_note_whose_name_a_file_system_takes(tmp_path: Path) -> None:
    assert held_notes.LONGEST_HEX == 200  # within a file name's 255 bytes, the prefix with it
    for session in ("s" * 100, "é" * 300, "a/b\\c\x00d" * 40):
        name = held_notes.note_path(tmp_path, session).name
        assert len(name.encode()) <= 255 and "/" not in name and "\x00" not in name
        held_notes.keep(tmp_path, session)
        assert held_notes.is_kept(tmp_path, session)
        assert not held_notes.is_kept(tmp_path, session + "x")


def test_a_link_put_at_the_cache_folder_is_neither_written_through_nor_read_nor_swept(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    month = time.time() - 31 * 86_400
    for session in (SESSION, "an old session"):  # notes that would pass for ours, or be swept
        held_notes.keep(elsewhere, session)
    old = held_notes.note_path(elsewhere, "an old session")
    os.utime(old, (month, month))
    cache = tmp_path / "store" / "cache"
    cache.parent.mkdir()
    os.symlink(elsewhere, cache)  # put there after the store was opened and checked
    with pytest.raises(OSError):
        held_notes.keep(cache, "a new session")
    assert not held_notes.is_kept(cache, SESSION)  # not read through the link
    held_notes.given_back(cache, SESSION)  # nor removed through it
    assert sorted(p.name for p in elsewhere.iterdir()) == sorted(
        held_notes.note_path(elsewhere, s).name for s in (SESSION, "an old session")
    )
    assert old.exists()


def test_a_pipe_at_the_notes_name_is_no_note_and_does_not_stall_the_hook(tmp_path: Path) -> None:
    import threading

    os.mkfifo(held_notes.note_path(tmp_path, SESSION))  # nobody will ever write to it
    answers: list[bool] = []
    reader = threading.Thread(
        target=lambda: answers.append(held_notes.is_kept(tmp_path, SESSION)), daemon=True
    )
    reader.start()
    reader.join(30)
    assert answers == [False]
    held_notes.keep(tmp_path, SESSION)  # replaced by the note
    assert held_notes.is_kept(tmp_path, SESSION)


def test_a_note_that_cannot_be_removed_fails_nothing_when_given_back(tmp_path: Path) -> None:
    """The index holds the note by then: a leftover is swept later, and the session's
    bookkeeping goes on (a read-only folder does the same; here, a folder at the name)."""
    held_notes.given_back(tmp_path / "cache", SESSION)  # no folder at all
    held_notes.note_path(tmp_path, SESSION).mkdir()
    held_notes.given_back(tmp_path, SESSION)
    assert not held_notes.is_kept(tmp_path, SESSION)


def test_a_held_index_is_logged_on_one_line_whatever_its_texts_hold(tmp_path: Path) -> None:
    """A percent sign in SQLite's text or in a file's name is text, never a format."""
    import logging

    from recall.hooks.session_notes import logged

    caught: list[logging.LogRecord] = []
    catcher = logging.Handler()
    catcher.emit = caught.append  # type: ignore[method-assign]
    log = logging.getLogger(hooks.LOGGER)
    log.addHandler(catcher)  # beside the hooks' own log file, wherever that is
    error = sqlite3.OperationalError("database is locked (at 50% d)")
    error.sqlite_errorcode = sqlite3.SQLITE_BUSY  # as SQLite sets it
    try:
        try:
            raise error
        except sqlite3.OperationalError:
            logged("the edit hook's notes on %s are not recorded", "src/100%s.py")
    finally:
        log.removeHandler(catcher)
    (record,) = caught
    assert record.getMessage() == (
        "the edit hook's notes on src/100%s.py are not recorded: another process holds the "
        "index (database is locked (at 50% d))"
    )
    assert record.exc_info is None  # expected, so no traceback
