"""Where each scope keeps its memories and index: the repository's ``.tether`` or the user's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import BadInput, NotFound, StoreUnavailable
from recall.repo import TETHER_DIR, find_root

if TYPE_CHECKING:
    from recall.ignore_rules import RulesInExclude

PROJECT = "project"
GLOBAL = "global"
SCOPES = (PROJECT, GLOBAL)


@dataclass(frozen=True)
class Location:
    """The folders of one scope."""

    scope: str
    base: Path
    repo_root: Path | None

    @property
    def memories_dir(self) -> Path:
        """Folder of the memory files."""
        return self.base / "memories"

    @property
    def index_path(self) -> Path:
        """The derived SQLite index."""
        return self.base / "index.db"

    @property
    def lock_path(self) -> Path:
        """The writer lock file."""
        return self.base / "write.lock"


HOME_ENV = "TETHER_HOME"
"""The variable naming the global store's folder (the user's own memories and settings)."""


class HomeUnusable(BadInput):
    """``TETHER_HOME`` cannot be the user-wide store's folder where a command runs (a relative
    path, a file, a folder inside the repository): every surface decides it with
    :func:`global_location` and says it its own way, by one rule. A read serves the project's
    memories without the user-wide ones, said once; a write to the user-wide store is refused
    (exit 2), nothing written; with no project store either there is nothing to serve (exit 2).
    """


def user_wide_unavailable(reason: str) -> str:
    """What a use of the user-wide store that cannot be made says (a write to it, a read of
    it alone), ``reason`` being the :class:`HomeUnusable` message (the variable, its value,
    why and what to do)."""
    return f"your user-wide memories are not available: {reason}"


def user_wide_left_out(reason: str) -> str:
    """What a read says, once, when it serves the project's memories without the user-wide
    ones (``reason``: the :class:`HomeUnusable` message)."""
    return f"{user_wide_unavailable(reason)}; only this repository's memories are read"


def nothing_to_serve(cwd: Path, reason: str) -> str:
    """What a read says when there is no project store around ``cwd`` and the user-wide one
    cannot be used either (``reason``: the :class:`HomeUnusable` message): exit 2."""
    return (
        f"no memories to read here: {cwd} is not inside a git repository, and "
        f"{user_wide_unavailable(reason)}"
    )


def check_home() -> None:
    """Refuse (:class:`HomeUnusable`) a ``TETHER_HOME`` that cannot be the global store's
    folder anywhere: a relative path (the store would move with the working directory, and
    land inside whatever repository the command ran in, to be committed with it) or a path
    that is not a folder."""
    value = os.environ.get(HOME_ENV)
    if not value:
        return
    home = Path(value).expanduser()
    if not home.is_absolute():
        raise HomeUnusable(
            f"{HOME_ENV}={value!r} is a relative path: the global store would follow the "
            f'working directory; give an absolute path (for example {HOME_ENV}="$PWD/{value}")'
        )
    if home.exists() and not home.is_dir():
        raise HomeUnusable(
            f"{HOME_ENV}={value!r} is a file, not a folder: point it at a folder (made if "
            "missing), or leave it unset for the user data folder"
        )


def global_base() -> Path:
    """The global store's folder: ``TETHER_HOME`` or the platform's user data directory."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("tether", appauthor=False))


class StoreInGitFolder(BadInput):
    """A ``.tether`` found inside git's own folder (a bare repository, a clone's ``.git``),
    made there by an older ``tether init``: no file a memory names can exist beside it, so it
    is refused as a wrong place to run, as ``init`` and ``check`` refuse one (exit 2)."""


def _refuse_store_in_git_folder(root: Path) -> None:
    """Raise :class:`StoreInGitFolder` when ``root``, the folder whose ``.tether`` was found,
    is git's own folder rather than a working tree (no ``.git`` of its own, git's files in
    it). Asks the disk only for a folder that has no ``.git``: a working tree costs one stat."""
    if (root / ".git").exists() or not _is_git_dir(root):
        return
    store = root / TETHER_DIR
    beside = root.parent / TETHER_DIR
    if root.name == ".git" and beside.exists():
        fix = f"move its memory files into {beside / 'memories'} or remove it"
    elif root.name == ".git":
        fix = f"move it to the work tree (`mv {store} {beside}`) or remove it"
    else:
        fix = f"move it to the work tree of a clone (`git clone {root}`) or remove it"
    raise StoreInGitFolder(
        f"{store} is inside git's own folder {root}, which has no working tree for memories "
        f"to name files of; {fix}"
    )


class WorkTreeOfAnother(BadInput):
    """The repository a command runs in has ``core.worktree`` naming the work tree of another
    repository (a folder with a ``.git`` of its own): that folder's ``.tether`` is the other
    repository's store, never read or written from here; a wrong place to run (exit 2)."""


