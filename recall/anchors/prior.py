"""Whether another file already defined an anchored name before the anchored one lost it.

A same-named definition in another file is the anchored one moved there only when it is new
there: a file that defined the name all along holds another function of the same name
(``static int util`` in two C files). The moment compared against is the last commit in which
the anchored file still defined the name (the parent of the commit that took the name out of
it or deleted it; HEAD while that is not committed yet); ``tether check`` asks the same of
its base (see :meth:`recall.anchors.check_sources.Sources.moved_to`).

Git is run only for an anchor its own file no longer defines, whose recorded body no other
file has: the rare case where a move is in question.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from recall.anchors.symbols import NAME_SEPARATOR, SymbolAnchor, normalize_name
from recall.genome.gitcmd import GitRunner, GitUnavailable
from recall.genome.symbols.extract import extract

HadBefore = Callable[[SymbolAnchor, str], "bool | None"]
"""``(anchor, other file)`` -> whether that file defined the anchored name when the anchored
file last did; None when history cannot say (no git, the file never committed with it)."""

# The commits touching an anchored file walked back to find the last one defining its name:
# a move is found within a few commits of the file losing the name; deeper history costs a
# git run per commit on every look and says little more.
MAX_COMMITS_WALKED = 20


def had_before(root: Path | None) -> HadBefore | None:
    """A :data:`HadBefore` reading the git repository at ``root`` (None without one), caching
    what it reads for the life of the returned function."""
    if root is None:
        return None
    runners: list[GitRunner] = []
    names: dict[tuple[str, str], set[str] | None] = {}
    last: dict[tuple[str, str], str | None] = {}

    def git(args: list[str]) -> tuple[int, bytes]:
        """Run git (bound on first use: most looks never need it); status 1 without git."""
        if not runners:
            try:
                runners.append(GitRunner(root))
            except GitUnavailable:
                return 1, b""
        try:
            status, out, _ = runners[0].run(args, check=False)
        except GitUnavailable:
            return 1, b""
        return status, out

    def defines(commit: str, path: str, name: str) -> bool | None:
        """Whether ``path`` at ``commit`` defines ``name`` (None: no such file there)."""
        key = (commit, path)
        if key not in names:
            status, out = git(["show", f"{commit}:{path}"])
            found = extract(path, out, hashes=False).definitions if status == 0 else None
            names[key] = None if found is None else {d.name for d in found}
        defined = names[key]
        if defined is None:
            return None
        wanted = normalize_name(name)
        return wanted in defined or any(n.endswith(NAME_SEPARATOR + wanted) for n in defined)

    def last_defining(anchor: SymbolAnchor) -> str | None:
        key = (anchor.path, anchor.name)
        if key not in last:
            last[key] = None
            walk = ["rev-list", f"--max-count={MAX_COMMITS_WALKED}", "HEAD", "--", anchor.path]
            status, out = git(walk)
            newer = None  # the commit after it that touched the file: the one losing the name
            for commit in out.decode("ascii", "replace").split() if status == 0 else []:
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
