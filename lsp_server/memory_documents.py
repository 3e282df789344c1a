"""Memory files open in the editor: front-matter diagnostics as they are typed, indexed on save.

A memory written from the editor (a draft from "Remember…" or "Supersede…") is drafted outside
the memory folder (:mod:`lsp_server.draft_files`); saving it is the explicit write: once it
reads as a memory (a summary, front matter the store accepts, not the text it supersedes), its
text becomes the memory file. The server then re-reads the store, and when the new memory names
one it supersedes, marks the old one superseded and says so (or, the store busy, says the draft
is kept until that is finished once the store is free: :mod:`lsp_server.supersede_links`). A
later save of the draft writes it again only while the memory file still holds what the draft
last wrote: one rewritten since (a pin, an archive, a pull) is left alone, the draft kept and
the person told.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import diagnostics, draft_files, draft_refusals, supersede_links
from lsp_server.anchors import line_text
from lsp_server.documents import DocState, current_text, open_not_on_disk
from lsp_server.positions import units
from lsp_server.supersede_words import not_active
from recall import frontmatter
from recall.clock import now_iso
from recall.errors import BadInput, MalformedMemory, TetherError
from recall.extra_keys import near_known_key
from recall.frontmatter_marks import entry_spans
from recall.index.sync_file import duplicates_of
from recall.locations import PROJECT
from recall.model import Memory
from recall.named_files import unfit_line
from recall.read_as import retyped
from recall.records import memory_from_parsed
from recall.swap_unchanged import FileChanged

if TYPE_CHECKING:
    from lsp_server.server import TetherServer
    from recall.store import MemoryStore

SAME_TEXT = "same text as"
"""How a draft that repeats the memory it supersedes is told (and kept from being written)."""


UNSAVED = "is not on disk yet: it is open in the editor, not saved; the memory shows on it there"
"""What a memory document says of a file it names that the editor holds open unsaved."""


def _line_diagnostic(
    ls: TetherServer,
    text: str,
    line: int,
    message: str,
    severity: types.DiagnosticSeverity,
    columns: tuple[int, int | None] = (0, None),
) -> types.Diagnostic:
    """A diagnostic on the 1-based ``line``: the whole of it, or from ``columns[0]`` to
    ``columns[1]`` (characters; None: to the end of the line)."""
    index = max(0, line - 1)
    written = line_text(text, index).rstrip("\r")
    encoding = ls.workspace.position_encoding
    start, end = columns
    first = units(written[:start], encoding)
    last = units(written if end is None else written[:end], encoding)
    return types.Diagnostic(
        range=types.Range(types.Position(index, first), types.Position(index, last)),
        message=message,
        severity=severity,
        source=diagnostics.SOURCE,
        code="memory-file",
    )


def parse(doc: DocState, text: str) -> tuple[frontmatter.ParsedFile, Memory]:
    """The memory a document holds; raises :class:`MalformedMemory` like the indexer would."""
    parsed = frontmatter.parse(text, doc.path)
    return parsed, memory_from_parsed(parsed, doc.path, fallback_created=now_iso())


def problems(
    ls: TetherServer,
    doc: DocState,
    text: str,
    refused: list[tuple[int, str]] | None = None,
) -> list[types.Diagnostic]:
    """What is wrong with a memory document, each problem on its line; for a draft, what its
    save refuses among them: ``refused`` when the caller has found it already
    (:func:`lsp_server.draft_refusals.refused` of the same text)."""
    error, warning = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning
    try:
        parsed, memory = parse(doc, text)
    except MalformedMemory as problem:
        return [_line_diagnostic(ls, text, problem.line, problem.problem, error)]
    store = doc.memory_store
    assert store is not None
    found: list[types.Diagnostic] = []
    other = _same_id_elsewhere(store, memory.id, doc.path.name)
    if other is not None:  # saved so, one of the two files would be skipped, its memory lost
        message = (
            f"id {memory.id} is the id of {other} already: two files cannot hold one memory; "
            "give this one its own id (or delete the id line: the file name gives one)"
        )
        found.append(_line_diagnostic(ls, text, parsed.key_lines.get("id", 1), message, error))
    elif skipped := [n for n in duplicates_of(store.conn, memory.id) if n != doc.path.name]:
        copies = ", ".join(str(store.folder.path / name) for name in skipped)
        message = (
            f"id {memory.id} is also the id of {copies}, which is left out of the index "
            "(`tether doctor`: duplicate id): give that file its own id, or delete it if it is "
            "a copy of this one"
        )
        found.append(_line_diagnostic(ls, text, parsed.key_lines.get("id", 1), message, warning))
    files_line = parsed.key_lines.get("files", 1)
    found += _file_problems(ls, doc, store, text, memory, files_line)
    for key in memory.extra:
        if (meant := near_known_key(key)) is not None:
            message = (
                f"{key} is not a key Tether reads, so it does nothing here: did you mean "
                f"{meant}? (a key of your own is kept as written)"
            )
            found.append(_line_diagnostic(ls, text, parsed.key_lines.get(key, 1), message, warning))
    for value in retyped(text):  # a key of one's own only carried so by an export: a hint
        severity = warning if value.read_by_tether else types.DiagnosticSeverity.Information
        found.append(_line_diagnostic(ls, text, value.line, value.note(), severity))
    if memory.supersedes:
        line = parsed.key_lines.get("supersedes", 1)
        old = store.find(memory.supersedes)
        if old is None:
            # a draft's save refuses it, as the command does: the link would lead nowhere
            severity = error if draft_files.is_draft(doc) else warning
            message = _missing_old(store, memory.supersedes, draft=severity == error)
            found.append(_line_diagnostic(ls, text, line, message, severity))
        elif old.id != memory.id and old.status != "active" and old.superseded_by != memory.id:
            # the command refuses this; a draft's save does too (kept: nothing typed is lost)
            severity = error if draft_files.is_draft(doc) else warning
            found.append(_line_diagnostic(ls, text, line, not_active(old), severity))
        elif old.id != memory.id and old.content_hash == memory.content_hash:
            message = f"{SAME_TEXT} {old.id}, the memory it supersedes: change it before saving"
            found.append(_line_diagnostic(ls, text, parsed.body_line, message, warning))
    if draft_files.is_draft(doc):  # its save refuses what a direct write refuses
        if refused is None:
            refused = draft_refusals.refused(store, text, memory)
        for line, message in refused:
            found.append(
                _line_diagnostic(ls, text, line, f"{message}; saving writes nothing", error)
            )
    return found


def _missing_old(store: MemoryStore, old_id: str, *, draft: bool) -> str:
    """What a memory superseding ``old_id``, which ``store`` does not hold, is told; for a
    ``draft``, why it is not written and what to do."""
    said = f"supersedes {old_id}, which is not in the {store.scope} store"
    if not draft:
        return said
    return (
        f"{said} (no {store.folder.path / f'{old_id}.md'}: purged, or removed by a pull), so "
        "it is not written: bring that memory file back to supersede it, or delete the "
        "supersedes line to remember this one as a new memory"
    )


def unfit_files(store: MemoryStore, memory: Memory) -> list[str]:
    """Why each file of ``memory`` that can be no memory's file (a folder, one of git's own
    files) is refused by a direct write, in its words (:func:`recall.named_files.unfit_line`),
    labelled by its place in ``files``."""
    found = []
    for index, raw in enumerate(memory.files):
        try:
            path = store.normalize_stored(raw)
        except BadInput:
            continue  # said on its entry by :func:`_file_problems`
        if (line := _unfit(store, path, index)) is not None:
            found.append(line)
    return found


def _unfit(store: MemoryStore, path: str, index: int) -> str | None:
    root = store.repo_root if store.scope == PROJECT else None
    return unfit_line(root, path, f"files[{index}]")


def _file_problems(
    ls: TetherServer, doc: DocState, store: MemoryStore, text: str, memory: Memory, files_line: int
) -> list[types.Diagnostic]:
    """What is wrong with each entry of ``files``, on that entry as written (on the ``files:``
    line when where it is cannot be told): a name that cannot be read, a folder or one of
    git's own files (an error in a draft, whose save refuses it as a direct write does), a
    file not in the working tree."""
    spans = entry_spans(text, "files")
    found: list[types.Diagnostic] = []
    for index, raw in enumerate(memory.files):
        span = spans[index] if len(spans) == len(memory.files) else None
        line, columns = (files_line, (0, None)) if span is None else (span.line, span.columns)
        try:
            path = store.normalize_stored(raw)
        except BadInput as bad:
            error = types.DiagnosticSeverity.Error
            found.append(_line_diagnostic(ls, text, line, str(bad), error, columns))
            continue
        base = store.repo_root
        if (unfit := _unfit(store, path, index)) is not None:
            if draft_files.is_draft(doc):
                message, severity = (
                    f"{unfit}; saving writes nothing",
                    types.DiagnosticSeverity.Error,
                )
            else:
                message = f"{unfit}; this memory will not surface for it"
                severity = types.DiagnosticSeverity.Warning
            found.append(_line_diagnostic(ls, text, line, message, severity, columns))
        elif base is not None and open_not_on_disk(ls, base, path):
            message = f"{path} {UNSAVED}"
            info = types.DiagnosticSeverity.Information
            found.append(_line_diagnostic(ls, text, line, message, info, columns))
        elif base is not None and not (base / path).exists():
            message = f"{path} is not in the working tree; this memory will not surface for it"
            info = types.DiagnosticSeverity.Information
            found.append(_line_diagnostic(ls, text, line, message, info, columns))
    return found


def _same_id_elsewhere(store: MemoryStore, memory_id: str, name: str) -> str | None:
    """The file other than ``name`` that holds the memory ``memory_id`` in ``store``'s index,
    if any."""
    row = store.conn.execute("SELECT name FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None or row[0] == name else str(row[0])


def check(ls: TetherServer, doc: DocState) -> None:
    """Publish the front-matter diagnostics of a memory document."""
    text = current_text(ls, doc)
    found = problems(ls, doc, text) if text is not None else []
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, diagnostics=found)
    )


def check_all(ls: TetherServer) -> None:
    """Check every open memory document again (a code file it may name was opened, saved or
    closed: open and not on disk, such a file is said to be so)."""
    for doc in list(ls.docs.values()):
        if doc.is_memory:
            check(ls, doc)


def saved(ls: TetherServer, doc: DocState) -> None:
    """A memory document was saved: index it (a draft once it is finished), complete a
    supersede, refresh what depends."""
    root = doc.root
    if draft_files.is_draft(doc) and not _finish(ls, doc):
        check(ls, doc)  # not a memory yet: its diagnostics say why
        return
    root.poll(force=True)
    root.bump()
    _link_supersede(ls, doc)
    diagnostics.republish(ls, root)  # this document and the other open memory documents too


def _finish(ls: TetherServer, doc: DocState) -> bool:
    """Write a saved draft's text as its memory file, once it reads as a memory and does not
    repeat the one it supersedes; False (nothing written) until then."""
    store = doc.memory_store
    assert store is not None
    try:
        text = doc.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    target = store.folder.path / doc.path.name
    draft = draft_files.real(doc.path)
    try:
        _, memory = parse(doc, text)
    except MalformedMemory:
        return False  # its diagnostic says why
    if unfit := unfit_files(store, memory):  # refused as the direct write refuses it, said so
        said = "; ".join(unfit)
        ls.warn_shown_once(
            f"unfit {draft} {said}",
            f"the draft {draft} was not remembered: {said}; nothing written",
        )
        return False
    refused = draft_refusals.refused(store, text, memory)  # the checks of every writer
    if refused:  # said so too, each refusal with its line
        said = "; ".join(f"line {line}: {message}" for line, message in refused)
        ls.warn_shown_once(
            f"refused {draft} {said}",
            f"the draft {draft} was not remembered, and is kept: {said}",
        )
        return False
    for problem in problems(ls, doc, text, refused):
        if problem.severity == types.DiagnosticSeverity.Error or SAME_TEXT in problem.message:
            return False
    try:
        held: bytes | None = target.read_bytes()
    except FileNotFoundError:
        held = None
    except OSError as error:
        ls.warn_shown_once(f"draft {draft}: {error}", f"the draft was not remembered: {error}")
        return False
    now = None if held is None else digest(held)
    if now is not None and now not in {digest(text.encode()), ls.draft_writes.get(draft)}:
        ls.warn_shown_once(
            f"stale {draft} {now}",
            f"the draft {draft} was not saved over {target}: that memory file changed since the "
            "draft last wrote it (a pin, an archive, a pull, an edit). Copy what you want from "
            "the draft into the memory file, then delete the draft.",
        )
        return False
    try:
        # the file replaced only while it holds what was just read, made only while there is
        # none: an edit saved in between (by hand, a pull) is never written over
        if held is None:
            store.folder.write(doc.path.name, text, exclusive=True)
        else:
            store.folder.write(doc.path.name, text, exclusive=False, replacing=held)
    except (FileChanged, FileExistsError):
        ls.warn_shown_once(
            f"raced {draft} {now}",
            f"the draft {draft} was not saved over {target}: that memory file changed on disk "
            "while the draft was saved (an edit, a pull), after it was read; nothing written. "
            f"Open {target} to see the change, copy what you want from the draft into it, then "
            "delete the draft.",
        )
        return False
    except TetherError as error:
        ls.warn_shown_once(f"draft {draft}: {error}", f"the draft was not remembered: {error}")
        return False
    ls.draft_writes[draft] = digest(text.encode())
    if now is None:
        ls.show_info(f"Tether: remembered in {target}")
    return True


def digest(data: bytes) -> str:
    """The hash a draft's last write is known by (:attr:`TetherServer.draft_writes`)."""
    return hashlib.sha256(data).hexdigest()


def _link_supersede(ls: TetherServer, doc: DocState) -> None:
    """Mark the memory the saved one supersedes so, if it is still active; when the store
    cannot do it now (another process holds it), say so on screen: the poll once the store is
    free finishes it (:mod:`lsp_server.supersede_links`), or the next save, and a draft is
    kept until then (:func:`lsp_server.draft_files.link_pending`)."""
    store = doc.memory_store
    text = current_text(ls, doc)
    if store is None or text is None:
        return
    try:
        _, written = parse(doc, text)
    except MalformedMemory:
        return
    try:
        supersede_links.mark(ls, doc.root, store, written)
    except TetherError as error:
        if draft_files.is_draft(doc):
            supersede_links.keep(ls, doc.root, store, doc.path)
        ls.warn_shown_once(
            f"link {draft_files.real(doc.path)}",
            f"memory {written.supersedes} is still active beside {written.id} ({error}): it is "
            f"marked superseded once the store is free (or save {doc.path} again then; a draft "
            "is kept until it is done)",
        )