def _refuse_work_tree_of_another(root: Path) -> None:
    """Raise :class:`WorkTreeOfAnother` when :func:`recall.repo.find_root` found ``root``'s
    ``core.worktree`` naming another repository's work tree."""
    from recall.work_tree import claimed_tree

    claimed = claimed_tree(str(root))
    if claimed is None:
        return
    config, tree, theirs = claimed
    raise WorkTreeOfAnother(
        f"{config} sets core.worktree to {tree}, the work tree of another repository "
        f"({theirs}): its {TETHER_DIR} store is that repository's, so nothing is read or written "
        f"there from {root}; run tether in {tree} for its memories, or remove the setting"
    )


class NoProject(NotFound):
    """No project store can be found around a folder: the message says why and where one
    can be; a surface adds the way its own command reaches the global store, when it has one
    (the CLI: :func:`recall.cli.parser.global_form`). A command that needs the project store
    was run in the wrong place: refused as bad input (exit 2), as ``check`` refuses it, while
    a command that can read the global store alone catches it and goes on."""

    exit_code = BadInput.exit_code


class InGitFolder(NoProject):
    """The folder is git's own (a bare repository, a clone's ``.git``), where no file a
    memory names exists: a wrong place to run, refused as bad input (exit 2) by a command
    that needs the project store, and said by one that reads the global store alone."""


class FolderGone(BadInput):
    """The process's current folder cannot be found (deleted since the shell entered it, most
    often), and no ``-C`` names another: a wrong place to run, refused as bad input (exit 2)
    as a ``-C`` folder that does not exist is."""


FOLDER_GONE_FIX = "cd to an existing folder, or name one with `tether -C DIR`"
"""What a command run in a folder that no longer exists is told to do."""


def current_folder(fix: str = FOLDER_GONE_FIX) -> Path:
    """The process's current folder, links resolved; :class:`FolderGone` when the system
    cannot give it, its message ending with ``fix``."""
    try:
        return Path.cwd().resolve()
    except FileNotFoundError:
        raise FolderGone(f"the current folder no longer exists (deleted); {fix}") from None
    except OSError as error:  # a folder the system will not name (EACCES on some systems)
        raise FolderGone(
            f"the current folder cannot be found ({error.strerror or error}); {fix}"
        ) from None


def project_location(cwd: Path, *, create_at_cwd: bool = False) -> Location:
    """The project scope for ``cwd``: the nearest repository (or ``.tether``) above it.

    Raises :class:`NoProject` when there is none, unless ``create_at_cwd`` asks to start one;
    :class:`InGitFolder` when ``cwd`` is in git's own folder (a bare repository, or a clone's
    ``.git`` or a folder in it: :func:`git_own_folder`); :class:`StoreInGitFolder`
    when the store found is in such a folder (an older ``init`` made it there);
    :class:`WorkTreeOfAnother` when the repository's ``core.worktree`` names another
    repository's work tree; and
    :class:`recall.containment.UnsafeStore` when the repository's store holds a link that leads
    outside it.
    """
    root = find_root(cwd)
    if root is not None:
        _refuse_work_tree_of_another(root)
        _refuse_store_in_git_folder(root)
    git_own = git_own_folder(cwd, root)
    if git_own is not None:
        here = "is" if cwd.resolve() == git_own else f"is inside {git_own},"
        where = f"in {root}" if root is not None else f"in a clone of it (`git clone {git_own}`)"
        message = (
            f"{cwd} {here} git's own folder, with no working tree for memories to name files "
            f"of; run tether {where}"
        )
        raise InGitFolder(message)
    if root is None:
        if not create_at_cwd:
            raise NoProject(
                f"{cwd} is not inside a git repository or a folder with {TETHER_DIR}/; "
                "run `tether init` there"
            )
        root = cwd.resolve()
    from recall.containment import check_project_store

    check_project_store(root / TETHER_DIR, root)
    return Location(PROJECT, root / TETHER_DIR, root)


