"""Where a new project store's ignore rules go (the index, locks and temp files stay out of git):
its own ``.gitignore``, or the clone's exclude file when that ``.gitignore`` is committed on
another branch but not on the one checked out. There an untracked ``.gitignore`` would stop
``git checkout`` to that branch, which refuses to overwrite an untracked file even when it holds
the same bytes; the exclude file (``info/exclude`` in the git folder) is committed nowhere."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from recall.gitquery import git_answer

IGNORE_RULES: Final = (
    "# Derived and per-user files; memories/ is meant to be committed.\n"
    "index.db\nindex.db-*\n*.lock\ncache/\n*.log\n"
    "# a write stopped midway may leave its temporary file; never a memory\n"
    "memories/.tmp-*\n"
)
"""The store's ``.gitignore``: derived files stay out of git, memory files go in, so they are
reviewed like code."""

GIT_TIMEOUT_S: Final = 10
"""Seconds each git query of a store being set up may take (the branches, the file on each,
the exclude file): all are quick, so only a hung git gets near, and then the ``.gitignore`` is
written as anywhere else."""

BRANCH_REFS: Final = ("refs/heads", "refs/remotes")
"""The refs whose tips are asked for a committed ``.gitignore``: the branches one switches to
(tags and older commits are checked out to look, rarely to work)."""


@dataclass(frozen=True)
class RulesInExclude:
    """A store set up with its ignore rules in the clone's exclude file, as
    ``{base}/.gitignore`` is committed on ``branch`` but not on the branch checked out."""

    base: Path
    branch: str
    exclude: Path

    def message(self) -> str:
        """What this means for the person, on one line: why, and what to do before switching."""
        return (
            f"{self.base}/.gitignore is committed on branch {self.branch} but not on this one, "
            f"so the store's ignore rules went into {self.exclude} instead (an untracked "
            f"{self.base.name}/.gitignore would stop `git checkout {self.branch}`); the memories "
            f"written on this branch are untracked files: commit them here to keep them with "
            f"it, else they come along to {self.branch} untracked"
        )

    def to_dict(self) -> dict[str, Any]:
        """This for ``--json`` and the MCP tools."""
        return {
            "committed_on": self.branch,
            "exclude_file": str(self.exclude),
            "message": self.message(),
        }


def write_ignore_rules(base: Path) -> RulesInExclude | None:
    """Give the project store at ``base`` its ignore rules, unless it has them: in
    ``base/.gitignore`` (never through a link, never over a file), or in the clone's exclude
    file when git has that ``.gitignore`` on another branch's tip but not at ``HEAD`` (said by
    the answer; None when the rules were put nowhere new, or in the ``.gitignore``). A git that
    cannot say, or an exclude file that cannot be written, leaves it to the ``.gitignore``.
    With no ``.gitignore`` only: one git call, up to three when the rules are not found."""
    ignore = base / ".gitignore"
    if ignore.exists() or ignore.is_symlink():
        return None
    exclude = _exclude_file(base.parent)
    if exclude is not None:
        lines = exclude_lines(base)
        if _holds(exclude, lines[0]):
            return None  # put there before, by a write on a branch like this one
        elsewhere = _committed_elsewhere(base)
        if elsewhere is not None and _add_to_exclude(exclude, lines):
            return RulesInExclude(base, elsewhere, exclude)
    try:  # never through a link: a dangling one would create its target
        fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(IGNORE_RULES)
    return None


def _committed_elsewhere(base: Path) -> str | None:
    """The branch (short name, a local one first) whose tip holds ``base/.gitignore`` when
    ``HEAD`` does not; None when none does, ``HEAD`` does too, or git cannot say."""
    root = base.parent
    out, _ = git_answer(
        root,
        "for-each-ref",
        "--format=%(objectname) %(refname:short)",
        *BRANCH_REFS,
        timeout=GIT_TIMEOUT_S,
    )
    if not out:
        return None
    tips = [line.split(" ", 1) for line in out.decode("utf-8", "surrogateescape").splitlines()]
    tips = [tip for tip in tips if len(tip) == 2]
    wanted = f"./{base.name}/.gitignore"  # from the folder git runs in: a store below the top
    asked = ["HEAD", *(oid for oid, _ in tips)]
    data = "".join(f"{rev}:{wanted}\n" for rev in asked).encode()
    found, _ = git_answer(root, "cat-file", "--batch-check", timeout=GIT_TIMEOUT_S, data=data)
    if found is None:
        return None
    held = [not line.endswith(b" missing") for line in found.splitlines()]
    if len(held) != len(asked) or held[0]:
        return None
    return next((name for (_, name), has in zip(tips, held[1:], strict=True) if has), None)


def _exclude_file(root: Path) -> Path | None:
    """The clone's own exclude file (``info/exclude`` in its git folder, shared by its work
    trees); None when git cannot say."""
    out, _ = git_answer(root, "rev-parse", "--git-path", "info/exclude", timeout=GIT_TIMEOUT_S)
    said = out.decode("utf-8", "surrogateescape").rstrip("\n") if out else ""
    # git names it from the folder it runs in (``.git/info/exclude``), or absolute
    return Path(os.path.normpath(root / said)) if said else None


def exclude_lines(base: Path) -> list[str]:
    """:data:`IGNORE_RULES` as lines of the exclude file, which git reads from the top of the
    work tree: each anchored at the store (a rule with no slash still matches at any depth
    under it), after a comment naming the store."""
    top = next((f for f in (base.parent, *base.parent.parents) if (f / ".git").exists()), None)
    at = os.path.relpath(base, top or base.parent).replace(os.sep, "/")
    at = re.sub(r"([*?\[\\])", r"\\\1", at)  # a folder's name is no pattern
    lines = [f"# tether: ignore rules of the store {at}/ (its .gitignore is on other branches)"]
    for rule in IGNORE_RULES.splitlines():
        if rule.startswith("#"):
            continue
        deep = "/" not in rule.rstrip("/")
        lines.append(f"/{at}/**/{rule}" if deep else f"/{at}/{rule}")
    return lines


def _holds(exclude: Path, line: str) -> bool:
    """Whether the file ``exclude`` has ``line`` (False when it cannot be read)."""
    try:
        text = exclude.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return False
    return line in text.splitlines()


def _add_to_exclude(exclude: Path, lines: list[str]) -> bool:
    """Add ``lines`` at the end of ``exclude``; False when the file cannot be written."""
    try:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a+b") as handle:
            handle.seek(0, os.SEEK_END)
            lead = b""
            if handle.tell():
                handle.seek(-1, os.SEEK_END)
                lead = b"" if handle.read(1) == b"\n" else b"\n"
            handle.write(
                lead + "".join(f"{line}\n" for line in lines).encode("utf-8", "surrogateescape")
            )
    except OSError:
        return False
    return True
