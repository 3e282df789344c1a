"""``tether check``: a change (a diff) held against the memories of the files it touches.

Every active memory naming a changed file is listed for review. A change fails the check when:

1. it changes a file under a guarded memory and leaves that memory's own file untouched (a
   ``tether confirm``, an edit or a supersede in the same change says someone looked);
2. it deletes or renames away a file a pinned memory still names (``tether repoint`` or a
   supersede in the same change fixes the memory).

The memories are read as they are in the working tree, so a memory fixed in the change is
judged fixed. Git answers the diff; nothing here reads the genome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.errors import BadInput
from recall.gitquery import git_stdout

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore

GIT_TIMEOUT: Final = 60.0
EMPTY_TREE: Final = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: what a repository without a commit yet is compared against."""

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Changed:
    """One file the change touches: how (git's status letter) and which new lines."""

    path: str
    status: str  # M, A, D, R (renamed away from ``path``), T
    renamed_to: str | None = None
    lines: tuple[tuple[int, int], ...] = ()


@dataclass
class Finding:
    """A memory the change concerns: the changed files it names, and why it fails if it does."""

    memory: Memory
    changed: list[Changed] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """What ``tether check`` found for one change."""

    against: str
    changed: list[Changed]
    findings: list[Finding]

    @property
    def failed(self) -> list[Finding]:
        """The findings that fail the check."""
        return [f for f in self.findings if f.failures]


def diff_args(base: str | None, staged: bool) -> tuple[list[str], str]:
    """The ``git diff`` arguments for the change asked for, and how to name it."""
    if base is not None:
        return [f"{base}...HEAD"], f"{base}...HEAD"
    if staged:
        return ["--cached"], "the staged changes"
    return ["HEAD"], "the uncommitted changes"


def _require_ref(root: Path, base: str) -> None:
    if (
        base.startswith("-")
        or git_stdout(
            root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}", timeout=GIT_TIMEOUT
        )
        is None
    ):
        raise BadInput(
            f"--base {base!r} is not a commit of this repository; fetch it first "
            "(in CI: `git fetch origin main`, then `--base origin/main`)"
        )


def _has_head(root: Path) -> bool:
    return (
        git_stdout(root, "rev-parse", "--verify", "--quiet", "HEAD", timeout=GIT_TIMEOUT)
        is not None
    )


def changed_files(root: Path, base: str | None, staged: bool) -> tuple[list[Changed], str]:
    """The files the change touches, with the new line ranges of each hunk."""
    if base is not None:
        _require_ref(root, base)
    args, against = diff_args(base, staged)
    if base is None and not _has_head(root):
        args = [EMPTY_TREE] if not staged else ["--cached", EMPTY_TREE]
    names = git_stdout(root, "diff", "--name-status", "-M", "-z", *args, timeout=GIT_TIMEOUT)
    if names is None:
        raise BadInput(f"git could not diff {against} in {root}; is git installed?")
    patch = git_stdout(root, "diff", "-U0", "--no-color", "-M", *args, timeout=GIT_TIMEOUT)
    hunks = _hunks(patch or b"")
    found: list[Changed] = []
    parts = names.split(b"\0")
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i].decode()[:1]
        if status in ("R", "C"):
            old, new = parts[i + 1].decode(), parts[i + 2].decode()
            i += 3
            if status == "R":
                found.append(Changed(old, "R", new, hunks.get(new, ())))
            found.append(Changed(new, "A" if status == "C" else "M", None, hunks.get(new, ())))
            continue
        path = parts[i + 1].decode()
        i += 2
        found.append(Changed(path, status, None, hunks.get(path, ())))
    return found, against


def _hunks(patch: bytes) -> dict[str, tuple[tuple[int, int], ...]]:
    """New-side line ranges per file of a ``-U0`` patch (a pure deletion marks the line after)."""
    ranges: dict[str, list[tuple[int, int]]] = {}
    current: str | None = None
    for line in patch.splitlines():
        if line.startswith(b"+++ "):
            name = line[4:].decode("utf-8", "replace")
            current = name[2:] if name.startswith("b/") else None
            continue
        match = _HUNK.match(line)
        if match and current is not None:
            start, count = int(match.group(1)), int(match.group(2) or 1)
            ranges.setdefault(current, []).append((max(start, 1), max(start + count - 1, start, 1)))
    return {path: tuple(found) for path, found in ranges.items()}


def _memories_naming(store: MemoryStore, paths: list[str]) -> dict[str, list[str]]:
    """Active memory ids per path, one query."""
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))
    found: dict[str, list[str]] = {}
    for path, memory_id in store.conn.execute(
        "SELECT f.path, m.id FROM memory_files f JOIN memories m ON m.rowid = f.memory_rowid "
        f"WHERE f.path IN ({marks}) AND m.status = 'active' ORDER BY m.id",
        paths,
    ):
        found.setdefault(memory_id, []).append(path)
    return found


def check(store: MemoryStore, base: str | None = None, *, staged: bool = False) -> CheckReport:
    """Hold the change against the project's memories."""
    root = store.repo_root
    if root is None:
        raise BadInput("tether check needs a git repository: run it inside one")
    changed, against = changed_files(root, base, staged)
    by_path = {c.path: c for c in changed}
    memory_dir = store.location.memories_dir.resolve().relative_to(root.resolve()).as_posix()
    touched_memory_files = {
        c.path.rsplit("/", 1)[-1][:-3]
        for c in changed
        if c.path.startswith(memory_dir + "/") and c.path.endswith(".md")
    }
    findings: list[Finding] = []
    for memory_id, paths in _memories_naming(store, list(by_path)).items():
        memory = store.get(memory_id)
        finding = Finding(memory, [by_path[p] for p in paths])
        for item in finding.changed:
            finding.failures.extend(_failures(memory, item, memory.id in touched_memory_files))
        findings.append(finding)
    findings.sort(key=lambda f: (not f.failures, not f.memory.guard, f.memory.id))
    return CheckReport(against, changed, findings)


def _failures(memory: Memory, item: Changed, memory_touched: bool) -> list[str]:
    out: list[str] = []
    if memory.guard and not memory_touched:
        out.append(
            f"{item.path} changes under guarded {memory.category} {memory.id} without "
            f"confirming it: once checked, run `tether confirm {memory.id}` (or supersede it) "
            "and commit that with the change"
        )
    if memory.pinned and item.status in ("D", "R"):
        if item.status == "R":
            fix = f"`tether repoint {memory.id} --apply` to follow it to {item.renamed_to}"
            what = "renames away"
        else:
            fix = f"`tether supersede {memory.id}` or `tether archive {memory.id}`"
            what = "deletes"
        out.append(f"the change {what} {item.path}, named by pinned memory {memory.id}: {fix}")
    return out
