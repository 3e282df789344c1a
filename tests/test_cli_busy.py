"""The CLI while another Tether process holds the store (its writers' lock: a reindex, an
import; or its index's write lock: a genome refresh): a read waits as long as the hooks do,
then answers from the index as last committed and says so; a write waits longer, says what it
waits for, and then fails naming the busy store."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import OpenStore, run_tether

from recall.errors import EXIT_FAILURE, StoreBusy
from recall.hooks.events import GUARD_BUSY_MS
from recall.index.db import BUSY_TIMEOUT_MS
from recall.locations import project_location
from recall.store.busy import READ_WAIT_SECONDS, WRITE_WAIT_SECONDS

BUSY_SAID = "is busy: serving its index as of its last commit"
PULLED = "a gotcha pulled while the store was busy"


def test_the_waits_are_the_hooks_and_the_language_servers() -> None:
    from lsp_server.store_busy import STORE_WAIT_SECONDS
    from lsp_server.store_busy import WRITE_WAIT_SECONDS as LSP_WRITE_WAIT

    assert READ_WAIT_SECONDS == GUARD_BUSY_MS / 1000 == STORE_WAIT_SECONDS
    assert WRITE_WAIT_SECONDS == BUSY_TIMEOUT_MS / 1000 == LSP_WRITE_WAIT


@pytest.fixture
def remembered(repo: Path) -> Path:
    done = run_tether(
        "remember", "login retries stay at three", "-c", "gotcha", "-f", "src/app.py", cwd=repo
    )
    assert done.code == 0, done.stderr
    return repo


@contextlib.contextmanager
def lock_held(repo: Path) -> Iterator[None]:
    fd = os.open(project_location(repo).lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def index_held(repo: Path) -> Iterator[None]:
    other = sqlite3.connect(project_location(repo).index_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
    finally:
        other.close()


HOLDERS = {"writers-lock": lock_held, "index-lock": index_held}


def pull(repo: Path) -> None:
    """A memory file written by hand (a git pull): the index is behind the folder."""
    (repo / ".tether" / "memories" / "feedbeef.md").write_text(
        f"---\ncategory: gotcha\nfiles:\n  - src/app.py\n---\n{PULLED}\n"
    )


@pytest.mark.parametrize("holder", sorted(HOLDERS))
@pytest.mark.parametrize(
    "command",
    [["list"], ["search", "login"], ["recall", "login"], ["stats"], ["show", "feedbeef"]],
)
def test_a_read_answers_from_the_index_as_last_committed(
    remembered: Path, holder: str, command: list[str]
) -> None:
    with HOLDERS[holder](remembered):
        pull(remembered)
        start = time.monotonic()
        done = run_tether(*command, cwd=remembered)
        took = time.monotonic() - start
    if command[0] == "show":  # not in the index as last committed: not found, said so
        assert done.code != 0 and "feedbeef" in done.stderr, done.stderr
    else:
        assert done.code == 0, done.stderr
        assert PULLED not in done.stdout
    assert took < WRITE_WAIT_SECONDS, done.stderr  # a read's wait, never a write's
    assert done.stderr.count(BUSY_SAID) == 1, done.stderr
    if command[0] in ("list", "search"):
        assert "login retries stay at three" in done.stdout
    listed = run_tether("list", cwd=remembered)  # free again: the pulled file is read
    assert PULLED in listed.stdout and BUSY_SAID not in listed.stderr


def test_a_write_waits_for_the_lock_and_goes_through_once_it_is_free(remembered: Path) -> None:
    fd = os.open(project_location(remembered).lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    writer = subprocess.Popen(
        [sys.executable, "-m", "recall", "remember", "a note written after the wait", "-c", "pref"],
        cwd=remembered,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stderr is not None
        said: list[str] = []
        while len(said) < WAIT_SAID_WITHIN and not any(WAITING in line for line in said):
            said.append(writer.stderr.readline())
        assert any(WAITING in line for line in said), said
    finally:
        os.close(fd)  # the other process finishes once the wait is said
    _out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert "".join([*said, err]).count(WAITING) == 1
    assert "after the wait" in run_tether("list", cwd=remembered).stdout


WAITING = "waiting for another Tether process"

WAIT_SAID_WITHIN = 3
"""Lines of the writer's stderr read before its wait must have been said (a read before the
write may say first that it answers from the index as last committed)."""


ASKED_WAIT = 3.0
"""A write wait asked for with ``--wait``: short enough for a test to sit out, long enough
for the wait to be said (after a second)."""


@pytest.mark.parametrize(
    ("holder", "wait"),
    [("writers-lock", None), ("index-lock", ASKED_WAIT), ("writers-lock", ASKED_WAIT)],
)
def test_a_write_held_off_past_the_wait_fails_naming_the_store(
    remembered: Path, holder: str, wait: float | None
) -> None:
    """The default wait (once), and one asked for with ``--wait``: the whole wait, then the
    failure; an asked wait is not the default one."""
    asked = [] if wait is None else ["--wait", f"{wait:g}"]
    with HOLDERS[holder](remembered):
        start = time.monotonic()
        done = run_tether("remember", "never written", "-c", "pref", *asked, cwd=remembered)
        took = time.monotonic() - start
    assert done.code == EXIT_FAILURE, done.stderr
    assert took >= (wait or WRITE_WAIT_SECONDS)  # the whole wait, then the failure
    if wait is not None:
        assert took < WRITE_WAIT_SECONDS, done.stderr
        assert f"for over {wait:g} s; nothing was written" in done.stderr
    assert "waiting for another Tether process" in done.stderr
    base = remembered / ".tether"
    assert f"the project store {base} is busy" in done.stderr
    assert "nothing was written" in done.stderr and "retry" in done.stderr
    assert "never written" not in run_tether("list", cwd=remembered).stdout


REFUSED = "is busy with another writer"


@pytest.mark.parametrize("holder", sorted(HOLDERS))
@pytest.mark.parametrize("command", [["pin", "{id}"], ["archive", "{id}"], ["unpin", "{id}"]])
def test_a_write_that_reads_first_says_it_waits_never_that_it_reads_a_copy(
    remembered: Path, holder: str, command: list[str]
) -> None:
    """The index behind the folder (a pull) and the store held past the write's wait: the
    write's read first waits as the write does, then the command fails once, naming the
    store; it never says it serves the index as last committed."""
    memory_id = run_tether("list", "--json", cwd=remembered).json()[0]["id"]
    words = ["--wait", f"{ASKED_WAIT:g}", *[part.format(id=memory_id) for part in command]]
    with HOLDERS[holder](remembered):
        pull(remembered)
        done = run_tether(*words, cwd=remembered)
    assert done.code == EXIT_FAILURE, done.stderr
    assert BUSY_SAID not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"tether: {WAITING} (holding the project store {remembered / '.tether'}) to finish"
    )
    assert done.stderr.count(WAITING) == 1 and done.stderr.count(REFUSED) == 1
    assert f"the project store {remembered / '.tether'} {REFUSED}" in lines[-1]
    assert "nothing was written" in lines[-1]
    assert PULLED in run_tether("list", cwd=remembered).stdout  # free again: all as before


HANDED_WAIT = 10.0
"""The write wait of the hand-over test: the hand-over happens after the wait is said (a
second in), with seconds to spare on a loaded machine (checked: a hand-over after the wait
had run out would test nothing)."""


def test_a_store_handed_from_one_writer_to_another_is_waited_for_once(
    remembered: Path,
) -> None:
    """Another writer takes the store as the first lets it go, and keeps it: the write (its
    read first waiting, saying so) does not start a second whole wait at its write or its
    lock; it fails once, naming the store, having said its wait once. The second holder takes
    the index before the first lets the writers' lock go, so the store is never free between."""
    memory_id = run_tether("list", "--json", cwd=remembered).json()[0]["id"]
    pull(remembered)  # the write's read syncs the folder: it waits for the lock there
    first = os.open(project_location(remembered).lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(first, fcntl.LOCK_EX)
    writer = subprocess.Popen(
        [sys.executable, "-m", "recall", "--wait", f"{HANDED_WAIT:g}", "pin", memory_id],
        cwd=remembered,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stderr is not None
        said = writer.stderr.readline()
        said_at = time.monotonic()
        assert WAITING in said, said
        with index_held(remembered):  # the other writer, in before the first lets go
            os.close(first)
            first = -1
            handed_after = time.monotonic() - said_at
            _out, err = writer.communicate(timeout=120)
    finally:
        if first >= 0:
            os.close(first)
    stderr = said + err
    # handed over while the write still waited (said a second into it), or nothing was tested
    assert handed_after < HANDED_WAIT - 2, handed_after
    assert writer.returncode == EXIT_FAILURE, stderr
    assert stderr.count(WAITING) == 1 and stderr.count(REFUSED) == 1, stderr
    assert BUSY_SAID not in stderr and "write.lock is held" not in stderr
    assert f"the project store {remembered / '.tether'} {REFUSED}" in stderr


def test_a_command_that_only_reads_answers_from_the_index_as_last_committed(
    remembered: Path,
) -> None:
    """``export`` (as ``check`` and ``doctor``) writes nothing: with the index held past its
    wait, it answers from the index as last committed and says so, and succeeds."""
    with index_held(remembered):
        pull(remembered)
        done = run_tether("export", "--wait", "1", cwd=remembered)
    assert done.code == 0, done.stderr
    assert done.stderr.count(BUSY_SAID) == 1, done.stderr
    assert REFUSED not in done.stderr
    exported = [json.loads(line) for line in done.stdout.splitlines()]
    assert [m["summary"] for m in exported] == ["login retries stay at three"]


@pytest.fixture
def parser_commands() -> dict[str, argparse.ArgumentParser]:
    from recall.cli.parser import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


COMMAND_CLASSES = {
    **dict.fromkeys(["list", "search", "recall", "inject", "show", "stats"], "read"),
    **dict.fromkeys(
        ["init", "remember", "supersede", "confirm", "import", "reindex", "purge", "index"], "write"
    ),
    **dict.fromkeys(
        ["pin", "unpin", "guard", "unguard", "archive", "restore", "delete", "session"], "write"
    ),
    **dict.fromkeys(["repoint", "pending", "distill", "cleanup"], "as asked"),
    **dict.fromkeys(["neighbours", "fanin", "export", "doctor", "check", "browse"], "other"),
    **dict.fromkeys(["lsp", "mcp", "hook", "warm", "editor-config", "agent-config"], "other"),
}
"""Every subcommand's class: a new command must be placed in one (recall.cli.context)."""


def test_every_command_is_classed_as_a_read_a_write_or_neither(
    parser_commands: dict[str, argparse.ArgumentParser],
) -> None:
    from recall.cli.context import READ_COMMANDS, WRITE_COMMANDS, WRITES_WHEN

    assert sorted(parser_commands) == sorted(COMMAND_CLASSES)
    found = {
        name: "read"
        if name in READ_COMMANDS
        else "write"
        if name in WRITE_COMMANDS
        else "as asked"
        if name in WRITES_WHEN
        else "other"
        for name in parser_commands
    }
    assert found == COMMAND_CLASSES


@pytest.mark.parametrize(
    ("words", "writing"),
    [
        (["repoint", "abcd"], False),
        (["repoint", "abcd", "--apply"], True),
        (["pending"], False),
        (["pending", "list"], False),
        (["pending", "confirm", "abcd"], True),
        (["pending", "drop", "abcd"], True),
        (["distill", "--dry-run"], False),
        (["distill"], True),
        (["cleanup", "--json"], False),
        (["--json", "cleanup"], False),
        (["cleanup"], True),
        (["cleanup", "--json", "--keep", "abcd"], True),
        (["pin", "abcd"], True),
        (["-C", ".", "export"], False),
        (["check"], False),
    ],
)
def test_whether_a_run_writes_is_told_by_its_arguments(words: list[str], writing: bool) -> None:
    from recall.cli.context import writes
    from recall.cli.parser import build_parser

    args = build_parser().parse_args(words)
    assert writes(args.command, args) is writing


def hold_for(
    holder: Callable[[Path], contextlib.AbstractContextManager[None]], repo: Path, seconds: float
) -> threading.Event:
    """Hold ``repo``'s store with ``holder`` from a thread for ``seconds``, then let it go;
    the event is set once it is held."""
    held = threading.Event()

    def run() -> None:
        with holder(repo):
            held.set()
            time.sleep(seconds)

    threading.Thread(target=run, daemon=True).start()
    assert held.wait(10)
    return held


SHORT_WAIT = 2.0
"""A write wait short enough for a test to sit out, set as the CLI sets its own."""


@pytest.mark.parametrize("first", ["read", "reindex"])
def test_a_later_wait_of_a_write_is_a_whole_one_of_its_own(
    remembered: Path, open_store: Callable[..., OpenStore], first: str
) -> None:
    """A write command's read (or a reindex) waits for another process and finds the store
    free; the command then works a while, and its write meets another holder, briefly: the
    write waits for it (a wait of its own, not what was left of the first) and goes through."""
    writer = open_store(remembered).store
    writer.wait = writer.write_wait = SHORT_WAIT
    writer.for_write = True
    if first == "reindex":
        writer.list()
    hold_for(lock_held, remembered, SHORT_WAIT / 4)
    if first == "reindex":
        writer.reindex()  # waits for the holder, then rebuilds
    (memory,) = writer.list()  # waits for the holder, then reads
    time.sleep(SHORT_WAIT)  # the command's own work, as long as its wait
    hold_for(index_held, remembered, SHORT_WAIT / 2)
    assert writer.set_pinned(memory.id, True).pinned


def test_a_write_held_off_says_how_long_it_waited(
    remembered: Path, open_store: Callable[..., OpenStore]
) -> None:
    writer = open_store(remembered).store
    writer.wait = writer.write_wait = SHORT_WAIT
    writer.for_write = True
    (memory,) = writer.list()
    with lock_held(remembered), pytest.raises(StoreBusy) as raised:
        writer.set_pinned(memory.id, True)
    message = str(raised.value)
    assert f"for over {SHORT_WAIT:g} s; nothing was written" in message, message
