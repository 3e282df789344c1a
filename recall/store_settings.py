"""Which settings act on which store: a repository's files decide for its own store only.

The user-wide store holds the user's own memories, recalled in every repository they work in.
A repository is untrusted input (anyone can clone one), so what its settings files say
(``[tool.tether]``, ``.tether/config.toml``) must never change what happens to that store: a
repository lowering the archive thresholds would hide the user's own memories everywhere by
disuse. The user-wide store's lifecycle reads the defaults and the user's own ``config.toml``
alone; the project store reads those and the repository's files (:func:`recall.settings.merge`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.config_fields import Warn
from recall.locations import GLOBAL
from recall.settings import EngineSettings, file_sources, merge, user_sources

if TYPE_CHECKING:
    from recall.store import MemoryStore


@dataclass(frozen=True)
class StoreSettings:
    """The engine's settings as each store of a repository is to read them."""

    project: EngineSettings
    """The defaults, then the repository's files, then the user's own file: for the
    repository's store, and for what the session does there (distill, the cleanup hint)."""
    user_wide: EngineSettings
    """The defaults, then the user's own file: for the user-wide store."""

    def of(self, store: MemoryStore) -> EngineSettings:
        """The settings that act on ``store``."""
        return self.user_wide if store.scope == GLOBAL else self.project

    @classmethod
    def alike(cls, settings: EngineSettings) -> StoreSettings:
        """The same settings for every store (no repository's files in them)."""
        return cls(settings, settings)


def store_settings(repo_root: Path | None, warn: Warn) -> StoreSettings:
    """Each file read once, each problem in one said once: the repository's settings and the
    user's own, merged for the project store and without the repository's for the user-wide
    store."""
    repository = file_sources(repo_root, warn)
    own = user_sources(warn, repo_root)
    project = merge(own, warn, repository=repository)
    # the same tables of the user's own file again: their problems were just said
    user_wide = merge(own, lambda _said: None)
    return StoreSettings(project, user_wide)
