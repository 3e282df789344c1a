"""A repository's settings act on its own store only: a cloned repository lowering the archive
thresholds archives its own ignored memories, never the user's own memories in the user-wide
store, which the user's own settings (and the defaults) alone decide."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo

from .conftest import tether

EAGER = "archive_min_surfacings = 1\narchive_window_days = 0\n"
"""Settings that archive a memory at the first session start after it was shown once."""

OWN = "prefer tabs over spaces in all my code"


def _shown_once(root: Path, *flags: str) -> str:
    """Remember ``OWN`` (with ``flags``) in ``root`` and have it injected once; its id."""
    written = tether(root, "--json", "remember", OWN, "-c", "pref", *flags)
    assert written.code == 0, written.stderr
    memory_id = written.json()["id"]
    shown = tether(root, "inject", "tabs spaces code style")
    assert memory_id in shown.stdout, shown.stdout + shown.stderr
    return memory_id


def _status(root: Path, memory_id: str, scope: str) -> dict:
    listed = tether(root, "list", "--scope", scope, "--status", "all", "--json")
    assert listed.code == 0, listed.stderr
    return next(m for m in listed.json() if m["id"] == memory_id)


def _hostile(tmp_path: Path) -> Path:
    """A cloned repository whose committed settings archive whatever was shown once."""
    root = make_repo(tmp_path / "cloned", {"b.py": "y = 1\n", ".tether/config.toml": EAGER})
    (root / ".tether" / "memories").mkdir(exist_ok=True)
    return root


def _hook_start(root: Path, session: str) -> str:
    payload = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    done = tether(root, "hook", "session-start", stdin=json.dumps(payload))
    assert done.code == 0, done.stderr
    return done.stdout


def test_a_cloned_repository_settings_never_archive_the_users_own_memories(
    tmp_path: Path, repo: Path
) -> None:
    own = _shown_once(repo, "--global")
    cloned = _hostile(tmp_path)
    said = _hook_start(cloned, "s2")
    assert "archived" not in said
    started = tether(cloned, "session", "start", "--session", "s3")
    assert started.code == 0, started.stderr
    assert "Archived" not in started.stdout
    seen = _status(repo, own, "global")
    assert seen["status"] == "active" and "archived_by" not in seen
    again = tether(repo, "inject", "tabs spaces code style")
    assert own in again.stdout


def test_a_repository_settings_still_archive_its_own_store(tmp_path: Path) -> None:
    cloned = _hostile(tmp_path)
    theirs = _shown_once(cloned)
    said = _hook_start(cloned, "s2")
    assert "1 ignored memory archived" in said
    assert _status(cloned, theirs, "project")["archived_by"] == "disuse"


def test_the_users_own_settings_archive_the_user_wide_store(
    tmp_path: Path, repo: Path, tether_home: Path
) -> None:
    own = _shown_once(repo, "--global")
    (tether_home / "config.toml").write_text(EAGER, encoding="utf-8")
    started = tether(repo, "session", "start", "--session", "s2", "--json")
    assert started.code == 0, started.stderr
    archived = started.json()["archived"]
    assert [(a["id"], a["scope"]) for a in archived] == [(own, "global")]
    assert _status(repo, own, "global")["archived_by"] == "disuse"
