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

from collections.abc import Callable
from pathlib import Path
from typing import Final

from recall.anchors.symbols import NAME_SEPARATOR, SymbolAnchor, leaf_of, normalize_name
from recall.genome.symbols.extract import extract
from recall.gitquery import git_answer

HadBefore = Callable[[SymbolAnchor, str], "bool | None"]
"""``(anchor, other file)`` -> whether that file defined the anchored name when the anchored
file last did; None when history cannot say (no git, the file never committed with it)."""

MAX_COMMITS_WALKED: Final = 20
"""Commits touching an anchored file walked back to find the last one defining its name: a
move is found within a few commits of the file losing the name; deeper history says little
more, and every version walked is read."""

GIT_TIMEOUT_S: Final = 10
"""How long one of these git reads may take before history is taken to say nothing."""


def had_before(root: Path | None) -> HadBefore | None:
    """A :data:`HadBefore` reading the git repository at ``root`` (None without one), caching
    what it reads for the life of the returned function."""
    if root is None:
        return None
    versions: dict[tuple[str, str], bytes | None] = {}
    parsed: dict[tuple[str, str], set[str]] = {}
    last: dict[tuple[str, str], str | None] = {}

    def read(specs: list[tuple[str, str]]) -> None:
        """Read the files ``(commit, path)`` not read yet, in one git process."""
        wanted = [spec for spec in dict.fromkeys(specs) if spec not in versions]
        if wanted:
            versions.update(_blobs(root, wanted))

    def defines(commit: str, path: str, name: str) -> bool | None:
        """Whether ``path`` at ``commit`` defines ``name`` (None: no such file there)."""
        key = (commit, path)
        read([key])
        data = versions.get(key)
        if data is None:
            return None
        wanted = normalize_name(name)
        if leaf_of(wanted).encode("utf-8", "surrogateescape") not in data:
            return False  # not in its text: not defined there, and no parse needed
        if key not in parsed:
            parsed[key] = {d.name for d in extract(path, data, hashes=False).definitions}
        defined = parsed[key]
        return wanted in defined or any(n.endswith(NAME_SEPARATOR + wanted) for n in defined)

    def last_defining(anchor: SymbolAnchor) -> str | None:
        key = (anchor.path, anchor.name)
        if key not in last:
            last[key] = None
            walk = ["rev-list", f"--max-count={MAX_COMMITS_WALKED}", "HEAD", "--", anchor.path]
            out, _ = git_answer(root, *walk, timeout=GIT_TIMEOUT_S)
            commits = (out or b"").decode("ascii", "replace").split()
            read([(commit, anchor.path) for commit in commits])
            newer = None  # the commit after it that touched the file: the one losing the name
            for commit in commits:
                if defines(commit, anchor.path, anchor.name):
                    # the state just before the name left, other files' later commits included
                    last[key] = f"{newer}^" if newer is not None else "HEAD"
                    break
                newer = commit
        return last[key]

    def answer(anchor: SymbolAnchor, other: str) -> bool | None:
        commit = last_defining(anchor)
        if commit is None:
            return None
        return bool(defines(commit, other, anchor.name))

    return answer


def _blobs(root: Path, specs: list[tuple[str, str]]) -> dict[tuple[str, str], bytes | None]:
    """The content of each file ``(commit, path)`` (None where git has no such file), read by
    one ``git cat-file --batch``; all None when git cannot be asked."""
    found: dict[tuple[str, str], bytes | None] = dict.fromkeys(specs)
    asked = [(c, p) for c, p in specs if "\n" not in p]  # a spec is one line
    if not asked:
        return found
    data = "".join(f"{commit}:{path}\n" for commit, path in asked).encode(
        "utf-8", "surrogateescape"
    )
    out, _ = git_answer(root, "cat-file", "--batch", timeout=GIT_TIMEOUT_S, data=data)
    if out is None:
        return found
    at = 0
    for spec in asked:  # answers come in the order asked, one header line each
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end]
        at = end + 1
        if header.endswith((b" missing", b" ambiguous")):
            continue
        fields = header.split()
        if len(fields) != 3:
            break
        size = int(fields[2])
        if fields[1] == b"blob":
            found[spec] = out[at : at + size]
        at += size + 1
    return found
