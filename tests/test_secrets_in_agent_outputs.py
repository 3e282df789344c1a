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

from pathlib import Path

import pytest
from conftest import run_tether

from tests.test_secrets_in_memory_files import (
    MASKED_SUMMARY,
    MEMORY_ID,
    never_whole,
    write_by_hand,
)

LATER = "2030-01-01T00:00:00+00:00"
"""Years after the memories were committed: every one of them is idle, a cleanup candidate."""


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
