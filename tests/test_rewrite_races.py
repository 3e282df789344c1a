"""A memory file rewritten by a command (pin, archive, supersede, guard...) while someone saves an
edit to it: the edit is never lost. The rewrite replaces the file only while it still holds the
text the rewrite was made from; an edit of the body saved meanwhile is read and the keys
rewritten in it again, an edit of the front matter refuses the command, and a file that keeps
changing is refused after a few tries, each with the file named and nothing of it lost.

The edits are made at the moments that matter by the system calls the rewrite makes (its temp
file's fsync, its rename): the writer it stands for would land there only by chance.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import remember, run_tether

from recall.errors import StoreUnavailable
from recall.store import MemoryStore
from recall.store.writes import REWRITE_TRIES


def append(path: Path, line: str) -> None:
    """Add a line at the end of ``path``, in the file itself, as `>>` in a shell does."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def on_temp_fsync(monkeypatch: pytest.MonkeyPatch, edit: Callable[[int], None]) -> list[int]:
    """Run ``edit`` (given how many times it ran before) each time a file, not a folder, is
    synced: once a rewrite's temp file is written, before it is renamed into place. The list
    counts the calls."""
    real = os.fsync
    calls: list[int] = []

    def fsync(fd: int) -> None:
        real(fd)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            edit(len(calls))
            calls.append(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_the_tries_are_pinned() -> None:
    assert REWRITE_TRIES == 5


def test_a_body_edit_saved_while_a_pin_rewrites_the_file_is_kept(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = remember(store, "pool must be closed")
    path = store.path_of(memory_id)
    calls = on_temp_fsync(monkeypatch, lambda n: append(path, "hand note") if n == 0 else None)
    store.set_pinned(memory_id, True)
    text = path.read_text(encoding="utf-8")
    assert "pinned: true" in text
    assert text.endswith("hand note\n")
    assert len(calls) == 2  # the edit was read and the pin written into it again
    assert "hand note" in (store.get(memory_id).details or "")


def test_an_edit_written_into_the_file_while_it_is_renamed_over_is_kept(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last look and the rename are two calls: an append that lands between them goes into
    the file being replaced. It is seen after the rename, put back, and the pin made again."""
    memory_id = remember(store, "pool must be closed")
    path = store.path_of(memory_id)
    real = os.replace
    renames: list[str] = []

    def replace(source: str | Path, target: str | Path, **kwargs: object) -> None:
        if Path(target) == path and not renames:
            append(path, "written while renamed over")
        renames.append(str(target))
        real(source, target, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)
    store.set_pinned(memory_id, True)
    text = path.read_text(encoding="utf-8")
    assert "pinned: true" in text
    assert text.endswith("written while renamed over\n")
    assert renames.count(str(path)) == 3  # the rewrite, the edit put back, the rewrite again


def test_a_front_matter_edit_saved_while_an_archive_rewrites_the_file_refuses_it(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = remember(store, "pool must be closed")
    path = store.path_of(memory_id)

    def edit(n: int) -> None:
        if n == 0:
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace("  - src/app.py\n", "  - src/app.py\n  - src/util.py\n"))

    on_temp_fsync(monkeypatch, edit)
    with pytest.raises(StoreUnavailable, match=f"memory {memory_id} was changed") as refused:
        store.set_status(memory_id, "archived", allowed_from=("active",))
    assert str(path) in str(refused.value)
    assert "nothing written" in str(refused.value)
    text = path.read_text(encoding="utf-8")
    assert "src/util.py" in text
    assert "status: active" in text


def test_a_file_that_keeps_changing_is_refused_with_its_name_and_every_edit_kept(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = remember(store, "pool must be closed")
    path = store.path_of(memory_id)
    calls = on_temp_fsync(monkeypatch, lambda n: append(path, f"note {n + 1}"))
    with pytest.raises(StoreUnavailable, match="kept changing") as refused:
        store.set_pinned(memory_id, True)
    assert str(path) in str(refused.value)
    assert len(calls) == REWRITE_TRIES
    text = path.read_text(encoding="utf-8")
    assert "pinned: true" not in text
    assert [line for line in text.splitlines() if line.startswith("note ")] == [
        f"note {n}" for n in range(1, REWRITE_TRIES + 1)
    ]
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


APPENDER = """
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
count = 0
while not os.path.exists(stop):
    count += 1
    line = f"hand note {count}\\n".encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # as `>>` in a shell: open, write, close
    os.write(fd, line)
    os.close(fd)
    time.sleep(0.02)
print(count)
"""


def test_hand_notes_appended_while_pin_and_unpin_run_are_all_kept(
    repo: Path, tmp_path: Path
) -> None:
    """The bug as a person met it: lines added to a memory file by hand while `tether pin` and
    `tether unpin` ran went missing."""
    written = run_tether("--json", "remember", "pool must be closed", "-c", "gotcha", cwd=repo)
    assert written.code == 0, written.stderr
    memory_id = written.json()["id"]
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    stop = tmp_path / "stop"
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), str(stop)], stdout=subprocess.PIPE, text=True
    )
    try:
        time.sleep(0.1)  # the appender is running before the first command
        for _ in range(4):
            for verb in ("pin", "unpin"):
                done = run_tether(verb, memory_id, cwd=repo)
                assert done.code == 0 or "kept changing" in done.stderr, done.stderr
    finally:
        stop.touch()
        out, _ = appender.communicate(timeout=30)
    count = int(out)
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("hand")]
    assert lines == [f"hand note {n}" for n in range(1, count + 1)]


def test_a_body_edit_saved_while_a_supersede_marks_the_old_memory_is_kept(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_id = remember(store, "pool must be closed")
    path = store.path_of(old_id)
    # the first file synced is the new memory's, the second the old one's rewrite
    on_temp_fsync(monkeypatch, lambda n: append(path, "hand note") if n == 1 else None)
    draft = store.prepare_memory(summary="pool must be closed twice", category="gotcha", files=[])
    result, _ = store.supersede(old_id, draft)
    text = path.read_text(encoding="utf-8")
    assert "status: superseded" in text
    assert f"superseded_by: {result.id}" in text
    assert text.endswith("hand note\n")
