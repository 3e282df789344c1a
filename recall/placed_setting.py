"""One engine setting with the file and line that set it, for a message that tells the user
where to change it (``private_memories = true`` in ``.tether/config.toml:1``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall.config_fields import Warn, fold_key
from recall.settings import engine_keys, file_sources, merge, user_config_path, user_sources
from recall.toml_lines import FileTable


@dataclass(frozen=True)
class Placed:
    """A setting's value in effect, and the file and line of the key that gave it (no file: its
    default)."""

    value: Any
    path: Path | None = None
    line: int | None = None

    def where(self) -> str:
        """``path:line`` of the key (the file alone when its line cannot be found)."""
        return f"{self.path}:{self.line}" if self.line is not None else str(self.path)


def placed_setting(repo_root: Path | None, name: str, warn: Warn) -> Placed:
    """The engine setting ``name`` for a repository, with the file and line that set it: the
    last valid key of it in the repository's files, then the user's own, read as
    :func:`recall.settings.engine_settings` reads them. Only warnings about that key, or about
    the user's own file (one that cannot be read), are reported; the others are left to
    ``tether doctor``."""
    own_file = str(user_config_path())
    folded = fold_key(name)

    def about_it(message: str) -> None:
        if folded in fold_key(message) or (own_file in message and "not read" in message):
            warn(message)

    repository = file_sources(repo_root, about_it)
    user = user_sources(about_it)
    value = getattr(merge(user, about_it, repository=repository), name)
    placed = Placed(value)
    for source, values in [*repository, *user]:
        for raw_key, raw_value in values.items():
            entry = engine_keys().get(fold_key(str(raw_key)))
            if entry is None or entry[0] != name:
                continue
            try:
                entry[1](raw_value)
            except ValueError:  # said by the merge; the value before it is kept
                continue
            if isinstance(source, FileTable):
                placed = Placed(value, source.path, source.line_of(str(raw_key)))
    return placed
