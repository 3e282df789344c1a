"""Catching typed paths that name nothing: a path a memory or a recall names is checked
against the repository's files (and, for memories, its history), with the closest names
offered in a "did you mean"..

Git is asked only when a path is missing on disk, so the common case costs one ``stat`` (and
no import of ``subprocess`` or ``difflib``: recall runs in agents' hooks).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

from recall.closest_names import SUGGESTED_PER_MEMORY, suggestions
from recall.display import visible
from recall.errors import BadInput
from recall.file_kinds import special_kind
from recall.gitquery import git_stdout
from recall.repo import TETHER_DIR

WALK_LIMIT: Final = 50_000
"""Files listed from disk for suggestions outside git; past this a suggestion is not worth
the wait."""

GIT_TIMEOUT_S: Final = 30
"""A git query that takes longer is abandoned: the check then trusts the user's path."""


def _git(root: Path, *args: str) -> bytes | None:
    # only for a path missing on disk: a recall hook never pays for it
    return git_stdout(root, *args, timeout=GIT_TIMEOUT_S)


def is_git(root: Path) -> bool:
    """Tell whether ``root`` is inside a git working tree."""
    return (root / ".git").exists() or _git(root, "rev-parse", "--is-inside-work-tree") is not None


def tree_paths(root: Path) -> list[str]:
    """The files of the working tree under ``root``, relative to it (tracked and untracked
    but not ignored; Tether's own folder left out); from disk when git cannot say."""
    raw = _git(root, "ls-files", "-z", "-c", "-o", "--exclude-standard")
    if raw is not None:
        names = [n for n in raw.decode("utf-8", "surrogateescape").split("\0") if n]
    else:
        names = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".git", TETHER_DIR)]
            base = Path(folder).relative_to(root).as_posix()
            names.extend(f if base == "." else f"{base}/{f}" for f in files)
            if len(names) >= WALK_LIMIT:
                break
    return sorted({n for n in names if not n.startswith(TETHER_DIR + "/")})


def in_history(root: Path, paths: Sequence[str]) -> set[str]:
    """Those of ``paths`` (files or folders) that a commit reachable from a ref touched, asked
    of git in one walk for all (:mod:`recall.history_paths`); all of them when git cannot
    answer, so a path is never refused on a guess."""
    from recall.history_paths import in_history as walked  # only for a path missing on disk

    found = walked(root, paths, timeout=GIT_TIMEOUT_S)
    return set(paths) if found is None else found


def or_list(names: Sequence[str]) -> str:
    """``names`` as one line for a message: ``a or b``, each name's unseen characters (a line
    break a cloned repository's file name may hold) escaped so it cannot forge a line."""
    return " or ".join(map(visible, names))


def _form(text: str) -> str:
    """Which Unicode normalization form ``text`` is spelt in: NFC, NFD or a mixed form."""
    import unicodedata

    return next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, text)), "a mixed form")


def _twin(path: str, tree: Iterable[str]) -> str | None:
    """The file of ``tree`` that ``path`` differs from only in its Unicode normalization (an
    accent typed as a combining character, the file named with the composed one), if any."""
    import unicodedata

    key = unicodedata.normalize("NFC", path)
    return next((n for n in tree if n != path and unicodedata.normalize("NFC", n) == key), None)


def _hint(
    path: str, tree: Sequence[str], typed: Callable[[str], str] | None = None, nth: int = 0
) -> str:
    """What follows the news that ``path``, the ``nth`` missing one of those given, is
    missing: that it differs from a file of ``tree`` only in its Unicode normalization, said
    with both forms (a "did you mean" would read the same as the path given), or else the
    closest names (each as ``typed`` gives it), looked for only for the first
    :data:`SUGGESTED_PER_MEMORY` of those given."""
    if nth >= SUGGESTED_PER_MEMORY:
        return f"; no suggestion: over {SUGGESTED_PER_MEMORY} missing paths"
    twin = _twin(path, tree)
    if twin is not None:
        return (
            f"; it differs from the repository's file {visible(twin)} only in its Unicode "
            f"normalization: the repository's file is spelt in {_form(twin)}, the path given "
            f"is in {_form(path)}; give the path as the repository spells it (as `git ls-files` "
            "prints it)"
        )
    close = suggestions(path, tree)
    return mean_clause([typed(name) for name in close] if typed is not None else close)


def mean_clause(close: Sequence[str]) -> str:
    """``; did you mean a or b?`` offering the names ``close``, or ``""`` for none."""
    return f"; did you mean {or_list(close)}?" if close else ""


def did_you_mean(path: str, root: Path) -> str:
    """`` (did you mean a, b?)`` for ``path``, or ``""`` when nothing in the tree is close."""
    close = suggestions(path, tree_paths(root))
    return f" (did you mean {or_list(close)}?)" if close else ""


