"""Submodules a change points at another commit, moves or removes: to ``tether check`` the
files that move changes are files of the change, read from the submodule's own history (the
commit at the base and the one now): a submodule moved to another folder moves each of its
files there, and one removed deletes them. A memory about a file in a submodule whose commits
are not here is said to be unchecked, never passed over; one in a submodule removed or moved
with its commit kept is told what became of its file, which needs none of them.

Git is run in a submodule only to compare two of its commits, list one's files and show a file
of one (with the same guards as in the repository itself): never to read its working tree,
whose own configuration may name programs to run (:mod:`recall.git_safety`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote

from recall.anchors.diff import EMPTY_TREE, Change, changes, first_lines
from recall.anchors.findings import FAIL, REVIEW, Finding, guard_fix, pinned_and_gone
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
    """A submodule the change points at another commit, moves or removes: its folder, and its
    commit at the base and now (git's empty tree for a submodule added or removed by the
    change); ``was`` is its folder at the base when the change moves it to another."""

    folder: str
    old: str
    new: str
    was: str = ""

    @property
    def at_base(self) -> str:
        """The submodule's folder at the base."""
        return self.was or self.folder

    @property
    def removed(self) -> bool:
        """Whether the change removes the submodule (no folder holds it now)."""
        return self.new == EMPTY_TREE and not self.was

    def holds(self, path: str) -> bool:
        """Whether ``path`` names a file of the submodule, at the base or now."""
        return any(path.startswith(folder + "/") for folder in {self.at_base, self.folder})

    def now_name(self, path: str) -> str:
        """The name ``path`` (a file of it at the base) has in the folder it is moved to."""
        if self.was and path.startswith(self.was + "/"):
            return self.folder + path[len(self.was) :]
        return path


