"""Markers the reliability tests borrow from the language-server tests' fixtures."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """``init_options`` is read by ``tests.lsp.conftest.start``, which these tests reuse."""
    config.addinivalue_line("markers", "init_options(dict): initializationOptions to send")
