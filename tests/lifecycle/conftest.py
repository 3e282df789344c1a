"""Fixtures for the lifecycle simulations: a clock set by day number, and helpers that run
session starts and surfacings on a real store (in-process) or through the real CLI.

The in-process helpers close the store's connection when done (it reopens on next use), as the
separate processes they stand for would: a test then never holds a connection open while a
hook run in-process opens the same index.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, run_tether

from recall import hooks
from recall.clock import format_timestamp
from recall.lifecycle.session_start import SessionStart, start_session
from recall.policy.usage import record_surfacings
from recall.settings import EngineSettings
from recall.store import MemoryStore
from recall.store_settings import StoreSettings

DAY0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def at(day: float) -> str:
    """The ISO time ``day`` days after DAY0."""
    return format_timestamp(DAY0 + timedelta(days=day))


class Clock:
    """Sets ``TETHER_NOW`` (for this process and for CLI subprocesses, which inherit it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        self.day: float = 0.0
        self.set(0)

    def set(self, day: float) -> str:
        """Move the clock to ``day``; return the ISO time."""
        self.day = day
        stamp = at(day)
        self._monkeypatch.setenv("TETHER_NOW", stamp)
        return stamp


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The engine's clock, at day 0 until moved."""
    return Clock(monkeypatch)


def surface(store: MemoryStore, ids: Sequence[str], day: float) -> None:
    """Count one surfacing of each memory on ``day`` (one turn's worth)."""
    record_surfacings(store.conn, list(ids), when=at(day))
    store.close()


def session_start(
    store: MemoryStore,
    clock: Clock,
    day: float,
    session: str | None = None,
    *,
    settings: EngineSettings | None = None,
    genome_for: Callable[[MemoryStore], Any] = lambda _store: None,
) -> SessionStart:
    """Run the session-start pass in-process on ``day`` (project store only)."""
    clock.set(day)
    try:
        return start_session(
            store,
            [store],
            session or f"session-{day}",
            origin="test",
            settings=StoreSettings.alike(settings or EngineSettings()),
            genome_for=genome_for,
        )
    finally:
        store.close()


def usage_row(store: MemoryStore, memory_id: str) -> dict[str, Any] | None:
    """The memory's usage row, as a dict (None when it has none)."""
    row = store.conn.execute("SELECT * FROM usage WHERE memory_id = ?", (memory_id,)).fetchone()
    store.close()
    return None if row is None else dict(row)


def hook_session_start(root: Path, session: str) -> str:
    """Run the SessionStart hook in-process, as Claude Code would call it."""
    payload = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    return hooks.run("session-start", json.dumps(payload))


def tether(root: Path, *args: str, stdin: str | None = None) -> CliResult:
    """The real CLI in ``root`` (the clock is inherited from ``TETHER_NOW``)."""
    return run_tether(*args, cwd=root, stdin=stdin)