@dataclass
class Submodules:
    """The change with each moved submodule's files in its place, and what reads them."""

    changes: list[Change]
    first: dict[str, int] = field(default_factory=dict)
    """The first changed line of each submodule file the change edits."""
    bases: dict[str, tuple[GitRunner, str]] = field(default_factory=dict)
    """By folder at the base: a runner in the submodule and its commit at the base."""
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
        names or anchors: what became of it when that is known without the submodule's
        commits (removed, or moved with its commit kept), else that it cannot be told; a
        failure for a pinned memory it deletes or moves, or a guarded memory the change does
        not confirm."""
        paths = [*memory.files, *(anchor.path for anchor in memory.anchors)]
        found: list[Finding] = []
        for moved in self.unread:
            path = next((p for p in paths if moved.holds(p)), None)
            finding = _unread_finding(memory, moved, path, confirmed) if path else None
            if finding is not None:
                found.append(finding)
        return found


def _unread_finding(
    memory: Memory, moved: Moved, path: str, confirmed: Callable[[], bool]
) -> Finding | None:
    """What a change to the submodule ``moved``, whose commits are not here, does to the file
    ``path`` that ``memory`` names in it (None: nothing, a file of a submodule moved with its
    commit kept, named as it is now)."""
    kept = bool(moved.was) and moved.old == moved.new
    if kept and not path.startswith(moved.was + "/"):
        return None
    if moved.removed or kept:
        at = moved.now_name(path)
        if moved.removed:
            reason = f"the change removes submodule {moved.folder}, and with it {path}"
            pinned = pinned_and_gone(memory)
        else:
            reason = (
                f"the change moves submodule {moved.was} to {moved.folder}, and with it {path} "
                f"to {at}"
            )
            pinned = f"; the memory is pinned: `tether repoint {memory.id} --apply`"
        if memory.pinned:
            return Finding(FAIL, memory, at, 1, reason, pinned)
        if memory.guard and not confirmed():
            return Finding(FAIL, memory, at, 1, reason, guard_fix(memory))
        return Finding(REVIEW, memory, at, 1, reason)
    if moved.old == EMPTY_TREE:
        what = f"adds submodule {moved.folder} at commit {moved.new[:12]}"
    elif moved.was:
        what = (
            f"moves submodule {moved.was} to {moved.folder} and points it at commit "
            f"{moved.new[:12]} (it was {moved.old[:12]})"
        )
    else:
        what = (
            f"points submodule {moved.folder} at commit {moved.new[:12]} (it was {moved.old[:12]})"
        )
    reason = f"the change {what}, which is not here, so what it does to {path} cannot be told"
    if memory.guard and not confirmed():
        fix = (
            f": fetch the submodule's commits (`git submodule update --init "
            f"{quote(moved.folder)}`) and check again, or review {path} and `tether "
            f"confirm {memory.id}`"
        )
        return Finding(FAIL, memory, path, 1, reason, fix)
    return Finding(REVIEW, memory, path, 1, reason)


def _moved(runner: GitRunner, base: str, paths: list[str]) -> list[Moved]:
    """The submodules among ``paths`` the working tree points at another commit than
    ``base`` does, adds or removes (git's raw diff, which gives each side's mode and commit;
    without renames, so a moved submodule is its removal and its addition)."""
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


def _names(runner: GitRunner, blob: str) -> dict[str, str]:
    """The submodules' names by folder as the ``.gitmodules`` of ``blob`` (``REV:.gitmodules``)
    gives them; none when there is no such file."""
    key = r"^submodule\..*\.path$"
    args = ["config", "--blob", blob, "-z", "--get-regexp", key]
    status, out, _ = runner.run(args, check=False)
    found: dict[str, str] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\0") if status == 0 else ():
        name, _, folder = entry.partition("\n")
        found[folder] = name[len("submodule.") : -len(".path")]
    return found


def _relocations(
    runner: GitRunner, base: str, moved: list[Moved], found: list[Change]
) -> list[Moved]:
    """``moved`` with each submodule the change moves to another folder as one item: a
    removal and an addition git's diff pairs as a rename (the commit kept), or that are the
    same submodule by the name ``.gitmodules`` gives it at the base and in git's index (the
    commit changed too, which git cannot pair)."""
    gone = {item.folder: item for item in moved if item.removed}
    added = {item.folder: item for item in moved if item.old == EMPTY_TREE}
    if not gone or not added:
        return moved
    pairs = {c.new: c.old for c in found if c.status == "R" and c.old in gone and c.new in added}
    if len(pairs) < min(len(gone), len(added)):
        names_then, names_now = (
            _names(runner, f"{base}:.gitmodules"),
            _names(runner, ":.gitmodules"),
        )
        by_name = {name: folder for folder, name in names_then.items() if folder in gone}
        for folder in added.keys() - pairs.keys():
            was = by_name.get(names_now.get(folder, ""))
            if was is not None and was not in pairs.values():
                pairs[folder] = was
    kept = [
        item for item in moved if item.folder not in pairs and item.folder not in pairs.values()
    ]
    return kept + [Moved(new, gone[old].old, added[new].new, old) for new, old in pairs.items()]


def _head(runner: GitRunner) -> str:
    """The commit the submodule of ``runner`` has checked out."""
    _, out, _ = runner.run(["rev-parse", "--verify", "HEAD^{commit}"])
    return out.decode().strip()


def _files(runner: GitRunner, commit: str) -> list[str]:
    """The files of ``commit`` in the submodule of ``runner``."""
    _, out, _ = runner.run(["ls-tree", "-r", "-z", "--name-only", commit, "--"])
    return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def _inner_changes(inner: GitRunner, item: Moved, new: str) -> list[Change]:
    """The changes to the files of the submodule ``item`` read in ``inner``, named as the
    repository names them: its change from the commit at the base to ``new`` under its folder;
    moved to another folder, each file renamed there, edited or not."""
    inner_changes = changes(inner, item.old, new) if item.old != new else []
    before, after = item.at_base + "/", item.folder + "/"
    if not item.was:
        return [Change(c.status, before + c.old, after + c.new, c.same) for c in inner_changes]
    found: list[Change] = []
    left = set()
    for change in inner_changes:
        old, now = before + change.old, after + change.new
        if change.status == "A":
            found.append(Change("A", now, now))
        elif change.status == "D":
            found.append(Change("D", old, old))
        elif change.status == "C":
            found.append(Change("C", old, now, change.same))
            continue
        else:
            found.append(Change("R", old, now, change.status == "R" and change.same))
        left.add(change.old)
    found += [
        Change("R", before + p, after + p, True) for p in _files(inner, item.old) if p not in left
    ]
    return found


def with_submodules(runner: GitRunner, root: Path, base: str, found: list[Change]) -> Submodules:
    """``found`` (the change against ``base`` in the repository at ``root``) with each
    submodule it points at another commit, moves to another folder or removes replaced by the
    files that changes, prefixed with its folder; a submodule whose commits are not here is
    kept as it is, and listed."""
    maybe = [c.new for c in found if c.status in "MADT" and not (root / c.new).is_file()]
    maybe += [
        p for c in found if c.status == "R" and not (root / c.new).is_file() for p in (c.old, c.new)
    ]
    moved = _moved(runner, base, maybe) if maybe else []
    if not moved:
        return Submodules(found)
    moved = _relocations(runner, base, moved, found)
    folders = {folder for item in moved for folder in (item.folder, item.at_base)}
    done = Submodules([c for c in found if c.new not in folders and c.old not in folders])
    for item in moved:
        gitlinks = [
            c for c in found if c.new in (item.folder, item.at_base) or c.old == item.at_base
        ]
        inner = GitRunner(root / item.folder)
        try:
            if not (root / item.folder / ".git").exists():
                raise GitUnavailable("not checked out")  # git would answer for the repository
            new = _head(inner) if item.new == NO_COMMIT else item.new
            inner_changes = _inner_changes(inner, item, new)
            inner_first = first_lines(inner, item.old, new) if item.old != new else {}
        except GitUnavailable:
            done.unread.append(item)
            done.changes += gitlinks
            continue
        done.changes += inner_changes
        prefix = item.folder + "/"
        done.first.update({prefix + path: line for path, line in inner_first.items()})
        done.bases[item.at_base] = (inner, item.old)
    return done
