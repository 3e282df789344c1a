"""What a memory folder holds that no loader reads, for the commands that must say so: entries
named like memory files that are not plain files (:func:`skipped`: never read, so that a link
cannot pull a file in from outside), and files that look like memories but are named or placed
so that the loaders' rule (:func:`recall.memfiles.is_memory_name`, the folder itself only)
leaves them out (:func:`unread`). The rule stays the loaders'; this only names what it leaves
out."""

from __future__ import annotations

import os
from pathlib import Path

from recall.memfiles import _TEMP_PREFIX, MEMORY_SUFFIX, is_memory_name

SKIPPED_NAMED = 3
"""Memory files a reading command names when it skipped them as unreadable; the others are
counted, and ``tether doctor`` lists them all (a clone with hundreds broken must not bury the
command's own output). Fewer than the language server's ``NAMED_AT_ONCE`` (20) on purpose: it
is said on every command, above the answer, where the server logs it once per change."""


LINK = "a symbolic link"
"""What :func:`skipped` calls a link: the one entry that could read a file from outside."""


def skipped(folder: Path) -> list[tuple[str, str]]:
    """Entries named like memory files that are not plain files (links, folders, devices),
    each with what it is: never read, so that a link cannot pull a file in from outside. One
    listing, and no ``stat`` of a plain file where the listing tells its type (every reading
    command asks, at 30k memories too)."""
    found: list[tuple[str, str]] = []
    try:
        with os.scandir(folder) as listing:
            odd = [entry for entry in listing if not entry.is_file(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return found
    for entry in odd:
        try:
            if not is_memory_name(entry.name):
                continue
            if entry.is_symlink():
                found.append((entry.name, LINK))
            elif entry.is_dir(follow_symlinks=False):
                found.append((entry.name, "a folder"))
            else:
                found.append((entry.name, "not a regular file"))
        except FileNotFoundError:
            continue
    return sorted(found)


def unread(folder: Path) -> list[tuple[str, str]]:
    """Files under the folder that look like memories but that no loader reads, by their
    path relative to the folder, each with why and what to do: one in a subfolder, one
    named ``.MD``, ``.markdown`` or with a leading dot. A writer's temp file is not named (it
    is cleaned up, not read)."""
    found: list[tuple[str, str]] = []
    for top, dirs, files in os.walk(folder):  # never follows a link into a folder
        dirs.sort()
        where = Path(top).relative_to(folder)
        for name in sorted(files):
            fix = _unread_fix(name, nested=where != Path("."))
            if fix is not None:
                found.append(((where / name).as_posix(), fix))
    return found


STALE_TEMP_SECONDS = 60
"""Age past which a writer's temporary file in the memory folder was left by a write stopped
midway: a write renames its own into place within milliseconds of making it."""


def left_behind(folder: Path, now: float) -> list[str]:
    """The names of the temporary files in ``folder`` that a write stopped midway (a killed
    import, a crash) left there, older than :data:`STALE_TEMP_SECONDS` at ``now``."""
    found: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    for entry in sorted(entries, key=lambda e: e.name):
        if not entry.name.startswith(_TEMP_PREFIX):
            continue
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS:
                found.append(entry.name)
        except OSError:  # taken away meanwhile: by the write that made it
            continue
    return found


def left_behind_message(path: Path) -> str:
    """What to tell a person about a temporary file a stopped write left (:func:`left_behind`)."""
    return (
        f"{path}: a temporary file left by a write that was stopped midway, never a memory; "
        "`tether reindex` (or the next import) removes it, or delete it"
    )


def skipped_message(path: Path, what: str) -> str:
    """What to tell a person about an entry of the memory folder named like a memory file that
    is never read (:func:`skipped`): ``what`` it is, and what to do; for a link, why (it could
    read a file from outside the repository)."""
    why = " (a link could read a file from outside the repository)" if what == LINK else ""
    return (
        f"{path}: {what}, so it is skipped: a memory file must be a plain file in the "
        f"folder{why}; put the file itself there"
    )


_LOOKALIKE_SUFFIXES = (MEMORY_SUFFIX, ".markdown")

EDITOR_LOCK_PREFIX = ".#"
"""Emacs's lock on a file with unsaved changes, ``.#NAME`` beside it (a link, usually to
nowhere, named ``user@host.pid:boot``): the editor's, gone once the buffer is saved, never a
memory hidden by a dot. Other editors' leftovers (``.NAME.swp``, ``NAME~``, ``#NAME#``) do not
end in ``.md`` and are not taken for memories at all."""


def _unread_fix(name: str, *, nested: bool) -> str | None:
    """Why a file named ``name`` under a memory folder (``nested``: in a subfolder of it) that
    looks like a memory is not read, and how to have it read; None when it is read, or does not
    look like a memory."""
    lowered = name.lower()
    if name.startswith((_TEMP_PREFIX, EDITOR_LOCK_PREFIX)):
        return None
    if not lowered.endswith(_LOOKALIKE_SUFFIXES):
        return None
    if not nested and is_memory_name(name):
        return None  # read (or named by skipped() when not a plain file)
    fixes = []
    if nested:
        fixes.append("move it up into the memory folder itself")
    if name.startswith("."):
        fixes.append("drop the leading dot")
    if not name.endswith(MEMORY_SUFFIX):
        fixes.append("rename it to end in lowercase .md")
    why = "it is in a subfolder" if nested else "its name is not a memory file's"
    return (
        f"not read, as {why}: memories are the files of the memory folder itself named *.md "
        f"(lowercase, no leading dot); {' and '.join(fixes)}"
    )