def unopened_submodule(root: Path, path: str) -> str | None:
    """The folder of the submodule ``path`` lies in when that submodule is not checked out here
    (a clone made without ``--recurse-submodules``): git's index holds the folder as a commit
    of another repository, and none of its files is on disk. None for any other path. One git
    call, made only when the nearest folder of ``path`` on disk is below the top and empty (git
    leaves a submodule it did not check out an empty folder)."""
    from recall.genome.tree import GITLINK_MODE  # only for a path missing on disk

    folder = path.rpartition("/")[0]
    while folder and not os.path.isdir(root / folder):
        folder = folder.rpartition("/")[0]
    if not folder or not _empty(root / folder):
        return None  # files there (a repository checked out, a plain folder): it lacks the file
    raw = _git(root, "ls-files", "-z", "-s", "--", f":(literal){folder}")
    for entry in raw.decode("utf-8", "surrogateescape").split("\0") if raw else ():
        info, _, name = entry.partition("\t")
        if info.startswith(GITLINK_MODE + " ") and path.startswith(name + "/"):
            return name
    return None


def _empty(folder: Path) -> bool:
    """Whether ``folder`` holds nothing (an unreadable one counts as holding something)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def in_unopened(folder: str) -> str:
    """Where a path in the submodule at ``folder``, not checked out here, is
    (:func:`unopened_submodule`), with the command that checks it out; said after ``is``."""
    from shlex import quote

    return (
        f"in submodule {folder}, which is not checked out here (`git submodule update "
        f"--init {quote(folder)}` checks it out)"
    )


def _on_disk(root: Path, path: str) -> bool:
    return os.path.lexists(root / path)


def missing_paths(root: Path, paths: Iterable[str], *, history: bool) -> list[str]:
    """The paths (relative to ``root``) that are neither on disk, nor tracked, nor, with
    ``history``, touched by any commit."""
    missing = [p for p in paths if not _on_disk(root, p)]
    if not missing or not is_git(root):
        return missing
    raw = _git(root, "ls-files", "-z", "--", *(f":(literal){p}" for p in missing))
    tracked = set(raw.decode("utf-8", "surrogateescape").split("\0")) if raw else set()
    missing = [p for p in missing if p not in tracked]
    if history and missing:
        known = in_history(root, missing)
        missing = [p for p in missing if p not in known]
    return missing


def refuse_unknown(
    root: Path | None,
    named: Sequence[tuple[str, str]],
    *,
    let_through: str,
    cwd: Path | None = None,
) -> None:
    """Raise :class:`BadInput` naming each path of a new memory that the repository does not
    know, by the label it was given as (``named``: path and label), with the closest names (a
    path in a submodule not checked out here is said to be there: :func:`in_unopened`);
    ``let_through`` is how the caller names a file to come anyway (``--allow-missing``). Given
    ``cwd``, a subfolder the paths were typed from, the path and the names offered are said
    as they are typed from there, the path also as the repository has it."""
    if root is None or not named:
        return
    missing = set(missing_paths(root, [path for path, _ in named], history=True))
    if not missing:
        return
    tree = tree_paths(root)
    where = "the repository's files nor in its history" if is_git(root) else f"{root}"
    typed = typed_from(root, cwd)
    lines = []
    hinted = 0
    for path, label in named:
        if path not in missing:
            continue
        also = f" ({path} in the repository)" if typed(path) != path else ""
        folder = unopened_submodule(root, path)
        if folder is not None:
            lines.append(f"{label} {typed(path)!r}{also} is {in_unopened(typed(folder))}")
            continue
        hint = _hint(path, tree, typed=typed, nth=hinted)
        hinted += 1
        lines.append(f"{label} {typed(path)!r}{also} is not in {where}{hint}")
    lines.append(f"nothing written; give {let_through} to name it anyway (a file to come)")
    raise BadInput("\n  ".join(lines))


def typed_from(root: Path | None, cwd: Path | None) -> Callable[[str], str]:
    """How a path of the repository ``root`` (relative to it) is typed from ``cwd``, the folder
    a command runs in and reads the paths it is given from: relative to it (``../x`` for a
    file outside it), so that a name a message offers can be typed back as it is; as the
    repository has it from the root, from outside it, or without a ``cwd``."""
    if root is None or cwd is None:
        return _as_stored
    try:
        inside = Path(os.path.realpath(cwd)).relative_to(os.path.realpath(root))
    except ValueError:
        return _as_stored
    if inside == Path("."):
        return _as_stored
    return lambda path: os.path.relpath(path, inside.as_posix()).replace(os.sep, "/")


def _as_stored(path: str) -> str:
    return path


NOT_IN_TREE: Final = "is not in the working tree (deleted, or not on this branch)"
"""What is said of a path that git's history knows and the working tree lacks."""

NOT_IN_FOLDER: Final = "is not in the project folder"
"""What is said of a path missing outside git: there is no repository, branch or history to
say more of it by."""


NOT_CHECKED_OUT: Final = "is not checked out here (the sparse checkout leaves it out)"
"""What is said of a path git's index holds that a sparse checkout leaves out of the working
tree: a file of the repository, just not on disk."""


