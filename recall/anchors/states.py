"""Where a memory's symbol anchors are now, and whether their code changed since.

Each anchor (``path::name``) gets one state, read from the genome's symbol index and its
renames (indexed look-ups, no parsing, no git), or, for a file the caller found the working tree
holding otherwise than the index read it, from that file as parsed now (:mod:`.tree_reads`):

- ``current``: the file still defines the name, and its body hash is the one recorded (or
  none was recorded);
- ``changed``: the file still defines it, with another body: the code the memory is about
  was edited since the memory was written or last confirmed;
- ``relocated``: the file does not define it any more, another one does (the file was
  renamed, or the definition moved); ``changed`` also says whether its body differs. Only a
  file of the same language family (:func:`recall.genome.symbols.grammars.one_family`) is
  looked at, and in it only a git rename, the recorded body, or a definition new in its file
  (not there when the anchored file last defined the name) counts as a move: a file that had
  the name all along holds another function of that name;
- ``gone``: no file defines it; when its file is still there and defines names spelt close
  to it (renamed where it is), those names (:func:`recall.anchors.suggest.close_symbols`,
  from the names the index holds for the file: :mod:`recall.anchors.defined_names`), for
  the first :data:`recall.closest_names.SUGGESTED_PER_MEMORY` gone anchors of a memory only;
- ``unknown``: the symbol index has nothing to say (not built yet, no git, a file of a
  language it does not read, a file it skipped, a sparse checkout leaves out of the working
  tree or a submodule not checked out holds, or a name the file defines more than once: twice
  in one scope, or under different containers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from recall.anchors import prior
from recall.anchors.defined_names import NamesIn, names_in
from recall.anchors.prior import HadBefore
from recall.anchors.suggest import close_symbols, renamed_in_place_fix, suggestion_field
from recall.anchors.symbols import NAME_SEPARATOR, SymbolAnchor, leaf_of, normalize_name
from recall.anchors.tree_reads import FileNow, TreeReads, candidates_now, names_now
from recall.closest_names import SUGGESTED_PER_MEMORY
from recall.genome.limits import MAX_RELOCATION_CANDIDATES
from recall.genome.names import not_checked_out
from recall.genome.symbols.extract import REGEX
from recall.genome.symbols.grammars import one_family, reads
from recall.genome.symbols.lookup import Located, find_anywhere, named_in, parser_of
from recall.known_paths import mean_clause

CURRENT = "current"
CHANGED = "changed"
RELOCATED = "relocated"
GONE = "gone"
UNKNOWN = "unknown"

RenamedTo = Callable[[str], "str | None"]


@dataclass(frozen=True)
class AnchorState:
    """One anchor's state, and where its definition is now (when it is somewhere)."""

    anchor: SymbolAnchor
    state: str
    found: Located | None = None
    changed: bool = False
    """The body differs from the recorded hash (``changed``, or a ``relocated`` edited too)."""
    close: tuple[str, ...] = ()
    """For a ``gone`` anchor, the names its file still defines spelt closest to it."""
    unsuggested: bool = False
    """A ``gone`` anchor whose file's names were not compared with it: its memory has more
    gone anchors than :data:`SUGGESTED_PER_MEMORY`, and this one came after those."""

    @property
    def moved_from(self) -> str | None:
        """The anchored file, when the definition now lives in another."""
        return self.anchor.path if self.state == RELOCATED else None

    def describe(self) -> str:
        """One line: ``ip/iproute.c::iproute_modify: relocated to ip/route.c:120-180``."""
        text = f"{self.anchor.text}: {self.state}"
        if self.found is not None:
            where = f"{self.found.path}:{self.found.first_line}-{self.found.last_line}"
            text += f" to {where}" if self.state == RELOCATED else f" at {where}"
        if self.state == RELOCATED and self.changed:
            text += ", and its code changed since"
        elif self.state == CHANGED:
            text += " (its code changed since the memory was written or confirmed)"
        if self.unsuggested:
            text += f" (no suggestion: over {SUGGESTED_PER_MEMORY} gone anchors in this memory)"
        return text + mean_clause(self.close)

    def renamed_fix(self, memory_id: str) -> str:
        """`` (repoint follows … `tether supersede ID SUMMARY --anchor PATH::NAME` …)``: how
        to tie ``memory_id`` to a name its file now defines in place of a ``gone`` one, to
        follow :meth:`describe` when that names some; '' otherwise."""
        if not self.close:
            return ""
        return f" ({renamed_in_place_fix(memory_id, self.anchor.path)})"

    def advice(self, memory_id: str) -> str:
        """What to do about this state of an anchor of ``memory_id``, to follow
        :meth:`describe` (``; review it, then `tether confirm ID` …``); '' when nothing is
        to be done (``current``, ``unknown``). A ``gone`` anchor is one no move was found for
        (``repoint`` resolves it the same way), so it is tied to other code or retired."""
        holds = f"`tether supersede {memory_id} SUMMARY` if it does not"
        if self.state == CHANGED:
            return (
                f"; review it, then `tether confirm {memory_id}` once the memory still holds, "
                f"or {holds}"
            )
        if self.state == RELOCATED and self.changed:
            return (
                f"; review it, then `tether repoint {memory_id} --apply` and `tether confirm "
                f"{memory_id}` once the memory still holds, or {holds}"
            )
        if self.state == RELOCATED:
            return (
                f"; recall follows it (`tether repoint {memory_id} --apply` writes the new place)"
            )
        if self.state == GONE and self.close:
            return (
                f"{self.renamed_fix(memory_id)}; if it holds no more, `tether archive {memory_id}`"
            )
        if self.state == GONE:
            return (
                f"; if the memory holds for other code now, `tether supersede {memory_id} SUMMARY "
                f"--anchor PATH::NAME` ties it there; if it holds no more, `tether archive "
                f"{memory_id}`"
            )
        return ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the anchor, its state, where it is now and its current body hash."""
        found = self.found
        return {
            "symbol": self.anchor.text,
            "state": self.state,
            "changed": self.changed,
            "path": found.path if found else None,
            "name": found.name if found else None,
            "lines": [found.first_line, found.last_line] if found else None,
            "body": found.body if found else None,
            "recorded_body": self.anchor.body,
        }


def suggestions(states: Sequence[AnchorState]) -> dict[str, Any]:
    """The ``anchor_suggestions`` field for ``states``: the close names of each ``gone`` one
    that has some, by anchor (empty, left out, when none has)."""
    return suggestion_field((state.anchor.text, state.close) for state in states)


def state_fields(states: Sequence[AnchorState]) -> dict[str, Any]:
    """The fields a memory's whole card (``tether show --json``, the MCP ``memory_get``) gives
    for its anchors' ``states``: ``anchor_states`` (each :meth:`AnchorState.to_dict`, in the
    memory's order) and ``anchor_suggestions`` (:func:`suggestions`, left out when empty)."""
    return {"anchor_states": [state.to_dict() for state in states], **suggestions(states)}


