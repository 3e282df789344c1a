"""What the edit hooks say: a gotcha's warning, and why an edit under a guard asks first."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall.hooks.guard_moves import MOVED_FROM
from recall.model import REJECTED_WORDING

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store.results import Problem

WARNING_SUMMARY_CAP: Final = 160


def warning_line(
    summary: str, memory_id: str, category: str = "gotcha", *, after_edit: bool = False
) -> str:
    """The inline warning of a gotcha (or an approach tried before and rejected), worded as an
    instruction: before an edit (pre-edit), or of the edit just made (``after_edit``:
    post-edit)."""
    from recall.policy.inject import (
        safe_field,  # here, not above: see recall.cli.command_table.LEAN_COMMANDS
    )

    text = safe_field(summary, WARNING_SUMMARY_CAP).replace('"', "'")
    if category == "rejected":
        advice = (
            "read why, and check this edit does not repeat it"
            if after_edit
            else "read why before trying it"
        )
        return f'· rejected "{text}" [{memory_id}] — {REJECTED_WORDING}: {advice}'
    advice = "review this edit" if after_edit else "review before editing"
    return f'· gotcha "{text}" [{memory_id}] — {advice}'


def _summary(memory: Memory) -> str:
    """A memory's summary as a guard's question or a reason quotes it: one line, capped, a
    credential in it masked (:mod:`recall.agent_text`), its double quotes made single."""
    from recall.agent_text import for_agent
    from recall.policy.inject import safe_field  # see warning_line

    return safe_field(for_agent(memory).summary, WARNING_SUMMARY_CAP).replace('"', "'")


def guard_line(
    memory: Memory,
    path: str,
    unplaced: bool = False,
    names: tuple[str, ...] = (),
    link: str | None = None,
) -> str:
    """Why an edit of ``path`` asks first: the guarded memory, the earlier name it gives the
    file (of ``names``, when it does not name ``path``), the link the edit went through, the
    anchored symbols there (and the file a moved one came from), whether the edit could not
    be placed, and how to stop being asked. The file's names and the symbols' come from the
    repository and may hold any character: each is shown through :func:`recall.display.visible`.
    """
    from recall.display import visible

    text = _summary(memory)
    symbols = []
    for anchor in memory.anchors:
        if anchor.path == path:
            came = anchor.extra.get(MOVED_FROM)
            name = visible(anchor.name)
            symbols.append(f"{name}, moved here from {visible(str(came))}" if came else name)
    parts = [f"symbol {'; '.join(symbols)}"] if symbols else []
    earlier = [name for name in names if name not in (path, link) and name in memory.files]
    if earlier and path not in memory.files and not symbols:  # a moved symbol says whence
        parts.insert(0, f"renamed from {visible(earlier[0])}")
    if link is not None:
        parts.append(f"edited through the link {visible(link)}")
    where = f" ({'; '.join(parts)})" if parts else ""
    shown = visible(path)
    placed = "; could not tell where the edit falls: asking as for the whole file" * unplaced
    return (
        f'Tether: guarded {memory.category} "{text}" [{memory.id}] covers {shown}{where}{placed}; '
        f"allow the edit only if it keeps to it (`tether show {memory.id}`; "
        f"`tether unguard {memory.id}` stops these questions)"
    )


def own_file_line(memory: Memory, path: str) -> str:
    """Why an edit of guarded memory ``memory``'s own file ``path`` asks first."""
    from recall.display import visible

    text = _summary(memory)
    return (
        f'Tether: {visible(path)} is the file of guarded {memory.category} "{text}" '
        f"[{memory.id}]: an edit there can lift the guard or change what it holds, which is a "
        f"person's to decide; allow it only if the person asked for it (`tether unguard "
        f"{memory.id}` lifts a guard)"
    )


def retiring_line(memory: Memory, path: str) -> str:
    """Why an edit of memory file ``path`` that names guarded ``memory`` as superseded asks
    first."""
    from recall.display import visible

    text = _summary(memory)
    return (
        f'Tether: this edit of {visible(path)} marks guarded {memory.category} "{text}" '
        f"[{memory.id}] as superseded, which takes it out of recall; replacing a guarded "
        "memory is a person's to decide: allow it only if the person asked for it"
    )


def more_line(more: int, path: str, repo_root: Path | None, cwd: Path, *, nested: bool) -> str:
    """The line counting the ``more`` gotchas of ``path`` (a path of the repository at
    ``repo_root``) an edit did not show, with the command listing them, both as the session
    at ``cwd`` reaches them: the file named from ``cwd``, and a nested repository's store
    (``nested``) asked with ``-C`` its folder, for run from ``cwd`` ``tether`` reads the
    session's store."""
    import shlex

    from recall.display import visible

    shown, command = path, f"tether list --file {shlex.quote(path)}"
    if repo_root is not None:
        here, root = os.path.realpath(cwd), os.path.realpath(repo_root)
        shown = os.path.relpath(posixpath.join(root, path), here)
        command = f"tether list --file {shlex.quote(shown)}"
        if nested:
            folder = shlex.quote(os.path.relpath(root, here))
            command = f"tether -C {folder} list --file {shlex.quote(path)}"
    return f"· {more} more on {visible(shown)}: {visible(f'`{command}`')}"


def unloaded_line(memory: Memory, path: str, file: str, problem: Problem, read: str) -> str:
    """Why an edit of ``path`` asks first when guarded ``memory``'s file ``file`` cannot be
    loaded (``problem``): its guard, ``read`` from the file's last commit or as far as the file
    can be read, still covers ``path``."""
    from recall.display import visible
    from recall.policy.inject import safe_field  # see warning_line

    text = _summary(memory)
    why = safe_field(problem.message, 2 * WARNING_SUMMARY_CAP)
    return (
        f"Tether: the memory file {visible(file)} cannot be read (line {problem.line}: {why}); "
        f'{read}, its guarded {memory.category} "{text}" [{memory.id}] covers {visible(path)}: '
        "allow the edit only if it keeps to it, and fix the file (`tether doctor` lists every "
        "unreadable one)"
    )
