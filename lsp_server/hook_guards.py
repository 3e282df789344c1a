"""Guards and gotchas the agent's edit hook tells of on a file that recall does not rank for
it: the guards naming the file by the name a rename only staged left behind (``git mv`` not
committed yet), and those of memory files the store cannot load (a merge conflict, broken
front matter), read as the hook reads them (:mod:`recall.hooks.guards_by_name`); and the
gotchas the hook warns of by such a staged rename's name. Shown beside recall's, a guard the
hook asks about is in the editor too, for as long as the file is open, and such a gotcha is
shown as recall's are (the hint policy, ``maxPerFile``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import TetherError
from recall.ranking.engine import Hit
from recall.server_settings import OFF
from recall.store import MemoryStore

if TYPE_CHECKING:
    from lsp_server.roots import Root
    from lsp_server.server import TetherServer

PROJECT = "project"


@dataclass(kw_only=True)
class UnloadedGuard(Hit):
    """A guard read from a memory file its store cannot load: its receipt says which file,
    why, and which version of it was read."""

    memory_file: Path
    """The file (out of the store's index, which cannot say where it is)."""


def memory_file(store: MemoryStore, hit: Hit) -> Path:
    """The file of the memory ``hit`` shows, of ``store``."""
    if isinstance(hit, UnloadedGuard):
        return hit.memory_file
    return store.path_of(hit.memory.id)


def _renamed_receipt(memory_files: tuple[str, ...], names: tuple[str, ...]) -> str:
    """Why a memory found by name surfaced, in recall's words: the file's earlier name it
    names, when it names the file only so."""
    if names[0] in memory_files:
        return "via file"
    earlier = next(name for name in names[1:] if name in memory_files)
    return f"via file (renamed from {earlier})"


def not_ranked(
    project: MemoryStore, path: str, ranked: list[Hit], notice: Callable[[str], None]
) -> tuple[list[Hit], list[Hit]]:
    """The guards the edit hook asks about on ``path`` by its names, and the gotchas it warns
    of by a name a staged rename left behind (a guarded one among them too), that ``ranked``
    (recall's hits shown for it) does not hold, as hits of the project store."""
    from recall.hooks.guards_by_name import guards_by_name

    found = guards_by_name(project, path, notice)
    shown = {h.memory.id for h in ranked if h.scope == PROJECT}
    known = set(shown)
    hits: list[Hit] = []
    for memory in found.indexed:
        if memory.id not in known:
            known.add(memory.id)
            receipt = _renamed_receipt(memory.files, found.names)
            hits.append(Hit(memory, PROJECT, 0.0, {}, receipt, strong=True))
    for unloaded in found.unloaded:
        if unloaded.memory.id not in known:
            known.add(unloaded.memory.id)
            problem = unloaded.problem
            receipt = (
                f"its memory file {unloaded.file} cannot be read (line {problem.line}: "
                f"{problem.message}); the guard is read {unloaded.read}: fix the file"
            )
            hits.append(
                UnloadedGuard(
                    unloaded.memory,
                    PROJECT,
                    0.0,
                    {},
                    receipt,
                    strong=True,
                    memory_file=problem.path,
                )
            )
    gotchas = [
        Hit(memory, PROJECT, 0.0, {}, _renamed_receipt(memory.files, found.names), strong=True)
        for memory in found.staged_gotchas
        if memory.id not in shown
    ]
    return hits, gotchas


def with_hook_memories(ls: TetherServer, root: Root, path: str, chosen: list[Hit]) -> list[Hit]:
    """``chosen`` (recall's hits shown for ``path``, guarded ones first) with what the edit hook
    tells of that it does not hold: its guards after recall's own (unless guards are off), its
    gotchas of a staged rename's name before recall's other hits, those of a category shown,
    the whole after the guards held to ``maxPerFile``. ``chosen`` alone when they cannot be
    read (said once in the log: recall's are shown all the same)."""
    project = root.project
    if project is None or not project.exists:
        return chosen
    try:
        guards, gotchas = not_ranked(project, path, chosen, lambda text: ls.warn_once(text, text))
    except (TetherError, sqlite3.Error, OSError) as error:
        ls.warn(f"the guards of {path} by its names could not be read ({error})")
        return chosen
    settings = root.settings
    if settings.guard_severity == OFF:  # a guarded memory is one of recall's others then
        guards, lead = [], 0
    else:
        lead = sum(1 for h in chosen if h.memory.guard)
    taken = {h.memory.id for h in guards}
    gotchas = [
        h
        for h in gotchas
        if h.memory.id not in taken
        and settings.severity_for(h.memory.category, ls.client_name, guard=h.memory.guard)
        is not None
    ]
    if not gotchas:
        return [*chosen[:lead], *guards, *chosen[lead:]]
    others = [*gotchas, *chosen[lead:]][: settings.max_per_file]
    return [*chosen[:lead], *guards, *others]
