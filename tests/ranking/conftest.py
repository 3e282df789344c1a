"""Fixtures for the recall tests: a pinned clock and a fresh ``World`` (repository + stores)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .world import NOW, World


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pin the engine's clock (also for CLI subprocesses, which inherit the environment)."""
    monkeypatch.setenv("TETHER_NOW", NOW)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """An empty git repository with a project store; stores are closed at teardown."""
    made = World(tmp_path / "repo")
    yield made
    made.close()
