"""What every git command Tether runs is told first, so that a repository's own configuration
cannot make it run a program: Tether reads repositories it did not make (a clone, an archive
with its ``.git`` folder, a bare repository committed inside another), from hooks and servers
that start with no person asking."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

SAFE_GIT_OPTIONS: Final = (
    # a repository's core.fsmonitor names a program git starts on ls-files, diff and status
    "-c",
    "core.fsmonitor=false",
    # a bare repository committed inside another would be found (with its config) by a
    # command run in its folders; a bare one is only ever used when named (git 2.38+)
    "-c",
    "safe.bareRepository=explicit",
    # with log.showSignature, log and show check a signed commit with the gpg.program the
    # repository's config names, and any commit can carry a signature
    "-c",
    "log.showSignature=false",
    # a read may still write the index (git diff refreshes its file times), and writing it runs
    # the post-index-change hook from .git/hooks or wherever core.hooksPath says
    "-c",
    "core.hooksPath=/dev/null",
)
"""The ``-c`` options every git command of Tether starts with."""

WORKTREE_READERS: Final = frozenset({"ls-files", "diff", "status"})
"""The git commands that may read a working-tree file's content (a file whose times changed is
hashed again), and so run the clean filter a repository's own config names for it."""

SUBMODULE_READERS: Final = frozenset({"diff", "status"})
"""The git commands that look inside a submodule's working tree (running git there, which reads
the submodule's own config and its filter drivers) unless told to ignore it."""

IGNORE_DIRTY_SUBMODULES: Final = "--ignore-submodules=dirty"
"""A submodule counts as changed only when the commit it points to differs: its working tree is
not read. Given on the command line, it outranks a ``submodule.NAME.ignore`` in the config."""

FILTER_KEYS: Final = ("config", "-z", "--name-only", "--get-regexp", r"^filter\.")
"""The git command listing the repository's filter-driver keys (``filter.NAME.clean`` ...)."""


def _command_at(args: Sequence[str]) -> int:
    """The index of the git command word in ``args``, past any leading ``-c NAME=VALUE``."""
    at = 0
    while list(args[at : at + 1]) == ["-c"]:
        at += 2
    return at


def command_of(args: Sequence[str]) -> str | None:
    """The git command of ``args`` (past any leading ``-c NAME=VALUE``), None if there is none."""
    at = _command_at(args)
    return args[at] if at < len(args) else None


def with_command_options(args: Sequence[str]) -> list[str]:
    """``args`` with :data:`IGNORE_DIRTY_SUBMODULES` right after the command word when the
    command is one of :data:`SUBMODULE_READERS`; otherwise ``args`` unchanged."""
    rest = list(args)
    at = _command_at(rest)
    if at < len(rest) and rest[at] in SUBMODULE_READERS:
        rest.insert(at + 1, IGNORE_DIRTY_SUBMODULES)
    return rest


def no_filter_options(listed: bytes) -> list[str]:
    """``-c`` options emptying every filter driver among ``listed`` keys (the output of
    :data:`FILTER_KEYS`): a driver with no command filters nothing, so git runs no program of
    the repository's while it reads the working tree (and one marked required would fail the
    read without its program, so it is marked not required)."""
    names = {
        key[len("filter.") : key.rindex(".")]
        for key in listed.decode("utf-8", "surrogateescape").split("\0")
        if key.startswith("filter.") and key.count(".") >= 2
    }
    return [
        option
        for name in sorted(names)
        for setting in ("clean=", "smudge=", "process=", "required=false")
        for option in ("-c", f"filter.{name}.{setting}")
    ]
