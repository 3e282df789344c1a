"""Where a finding of ``tether doctor`` about one memory is: its file, and the line of the key
the finding is about, led with so that the person knows which file to open."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from recall.lifecycle.links import key_line
from recall.store import MemoryStore


class FindingPlace:
    """The memory file a finding of ``doctor`` is about, to lead with: a hand-written file's
    name need not be its id, and the id alone does not say which file to open."""

    def __init__(self, store: MemoryStore, memory_id: str) -> None:
        self.store, self.memory_id, self.scope = store, memory_id, store.scope

    @functools.cached_property
    def path(self) -> Path:
        """The memory's file (looked up only for a memory with a finding)."""
        return self.store.path_of(self.memory_id)

    def line(self, key: str, message: str) -> str:
        """``message`` after the file and the line giving ``key`` (the first key of ``anchors``
        and ``anchor`` given, for a symbol)."""
        at = key_line(self.path, key)
        if key == "anchors" and at == 1:
            at = key_line(self.path, "anchor")
        return f"{self.path}:{at}: {message}"

    def entry(self, kind: str) -> dict[str, Any]:
        """The JSON entry's scope, kind and file."""
        return {"scope": self.scope, "kind": kind, "path": str(self.path)}
