"""Whether git ignores a project store's per-user files: its index, locks, cache, hook log and a
write's temporary files (:data:`recall.ignore_rules.IGNORE_RULES`).

A repository may come with its own ``.tether/.gitignore`` (committed before, or by someone
else) that lacks the rules, and then ``git add -A`` commits one person's index and sessions
for everyone. One ``git check-ignore`` per question says it, a file of each kind asked. ``tether
init`` adds the missing rules at the end of the store's ``.gitignore`` (the lines there kept as
written) or says what to add where it cannot; ``tether doctor`` reports them as a problem.
A line of the person's that lets one of the files in (``!index.db``) is never overridden: it is
named, with what to do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from recall.gitquery import git_answer
from recall.locations import Location

CHECK_TIMEOUT_S: Final = 5
"""Seconds ``git check-ignore`` may take: it reads a few small ignore files, so only a hung git
gets near, and then nothing is said."""

SAMPLES: Final = {
    "index.db": "index.db",
    "index.db-*": "index.db-wal",
    "*.lock": "write.lock",
    "cache/": "cache/genome.db",
    "*.log": "hooks.log",
    "memories/.tmp-*": "memories/.tmp-0a1b2c3d.md",
}
"""Each rule of :data:`IGNORE_RULES` and a file of the store it keeps out of git, asked of git
in its stead (a file need not exist to be asked about)."""

ADDED_COMMENT: Final = "# Added by tether init: per-user files Tether writes here stay out of git."


@dataclass(frozen=True)
class LetIn:
    """A line of an ignore file that lets one of the per-user files in."""

    source: Path
    line: int
    pattern: str
    path: str

    def where(self) -> str:
        """``FILE:LINE: `PATTERN```."""
        return f"{self.source}:{self.line}: `{self.pattern}`"


@dataclass(frozen=True)
class Unignored:
    """The per-user files of a store git would commit: the rules they lack, and the lines
    letting some in."""

    ignore_file: Path
    """The store's ``.gitignore``, where the rules belong."""
    missing: tuple[str, ...]
    """Rules of :data:`IGNORE_RULES` no ignore file has."""
    let_in: tuple[LetIn, ...] = ()
    added: tuple[str, ...] = ()
    """The rules ``tether init`` just added to :attr:`ignore_file`."""
    not_added: str | None = None
    """Why the missing rules could not be added (None: they were, or none was asked to)."""

    def message(self) -> str:
        """What git would commit, and what to do, on one line."""
        said = []
        if self.added:
            said.append(
                f"{self.ignore_file}: added {', '.join(self.added)} so that git ignores the "
                "store's index and the other per-user files; commit the change"
            )
        if self.missing:
            rules = ", ".join(f"`{rule}`" for rule in self.missing)
            why = f" ({self.not_added})" if self.not_added else ""
            said.append(
                f"{self.ignore_file}: git would commit the store's per-user files (index, "
                f"locks, cache, hook log), as no ignore rule covers them{why}; to keep them "
                f"out, add these lines to it: {rules}"
                + ("" if self.not_added else " (`tether init` adds them)")
            )
        for entry in self.let_in:
            said.append(
                f"{entry.where()} lets git commit {entry.path}, a per-user file of the store; "
                "remove that line unless it is to be committed for everyone"
            )
        return "; ".join(said)

    @property
    def problem(self) -> bool:
        """Whether git would still commit a per-user file."""
        return bool(self.missing or self.let_in)

    def to_dict(self) -> dict[str, Any]:
        """This for ``--json``: the ``.gitignore`` as ``path``."""
        return {
            "kind": "per-user-unignored",
            "path": str(self.ignore_file),
            "missing": list(self.missing),
            "let_in": [
                {"path": str(e.source), "line": e.line, "pattern": e.pattern, "file": e.path}
                for e in self.let_in
            ],
            "added": list(self.added),
            "message": self.message(),
        }


def unignored(location: Location) -> Unignored | None:
    """The per-user files of the project store at ``location`` that git would commit; None
    when git ignores them all (or outside git, or when git cannot say). One git call."""
    root = location.repo_root
    if root is None:
        return None
    store = location.base.relative_to(root).as_posix()
    asked = {f"{store}/{sample}": rule for rule, sample in SAMPLES.items()}
    data = "".join(f"{path}\0" for path in asked).encode()
    out, _ = git_answer(
        root,
        *("check-ignore", "--no-index", "-v", "-z", "--stdin"),
        timeout=CHECK_TIMEOUT_S,
        data=data,
        answers=(0, 1),  # 1: none ignored, though a line letting one in is shown
    )
    if out is None:
        return None  # git could not say
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    matched = {
        path: (source, line, pattern)
        for source, line, pattern, path in zip(*[iter(fields)] * 4, strict=False)
        if pattern
    }
    missing = tuple(rule for path, rule in asked.items() if path not in matched)
    let_in = tuple(
        LetIn(_rule_file(root, source), int(line), pattern, path)
        for path, (source, line, pattern) in matched.items()
        if pattern.startswith("!")
    )
    if not missing and not let_in:
        return None
    ignore = location.base / ".gitignore"
    return Unignored(ignore, missing, let_in, not_added=_unwritable(ignore))


def add_missing(location: Location, found: Unignored) -> Unignored:
    """Add ``found``'s missing rules at the end of the store's ``.gitignore`` (its lines kept
    as written), then ask git again; what is left, with what was added or why it could not be.
    Never through a link: git reads no ``.gitignore`` that is one."""
    ignore = found.ignore_file
    if not found.missing or found.not_added:
        return found
    try:
        fd = os.open(ignore, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        return replace(found, not_added=f"it cannot be written: {error.strerror}")
    with os.fdopen(fd, "r+b") as handle:
        held = handle.read()
        lead = b"" if not held or held.endswith((b"\n", b"\r")) else b"\n"
        lines = [ADDED_COMMENT, *found.missing]
        handle.write(lead + "".join(f"{line}\n" for line in lines).encode())
    after = unignored(location)
    added = tuple(r for r in found.missing if after is None or r not in after.missing)
    left = after or Unignored(ignore, ())
    return replace(left, added=added)


def _unwritable(ignore: Path) -> str | None:
    """Why the rules cannot be added to ``ignore``: a link, which git does not read (None:
    they can)."""
    if ignore.is_symlink():
        return "it is a symbolic link, which git does not read: replace it with a plain file"
    return None


def _rule_file(root: Path, source: str) -> Path:
    """The ignore file git named: relative to the top of the work tree, or absolute."""
    from recall.ignored_store import work_tree

    return Path(source) if Path(source).is_absolute() else work_tree(root) / source
