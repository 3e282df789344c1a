"""Whether a repository's memory files stay out of git as the person says they should.

``tether init`` writes memories to be committed, so a rule that makes git ignore them is a
problem (:mod:`recall.ignored_store`), unless ``private_memories = true`` (in the store's own
``config.toml``, the repository's ``[tool.tether]`` or the user's own settings) says they are
kept to this clone on purpose: the rule is then a note. With the setting on, git must ignore
the memory files and track none of them; when it does not, the setting claims a privacy the
files do not have, which is a problem (:class:`NotPrivate`). ``tether init`` and ``tether
doctor`` ask it, never recall or a hook."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from recall.config_fields import Warn
from recall.gitquery import git_answer
from recall.ignored_store import PRIVATE_SETTING, IgnoredMemories, check_ignored, work_tree
from recall.locations import Location
from recall.placed_setting import Placed, placed_setting

GIT_TIMEOUT_S: Final = 10
"""Seconds each further git query of a store marked private may take (the memory files the
index holds, the clone's exclude file): both are quick, so only a hung git gets near, and then
that part is not said."""

TRACKED_SHOWN: Final = 3
"""How many of the memory files git tracks a finding names; the rest are counted (all of them
are in ``--json``)."""


@dataclass(frozen=True)
class NotPrivate:
    """``private_memories = true`` where git would commit the memory files: no rule ignores
    them, or git tracks some of them already (an ignore rule does not untrack a file)."""

    memories_dir: Path
    setting: Placed
    ignored: bool
    tracked: tuple[str, ...]
    exclude_file: Path | None
    exclude_line: str | None
    """The line that makes git ignore the store (None: a rule does already)."""

    def message(self) -> str:
        """The finding as ``FILE:LINE: what and what to do`` (the setting's file and line)."""
        said = (
            f"{self.setting.where()}: `{PRIVATE_SETTING} = true` says the memory files in "
            f"{self.memories_dir} stay private to this clone, but "
        )
        fixes = []
        if self.exclude_line is not None:  # first, or the next `git add .` takes them back
            exclude = self.exclude_file or "an ignore file of the repository"
            fixes.append(f"add a line `{self.exclude_line}` to {exclude}")
        if self.tracked:
            shown = ", ".join(self.tracked[:TRACKED_SHOWN])
            more = len(self.tracked) - TRACKED_SHOWN
            if more > 0:
                shown += f" and {more} more"
            said += (
                f"git tracks {len(self.tracked)} of them ({shown}), so they are committed "
                "whatever an ignore rule says"
            )
            fixes.append(
                f"run `git rm -r --cached {self.memories_dir}` (the next commit removes them from "
                "the repository, for everyone who pulls it; your copies stay)"
            )
        else:
            said += "git does not ignore them, so `git add .` stages them for the next commit"
        return (
            f"{said}; to keep them private, {' and '.join(fixes)}; if they are meant to be "
            f"committed, remove the setting"
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding for ``--json``: the setting's file and line as ``path`` and ``line``."""
        return {
            "kind": "not-private",
            "path": str(self.setting.path),
            "line": self.setting.line,
            "setting": PRIVATE_SETTING,
            "memories": str(self.memories_dir),
            "ignored": self.ignored,
            "tracked": list(self.tracked),
            "exclude_file": str(self.exclude_file) if self.exclude_file else None,
            "exclude_line": self.exclude_line,
            "message": self.message(),
        }


Finding = IgnoredMemories | NotPrivate
"""What is said of a store's memory files and git: a rule ignoring them (a problem, or a note
when :attr:`IgnoredMemories.intended`), or a privacy git belies (a problem)."""


def is_problem(finding: Finding) -> bool:
    """Whether ``finding`` fails ``tether doctor`` (an intended ignore rule is a note)."""
    return not (isinstance(finding, IgnoredMemories) and finding.intended)


def memory_files_in_git(location: Location, warn: Warn) -> Finding | None:
    """What git makes of the memory files of the project store at ``location``, weighed
    against :data:`recall.ignored_store.PRIVATE_SETTING`; None when all is as meant (or outside
    git, or when git cannot say). One ``git check-ignore``, and with the setting on, one
    ``git ls-files`` (and where the clone's exclude file is, when one is to be named).
    ``warn`` is told what reading the setting says of it."""
    private = placed_setting(location.repo_root, PRIVATE_SETTING, warn)
    check = check_ignored(location)
    if not private.value:
        return check.rule
    if not check.answered or location.repo_root is None:
        return None  # outside git nothing is committed; a git that cannot say is not belied
    root = location.repo_root
    tracked = _tracked(root, location.memories_dir)
    if check.rule is not None and not tracked:
        return replace(check.rule, intended_by=private.where())
    exclude, line = (None, None) if check.rule is not None else _exclude(root, location.base)
    return NotPrivate(
        location.memories_dir, private, check.rule is not None, tracked, exclude, line
    )


def _tracked(root: Path, memories_dir: Path) -> tuple[str, ...]:
    """The files of ``memories_dir`` git's index holds (absolute); none when git cannot
    say."""
    folder = memories_dir.relative_to(root).as_posix()
    out, _ = git_answer(root, "ls-files", "-z", "--", f":(literal){folder}", timeout=GIT_TIMEOUT_S)
    if out is None:
        return ()
    names = out.decode("utf-8", "surrogateescape").split("\0")
    return tuple(str(root / name) for name in names if name)


def _exclude(root: Path, store: Path) -> tuple[Path | None, str]:
    """The clone's own exclude file (``info/exclude`` in its git folder, committed nowhere)
    and the line in it that makes git ignore ``store``; the file None when git cannot say."""
    base = os.path.relpath(store, work_tree(root)).replace(os.sep, "/")
    out, _ = git_answer(root, "rev-parse", "--git-path", "info/exclude", timeout=GIT_TIMEOUT_S)
    said = out.decode("utf-8", "surrogateescape").rstrip("\n") if out is not None else ""
    # git names it from the folder it runs in (``../.git/info/exclude``), or absolute
    exclude = Path(os.path.normpath(root / said)) if said else None
    return exclude, f"/{base}/"
