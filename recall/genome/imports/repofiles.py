"""The set of files an import may resolve to, with the look-ups every resolver needs."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path

from recall.containment import read_plain_prefix
from recall.genome.limits import MAX_SCAN_BYTES


class RepoFiles:
    """Repo-relative POSIX paths of the working tree, indexed by folder and by file name."""

    def __init__(self, root: Path | None, paths: Iterable[str]) -> None:
        """Index ``paths``; ``root`` is where configuration files (go.mod…) are read from."""
        self.root = root
        self.paths = frozenset(paths)
        self._by_dir: dict[str, list[str]] | None = None
        self._by_name: dict[str, list[str]] | None = None
        self._dirs: frozenset[str] | None = None

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def _index(self) -> None:
        by_dir: dict[str, list[str]] = {}
        by_name: dict[str, list[str]] = {}
        dirs: set[str] = {""}
        for path in sorted(self.paths):
            folder, _, name = path.rpartition("/")
            by_dir.setdefault(folder, []).append(path)
            by_name.setdefault(name, []).append(path)
            while folder and folder not in dirs:
                dirs.add(folder)
                folder = folder.rpartition("/")[0]
        self._by_dir, self._by_name, self._dirs = by_dir, by_name, frozenset(dirs)

    def in_dir(self, folder: str) -> list[str]:
        """Files directly inside ``folder`` ("" for the top), sorted."""
        if self._by_dir is None:
            self._index()
        assert self._by_dir is not None
        return self._by_dir.get(folder, [])

    def named(self, name: str) -> list[str]:
        """Files whose last path component is ``name``, sorted."""
        if self._by_name is None:
            self._index()
        assert self._by_name is not None
        return self._by_name.get(name, [])

    def is_dir(self, folder: str) -> bool:
        """Tell whether some file lies below ``folder``."""
        if self._dirs is None:
            self._index()
        assert self._dirs is not None
        return folder in self._dirs

    def dirs(self) -> frozenset[str]:
        """Every folder holding a file, directly or below ("" for the top)."""
        if self._dirs is None:
            self._index()
        assert self._dirs is not None
        return self._dirs

    def read_text(self, path: str) -> str | None:
        """A configuration file's text, or None when absent, too large or not UTF-8."""
        if self.root is None or path not in self.paths:
            return None
        try:
            data = read_plain_prefix(self.root / path, MAX_SCAN_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_SCAN_BYTES:
            return None
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None


def join(folder: str, relative: str) -> str | None:
    """``relative`` taken from ``folder``, normalized; None when it leaves the repository."""
    joined = posixpath.normpath(posixpath.join(folder, relative))
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith(("../", "/")):
        return None
    return joined


def parent(path: str) -> str:
    """The folder holding ``path`` ("" at the top)."""
    return path.rpartition("/")[0]
