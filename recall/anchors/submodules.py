"""Submodules a change points at another commit: to ``tether check`` the files that move
changes are files of the change, read from the submodule's own history (the commit at the base
and the one now), and a memory about a file in a submodule whose commits are not here is said
to be unchecked, never passed over.

Git is run in a submodule only to compare two of its commits and to show a file of one (with
the same guards as in the repository itself): never to read its working tree, whose own
configuration may name programs to run (:mod:`recall.git_safety`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote

from recall.anchors.diff import EMPTY_TREE, Change, changes, first_lines
from recall.anchors.findings import FAIL, REVIEW, Finding
from recall.genome.gitcmd import GitRunner, GitUnavailable
from recall.genome.tree import GITLINK_MODE
from recall.model import Memory

NO_COMMIT = "0" * 40
"""The id git's raw diff gives the working tree's side of a submodule moved and not staged."""

PATHSPEC_MAX = 256
"""Paths a change could hold a submodule at that are named to git's raw diff; with more (a
change deleting a whole tree) the whole diff is read and filtered here instead: a command line
has a length limit (about 32K characters on Windows), and a refused one would stop the check."""


@dataclass(frozen=True)
class Moved:
    """A submodule the change points at another commit: its folder, and its commit at the base
    and now (git's empty tree for a submodule added or removed by the change)."""

    folder: str
    old: str
    new: str


@dataclass
class Submodules:
    """The change with each moved submodule's files in its place, and what reads them."""

    changes: list[Change]
    first: dict[str, int] = field(default_factory=dict)
    """The first changed line of each submodule file the change edits."""
    bases: dict[str, tuple[GitRunner, str]] = field(default_factory=dict)
    """By folder: a runner in the submodule and its commit at the base."""
    unread: list[Moved] = field(default_factory=list)
    """The moved submodules whose commits are not here."""

    def base_of(self, path: str) -> tuple[GitRunner, str] | None:
        """The runner and the spec (``COMMIT:PATH``) that show ``path`` at the base, when it is
        a file of a moved submodule."""
        for folder, (runner, old) in self.bases.items():
            if path.startswith(folder + "/"):
                return runner, f"{old}:{path[len(folder) + 1 :]}"
        return None

    def unchecked(self, memory: Memory, confirmed: Callable[[], bool]) -> list[Finding]:
        """For each moved submodule not read, a finding on the first file of it ``memory``
        names or anchors: a failure for a guarded memory the change does not confirm."""
        paths = [*memory.files, *(anchor.path for anchor in memory.anchors)]
        found: list[Finding] = []
        for moved in self.unread:
            path = next((p for p in paths if p.startswith(moved.folder + "/")), None)
            if path is None:
                continue
            reason = (
                f"the change points submodule {moved.folder} at commit {moved.new[:12]} (it "
                f"was {moved.old[:12]}), which is not here, so what it does to {path} cannot "
                "be told"
            )
            if memory.guard and not confirmed():
                fix = (
                    f": fetch the submodule's commits (`git submodule update --init "
                    f"{quote(moved.folder)}`) and check again, or review {path} and `tether "
                    f"confirm {memory.id}`"
                )
                found.append(Finding(FAIL, memory, path, 1, reason, fix))
            else:
                found.append(Finding(REVIEW, memory, path, 1, reason))
        return found


def _moved(runner: GitRunner, base: str, paths: list[str]) -> list[Moved]:
    """The submodules among ``paths`` the working tree points at another commit than
    ``base`` does (git's raw diff, which gives each side's mode and commit)."""
    wanted = set(paths)
    spec = [f":(literal){path}" for path in paths] if len(paths) <= PATHSPEC_MAX else []
    raw = ["diff", "--no-ext-diff", "--no-renames", "--raw", "-z", "--no-abbrev", base, "--"]
    _, out, _ = runner.run([*raw, *spec])
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Moved] = []
    for info, path in zip(parts[::2], parts[1::2], strict=False):
        fields = info.lstrip(":").split(" ")
        if len(fields) < 5 or GITLINK_MODE not in fields[:2] or path not in wanted:
            continue
        old = fields[2] if fields[0] == GITLINK_MODE else EMPTY_TREE
        new = fields[3] if fields[1] == GITLINK_MODE else EMPTY_TREE
        found.append(Moved(path, old, new))
    return found


def _head(runner: GitRunner) -> str:
    """The commit the submodule of ``runner`` has checked out."""
    _, out, _ = runner.run(["rev-parse", "--verify", "HEAD^{commit}"])
    return out.decode().strip()


def with_submodules(runner: GitRunner, root: Path, base: str, found: list[Change]) -> Submodules:
    """``found`` (the change against ``base`` in the repository at ``root``) with each
    submodule it points at another commit replaced by the files that move changes, prefixed
    with its folder; a submodule whose commits are not here is kept as it is, and listed."""
    maybe = [c.new for c in found if c.status in "MADT" and not (root / c.new).is_file()]
    moved = _moved(runner, base, maybe) if maybe else []
    if not moved:
        return Submodules(found)
    by_folder = {item.folder: item for item in moved}
    done = Submodules([c for c in found if c.new not in by_folder])
    for change in found:
        item = by_folder.get(change.new)
        if item is None:
            continue
        inner = GitRunner(root / item.folder)
        try:
            if not (root / item.folder / ".git").exists():
                raise GitUnavailable("not checked out")  # git would answer for the repository
            new = _head(inner) if item.new == NO_COMMIT else item.new
            inner_changes = changes(inner, item.old, new)
            inner_first = first_lines(inner, item.old, new)
        except GitUnavailable:
            done.unread.append(item)
            done.changes.append(change)
            continue
        prefix = item.folder + "/"
        done.changes += [
            Change(c.status, prefix + c.old, prefix + c.new, c.same) for c in inner_changes
        ]
        done.first.update({prefix + path: line for path, line in inner_first.items()})
        done.bases[item.folder] = (inner, item.old)
    return done
