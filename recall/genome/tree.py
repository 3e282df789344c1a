"""The files of the working tree, from one ``git ls-files`` call.

Tracked files come with the blob id git already computed, which serves as a free content
hash; files modified in the working tree, unmerged or untracked come without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall.genome.gitcmd import GitRunner
from recall.genome.names import is_utf8
from recall.repo import TETHER_DIR

# Tether's own folder is left out of the untracked files: memory files not yet committed are
# not files of the project (committed ones are tracked, and listed like any other file).
LS_FILES_ARGS = (
    "ls-files",
    "-z",
    "-s",
    "-t",
    "-c",
    "-m",
    "-o",
    "--exclude-standard",
    "-x",
    f"{TETHER_DIR}/",
)

# Git modes of entries that are not regular files: a symlink's content is its target, and
# a submodule (gitlink) is a directory with a history of its own.
SYMLINK_MODE = "120000"
GITLINK_MODE = "160000"

# Sparse-checkout entries: tracked, but absent from the working tree by design.
SKIP_WORKTREE_TAG = "S"


@dataclass(frozen=True)
class TreeEntry:
    """One file of the repository: its blob id when git's copy is current, its kind, and
    whether a sparse checkout leaves it out of the working tree."""

    blob: str | None
    symlink: bool
    sparse: bool = False


def parse_ls_files(
    raw: bytes, gitlinks: list[str] | None = None, unnamed: list[str] | None = None
) -> dict[str, TreeEntry]:
    """Parse ``git ls-files -z -s -t -c -m -o`` output into path → entry; the submodules'
    folders (gitlinks) are added to ``gitlinks`` when it is given, and the names left out as
    not UTF-8 (decoded with surrogate escapes) to ``unnamed``.

    ``H`` lines are tracked files in step with the index; ``C`` (changed) lines repeat a
    tracked path whose working copy differs, which drops its blob id; ``?`` lines are
    untracked files that no ignore rule excludes. Unmerged stages lose their blob id too;
    ``S`` (skip-worktree) entries, which a sparse checkout leaves out of the working tree, are
    files of the repository all the same, marked ``sparse``. Names that are not valid UTF-8
    are left out (no memory can name them).
    """
    entries: dict[str, TreeEntry] = {}
    left_out: dict[str, None] = {}  # in order, once each (a changed file has two lines)
    for record in raw.decode("utf-8", "surrogateescape").split("\0"):
        if len(record) < 3:
            continue
        tag = record[0]
        body = record[2:]
        if not is_utf8(record):
            name = body if tag == "?" else body.partition("\t")[2]
            if name:
                left_out[name] = None
            continue
        if tag == "?":
            entries[body] = TreeEntry(blob=None, symlink=False)
            continue
        info, tab, path = body.partition("\t")
        if not tab:
            continue
        fields = info.split(" ")
        if len(fields) == 3 and fields[0] == GITLINK_MODE and gitlinks is not None:
            gitlinks.append(path)
        if len(fields) != 3 or fields[0] == GITLINK_MODE:
            continue
        mode, blob, stage = fields
        current = tag == "H" and stage == "0" and path not in entries
        symlink, sparse = mode == SYMLINK_MODE, tag == SKIP_WORKTREE_TAG
        entries[path] = TreeEntry(blob if current else None, symlink, sparse)
    if unnamed is not None:
        known = set(unnamed)
        unnamed.extend(name for name in left_out if name not in known)
    return entries


def list_tree(
    runner: GitRunner, gitlinks: list[str] | None = None, unnamed: list[str] | None = None
) -> dict[str, TreeEntry]:
    """Every tracked and untracked-not-ignored file under the runner's directory (and the
    submodules' folders in ``gitlinks``, the names left out as not UTF-8 in ``unnamed``, when
    given)."""
    _, out, _ = runner.run(list(LS_FILES_ARGS))
    return parse_ls_files(out, gitlinks, unnamed)
