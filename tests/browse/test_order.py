"""The browser lists both stores as one list, newest first, as ``tether list`` does."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import OpenStore, remember

from recall.browse.actions import Browser
from recall.browse.view import View


def test_the_browser_lists_both_stores_newest_first_as_one_list(
    open_store: Callable[..., OpenStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = open_store().store
    global_ = open_store(scope="global").store
    for day, store, summary in [
        (1, project, "project first"),
        (2, global_, "global second"),
        (3, project, "project third"),
        (4, global_, "global fourth"),
    ]:
        monkeypatch.setenv("TETHER_NOW", f"2026-03-0{day}T10:00:00+00:00")
        remember(store, summary, files=[])
    browser = Browser([project, global_], author="Browse Tester")
    browser.load()
    assert [(e.memory.summary, e.scope) for e in browser.rows(View())] == [
        ("global fourth", "global"),
        ("project third", "project"),
        ("global second", "global"),
        ("project first", "project"),
    ]
