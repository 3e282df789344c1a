"""Whether another file already defined an anchored name before the anchored one lost it.

A same-named definition in another file is the anchored one moved there only when it is new
there: a file that defined the name all along holds another function of the same name
(``static int util`` in two C files). The moment compared against is the last commit in which
the anchored file still defined the name (the parent of the commit that took the name out of
it or deleted it; HEAD while that is not committed yet); ``tether check`` asks the same of
its base (see :meth:`recall.anchors.check_sources.Sources.moved_to`).

Git is run only for an anchor its own file no longer defines, whose recorded body no other
file has: the rare case where a move is in question. Then it costs two git processes for the
anchored file (its commits, and every version of it at once) and one per other file asked
about; a version is parsed only when the name is in its text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from recall.anchors.symbols import NAME_SEPARATOR, SymbolAnchor, leaf_of, normalize_name
from recall.genome.symbols.extract import extract
from recall.gitquery import git_answer

HadBefore = Callable[..., "bool | None"]
"""``(anchor, other file, also=())`` -> whether that file defined the anchored name when the
anchored file last did; None when history cannot say (no git, the file never committed with
it). ``also`` names other files about to be asked, read in the same git process."""

MAX_COMMITS_WALKED: Final = 20
"""Commits touching an anchored file walked back to find the last one defining its name: a
move is found within a few commits of the file losing the name; deeper history says little
more, and every version walked is read."""

GIT_TIMEOUT_S: Final = 2
"""How long one of these git reads may take before history is taken to say nothing (a recall
or a hook waits on it; the rule then falls back to what the index alone can tell)."""

CACHE_MOST: Final = 512
"""Entries each process-wide cache keeps (files' versions by commit, which never change, and
where an anchored name was last defined, by HEAD): a long-running server asks again and again."""

_VERSIONS: dict[tuple[str, str, str], bytes | None] = {}
_PARSED: dict[tuple[str, str, str], frozenset[str]] = {}
_LAST: dict[tuple[str, str, str, str], str | None] = {}


def _keep(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """Store ``value`` under ``key``, dropping the oldest entry past :data:`CACHE_MOST`."""
    cache[key] = value
    while len(cache) > CACHE_MOST:
        del cache[next(iter(cache))]


def had_before(root: Path | None, head: str | None = None) -> HadBefore | None:
    """A :data:`HadBefore` reading the git repository at ``root`` (None without one). Given
    ``head`` (the commit the genome last indexed), where a name was last defined is kept for
    the process under it; what a file held at a commit is kept whatever the head."""
    if root is None:
        return None
    where = str(root)
    last: dict[tuple[str, str], str | None] = {}

    def read(specs: list[Spec]) -> None:
        """Read the files ``(commit, path)`` not read yet, in one git process."""
        wanted = [spec for spec in dict.fromkeys(specs) if (where, *spec) not in _VERSIONS]
        if wanted:
            for spec, data in _blobs(root, wanted).items():
                _keep(_VERSIONS, (where, *spec), data)

    def defines(commit: str, path: str, name: str) -> bool | None:
        """Whether ``path`` at ``commit`` defines ``name`` (None: no such file there)."""
        key = (where, commit, path)
        read([(commit, path)])
        data = _VERSIONS.get(key)
        if data is None:
            return None
        wanted = normalize_name(name)
        if leaf_of(wanted).encode("utf-8", "surrogateescape") not in data:
            return False  # not in its text: not defined there, and no parse needed
        if key not in _PARSED:
            found = extract(path, data, hashes=False).definitions
            _keep(_PARSED, key, frozenset(d.name for d in found))
        defined = _PARSED[key]
        return wanted in defined or any(n.endswith(NAME_SEPARATOR + wanted) for n in defined)

    def last_defining(anchor: SymbolAnchor, others: Sequence[str]) -> str | None:
        """The last commit in which the anchored file defined its name; the versions of
        ``others`` at each commit walked are read in the same git process."""
        mine = (anchor.path, anchor.name)
        if mine in last:
            return last[mine]
        kept = (where, head, *mine) if head else None
        if kept is not None and kept in _LAST:
            last[mine] = _LAST[kept]
            return last[mine]
        found = None
        walk = ["rev-list", f"--max-count={MAX_COMMITS_WALKED}", head or "HEAD", "--"]
        out, _ = git_answer(root, *walk, f":(literal){anchor.path}", timeout=GIT_TIMEOUT_S)
        commits = (out or b"").decode("ascii", "replace").split()
        # each commit's parent too: the version just before the one that lost the name
        read(
            [
                (c, p)
                for commit in commits
                for c in (commit, commit + "^")
                for p in (anchor.path, *others)
            ]
        )
        newer = None  # the commit after it that touched the file: the one losing the name
        for commit in commits:
            if defines(commit, anchor.path, anchor.name):
                # the state just before the name left, other files' later commits included
                found = f"{newer}^" if newer is not None else (head or "HEAD")
                break
            newer = commit
        last[mine] = found
        if kept is not None and out is not None:  # a failed walk is asked again next time
            _keep(_LAST, kept, found)
        return found

    def answer(anchor: SymbolAnchor, other: str, also: Sequence[str] = ()) -> bool | None:
        """Whether ``other`` defined the anchored name when the anchored file last did
        (``also``: other files about to be asked, read in the same git process)."""
        commit = last_defining(anchor, [other, *also])
        if commit is None:
            return None
        return bool(defines(commit, other, anchor.name))

    return answer


Spec = tuple[str, str]
"""A file at a commit: ``(commit, path)``."""


def _blobs(root: Path, specs: list[Spec]) -> dict[Spec, bytes | None]:
    """The content of each file ``(commit, path)`` (None where git has no such file), read by
    one ``git cat-file --batch``; all None when git cannot be asked."""
    found: dict[Spec, bytes | None] = dict.fromkeys(specs)
    asked = [(c, p) for c, p in specs if "\n" not in p]  # a spec is one line
    if not asked:
        return found
    # ``./``: the path is the store's, relative to git's working folder, not the top level
    lines = "".join(f"{commit}:./{path}\n" for commit, path in asked)
    data = lines.encode("utf-8", "surrogateescape")
    out, _ = git_answer(root, "cat-file", "--batch", timeout=GIT_TIMEOUT_S, data=data)
    if out is not None:
        found.update(batch_answers(out, asked))
    return found


def batch_answers(out: bytes, asked: list[Spec]) -> dict[Spec, bytes | None]:
    """The blobs in ``git cat-file --batch`` output ``out``, by the spec each answers (asked in
    that order); None for a spec answered with no blob (missing, a tree, a submodule)."""
    found: dict[Spec, bytes | None] = {}
    at = 0
    for spec in asked:  # answers come in the order asked, one header line each
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end]
        at = end + 1
        found[spec] = None
        if header.endswith((b" missing", b" ambiguous")):
            continue
        fields = header.split()
        if len(fields) == 2:  # "<id> submodule" (newer git) and the like: no content follows
            continue
        if len(fields) != 3 or not fields[2].isdigit():
            break
        size = int(fields[2])
        if fields[1] == b"blob":
            found[spec] = out[at : at + size]
        at += size + 1
    return found
