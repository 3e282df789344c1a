"""Sessions and turns: `--session` counts one turn per recall or inject, `--no-record` none."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from recall.errors import BadInput
from recall.policy.sessions import check_session_id, count_turn
from recall.store import MemoryStore
from tests.conftest import CliResult, remember


def _turns(store: MemoryStore, session: str) -> int | None:
    store.close()
    row = store.conn.execute("SELECT turns FROM sessions WHERE id = ?", (session,)).fetchone()
    return None if row is None else int(row[0])


def test_count_turn_starts_and_advances_a_session(store: MemoryStore) -> None:
    remember(store, "anything, so the store exists")
    assert count_turn(store.conn, "s-1") == 1
    assert count_turn(store.conn, "s-1") == 2
    assert count_turn(store.conn, "s-2") == 1


@pytest.mark.parametrize("bad", ["", "   ", "x" * 201, "a\x00b", "ab\udcff"])
def test_bad_session_ids_are_refused(bad: str) -> None:
    with pytest.raises(BadInput):
        check_session_id(bad)


def test_recall_and_inject_count_turns_unless_no_record(
    store: MemoryStore, cli: Callable[..., CliResult], repo: Path
) -> None:
    remember(store, "session save must go through safeRename", files=["src/app.py"])
    assert cli("recall", "--file", "src/app.py", "--session", "abc").code == 0
    assert cli("inject", "save it", "--file", "src/app.py", "--session", "abc").code == 0
    assert _turns(store, "abc") == 2
    assert cli("recall", "--file", "src/app.py", "--session", "abc", "--no-record").code == 0
    assert _turns(store, "abc") == 2
    refused = cli("recall", "--file", "src/app.py", "--session", "")
    assert refused.code == 2
    assert "--session" in refused.stderr


# A byte that is not UTF-8 in argv arrives as a lone surrogate, which the index cannot store.
NOT_UTF8 = "ab\udcff"


@pytest.mark.parametrize(
    "args",
    [
        ("session", "start"),
        ("session", "start", "--json"),
        ("recall", "-f", "src/app.py"),
        ("recall", "save it"),
        ("inject", "save it"),
        ("inject", "save it", "--no-record"),
        ("distill", "--dry-run"),
    ],
    ids=lambda args: "-".join(args),
)
def test_a_session_id_that_is_not_utf8_is_refused_naming_the_option(
    store: MemoryStore, cli: Callable[..., CliResult], args: tuple[str, ...]
) -> None:
    remember(store, "session save must go through safeRename", files=["src/app.py"])
    store.close()
    refused = cli(*args, "--session", NOT_UTF8)
    assert refused.code == 2, refused.stderr
    assert "--session" in refused.stderr and "not valid UTF-8" in refused.stderr
    said = json.loads(refused.stderr)["error"] if "--json" in args else refused.stderr
    assert "'ab\\xff'" in said  # the byte as given, not Python's escape of it
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""


@pytest.mark.parametrize("event", ["prompt", "pre-edit", "post-edit", "session-start"])
def test_a_hook_session_id_that_is_not_utf8_is_no_session_id(
    store: MemoryStore, cli: Callable[..., CliResult], repo: Path, event: str
) -> None:
    """Nothing is noted under it; an edit is still warned about (and asked about under a
    guard), and stderr says what was left undone."""
    memory_id = remember(store, "session save must go through safeRename", files=["src/app.py"])
    store.close()
    payload = (
        '{"session_id": "ab\\udcff", "cwd": ' + json.dumps(str(repo)) + ', "prompt": "save it", '
        '"tool_name": "Edit", "tool_input": {"file_path": "src/app.py"}}'
    )
    done = cli("hook", event, stdin=payload)
    assert done.code == 0, done.stderr
    assert (f"[{memory_id}]" in done.stdout) == event.endswith("-edit"), done.stdout
    assert done.stderr.startswith(f"tether hook {event}: no usable session_id in the hook input")
    assert "Traceback" not in done.stderr
