"""What ``tether doctor`` says of a project store and git: memory files git ignores (or commits
though kept private: :mod:`recall.private_store`) and per-user files git would commit
(:mod:`recall.per_user_ignored`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from recall.config_fields import Warn
from recall.locations import PROJECT
from recall.per_user_ignored import unignored
from recall.private_store import is_problem, memory_files_in_git
from recall.store import MemoryStore


def git_findings(store: MemoryStore, warn: Warn) -> Iterator[tuple[dict[str, Any], str, bool]]:
    """Each finding of a project store that exists as (its ``--json`` entry, its line, whether
    it is a note that fails nothing); ``warn`` is told what reading ``private_memories`` says."""
    if store.scope != PROJECT or not store.exists:  # only a repository's store is committed
        return
    in_git = memory_files_in_git(store.location, warn)
    if in_git is not None:  # never committed, or committed though private: said, with why
        yield in_git.to_dict(), in_git.message(), not is_problem(in_git)
    per_user = unignored(store.location)
    if per_user is not None:  # the index, sessions and log of one person, for everyone
        yield per_user.to_dict(), per_user.message(), False
