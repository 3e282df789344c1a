"""Whether git ignores a repository's memory files: a rule such as ``.*`` in its ignore files
keeps them out of every commit, so what ``init`` says (commit ``memories/``) never happens and
nobody reviews them. One ``git check-ignore`` says it, with the file and line of the rule;
``tether init`` and ``tether doctor`` ask it, never recall or a hook."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from recall.gitquery import git_answer
from recall.locations import Location
from recall.memfiles import MEMORY_SUFFIX
from recall.work_tree import moved_git_dir

IGNORE_CHECK_TIMEOUT_S: Final = 5
"""Seconds ``git check-ignore`` may take: it reads a few small ignore files, so only a hung git
gets near, and then nothing is said."""

SAMPLE_MEMORY: Final = f"0a1b2c3d{MEMORY_SUFFIX}"
"""A memory file's name of the shape ``remember`` gives, asked of git for the files a rule such
as ``*.md`` ignores; one never written, as git says a tracked file is not ignored."""


@dataclass(frozen=True)
class IgnoredMemories:
    """The ignore rule that keeps a store's memory files out of git, and the line that lets
    them in."""

    memories_dir: Path
    source: Path
    line: int
    pattern: str
    unignore: str

    def message(self) -> str:
        """The finding as ``FILE:LINE: what and what to do``, on one line."""
        return (
            f"{self.source}:{self.line}: `{self.pattern}` makes git ignore {self.memories_dir}, "
            "so the memories written there are never committed nor reviewed; to commit them, "
            f"add a line `{self.unignore}` after it (or remove it); if they are meant to stay "
            "private to this clone, this is fine"
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding for ``--json``: the ignore file and line as ``path`` and ``line``."""
        return {
            "kind": "git-ignored",
            "path": str(self.source),
            "line": self.line,
            "pattern": self.pattern,
            "ignored": str(self.memories_dir),
            "unignore": self.unignore,
            "message": self.message(),
        }


def ignored_memories(location: Location) -> IgnoredMemories | None:
    """The rule that makes git ignore the memory files of the project store at ``location``;
    None when git commits them, or outside git, or when git cannot say. One git call.

    The store's folder, its memory folder and a memory file are asked together: the shallowest
    one ignored says the line that lets them in (a folder git skips is never looked into, so a
    line for a file below it would not do). A line git shows that starts with ``!`` lets its
    path in."""
    root = location.repo_root
    if root is None:
        return None
    store = location.base.relative_to(root).as_posix()
    asked = [store, f"{store}/memories", f"{store}/memories/{SAMPLE_MEMORY}"]
    data = "".join(f"{path}\0" for path in asked).encode()
    out, _ = git_answer(
        root, "check-ignore", "-v", "-z", "--stdin", timeout=IGNORE_CHECK_TIMEOUT_S, data=data
    )
    if out is None:  # exit 1: nothing ignored
        return None
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    rules = {
        path: (source, line, pattern)
        for source, line, pattern, path in zip(*[iter(fields)] * 4, strict=False)
        if pattern and not pattern.startswith("!")
    }
    if asked[-1] not in rules:
        return None
    at = next(index for index, path in enumerate(asked) if path in rules)
    source, line, pattern = rules[asked[at]]
    top = _work_tree(root)
    rule_file = top / source  # git names the user's own ignore file absolute
    # a line with a slash matches from the folder of its .gitignore (info/exclude: the top)
    in_tree = not Path(source).is_absolute() and not source.startswith(".git/")
    folder = rule_file.parent if in_tree else top
    base = os.path.relpath(location.base, folder).replace(os.sep, "/")
    unignore = [f"!{base}/", f"!{base}/memories/", f"!{base}/memories/*{MEMORY_SUFFIX}"][at]
    return IgnoredMemories(location.memories_dir, rule_file, int(line), pattern, unignore)


def _work_tree(root: Path) -> Path:
    """The top folder of the git work tree holding ``root``, which git names its ignore files
    from: the nearest folder with a ``.git`` (``root`` itself, unless its store was made in a
    folder of a repository rather than at its top)."""
    moved = moved_git_dir(str(root))  # a work tree git's configuration put away from .git
    if moved is not None:
        return Path(moved[0])
    return next((folder for folder in (root, *root.parents) if (folder / ".git").exists()), root)
