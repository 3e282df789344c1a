"""What every language's import scanner provides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from recall.genome.imports.repofiles import RepoFiles


class Language(Protocol):
    """Extracts import specifiers from one file, and resolves them to repository files.

    Extraction sees only the file's text, so its result can be cached by content hash;
    resolution sees the whole tree, so it is redone on every refresh.
    """

    name: str
    suffixes: tuple[str, ...]

    def extract(self, text: str) -> list[str]:
        """The file's import specifiers, in this language's own notation."""
        ...

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> Any:
        """Build what resolution needs once per refresh (module roots, package maps…)."""
        ...

    def resolve(self, path: str, specs: Sequence[str], context: Any) -> Iterable[str]:
        """The repository files that ``path`` imports."""
        ...
