"""Writing and superseding from the editor.

With a ``summary`` the command writes at once (for tools). Without one it opens a draft: a new
file in the store's drafts folder, which no store reads (:mod:`lsp_server.draft_files`), front
matter pre-filled (category, the current file, ``supersedes:`` where relevant), created through
``workspace/applyEdit`` and shown with ``window/showDocument`` when the client supports them,
else written to disk and announced with its path. The draft becomes a memory file when its
document is saved with a summary (see :mod:`lsp_server.memory_documents`): saving is the write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsp_server.command_args import flag, strings, text
from lsp_server.command_context import acted, changed, code_root_and_doc, find, self_serve
from lsp_server.documents import open_not_on_disk, open_texts
from lsp_server.draft_open import open_draft
from lsp_server.guard_words import global_supersede
from lsp_server.legacy_anchor import anchor_name, bare_symbol
from lsp_server.roots import Root
from lsp_server.secret_words import SECRET_OVERRIDE
from recall.anchors.carry import carry_anchors
from recall.anchors.guards import Replacement, carried_guard, check_guard, narrowing_note
from recall.anchors.suggest import anchor_fields
from recall.anchors.symbols import SymbolAnchor, parse_anchor
from recall.anchors.write import record_anchors
from recall.clock import now_iso
from recall.errors import BadInput
from recall.lifecycle.references import (
    named_by_person_of,
    with_given_files,
)
from recall.locations import GLOBAL
from recall.model import SOURCES, Memory
from recall.named_files import check_named_files
from recall.paths import normalize, normalize_loose
from recall.repo import git_user_name
from recall.same_summary import refuse_same_summary
from recall.store import MemoryStore
from recall.store.changes import refuse_superseding
from recall.text_checks import check_category, check_summary, check_text, refuse_blank_details
from recall.written_secrets import refuse_credentials

if TYPE_CHECKING:
    from lsp_server.server import TetherServer
    from recall.ranking.engine import RepoSignals


def _store(root: Root, obj: dict[str, Any]) -> MemoryStore:
    scope = "global" if flag(obj, "global") else "project"
    store = root.store_of_scope(scope)
    if store is None and scope == GLOBAL:
        raise BadInput(root.global_refusal() or f"no user-wide store for {root.folder}")
    if store is None:
        raise BadInput(f"{root.folder} is not in a repository; pass global: true to write there")
    return store


def _draft(store: MemoryStore, given: list[str], **fields: Any) -> Memory:
    """A draft of a new memory of ``store`` with ``fields``: a new id, no summary yet (the
    person writes it), created now, and ``given``, the files named, kept for a later repoint."""
    draft = Memory(id=store.new_id(), summary="", created=now_iso(), **fields)
    return with_given_files(draft, given)


def _path(store: MemoryStore, raw: str, label: str) -> str:
    """A path the command was given, in the stored form, a refusal naming it by ``label``
    (``files[0]``: the argument, never the CLI's ``--file``). A relative one is read from the
    repository's root, whichever folder of it the workspace opened: the form the code actions
    give and memories keep (a URI or an absolute path names the file itself)."""
    if store.repo_root is None:
        return normalize_loose(raw, label=label)
    return normalize(raw, store.repo_root, label=label)


def _files(store: MemoryStore, obj: dict[str, Any], default: list[str]) -> list[str]:
    given = strings(obj, "files")
    if given is None:
        return default
    return [_path(store, raw, f"files[{n}]") for n, raw in enumerate(given)]


def _checked_text(obj: dict[str, Any], *, draft: bool = False) -> None:
    """Refuse, naming the argument, what the store would refuse naming the CLI's option: an
    ``anchor`` that is not one line, ``details`` of whitespace only (never dropped without a
    word) unless for a ``draft``: that opens with them in its body, for the person to write
    there. Text shaped like a credential is refused by the write itself (its
    ``secret_override``, :data:`lsp_server.secret_words.SECRET_OVERRIDE`), and a draft's
    before its file is written (:func:`_remember_draft`)."""
    if not draft:
        refuse_blank_details(text(obj, "details"), "'details'")
    summary = text(obj, "summary")
    if summary is not None and summary.strip():  # an empty one is refused as the CLI's is
        check_summary(summary, details_option=DETAILS_ARGUMENT)
    anchor = text(obj, "anchor")
    if anchor is not None and (not anchor.strip() or "\n" in anchor or "\r" in anchor):
        raise BadInput("'anchor' must be a symbol name or a line range on one line")


def _anchors(
    ls: TetherServer, store: MemoryStore, obj: dict[str, Any]
) -> tuple[tuple[SymbolAnchor, ...], list[str]]:
    """The ``anchors`` given (``path::name`` each, one line of text), with their bodies'
    hashes recorded, and a note for each kept without one (its file defines no such symbol:
    a typo, or a symbol still to come), as the CLI says it."""
    given = strings(obj, "anchors") or []
    pairs = [
        parse_anchor(check_text(item, f"anchors[{n}]") or "", label=f"anchors[{n}]", given=True)
        for n, item in enumerate(given)
    ]
    pairs = [(_path(store, p, f"anchors[{n}]"), name) for n, (p, name) in enumerate(pairs)]
    held = open_texts(ls, store.repo_root)  # the editor's text of its open files, saved or not
    return record_anchors(store.repo_root, pairs, held=held)  # kept without a hash if not found


NOT_ON_DISK = "is not on disk yet"
"""What a note says of a file named by a write that the editor holds open but that is not on
disk (saving it makes it so)."""

ALLOW_MISSING = '"allowMissing": true'
"""How an editor's command lets through a file the repository does not have yet, as a refusal
of an unknown file says it (``--allow-missing`` in the CLI)."""


def _check_named(
    ls: TetherServer,
    store: MemoryStore,
    obj: dict[str, Any],
    named: list[tuple[str, str]],
) -> list[str]:
    """Refuse what the CLI's ``remember`` refuses among the files a write names (a folder, one
    of git's own files, a path the repository never had unless ``allowMissing``: see
    :func:`recall.named_files.check_named_files`); log and return the notes on files renamed
    since. A file open in the editor but not on disk is let through as ``allowMissing`` lets
    one through, with a note saying so: the person is looking at it."""
    allow = flag(obj, "allowMissing")
    repo = store.repo_root
    held = (
        []
        if allow or repo is None
        else [(p, label) for p, label in named if open_not_on_disk(ls, repo, p)]
    )
    rest = [given for given in named if given not in held]
    notes = check_named_files(store, rest, allow_missing=allow, let_through=ALLOW_MISSING)
    notes += check_named_files(store, held, allow_missing=True, let_through=ALLOW_MISSING)
    notes += [
        f"{label} {path!r} {NOT_ON_DISK}: it is open in the editor, not saved; the memory "
        "names it all the same"
        for path, label in held
    ]
    for note in notes:
        ls.warn(note)
    return notes


def _given_names(
    obj: dict[str, Any], files: list[str], anchors: tuple[SymbolAnchor, ...]
) -> list[tuple[str, str]]:
    """The files a command names itself, each with the argument it came in: ``files``, then the
    anchors' files (files carried over from a superseded memory were checked when written)."""
    named = []
    if strings(obj, "files") is not None:
        named += [(path, f"files[{n}]") for n, path in enumerate(files)]
    if strings(obj, "anchors") is not None:
        named += [(a.path, f"anchors[{n}]") for n, a in enumerate(anchors)]
    return named


