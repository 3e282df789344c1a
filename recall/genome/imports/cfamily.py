"""C and C++ ``#include`` directives.

``#include "x.h"`` is looked for, like a compiler with the usual ``-I`` flags does, in the
including file's folder, then in each folder above it, then in the repository's include
folders (named ``include`` or ``inc``) and its top. ``#include <x.h>`` skips the including
file's folders. Candidates are found through an index of file names, so an include costs a
dictionary look-up, not a walk over every include folder.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall.genome.imports.repofiles import RepoFiles, join, parent

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*(?:include|import)[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)

# Folder names that build systems put on the include path by convention.
INCLUDE_DIR_NAMES = frozenset({"include", "inc"})


def extract(text: str) -> list[str]:
    """``q:<path>`` for quoted includes and ``a:<path>`` for angle-bracket ones."""
    return [
        ("q:" if quote == '"' else "a:") + target.strip()
        for quote, target in _INCLUDE.findall(text)
    ]


@dataclass(frozen=True)
class CContext:
    """The tree, for file-name look-ups."""

    repo: RepoFiles


def _is_include_dir(folder: str) -> bool:
    return not folder or folder.rpartition("/")[2] in INCLUDE_DIR_NAMES


def _rank(candidate_base: str, folder: str, quoted: bool) -> int | None:
    """Search order of the folder ``candidate_base`` for an include from ``folder``.

    Lower is searched first; None when a compiler with conventional flags would not look.
    """
    if quoted:
        if candidate_base == folder:
            return 0
        if not candidate_base or folder.startswith(candidate_base + "/"):
            return 1 + folder.count("/") - candidate_base.count("/")
    if _is_include_dir(candidate_base):
        return 1000 + candidate_base.count("/")
    return None


def resolve_include(repo: RepoFiles, path: str, target: str, quoted: bool) -> str | None:
    """The repository file an include of ``target`` from ``path`` reaches, if any."""
    folder = parent(path)
    if target.startswith("/"):
        return None
    if ".." in target.split("/"):
        if not quoted:
            return None
        probe: str | None = folder
        while probe is not None:
            joined = join(probe, target)
            if joined is not None and joined in repo:
                return joined
            probe = parent(probe) if probe else None
        return None
    target = posixpath.normpath(target)
    best: tuple[int, str] | None = None
    for candidate in repo.named(target.rpartition("/")[2]):
        if candidate == target:
            base = ""
        elif candidate.endswith("/" + target):
            base = candidate[: -len(target) - 1]
        else:
            continue
        rank = _rank(base, folder, quoted)
        if rank is not None and (best is None or (rank, candidate) < best):
            best = (rank, candidate)
    return best[1] if best else None


class CLanguage:
    """C, C++ and Objective-C sources and headers."""

    name = "c"
    suffixes = (
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".hh",
        ".hpp",
        ".hxx",
        ".h++",
        ".ipp",
        ".inl",
        ".tcc",
        ".m",
        ".mm",
    )

    def extract(self, text: str) -> list[str]:
        """See :func:`extract`."""
        return extract(text)

    def prepare(self, repo: RepoFiles, specs: Mapping[str, Sequence[str]]) -> CContext:
        """Nothing to precompute beyond the tree's file-name index."""
        return CContext(repo)

    def resolve(self, path: str, specs: Sequence[str], context: CContext) -> set[str]:
        """The headers (or sources) each include reaches."""
        found: set[str] = set()
        for spec in specs:
            kind, _, target = spec.partition(":")
            resolved = resolve_include(context.repo, path, target, kind == "q")
            if resolved and resolved != path:
                found.add(resolved)
        return found
