"""Reading memories from JSON Lines for ``tether import``: one record per line, errors per line."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall import forked
from recall.errors import BadInput, NotFound
from recall.extra_keys import not_on
from recall.import_file_notes import note_file_problems
from recall.import_paths import Hints, hints_ahead
from recall.import_record import Normalize, draft_record, read_record
from recall.import_scopes import BOM
from recall.locations import GLOBAL, PROJECT
from recall.model import Memory, is_valid_id
from recall.ranking import collector
from recall.replayable import Replayable
from recall.store import MemoryStore
from recall.store.made_ahead import MadeAhead, vector_text

if TYPE_CHECKING:
    from recall.store.results import WriteResult


@dataclass
class LineResult:
    """What happened to one input line."""

    line: int
    status: str  # created | duplicate | error
    id: str | None = None
    duplicate_of: str | None = None
    error: str | None = None
    files_not_on_it: tuple[str, ...] = ()
    anchors_not_on_it: tuple[str, ...] = ()  # symbol anchors a duplicate's memory lacks
    marks_not_on_it: tuple[str, ...] = ()  # pinned, guard: asked for, and the memory lacks
    # The id a rejected line asked for (an exported memory, a commit), so a refusal can be
    # traced to its record without counting lines.
    record_id: str | None = None
    # What was written otherwise than the line asked (an id given instead, a key not stored).
    notes: list[str] = field(default_factory=list)
    wanted: str | None = None  # the id a line to be written asked for (not reported as such)
    extra: dict[str, Any] = field(default_factory=dict)  # its front matter beyond the fields
    files: tuple[str, ...] = ()  # the files of a line to be written
    path: Path | None = None  # the file of the memory it wrote
    # Its files the repository has neither on disk nor in its history (written all the same).
    unknown_files: tuple[str, ...] = ()
    # Its files no edit touches, a folder or one of git's (written all the same, with a note).
    unfit_files: tuple[str, ...] = ()
    scope: str | None = None  # the store it was written to, or holds the memory it duplicates
    duplicate_status: str | None = None  # the status of the memory it duplicates
    superseded_by: str | None = None  # the memory a line to be written names as its replacement
    memory_status: str | None = None  # the status a line to be written gives its memory
    supersedes: str | None = None  # the memory a line to be written names as the one it replaces
    allowed_secret: bool = False  # its "allow_secret": true let it past the credential scan

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data: dict[str, Any] = {"line": self.line, "status": self.status, "id": self.id}
        if self.scope:
            data["scope"] = self.scope
        if self.duplicate_of:
            data["duplicate_of"] = self.duplicate_of
        if self.files_not_on_it:
            data["files_not_on_it"] = list(self.files_not_on_it)
        if self.anchors_not_on_it:
            data["anchors_not_on_it"] = list(self.anchors_not_on_it)
        if self.marks_not_on_it:
            data["marks_not_on_it"] = list(self.marks_not_on_it)
        if self.error:
            data["error"] = self.error
        if self.record_id:
            data["record_id"] = self.record_id
        if self.unknown_files:
            data["unknown_files"] = list(self.unknown_files)
        if self.unfit_files:
            data["unfit_files"] = list(self.unfit_files)
        if self.notes:
            data["notes"] = list(self.notes)
        if self.allowed_secret and self.status != "error":
            data["allow_secret"] = True
        return data


def _remembered(normalize: Normalize) -> Normalize:
    """``normalize`` answering each path once per import (a history names its hub files in
    thousands of lines); a path it refuses is refused again each time, with its error."""
    known: dict[str, str] = {}

    def cached(raw: str) -> str:
        found = known.get(raw)
        if found is None:
            found = known[raw] = normalize(raw)
        return found

    return cached


DRAFT_ELSEWHERE_FROM = 1024
"""Lines from which they are drafted (read, checked, scanned for secrets, their vectors made)
in a forked process on the second core while this one writes and indexes. A judgement, not a
measured crossover: below it the drafting is a fraction of a second, which the fork and the
hand-over would eat into, and a small import (a hook's, a test's) keeps the plainest path."""

DRAFT_CHUNK = 256
"""Lines drafted per hand-over: large enough that a hand-over's overhead is nothing beside
the drafting, small enough that the writing starts after a fraction of a second."""

DRAFT_FIRST = 32
"""Lines in the first chunk, which the importing process drafts itself before the drafting
process is forked (its modules loaded, its patterns compiled): the fork, and the drafting
of the rest, wait only for these (a chunk of 256 held both back about 50 ms)."""


def import_lines(
    store: MemoryStore,
    lines: Iterable[str],
    normalize: Normalize,
    author: str,
    progress: Callable[[str, int, int | None], None] | None = None,
    *,
    write_behind_from: int | None = None,
    draft_elsewhere_from: int = DRAFT_ELSEWHERE_FROM,
    taken_elsewhere: Collection[str] = (),
) -> list[LineResult]:
    """Import every valid line; invalid ones are reported with their line number, not dropped.

    A refused line (bad input, or text that looks like a credential) is reported with its line
    number and the id it asked for; every other line is still imported. The lines are drafted
    as the store asks for them, so that drafting overlaps the writing of the files before;
    from ``draft_elsewhere_from`` lines on, all but the first chunk in a process of its own
    (:mod:`recall.forked`), which makes the drafts' vectors too; if that process dies, the
    rest is drafted here (the store's notice says so). ``write_behind_from`` is passed on to
    :meth:`MemoryStore.import_many`, and so is ``taken_elsewhere``, the ids of the other
    store: a line asking for one of them is written under a new id, with a note.

    The cycle collector is paused for the import (and so in a drafting child forked from it):
    every draft, memory and result lives until the end, so each of its collections would
    traverse a heap that only grows, to find next to nothing (an import of 300 lines or of
    20,000 leaves the same few dozen objects in cycles).
    """
    with collector.paused():
        return _import_lines(
            store,
            lines,
            normalize,
            author,
            progress,
            write_behind_from=write_behind_from,
            draft_elsewhere_from=draft_elsewhere_from,
            taken_elsewhere=taken_elsewhere,
        )


def _import_lines(
    store: MemoryStore,
    lines: Iterable[str],
    normalize: Normalize,
    author: str,
    progress: Callable[[str, int, int | None], None] | None,
    *,
    write_behind_from: int | None,
    draft_elsewhere_from: int,
    taken_elsewhere: Collection[str],
) -> list[LineResult]:
    lines = list(lines)
    if lines and lines[0].startswith(BOM):  # an editor's mark, not part of the first line
        lines[0] = lines[0][len(BOM) :]
    results: list[LineResult] = []
    slots: list[int] = []
    numbered = [(number, raw) for number, raw in enumerate(lines, start=1) if raw.strip()]
    elsewhere = len(numbered) >= draft_elsewhere_from and forked.can_fork()
    made = MadeAhead(store.batch_embedder()) if elsewhere else None
    drafting = _Drafting(store, _remembered(normalize), author, made)
    drafts = Replayable(_drafted(drafting, numbered, results, slots, fork=elsewhere))
    if drafts.empty():  # nothing to write: the store is not touched (nor created)
        _mask_quoted(results)
        return results
    root = store.repo_root if store.scope == PROJECT else None
    ahead: list[Future[Hints]] = []

    def chosen(written: list[WriteResult]) -> None:
        """Begin looking for the new memories' unknown files while the import commits."""
        if root is not None:
            new = [
                results[slot] for slot, r in zip(slots, written, strict=True) if not r.duplicate_of
            ]
            try:
                ahead[:] = [hints_ahead(root, {path for entry in new for path in entry.files})]
            except RuntimeError:  # no thread to be had (a process limit): checked after instead
                ahead.clear()

    try:
        written = store.import_many(
            drafts,
            progress,
            expected=len(numbered),
            write_behind_from=write_behind_from,
            made_ahead=made,
            chosen=chosen,
            taken_elsewhere=taken_elsewhere,
        )
    finally:
        drafts.close()  # a drafting child stopped and reaped now, whatever happened
    for slot, result in zip(slots, written, strict=True):
        entry = results[slot]
        entry.id = result.id
        entry.scope = store.scope
        if result.duplicate_of:
            entry.status = "duplicate"
            entry.duplicate_of = result.duplicate_of
            entry.files_not_on_it = result.files_not_on_it
            entry.anchors_not_on_it = result.anchors_not_on_it
            entry.marks_not_on_it = result.marks_not_on_it
            entry.duplicate_status = result.duplicate_status
            if entry.extra:
                entry.notes.extend(_extra_not_on(store, entry.extra, result.duplicate_of))
        else:
            entry.status = "created"
            entry.path = result.path
            wanted = entry.wanted
            if wanted is not None and wanted != result.id:
                why = _why_not(wanted, store.scope, taken_elsewhere)
                entry.notes.append(f"asked for id {wanted!r} ({why}); written as {result.id}")
    created = [entry for entry in results if entry.status == "created"]
    note_file_problems(store, created, ahead[0].result() if ahead else None)
    _mask_quoted(results)
    return results


def _mask_quoted(results: list[LineResult]) -> None:
    """Mask any credential in what the results quote of their lines (a secret given as a
    category, an id, a key's name is refused for that, and its refusal must not print it)."""
    from recall.secret_masking import masked

    for entry in results:
        if entry.error is not None:
            entry.error = masked(entry.error)
        if entry.record_id is not None:
            entry.record_id = masked(entry.record_id)
        entry.notes = [masked(note) for note in entry.notes]


def _why_not(wanted: str, scope: str, taken_elsewhere: Collection[str]) -> str:
    """Why a line was not given the id it asked for."""
    if not is_valid_id(wanted):
        return "not 8 hex digits"
    if wanted in taken_elsewhere:
        other = GLOBAL if scope == PROJECT else PROJECT
        return (
            f"a memory of the {other} store has it, and one id in both stores could not be "
            "told apart"
        )
    return "another memory has it"


def _extra_not_on(store: MemoryStore, extra: dict[str, Any], duplicate_of: str) -> list[str]:
    """A note naming the front-matter keys of a duplicate line that the memory it duplicates
    does not hold as given (none are added to it: like its files, that is for a person)."""
    where: object = f"the file of {duplicate_of}"
    try:
        where = store.path_of(duplicate_of)
        missing = not_on(extra, store.extra_of(duplicate_of))
    except (BadInput, NotFound):  # not readable now: none of them can be said to be there
        missing = list(extra)
    if not missing:
        return []
    keys = ", ".join(map(repr, missing))
    return [
        f"front matter not written to {duplicate_of}, which holds the same knowledge: {keys}; "
        f"add it to {where} by hand if it belongs there"
    ]


@dataclass
class _Drafting:
    """What drafting a chunk of lines needs (all of it forked along, when drafted elsewhere)."""

    store: MemoryStore
    normalize: Normalize
    author: str
    made: MadeAhead | None

    def __call__(self, chunk: list[tuple[int, str]]) -> _Chunk:
        """Each line's draft (number, memory, wanted id) or error; when ``made`` asks for
        them, the drafts' vectors and the file text of each draft given the id it asks for
        (which it gets unless another memory has it)."""
        out: list[_Drafted] = [self._line(number, raw) for number, raw in chunk]
        if self.made is None:
            return out, [], []
        from recall.records import render_memory

        drafts = [entry for entry in out if not isinstance(entry, LineResult)]
        named = [d.with_changes(id=w) for _, d, w, *_ in drafts if w is not None and is_valid_id(w)]
        texts = [(memory, render_memory(memory)) for memory in named]
        if self.made.embedder is None:
            return out, [], texts
        from recall.ranking.vector_blobs import pack_rows

        matrix = self.made.embedder.embed_many([vector_text(d) for _, d, *_ in drafts])
        return out, pack_rows(matrix), texts

    def _line(self, number: int, raw: str) -> _Drafted:
        try:
            record = read_record(raw)
        except BadInput as error:
            return LineResult(number, "error", error=str(error))
        try:
            draft, wanted, notes = draft_record(self.store, record, self.normalize, self.author)
        except BadInput as error:
            wanted = record.get("id") if isinstance(record, dict) else None
            record_id = wanted if isinstance(wanted, str) and wanted.strip() else None
            return LineResult(number, "error", error=str(error), record_id=record_id)
        if record.get("id") is not None and wanted is None:
            notes.append(f"'id' must be a string, not {record['id']!r}; a new id was given")
        allowed = record.get("allow_secret") is True
        # the hash made where the drafting runs
        return number, draft.hashed(), wanted, tuple(notes), allowed


_Drafted = LineResult | tuple[int, Memory, str | None, tuple[str, ...], bool]
_Chunk = tuple[list[_Drafted], list[bytes], list[tuple[Memory, str]]]


def _chunks(numbered: list[tuple[int, str]], first: int) -> Iterator[list[tuple[int, str]]]:
    """``numbered`` in chunks: ``first`` lines, then :data:`DRAFT_CHUNK` at a time."""
    at, size = 0, first
    while at < len(numbered):
        yield numbered[at : at + size]
        at, size = at + size, DRAFT_CHUNK


def _drafted(
    drafting: _Drafting,
    numbered: list[tuple[int, str]],
    results: list[LineResult],
    slots: list[int],
    *,
    fork: bool,
) -> Iterator[tuple[Memory, str | None]]:
    """The draft of each valid line, in order; every line's result goes to ``results`` (a
    valid line's at the index ``slots`` records, filled in once written)."""
    chunks = _chunks(numbered, DRAFT_FIRST if fork else DRAFT_CHUNK)

    def fell_back(why: str) -> None:
        drafting.store.notice(f"{why}; the rest of the import is drafted in this process")

    for entries, vectors, texts in forked.mapped(drafting, chunks, fork=fork, fell_back=fell_back):
        if drafting.made is not None:
            drafts = [entry[1] for entry in entries if not isinstance(entry, LineResult)]
            drafting.made.add(drafts if vectors else [], vectors, texts)
        for entry in entries:
            if isinstance(entry, LineResult):
                results.append(entry)
                continue
            slots.append(len(results))
            notes, extra = list(entry[3]), entry[1].extra
            results.append(
                LineResult(
                    entry[0],
                    "pending",
                    notes=notes,
                    wanted=entry[2],
                    extra=extra,
                    files=entry[1].files,
                    superseded_by=entry[1].superseded_by,
                    memory_status=entry[1].status,
                    supersedes=entry[1].supersedes,
                    allowed_secret=entry[4],
                )
            )
            yield entry[1], entry[2]