async def _remember_draft(
    ls: TetherServer,
    store: MemoryStore,
    obj: dict[str, Any],
    files: list[str],
    given: list[str],
    anchor: str | None,
    anchors: tuple[SymbolAnchor, ...],
    author: str,
    notes: list[str],
) -> dict[str, Any]:
    """Open the draft of a new memory whose front matter carries every argument given, checked
    as a direct write checks them: ``anchor``, ``anchors``, ``pinned``, ``guard``, ``author``,
    ``source``, and what it would write into the draft's file shaped like a credential;
    ``details`` go in its body, below the summary the person writes; ``notes`` (on the files
    and anchors named) are said with it."""
    category = check_category(text(obj, "category") or "gotcha")
    source = text(obj, "source") or "user"
    if source not in SOURCES:
        raise BadInput(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    details = text(obj, "details") or ""
    refuse_credentials(
        summary=None,
        details=details,
        anchor=anchor,
        files=files,
        author=author,
        symbols=[a.text for a in anchors],
        override=SECRET_OVERRIDE,
    )
    draft = _draft(
        store,
        given,
        category=category,
        files=tuple(files),
        anchor=anchor,
        anchors=anchors,
        pinned=flag(obj, "pinned"),
        guard=check_guard(
            flag(obj, "guard"),
            category,
            GUARD_ARGUMENT,
            covers=bool(files or anchors),
            scope=store.scope,
            scope_option=GLOBAL_ARGUMENT,
        ),
        author=author,
        source=source,
    )
    return await open_draft(ls, store, draft, details=details, notes=notes)


async def remember(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    """Write a memory (``summary`` given) or open a draft for the file at ``uri``; ``anchors``
    binds it to symbols (the code action on a definition gives the one under the cursor)."""
    named_here = strings(obj, "files") is None and strings(obj, "anchors") is None
    instead = "name the files in 'files'"
    root, doc = code_root_and_doc(ls, obj, instead, about=named_here)
    store = _store(root, obj)
    here = [doc.rel] if doc is not None and not doc.is_memory else []
    files = _files(store, obj, here)
    anchors, anchor_notes = _anchors(ls, store, obj)
    named = _given_names(obj, files, anchors)
    if strings(obj, "files") is None:
        named += [(path, "the file of uri") for path in here]
    file_notes = _check_named(ls, store, obj, named)
    given = list(files) if strings(obj, "files") is not None else []  # not the file of uri
    own = list(files)
    files += [a.path for a in anchors if a.path not in files]
    category = text(obj, "category") or "gotcha"
    author = check_text(text(obj, "author"), "author") or git_user_name(store.repo_root)
    summary = text(obj, "summary")
    self_serve(ls, root, "remember", obj)
    _checked_text(obj, draft=summary is None)  # a draft's anchor is checked as a write's is
    anchor, bare, bare_notes = bare_symbol(ls, store, obj, anchor_name(obj, files), own)
    anchors = (*anchors, *(a for a in bare if a not in anchors))
    anchor_notes += bare_notes
    if summary is None:
        notes = [*file_notes, *anchor_notes]
        return await _remember_draft(ls, store, obj, files, given, anchor, anchors, author, notes)
    memory = store.prepare_memory(
        summary=summary,
        category=category,
        files=files,
        details=text(obj, "details"),
        pinned=flag(obj, "pinned"),
        anchor=anchor,
        author=author,
        source=text(obj, "source") or "user",
        symbols=[anchor.text for anchor in anchors],
        secret_override=SECRET_OVERRIDE,
    )
    guard = check_guard(
        flag(obj, "guard"),
        memory.category,
        GUARD_ARGUMENT,
        covers=bool(memory.files or anchors),
        scope=store.scope,
        scope_option=GLOBAL_ARGUMENT,
    )
    if store.exists:
        refuse_same_summary(store.conn, memory, supersede_command)
    memory = with_given_files(memory.with_changes(anchors=anchors, guard=guard), given)
    result = store.remember(memory)
    changed(ls, root)
    done = {**result.to_dict(), **anchor_fields(anchor_notes)}
    return {**done, "file_notes": file_notes} if file_notes else done


def supersede_command(memory_id: str) -> str:
    """How a refusal of a summary another memory holds names the command that changes it."""
    return f'tether.supersede with {{"memoryId": "{memory_id}"}}'


GUARD_ARGUMENT = 'the "guard": true argument'
"""How an editor's command names the guard it was given, in an error about it (never a CLI
flag: the person is in an editor)."""

GLOBAL_ARGUMENT = 'the "global": true argument'
"""How an editor's command names its choice of the global store, in an error about a guard
there."""

DETAILS_ARGUMENT = "the 'details' argument"
"""How an editor's command names where the rest of a summary of more than one line goes."""


def _given(obj: dict[str, Any], key: str) -> bool:
    """Whether ``key`` is given a value: a null counts as not given, so it keeps the old one."""
    return obj.get(key) is not None


async def supersede(ls: TetherServer, obj: dict[str, Any]) -> dict[str, Any]:
    """Replace a memory (``summary`` given) or open a draft pre-filled with its text. The old
    memory's files, symbol anchors, pin and guard carry over unless given: ``anchors`` replaces
    them (``[]`` drops them), ``pinned: false`` and ``guard: false`` drop the pin and guard."""
    root, store, old = find(ls, obj)
    refuse_superseding(old, store.find)  # naming the replacement, as the CLI does
    opened: RepoSignals | None = None
    anchors, anchor_notes = (
        _anchors(ls, store, obj) if _given(obj, "anchors") else (old.anchors, [])
    )
    # new anchors replace the old: a file there only for an old anchor goes with it
    kept = old.files if anchors == old.anchors or not anchors else named_by_person_of(store, old)
    files = _files(store, obj, list(kept))
    if not _given(obj, "anchors") and strings(obj, "files") is not None:
        # files named anew: an old anchor follows its definition or goes, and is said; the
        # genome as the indexer keeps it (a request does not refresh it)
        kind = check_category(text(obj, "category") or old.category)
        carries = carried_guard(old, kind, store.scope)[0]
        guarded = carries and (flag(obj, "guard") or not _given(obj, "guard"))
        carry = carry_anchors(
            store, anchors, files, "'anchors'", guarded=guarded, notice=ls.log, refresh=False
        )
        opened = carry.signals  # read again for the guard's narrowing, not opened anew
        anchors = carry.anchors
        for note in carry.notes:
            ls.warn(note)
        anchor_notes = [*anchor_notes, *carry.notes]
    file_notes = _check_named(ls, store, obj, _given_names(obj, files, anchors))
    named = strings(obj, "files") is not None
    given = list(files) if named else named_by_person_of(store, old)
    own = list(files)
    files += [a.path for a in anchors if a.path not in files]
    anchor, bare, bare_notes = bare_symbol(ls, store, obj, anchor_name(obj, files, old), own)
    anchors = (*anchors, *(a for a in bare if a not in anchors))
    anchor_notes = [*anchor_notes, *bare_notes]
    pinned = flag(obj, "pinned") if _given(obj, "pinned") else old.pinned
    author = check_text(text(obj, "author"), "author") or git_user_name(store.repo_root)
    summary = text(obj, "summary")
    category = check_category(text(obj, "category") or old.category)
    if _given(obj, "guard"):
        if flag(obj, "guard") and store.scope == GLOBAL:
            raise BadInput(global_supersede(old.id))
        guard = check_guard(
            flag(obj, "guard"),
            category,
            GUARD_ARGUMENT,
            covers=bool(files),
            scope=store.scope,
            scope_option=GLOBAL_ARGUMENT,
        )
        note = None
    else:  # superseding does not lift a guard; a narrower one is said
        guard, note = carried_guard(old, category, store.scope)
        # renames as the indexer keeps the genome: a request does not refresh it
        if guard and (
            note := narrowing_note(
                Replacement(store, old, files, anchors, notice=ls.log, refresh=False, opened=opened)
            )
        ):
            ls.warn(note)
    acted(root, store, old.id)  # validated: the person acted on what was shown
    if summary is None:
        draft = _draft(
            store,
            given,
            category=category,
            files=tuple(files),
            anchor=anchor,
            anchors=anchors,
            pinned=pinned,
            guard=guard,  # in the draft's front matter: kept unless the person takes it out
            supersedes=old.id,
            author=author,
        )
        opened = await open_draft(ls, store, draft, old.summary, old.details, notes=file_notes)
        return {**opened, "guard_note": note} if note else opened
    _checked_text(obj)
    memory = store.prepare_memory(
        summary=summary,
        category=category,
        files=files,
        details=text(obj, "details"),
        pinned=pinned,
        anchor=anchor,
        author=author,
        source=text(obj, "source") or "user",
        symbols=[anchor.text for anchor in anchors],
        secret_override=SECRET_OVERRIDE,
    )
    memory = with_given_files(memory.with_changes(anchors=anchors, guard=guard), given)
    refuse_same_summary(store.conn, memory, supersede_command, other_than=old.id)
    result, updated = store.supersede(old.id, memory)
    changed(ls, root)
    done = {**result.to_dict(), "supersedes": updated.id}
    if file_notes:
        done["file_notes"] = file_notes
    done.update(anchor_fields(anchor_notes))
    return {**done, "guard_note": note} if note else done
