"""The memories an edit of a file is told about by the file's names: those naming it (by its
name now, or by one it had before a rename) that guard it or warn about it. The pre-edit hook
warns and asks from these; the language server shows those recall cannot rank (a name a rename
only staged left behind) from the same function, so the editor and the agent see the same."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from recall.file_names import EarlierName, own_name
from recall.hooks.guard_moves import renamed_here
from recall.hooks.guard_names import names_it
from recall.model import WARNING_CATEGORIES
from recall.written_moments import written_since

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def memories_on_file(
    project: MemoryStore,
    path: str,
    names: tuple[str, ...],
    hidden: Mapping[str, Any],
    earlier: Sequence[EarlierName] = (),
) -> list[Memory]:
    """The memories naming ``path`` in their files, by one of its ``names`` (itself, then the
    names it had before renames, as recall follows them: ``earlier`` dates them), that guard
    it or warn about it, none of ``hidden`` (archived by disuse). A warning named by ``path``
    alone and written before the file there now took the name is the file's that left it, as
    recall finds it (:func:`recall.file_names.own_name`); a guard asks here all the same. Who
    may see them is the caller's to decide (the hook's :class:`recall.policy.trust.Gate`)."""
    before = {n.name: n.before for n in earlier}
    since = own_name(project.conn, path).after
    return [
        renamed_here(m, path, names)
        for m in project.guarding_or_warning(path, names[1:])
        if names_it(m, names, before)
        and m.id not in hidden
        and (m.guard or (m.category in WARNING_CATEGORIES and _here_since(m, names, before, since)))
    ]


def _here_since(
    memory: Memory, names: tuple[str, ...], before: Mapping[str, float], since: float
) -> bool:
    """Whether ``memory`` is about the file ``names[0]`` now: by another of its ``names``, or
    written since the file took its name (``since``: seconds, -inf for always)."""
    return names_it(memory, names[1:], before) or written_since(memory.created, since)