def absent_reason(
    root: Path, paths: Sequence[str], typed: Callable[[str], str] = lambda path: path
) -> dict[str, str]:
    """Why each of ``paths``, files memories name that are missing on disk, is not there, said
    after the path: in a submodule not checked out (:func:`in_unopened`, its folder as
    ``typed`` gives it), left out by a sparse checkout (git's index holds it), or not in the
    working tree (:func:`not_there`). One git call for them all, and one for each whose
    nearest folder on disk is empty (:func:`unopened_submodule`)."""
    gone = not_there(root)
    if gone != NOT_IN_TREE or not paths:
        return dict.fromkeys(paths, gone)
    raw = _git(root, "ls-files", "-z", "-t", "--", *(f":(literal){p}" for p in paths))
    listed = raw.decode("utf-8", "surrogateescape").split("\0") if raw else []
    sparse = {entry[2:] for entry in listed if entry.startswith("S ")}  # git's skip-worktree
    found: dict[str, str] = {}
    for path in paths:
        folder = None if path in sparse else unopened_submodule(root, path)
        if path in sparse:
            found[path] = NOT_CHECKED_OUT
        elif folder is not None:
            found[path] = f"is {in_unopened(typed(folder))}"
        else:
            found[path] = gone
    return found


def not_there(root: Path) -> str:
    """What is said of a path a memory names that ``root``'s working tree lacks: that it is
    not in the working tree (deleted, or on another branch), or outside git, where neither a
    branch nor a repository is to be spoken of, that it is not in the project folder."""
    return NOT_IN_TREE if is_git(root) else NOT_IN_FOLDER


def missing_notes(root: Path | None, paths: list[str], *, cwd: Path | None = None) -> list[str]:
    """One line per touched path missing from the working tree: one in a submodule not checked
    out here said to be there (:func:`in_unopened`), one git's history knows said to be so
    (deleted, or on another branch), any other with the closest names (a typo); each path and
    name said as it is typed from ``cwd`` (:func:`typed_from`)."""
    if root is None or not paths:
        return []
    missing = missing_paths(root, paths, history=False)
    if not missing:
        return []
    git = is_git(root)
    unopened = {p: f for p in missing if git and (f := unopened_submodule(root, p)) is not None}
    missing = [path for path in missing if path not in unopened]
    former = in_history(root, missing) if git and missing else set()
    tree = tree_paths(root) if len(former) < len(missing) else []
    unknown = "is not a file of this repository" if git else NOT_IN_FOLDER
    typed = typed_from(root, cwd)
    notes = [f"{visible(typed(p))} is {in_unopened(typed(f))}" for p, f in unopened.items()]
    hinted = 0
    for path in missing:
        if path in former:
            notes.append(f"{visible(typed(path))} {NOT_IN_TREE}")
        else:
            hint = _hint(path, tree, typed=typed, nth=hinted)
            hinted += 1
            notes.append(f"{visible(typed(path))} {unknown}{hint}")
    return notes


FOLDER_EXAMPLES: Final = 3
"""Files under a folder named in place of a file that the message suggests."""


def folder_lines(
    root: Path | None,
    paths: Iterable[str],
    *,
    label: str,
    advice: str,
    cwd: Path | None = None,
) -> list[str]:
    """One line per path of ``paths`` that is a folder of ``root`` (a memory and a recall are
    about files: a folder matches none of them), with ``advice`` and a few of the files under
    it; the folder and its files said as they are typed from ``cwd`` (:func:`typed_from`)."""
    typed = typed_from(root, cwd)
    lines = []
    for path in paths:
        hint = folder_hint(root, path, typed=typed)
        if hint is not None:
            lines.append(f"{label} {typed(path)!r} is a folder; {advice}{hint}")
    return lines


def folder_hint(
    root: Path | None, path: str, *, typed: Callable[[str], str] | None = None
) -> str | None:
    """None unless ``path`` is a folder of ``root`` (not a link to one); then `` (a, b, ...)``,
    a few of the files under it (each as ``typed`` gives it), or ``""`` when it holds none."""
    if root is None or not os.path.isdir(root / path) or os.path.islink(root / path):
        return None
    inside = sorted(p for p in tree_paths(root) if p.startswith(path.rstrip("/") + "/"))
    named = [typed(p) for p in inside[:FOLDER_EXAMPLES]] if typed else inside[:FOLDER_EXAMPLES]
    examples = ", ".join(map(visible, named)) + (", ..." if len(inside) > FOLDER_EXAMPLES else "")
    return f" ({examples})" if examples else ""


def touched_notes(root: Path | None, paths: list[str], *, cwd: Path | None = None) -> list[str]:
    """What to tell about the paths a recall is given that no file of ``root`` answers to: one
    missing from the working tree (with the closest names: a typo, or a file renamed since),
    a folder (with a few of its files), a named pipe or any other that is not a regular file.
    Recall ranks by the files that exist, so without a note such a path would find nothing
    without a word. Each path and name is said as it is typed from ``cwd``
    (:func:`typed_from`)."""
    notes = missing_notes(root, paths, cwd=cwd)
    advice = "recall takes the files touched"
    notes += folder_lines(root, paths, label="path", advice=advice, cwd=cwd)
    if root is not None:
        typed = typed_from(root, cwd)
        for path in paths:
            kind = special_kind(root / path)
            if kind is not None:
                notes.append(f"path {typed(path)!r} is {kind}, not a regular file; {advice}")
    return notes