def _is_git_dir(folder: Path) -> bool:
    """Whether ``folder`` holds git's own files (HEAD, objects/, refs/), as git itself tells."""
    return (
        (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()
    )


def git_own_folder(cwd: Path, root: Path | None) -> Path | None:
    """The folder of git's own files that ``cwd`` is in, if any: the ``.git`` folder of
    ``root`` (the repository found around ``cwd``), or without a root, a bare repository
    around ``cwd``. A store made there would sit among git's files, where no memory's file
    exists. Asks the disk, not git: with a root, only a comparison of paths (every command
    and hook finds its store through it); without one, git's files in each folder above."""
    current = cwd.resolve()
    if root is not None:
        return root / ".git" if current.is_relative_to(root / ".git") else None
    return next((folder for folder in (current, *current.parents) if _is_git_dir(folder)), None)


def global_location(cwd: Path) -> Location:
    """The global scope; paths in its memories are relative to the repository of ``cwd``.

    The one decision of whether the user-wide store can be used from ``cwd``, for every
    surface: raises :class:`HomeUnusable` when ``TETHER_HOME`` is refused by
    :func:`check_home` (a relative path, a file), or is (or leads through links to) a folder
    inside that repository, its ``.tether`` store among them: the user's private memories
    would be written into its work tree, to be committed with it, and every memory of a
    store that is also the project's would be listed twice and reached by no id."""
    check_home()
    base, root = global_base(), find_root(cwd)
    value = os.environ.get(HOME_ENV)
    if value and root is not None:
        home, tree = os.path.realpath(base), os.path.realpath(root)
        try:
            inside = os.path.commonpath([home, tree]) == tree
        except ValueError:  # on two drives (Windows): not inside
            inside = False
        if inside:
            store = home == os.path.realpath(root / TETHER_DIR)
            what = "the store of the repository" if store else "inside the repository"
            raise HomeUnusable(
                f"{HOME_ENV}={value!r} is {what} {root}: your global memories, private to you, "
                "would be written into its work tree and committed with it; point it at a "
                "folder outside any repository, or leave it unset for the user data folder"
            )
    return Location(GLOBAL, base, root)


def not_a_folder(folder: Path) -> str:
    """What to say of a store whose memory folder's name is taken by a file (or a link to
    one): nothing is written there, and how to clear it."""
    return (
        f"{folder} is not a folder (a file or a link has its name), so no memory is read or "
        "written there; move it away, and the memory folder is created anew"
    )


class RepositoryGone(NotFound):
    """The repository folder a project store belongs to is no longer there (moved or
    deleted since the store was found): nothing is created at its old path."""


def still_a_repository(root: Path) -> bool:
    """Whether the repository folder ``root`` is still what :func:`recall.repo.find_root` took
    it for (a ``.git`` or a ``.tether/`` in it, or a work tree git's configuration named with
    its git folder still there): once moved or deleted, it is not."""
    from recall.work_tree import still_root

    return still_root(str(root))


def repository_gone(root: Path) -> str:
    """What to say of a repository folder ``root`` that is gone: nothing is written there."""
    return (
        f"the repository {root} is gone or moved (its folder is missing or no longer holds "
        f"{TETHER_DIR}/ or .git); nothing was read or written there; restart Tether in the "
        "repository where it is now"
    )


@dataclass(frozen=True)
class SetUp:
    """What making a store's folders made new: the folders themselves, and where its ignore
    rules went when the clone's exclude file took them (:mod:`recall.ignore_rules`)."""

    folders: bool
    rules_in_exclude: RulesInExclude | None = None


def created_message(location: Location) -> str:
    """What to tell a person whose command set up a repository's store on its way, as ``tether
    init`` does."""
    return (
        f"created {location.base} for this repository's memories, as `tether init` does "
        "(commit memories/, the index stays out of git)"
    )


def _make_folder(folder: Path, mode: int, *, parents: bool = False) -> None:
    """Make ``folder`` unless it is one; its name taken by a file or a link to no folder
    raises :class:`StoreUnavailable` (:func:`not_a_folder`), nothing made there."""
    try:
        folder.mkdir(parents=parents, exist_ok=True, mode=mode)
    except FileExistsError:  # exist_ok answers so only when the name is not a folder
        raise StoreUnavailable(not_a_folder(folder)) from None


def ensure_created(location: Location) -> SetUp | None:
    """Create a scope's folders (and the project's ignore rules); what was new, or None.

    A project store's folder is made inside its repository folder, never with it: a
    repository moved or deleted since raises :class:`RepositoryGone`, and nothing is created.
    A store folder or memory folder whose name a file (or a link to none) holds raises
    :class:`StoreUnavailable` saying so and what to do (:func:`not_a_folder`).
    """
    created = not location.memories_dir.is_dir()
    mode = 0o700 if location.scope == GLOBAL else 0o755
    root = location.repo_root if location.scope == PROJECT else None
    if root is not None and location.base.parent == root:
        try:  # no parents: a folder that is gone stays gone
            _make_folder(location.base, mode)
        except FileNotFoundError:
            raise RepositoryGone(repository_gone(root)) from None
    else:
        _make_folder(location.base, mode, parents=True)
    _make_folder(location.memories_dir, mode)
    if location.scope == GLOBAL:
        os.chmod(location.base, 0o700)
        return SetUp(folders=True) if created else None
    from recall.ignore_rules import write_ignore_rules  # git is asked only without .gitignore

    ignore = location.base / ".gitignore"
    missing = not ignore.exists() and not ignore.is_symlink()
    moved = write_ignore_rules(location.base)
    if created or moved is not None or (missing and ignore.exists()):
        return SetUp(created, moved)
    return None