def _gone(anchor: SymbolAnchor, in_index: bool, names: NamesIn, suggest: bool) -> AnchorState:
    """``anchor`` gone, with the names its file defines spelt closest to it when the index
    still holds that file (``in_index``) and ``suggest`` asks for them (else marked
    :attr:`AnchorState.unsuggested`)."""
    if not in_index:
        return AnchorState(anchor, GONE)
    if not suggest:
        return AnchorState(anchor, GONE, unsuggested=True)
    close = close_symbols(normalize_name(anchor.name), names(anchor.path))
    return AnchorState(anchor, GONE, close=tuple(close))


def has_symbols(conn: sqlite3.Connection) -> bool:
    """Tell whether the genome holds a symbol index to answer from."""
    try:
        return conn.execute("SELECT 1 FROM genome_symbol_files LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def _differs(anchor: SymbolAnchor, found: Located) -> bool:
    return anchor.body is not None and not found.same_code(anchor.body)


def _closeness(anchor: SymbolAnchor, hit: Located) -> tuple[int, int, int, str]:
    """Sort key of a candidate new home: same body first, then a file of the same name, then
    the most folders shared with the anchored path."""
    old_dir, _, old_name = anchor.path.rpartition("/")
    new_dir, _, new_name = hit.path.rpartition("/")
    old_stem = old_name.partition(".")[0]
    new_stem = new_name.partition(".")[0]
    shared = 0
    for a, b in zip(old_dir.split("/"), new_dir.split("/"), strict=False):
        if a != b:
            break
        shared += 1
    return (
        0 if hit.same_code(anchor.body) else 1,
        0 if old_stem == new_stem else 1,
        -shared,
        hit.path,
    )


def _here(
    conn: sqlite3.Connection, anchor: SymbolAnchor, parser: str, now: FileNow | None = None
) -> Located | str | None:
    """The anchored file's definition of the name (in ``now`` when given: the file as the
    working tree holds it); ``UNKNOWN`` when the file is there but cannot say (not read, the
    name ambiguous in it); None when it does not define it."""
    if parser.startswith("skipped"):
        return UNKNOWN
    wanted = normalize_name(anchor.name)
    leaf = leaf_of(wanted)
    hits = now.named(leaf) if now is not None else named_in(conn, anchor.path, leaf)
    exact = [hit for hit in hits if hit.name == wanted]
    if len(exact) > 1:
        return UNKNOWN  # defined twice in one scope (a redefinition, both sides of an #ifdef)
    if exact:
        return exact[0]
    if parser == REGEX:
        # the fallback reader knows no containers: ``Store.save`` is indexed as ``save``
        by_leaf = [hit for hit in hits if hit.name == leaf]
        if len(by_leaf) > 1:
            return UNKNOWN
        return by_leaf[0] if by_leaf else None
    tails = [hit for hit in hits if hit.name.endswith(NAME_SEPARATOR + wanted)]
    if len(tails) > 1:
        # ``save`` where ``Store.save`` and ``Cache.save`` are both defined: the one with the
        # recorded code is the one it was recorded on (the other added since)
        same = [hit for hit in tails if anchor.body is not None and hit.same_code(anchor.body)]
        return same[0] if len(same) == 1 else UNKNOWN
    return tails[0] if tails else None


def resolve(
    conn: sqlite3.Connection,
    anchor: SymbolAnchor,
    renamed_to: RenamedTo | None = None,
    had_before: HadBefore | None = None,
    names: NamesIn | None = None,
    tree: TreeReads | None = None,
    suggest: bool = True,
) -> AnchorState:
    """The state of ``anchor`` in the genome whose index is ``conn`` (``names``: the names a
    file defines, for a ``gone`` anchor's closest ones, looked for when ``suggest``;
    :func:`names_in` of ``conn`` when not given); the files of ``tree`` as the working tree
    holds them (:mod:`.tree_reads`).

    A definition of the name in another file of the same language family is taken for the
    moved one when git saw the
    anchored file renamed to it, when its body is the recorded one, or when it is new there:
    that file did not define the name when the anchored file last did (``had_before``, see
    :mod:`recall.anchors.prior`). A file that defined it all along holds another function of
    the same name. Without history to ask, only the recorded body counts while the anchored
    file is still there, and any definition once it is gone."""
    if not reads(anchor.path) or not has_symbols(conn):
        return AnchorState(anchor, UNKNOWN)
    tree = tree if tree is not None else {}
    now = tree.get(anchor.path)
    parser = parser_of(conn, anchor.path) if now is None else now.parser
    if parser is None and now is None and not_checked_out(conn, anchor.path):
        return AnchorState(anchor, UNKNOWN)  # its file is not on disk to be read
    if parser is not None:
        here = _here(conn, anchor, parser, now)
        if isinstance(here, str):
            return AnchorState(anchor, here)
        if here is not None:
            differs = _differs(anchor, here)
            return AnchorState(anchor, CHANGED if differs else CURRENT, here, differs)
    if renamed_to is not None:
        moved = renamed_to(anchor.path)
        if moved and moved != anchor.path and one_family(anchor.path, moved):
            there = _here(conn, replace(anchor, path=moved), parser_of(conn, moved) or "")
            if isinstance(there, str):
                return AnchorState(anchor, there)
            if there is not None:
                return AnchorState(anchor, RELOCATED, there, _differs(anchor, there))
    anywhere = candidates_now(find_anywhere(conn, anchor.name), anchor.name, tree)
    candidates = [
        hit for hit in anywhere if hit.path != anchor.path and one_family(anchor.path, hit.path)
    ]
    same_body = [hit for hit in candidates if anchor.body and hit.same_code(anchor.body)]
    names = names_now(names if names is not None else names_in(conn), tree)
    if len(candidates) > MAX_RELOCATION_CANDIDATES and not same_body:
        return _gone(anchor, parser is not None, names, suggest)
    if not same_body:
        candidates = _new_there(anchor, candidates, parser is None, had_before)
    else:
        candidates = same_body
    if not candidates:
        return _gone(anchor, parser is not None, names, suggest)
    best = min(candidates, key=lambda hit: _closeness(anchor, hit))
    return AnchorState(anchor, RELOCATED, best, _differs(anchor, best))


def _new_there(
    anchor: SymbolAnchor, candidates: list[Located], file_gone: bool, had_before: HadBefore | None
) -> list[Located]:
    """The ``candidates`` (other bodies than the recorded one) that may be the anchored
    definition moved and edited: those new in their file since the anchored file last defined
    the name; without history, all of them once the anchored file is gone, else none."""
    kept: list[Located] = []
    paths = [hit.path for hit in candidates]
    for at, hit in enumerate(candidates):
        had = had_before(anchor, hit.path, paths[at + 1 :]) if had_before is not None else None
        if had is False or (had is None and file_gone):
            kept.append(hit)
    return kept


def resolve_all(
    conn: sqlite3.Connection,
    anchors: tuple[SymbolAnchor, ...],
    renamed_to: RenamedTo | None,
    had_before: HadBefore | None = None,
    names: NamesIn | None = None,
    tree: TreeReads | None = None,
) -> list[AnchorState]:
    """:func:`resolve` of each anchor, in order, each file's names asked once; the closest
    names looked for only for the first :data:`SUGGESTED_PER_MEMORY` gone ones."""
    names = names if names is not None else names_in(conn)
    states: list[AnchorState] = []
    gone = 0
    for anchor in anchors:
        suggest = gone < SUGGESTED_PER_MEMORY
        state = resolve(conn, anchor, renamed_to, had_before, names, tree, suggest)
        gone += state.state == GONE
        states.append(state)
    return states


def indexed_head(conn: sqlite3.Connection) -> str | None:
    """The commit the genome whose index is ``conn`` last indexed (None before any)."""
    from recall.genome.schema import read_state

    return read_state(conn).get("head") or None


def states_of(
    anchors: tuple[SymbolAnchor, ...],
    genome: Any | None,
    names: NamesIn | None = None,
    tree: TreeReads | None = None,
) -> list[AnchorState]:
    """The state of each anchor in ``genome`` (a :class:`recall.genome.Genome`); all
    ``unknown`` without one (a global store, a folder outside git). ``names``: the
    :func:`names_in` of the genome's index to share across calls (``doctor``); ``tree``: the
    anchored files the working tree holds otherwise than the index read them
    (:func:`recall.anchors.tree_reads.tree_reads`), whose anchors are resolved there."""
    conn = getattr(genome, "conn", None)
    if conn is None:
        return [AnchorState(anchor, UNKNOWN) for anchor in anchors]
    history = prior.had_before(getattr(genome, "repo_root", None), indexed_head(conn))
    renamed_to = getattr(genome, "renamed_to", None)
    states = resolve_all(conn, anchors, renamed_to, history, names, tree)
    unopened = getattr(genome, "unopened_submodule", None)
    if unopened is None:
        return states
    # a file of a submodule not checked out here cannot be read: not known to be gone
    return [
        AnchorState(s.anchor, UNKNOWN) if s.state == GONE and unopened(s.anchor.path) else s
        for s in states
    ]


def moved_anchors(
    memory: Any, genome: Any | None, names: NamesIn | None = None, tree: TreeReads | None = None
) -> list[AnchorState]:
    """The anchors of ``memory`` that need a look: relocated, changed or gone (``doctor``;
    ``names`` and ``tree`` as :func:`states_of` takes them)."""
    if not memory.anchors:
        return []
    states = states_of(memory.anchors, genome, names, tree)
    return [s for s in states if s.state not in (CURRENT, UNKNOWN)]
