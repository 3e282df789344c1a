"""Where HEAD points and whether git's index changed, read from ``.git`` without running git.

This is the staleness check of a short process: a few small file reads instead of a git
process. Layouts it does not know (the reftable backend) fall back to one ``git rev-parse``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.gitquery import git_stdout
from recall.work_tree import moved_git_dir

if TYPE_CHECKING:
    from recall.genome.gitcmd import RepoProbe

# Seconds to wait for the fallback ``git rev-parse`` before treating HEAD as unknown.
REV_PARSE_TIMEOUT_S = 10


@dataclass(frozen=True)
class HeadState:
    """HEAD's commit (None before the first commit) and a signature of git's index file."""

    head: str | None
    index_sig: str


def _locate(start: Path) -> tuple[Path, Path] | None:
    """(top of the working tree, git directory) of the repository holding ``start``."""
    moved = moved_git_dir(str(start))  # a work tree git's configuration put away from .git
    if moved is not None:
        return Path(moved[0]), Path(moved[1])
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return folder, dot_git
        if dot_git.is_file():
            try:
                text = dot_git.read_text("utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            target = Path(text[len("gitdir:") :].strip())
            return folder, target if target.is_absolute() else (folder / target).resolve()
    return None


def find_git_dir(start: Path) -> Path | None:
    """The git directory of the repository holding ``start`` (following ``.git`` files)."""
    located = _locate(start)
    return located[1] if located else None


def common_dir(git_dir: Path) -> Path:
    """The directory holding refs and objects shared by every worktree of ``git_dir``."""
    try:
        text = (git_dir / "commondir").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    path = Path(text)
    return path if path.is_absolute() else (git_dir / path).resolve()


def _packed_ref(common: Path, ref: str) -> str | None:
    try:
        with open(common / "packed-refs", encoding="utf-8") as handle:
            for line in handle:
                sha, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return sha
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _resolve_ref(git_dir: Path, ref: str) -> str | None:
    common = common_dir(git_dir)
    for base in (git_dir, common):
        try:
            text = (base / ref).read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.startswith("ref:"):
            return _resolve_ref(git_dir, text[4:].strip())
        return text or None
    return _packed_ref(common, ref)


def _rev_parse(root: Path) -> str | None:
    # the reftable fallback only: the usual layouts are read without git
    out = git_stdout(
        root, "rev-parse", "-q", "--verify", "HEAD^{commit}", timeout=REV_PARSE_TIMEOUT_S
    )
    return (out.decode("ascii", "replace").strip() or None) if out is not None else None


def read_head(root: Path) -> HeadState | None:
    """HEAD and the index signature of the repository at ``root``; None outside a repository."""
    git_dir = find_git_dir(root)
    if git_dir is None:
        return None
    try:
        stat = os.stat(git_dir / "index")
        index_sig = f"{stat.st_size}:{stat.st_mtime_ns}"
    except OSError:
        index_sig = ""
    if (git_dir / "reftable").is_dir() or (common_dir(git_dir) / "reftable").is_dir():
        return HeadState(_rev_parse(root), index_sig)
    try:
        text = (git_dir / "HEAD").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return HeadState(_rev_parse(root), index_sig)
    if text.startswith("ref:"):
        return HeadState(_resolve_ref(git_dir, text[4:].strip()), index_sig)
    return HeadState(text or None, index_sig)


_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def probe_files(root: Path) -> RepoProbe | None:
    """What ``git rev-parse`` says about the repository around ``root``, read from ``.git``.

    None when the answer would need git itself: no ``.git`` found, git steered by
    environment variables, the reftable backend, or a ref that is not a plain object id.
    """
    from recall.genome.gitcmd import RepoProbe  # a refresh's: the staleness check needs none

    if any(os.environ.get(name) for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return None
    root = root.resolve()
    located = _locate(root)
    if located is None:
        return None
    top, git_dir = located
    common = common_dir(git_dir)
    if (git_dir / "reftable").is_dir() or (common / "reftable").is_dir():
        return None
    try:
        text = (git_dir / "HEAD").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    detached = not text.startswith("ref:")
    head = text if detached else _resolve_ref(git_dir, text[4:].strip())
    if head is not None and not _SHA.fullmatch(head):
        return None
    relative = root.relative_to(top).as_posix()
    return RepoProbe(
        prefix="" if relative == "." else relative + "/",
        git_dir=git_dir,
        shallow=(common / "shallow").is_file() or (git_dir / "shallow").is_file(),
        head=head,
        detached=detached,
    )


def unborn_notice(git_dir: Path) -> str:
    """What indexing a HEAD with no commit says: the repository has none yet, or the branch
    checked out (an orphan branch) has none while other branches have commits."""
    try:
        head = (git_dir / "HEAD").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        head = ""
    prefix = "ref: refs/heads/"
    if head.startswith(prefix) and _any_branch(common_dir(git_dir)):
        from recall.display import visible

        branch = visible(head[len(prefix) :])
        return f"the branch {branch} has no commits yet: no co-change or renames until its first"
    return "the repository has no commits yet: no co-change or renames until the first one"


def _any_branch(common: Path) -> bool:
    """Whether any branch of the repository at ``common`` points at a commit."""
    for _, _, files in os.walk(common / "refs" / "heads"):
        if files:
            return True
    try:
        with open(common / "packed-refs", encoding="utf-8") as handle:
            return any(" refs/heads/" in line for line in handle)
    except (OSError, UnicodeDecodeError):
        return False
