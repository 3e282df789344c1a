"""Whether git ignores a repository's memory files: a rule such as ``.*`` in its ignore files
keeps them out of every commit, so what ``init`` says (commit ``memories/``) never happens and
nobody reviews them. One ``git check-ignore`` says it, with the file and line of the rule;
``tether init`` and ``tether doctor`` ask it, never recall or a hook. A person who keeps the
memories out of git on purpose says so with :data:`PRIVATE_SETTING` (``recall.private_store``),
and the rule is then a note."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from recall.gitquery import git_answer, silent_exit
from recall.locations import Location
from recall.memfiles import MEMORY_SUFFIX
from recall.work_tree import moved_git_dir

IGNORE_CHECK_TIMEOUT_S: Final = 5
"""Seconds ``git check-ignore`` may take: it reads a few small ignore files, so only a hung git
gets near, and then nothing is said."""

SAMPLE_MEMORY: Final = f"0a1b2c3d{MEMORY_SUFFIX}"
"""A memory file's name of the shape ``remember`` gives, asked of git for the files a rule such
as ``*.md`` ignores; one never written, as git says a tracked file is not ignored."""

PRIVATE_SETTING: Final = "private_memories"
"""The setting (a field of ``recall.settings.EngineSettings``) saying the memory files are kept
out of git on purpose, named in what init and doctor say of an ignore rule."""


@dataclass(frozen=True)
class IgnoredMemories:
    """The ignore rule that keeps a store's memory files out of git, and the line that lets
    them in."""

    memories_dir: Path
    source: Path
    line: int
    pattern: str
    unignore: str
    intended_by: str | None = None
    """``path:line`` of ``private_memories = true``, which makes the rule intended (a note)."""

    @property
    def intended(self) -> bool:
        """Whether the memories are marked as kept out of git on purpose."""
        return self.intended_by is not None

    def message(self) -> str:
        """The finding as ``FILE:LINE: what and what to do``, on one line; a note when the
        rule is intended."""
        rule = f"{self.source}:{self.line}: `{self.pattern}` makes git ignore {self.memories_dir}"
        if self.intended_by is not None:
            return (
                f"{rule}; note: intended, as `{PRIVATE_SETTING} = true` says "
                f"({self.intended_by}): the memories stay private to this clone, never "
                f"committed; to commit them, remove that setting and add a line "
                f"`{self.unignore}` after the rule"
            )
        settings_file = self.memories_dir.parent / "config.toml"
        return (
            f"{rule}, so the memories written there are never committed nor reviewed; to commit "
            f"them, add a line `{self.unignore}` after it (or remove it); if they are meant to "
            f"stay private to this clone, mark it intended with a line `{PRIVATE_SETTING} = "
            f"true` in {settings_file}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding for ``--json``: the ignore file and line as ``path`` and ``line``;
        ``intended`` (with ``intended_by``, where the setting is) when it is a note."""
        found = {
            "kind": "git-ignored",
            "path": str(self.source),
            "line": self.line,
            "pattern": self.pattern,
            "ignored": str(self.memories_dir),
            "unignore": self.unignore,
            "intended": self.intended,
            "message": self.message(),
        }
        if self.intended_by is not None:
            found["intended_by"] = self.intended_by
        return found


@dataclass(frozen=True)
class IgnoreCheck:
    """What git says of a store's memory files: the rule that ignores them (None: none does),
    and whether git said it at all (False: outside git, or git failed, so nothing is known)."""

    rule: IgnoredMemories | None
    answered: bool


def check_ignored(location: Location) -> IgnoreCheck:
    """Whether git ignores the memory files of the project store at ``location``, and by
    which rule. One git call.

    The store's folder, its memory folder and a memory file are asked together: the shallowest
    one ignored says the line that lets them in (a folder git skips is never looked into, so a
    line for a file below it would not do). A line git shows that starts with ``!`` lets its
    path in."""
    root = location.repo_root
    if root is None:
        return IgnoreCheck(None, answered=False)
    store = location.base.relative_to(root).as_posix()
    asked = [store, f"{store}/memories", f"{store}/memories/{SAMPLE_MEMORY}"]
    data = "".join(f"{path}\0" for path in asked).encode()
    out, why = git_answer(
        root, "check-ignore", "-v", "-z", "--stdin", timeout=IGNORE_CHECK_TIMEOUT_S, data=data
    )
    if out is None:  # a silent exit 1: nothing ignored; anything else: git could not say
        return IgnoreCheck(None, answered=silent_exit(why, 1))
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    rules = {
        path: (source, line, pattern)
        for source, line, pattern, path in zip(*[iter(fields)] * 4, strict=False)
        if pattern and not pattern.startswith("!")
    }
    if asked[-1] not in rules:
        return IgnoreCheck(None, answered=True)
    at = next(index for index, path in enumerate(asked) if path in rules)
    source, line, pattern = rules[asked[at]]
    top = work_tree(root)
    rule_file = top / source  # git names the user's own ignore file absolute
    # a line with a slash matches from the folder of its .gitignore (info/exclude: the top)
    in_tree = not Path(source).is_absolute() and not source.startswith(".git/")
    folder = rule_file.parent if in_tree else top
    base = os.path.relpath(location.base, folder).replace(os.sep, "/")
    unignore = [f"!{base}/", f"!{base}/memories/", f"!{base}/memories/*{MEMORY_SUFFIX}"][at]
    rule = IgnoredMemories(location.memories_dir, rule_file, int(line), pattern, unignore)
    return IgnoreCheck(rule, answered=True)


def work_tree(root: Path) -> Path:
    """The top folder of the git work tree holding ``root``, which git names its ignore files
    from: the nearest folder with a ``.git`` (``root`` itself, unless its store was made in a
    folder of a repository rather than at its top)."""
    moved = moved_git_dir(str(root))  # a work tree git's configuration put away from .git
    if moved is not None:
        return Path(moved[0])
    return next((folder for folder in (root, *root.parents) if (folder / ".git").exists()), root)
