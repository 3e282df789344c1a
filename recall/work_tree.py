"""Where a folder's project is rooted: git's work tree, as git itself would take it.

Usually the nearest folder holding ``.git`` (or, without git, ``.tether``), found by a few
``stat`` calls and one read of the repository's config. git's own configuration can put the
work tree elsewhere: a ``core.worktree`` key in that config (read here as git reads it), or
``GIT_DIR`` or ``GIT_WORK_TREE`` in the environment (then git itself is asked, once per
process and folder). The git folder of such a work tree is kept, so that each git command
Tether runs there is pointed at it (:func:`location_options`): git run in a work tree that
holds no ``.git`` would find no repository.

Imported by every hook before anything heavy (the warm engine's client too), so it uses
built-in modules only; ``subprocess`` is imported only when git is asked.
"""

from __future__ import annotations

import os

TETHER_DIR = ".tether"

GIT_PLACE_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE")
"""The environment variables with which git takes its folder or work tree from the caller
rather than from the ``.git`` it finds: either one set, git's answer is the one taken."""

ASK_TIMEOUT_S = 5
"""Seconds ``git rev-parse`` may take to name the work tree the environment decides: it reads
a config file, so only a hung git gets near; past it, the folders are looked at as without
the variables."""

_moved: dict[str, str] = {}
"""Work tree -> its git folder, for each work tree found in this process away from its
``.git`` (named by ``core.worktree``) or decided by the environment."""

_claimed: dict[str, tuple[str, str, str]] = {}
"""Folder holding ``.git`` -> (the config file setting ``core.worktree``, the folder it names,
that folder's own ``.git``), for each repository found in this process whose setting names the
work tree of another repository: that repository's store is never taken for this one's."""

_asked: dict[tuple[str, ...], str | None] = {}
"""git's answers in this process, by folder, environment variables and working directory."""


