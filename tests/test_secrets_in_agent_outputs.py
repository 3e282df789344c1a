"""The other outputs agents and scripts read give a hand-written credential masked too.

``tether cleanup --json`` (which the cleanup hint tells an agent to run), ``tether session
start`` (the session-start pass for agents and scripts without hooks), ``tether check`` (CI and
review), ``tether pending`` (which a session start points an agent at) and the ``--json`` echo
of a memory after ``pin``, ``guard``, ``archive``, ``restore`` or ``delete`` show a credential
written by hand into a memory file as ``recall`` and ``inject`` do: masked, with
``secret_masked: true``, the person told on stderr which file holds it. The file is left as
written.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import OpenStore, run_tether

from recall.clock import format_timestamp
from recall.policy.usage import record_surfacings
from tests.test_secrets_in_memory_files import (
    MASKED_SUMMARY,
    MEMORY_ID,
    OTHER_SESSION,
    SUMMARY,
    never_whole,
    write_by_hand,
)

MASKED_DETAILS = (
    "The database is postgres://admin:s3c…[14 chars]@db.example.com/app\n"
    "and the CI bot's token is ghp_Zk3Z…[40 chars]."
)
LATER = "2030-01-01T00:00:00+00:00"
"""Years after the memories were committed: every one of them is idle, a cleanup candidate."""
FIRST_SHOWN = datetime(2030, 1, 5, 9, 0, tzinfo=UTC)
EVERY_THRESHOLD_MET = (
    "[tool.tether]\ncleanup-min-sessions = 1\ncleanup-min-active = 1\ncleanup-min-stale = 1\n"
)


def said_where(stderr: str, path: Path) -> None:
    """Fail unless ``stderr`` names the file holding the credential and says what to do."""
    assert f"{path}: memory {MEMORY_ID} holds what looks like a credential" in stderr, stderr
    assert "remove it from the file" in stderr


def test_cleanup_json_lists_the_candidate_masked(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_by_hand(repo)
    before = path.read_bytes()
    monkeypatch.setenv("TETHER_NOW", LATER)
    listed = run_tether("--json", "cleanup", cwd=repo)
    assert listed.code == 0, listed.stderr
    by_id = {c["id"]: c for c in listed.json()["candidates"]}
    assert by_id[MEMORY_ID]["summary"] == MASKED_SUMMARY
    assert by_id[MEMORY_ID]["secret_masked"] is True
    assert len(by_id) == 4
    assert not any("secret_masked" in c for i, c in by_id.items() if i != MEMORY_ID)
    never_whole(listed.stdout + listed.stderr)
    said_where(listed.stderr, path)
    assert path.read_bytes() == before


def test_session_start_json_masks_the_worst_offender(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_by_hand(repo)
    (repo / "pyproject.toml").write_text(EVERY_THRESHOLD_MET, encoding="utf-8")
    monkeypatch.setenv("TETHER_NOW", LATER)
    started = run_tether("--json", "session", "start", "--session", OTHER_SESSION, cwd=repo)
    assert started.code == 0, started.stderr
    cleanup = started.json()["cleanup"]
    assert cleanup["due"] is True
    [worst] = [c for c in cleanup["worst"] if c["id"] == MEMORY_ID]
    assert worst["summary"] == MASKED_SUMMARY and worst["secret_masked"] is True
    never_whole(started.stdout + started.stderr)
    said_where(started.stderr, path)


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_session_start_masks_a_memory_it_archives_by_disuse(
    repo: Path,
    open_store: Callable[..., OpenStore],
    monkeypatch: pytest.MonkeyPatch,
    as_json: bool,
) -> None:
    path = write_by_hand(repo)
    store = open_store().store
    for day in range(0, 41, 8):  # shown six times over forty days, never acted on
        when = format_timestamp(FIRST_SHOWN + timedelta(days=day))
        record_surfacings(store.conn, [MEMORY_ID], when=when)
    store.close()
    monkeypatch.setenv("TETHER_NOW", format_timestamp(FIRST_SHOWN + timedelta(days=45)))
    flag = ["--json"] if as_json else []
    started = run_tether(*flag, "session", "start", "--session", OTHER_SESSION, cwd=repo)
    assert started.code == 0, started.stderr
    if as_json:
        [archived] = started.json()["archived"]
        assert archived["id"] == MEMORY_ID
        assert archived["summary"] == MASKED_SUMMARY and archived["secret_masked"] is True
    else:
        line = f"  {MEMORY_ID}  shown 6x, never acted on: {MASKED_SUMMARY}"
        assert line in started.stdout.splitlines(), started.stdout
    never_whole(started.stdout + started.stderr)
    said_where(started.stderr, path)


@pytest.mark.parametrize(
    "form",
    [("--json", "check"), ("check",), ("check", "--format", "github")],
    ids=["json", "text", "github"],
)
def test_check_masks_the_memory_a_change_affects(repo: Path, form: tuple[str, ...]) -> None:
    path = write_by_hand(repo)
    with (repo / "src" / "app.py").open("a", encoding="utf-8") as source:
        source.write("changed = True\n")
    checked = run_tether(*form, cwd=repo)
    assert checked.code == 0, checked.stderr
    if form[0] == "--json":
        [finding] = checked.json()["review"]
        assert finding["summary"] == MASKED_SUMMARY and finding["secret_masked"] is True
    else:
        [line] = [line for line in checked.stdout.splitlines() if MEMORY_ID in line]
        assert MASKED_SUMMARY in line
    never_whole(checked.stdout + checked.stderr)
    said_where(checked.stderr, path)


def pending_by_hand(repo: Path) -> Path:
    """The memory file written by hand as an auto-distilled proposal awaiting review."""
    path = write_by_hand(repo)
    marks = "category: gotcha\nstatus: pending\nsource: auto-distilled\n"
    path.write_text(path.read_text(encoding="utf-8").replace("category: gotcha\n", marks))
    return path


def test_pending_lists_a_memory_awaiting_review_masked(repo: Path) -> None:
    path = pending_by_hand(repo)
    as_json = run_tether("--json", "pending", cwd=repo)
    assert as_json.code == 0, as_json.stderr
    [entry] = as_json.json()
    assert entry["summary"] == MASKED_SUMMARY and entry["secret_masked"] is True
    assert entry["details"] == MASKED_DETAILS
    piped = run_tether("pending", cwd=repo)  # one line per memory, as an agent reads it
    assert piped.stdout.split("\t")[:3] == [MEMORY_ID, "gotcha", MASKED_SUMMARY]
    for done in (as_json, piped):
        never_whole(done.stdout + done.stderr)
        said_where(done.stderr, path)


def test_purge_of_auto_distilled_memories_gives_them_back_masked(repo: Path) -> None:
    pending_by_hand(repo)
    purged = run_tether("--json", "purge", "--auto-distilled", "--yes", cwd=repo)
    assert purged.code == 0, purged.stderr
    [gone] = purged.json()["memories"]
    assert gone["summary"] == MASKED_SUMMARY and gone["secret_masked"] is True
    never_whole(purged.stdout + purged.stderr)


def test_a_memory_echoed_after_a_change_of_state_is_masked(repo: Path) -> None:
    path = write_by_hand(repo)
    for command in ("pin", "unpin", "guard", "unguard", "archive", "restore", "delete", "restore"):
        done = run_tether("--json", command, MEMORY_ID, cwd=repo)
        assert done.code == 0, (command, done.stderr)
        echoed = done.json()
        assert echoed["summary"] == MASKED_SUMMARY and echoed["details"] == MASKED_DETAILS
        assert echoed["secret_masked"] is True
        never_whole(done.stdout + done.stderr)
        said_where(done.stderr, path)
    assert SUMMARY in path.read_text(encoding="utf-8")  # the file keeps it as written