def find_root(start: str) -> str | None:
    """The folder the project of ``start`` is rooted at, resolved: git's work tree when git's
    configuration moves it (:data:`GIT_PLACE_VARIABLES`, ``core.worktree``), else the nearest
    folder at or above ``start`` holding ``.git`` or ``.tether``; None when there is none."""
    current = os.path.realpath(start)
    if any(os.environ.get(name) for name in GIT_PLACE_VARIABLES):
        told = _ask_git(current)
        if told is not None:
            return told
    folder = current
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.exists(dot_git):
            return _configured_tree(dot_git, folder) or folder
        if os.path.isdir(os.path.join(folder, TETHER_DIR)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def moved_git_dir(path: str) -> tuple[str, str] | None:
    """(work tree, git folder) of the work tree :func:`find_root` found for ``path`` or a
    folder above it away from its ``.git``, or as the environment decided it; else None: the
    usual ``.git`` is found on disk, not here."""
    if not _moved:
        return None
    current = os.path.realpath(path)
    while True:
        git_dir = _moved.get(current)
        if git_dir is not None:
            return current, git_dir
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def claimed_tree(root: str) -> tuple[str, str, str] | None:
    """(config file, folder named, its ``.git``) when :func:`find_root` found ``root`` holding a
    ``.git`` whose ``core.worktree`` names the work tree of another repository (a folder with a
    ``.git`` of its own, of another git folder); else None. ``root`` is then no project's root:
    its own folder is no work tree git commits from, and the named one's store is the other
    repository's."""
    return _claimed.get(root)


def still_root(root: str) -> bool:
    """Whether ``root`` is still what :func:`find_root` took it for: a folder holding ``.git``
    or ``.tether``, or a work tree git named whose folder and git folder are both still there."""
    if os.path.exists(os.path.join(root, ".git")) or os.path.isdir(os.path.join(root, TETHER_DIR)):
        return True
    git_dir = _moved.get(root)
    return git_dir is not None and os.path.isdir(root) and os.path.isdir(git_dir)


def location_options(root: str) -> list[str]:
    """The options telling a git command run in ``root`` where its repository is, when git's
    configuration put the work tree away from the git folder; none for the usual repository,
    which git finds from ``root`` itself."""
    moved = moved_git_dir(root)
    if moved is None:
        return []
    top, git_dir = moved
    return [f"--git-dir={git_dir}", f"--work-tree={top}"]


def git_expected(path: str) -> bool:
    """Whether git is meant to answer for ``path``: a ``.git`` at or above it, a git folder
    git named for it, or git's folder set in the environment. git failing there is git
    refusing a repository (broken, or not the user's), not the absence of one."""
    if os.environ.get("GIT_DIR") or moved_git_dir(path) is not None:
        return True
    current = path
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def _configured_tree(dot_git: str, folder: str) -> str | None:
    """The work tree the repository of ``dot_git`` (in ``folder``) names in ``core.worktree``,
    when it is another folder and git would take it; else None. Files are read, not git
    run: a config without the word costs one read (:mod:`recall.git_config_file`)."""
    _claimed.pop(folder, None)  # decided anew on each read: a long-lived server sees a fix
    is_folder = os.path.isdir(dot_git)
    git_dir = dot_git if is_folder else _gitfile_target(dot_git, folder)
    if git_dir is None:
        return None
    common = None if is_folder else _common_dir(git_dir)  # a linked worktree's main repository
    config = os.path.join(common or git_dir, "config")
    data = _read(config)
    if data is None or b"worktree" not in data.lower():
        return None
    from recall.git_config_file import is_true, settings

    found = settings(data)
    if found is None:
        return None  # git refuses the config: every git command there fails, and says why
    if is_true(found.get("extensions.worktreeconfig", "false")):
        own = _read(os.path.join(git_dir, "config.worktree"))
        more = settings(own) if own is not None else {}
        if more is None:
            return None
        found.update(more)
        if "core.worktree" in more:
            config = os.path.join(git_dir, "config.worktree")
    elif common is not None:
        return None  # git takes no work tree for a linked worktree from the shared config
    value = found.get("core.worktree")
    if not value or is_true(found.get("core.bare", "false")) is not False:
        return None  # none, or one git refuses (empty, or beside core.bare)
    real_git_dir = os.path.realpath(git_dir)
    top = os.path.realpath(os.path.join(real_git_dir, value))
    if top == folder or not os.path.isdir(top):
        return None  # a missing folder: git fails there, and says so
    theirs = os.path.join(top, ".git")
    if os.path.lexists(theirs) and _repository_of(theirs, top) != _repository_of(dot_git, folder):
        _claimed[folder] = (config, top, theirs)
        return None
    _moved[top] = real_git_dir
    return top


def _repository_of(dot_git: str, folder: str) -> str | None:
    """The folder of the repository a ``.git`` in ``folder`` belongs to, links resolved: its
    main git folder for a linked worktree's or a submodule's ``.git`` file; None when it names
    none (git fails there)."""
    git_dir = dot_git if os.path.isdir(dot_git) else _gitfile_target(dot_git, folder)
    if git_dir is None:
        return None
    return os.path.realpath(_common_dir(git_dir) or git_dir)


def _read(path: str) -> bytes | None:
    """A config file's bytes, None when it cannot be read (``os`` alone: no ``io`` layers)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    blocks = []
    try:
        while block := os.read(fd, 1 << 16):
            blocks.append(block)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(blocks)


def _gitfile_target(dot_git: str, folder: str) -> str | None:
    """The git folder a ``.git`` file (a linked worktree's, a submodule's) points to."""
    try:
        with open(dot_git, "rb") as handle:
            text = os.fsdecode(handle.read(4096).strip())
    except (OSError, ValueError):
        return None
    if not text.startswith("gitdir:"):
        return None
    return os.path.join(folder, text[len("gitdir:") :].strip())


def _common_dir(git_dir: str) -> str | None:
    """The folder holding the config shared by every worktree of ``git_dir`` (a linked
    worktree's git folder names it in ``commondir``); None when ``git_dir`` is that folder."""
    data = _read(os.path.join(git_dir, "commondir"))
    text = os.fsdecode(data.strip()) if data else ""
    return os.path.join(git_dir, text) if text else None


def _ask_git(current: str) -> str | None:
    """git's work tree for ``current`` as the environment decides it (its git folder kept in
    :data:`_moved`), or None when git names none (no repository, a bare one, a repository it
    refuses, no git at all). Asked once per process for the same folder and variables."""
    key = (current, os.getcwd(), *(os.environ.get(name, "") for name in GIT_PLACE_VARIABLES))
    if key not in _asked:
        _asked[key] = _rev_parse(current)
    return _asked[key]


def _rev_parse(current: str) -> str | None:
    import subprocess

    from recall.git_safety import SAFE_GIT_OPTIONS

    env = dict(os.environ)
    for name in GIT_PLACE_VARIABLES:  # relative to this process's folder, not the one git runs in
        if env.get(name):
            env[name] = os.path.abspath(env[name])
    try:
        done = subprocess.run(
            ["git", *SAFE_GIT_OPTIONS, "rev-parse", "--absolute-git-dir", "--show-toplevel"],
            cwd=current,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=ASK_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = os.fsdecode(done.stdout).split("\n")
    if done.returncode != 0 or len(lines) != 3 or lines[2]:
        return None
    git_dir, top = lines[0], lines[1]
    if not (os.path.isabs(git_dir) and os.path.isabs(top) and os.path.isdir(top)):
        return None
    top = os.path.realpath(top)
    _moved[top] = os.path.realpath(git_dir)
    return top
