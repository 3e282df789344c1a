"""Changes made outside the editor: memory files written by the CLI or another editor, and code
files an agent writes straight to disk.

Clients that allow it get file watchers registered dynamically. Everywhere, the server also
looks for itself on each message it handles: one stat of each memory folder (writes are atomic
renames, which change the folder's mtime), and at most once a second a stat of each file it has
published diagnostics for, to catch files rewritten on disk. For a client without watchers it
also looks at the memory folders on a timer (:data:`MEMORY_LOOK_SECONDS`), so that a memory the
CLI writes reaches the open documents with no message from the editor.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server import capabilities, diagnostics, supersede_links
from lsp_server.documents import DocState, editor_copy, file_path, resolve
from lsp_server.roots import Root

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

MEMORY_GLOB = "**/.tether/memories/*.md"
WORKSPACE_GLOB = "**/*"
DISK_CHECK_SECONDS = 1.0
"""How often, at most, the files with published diagnostics are stat'ed for outside writes:
often enough to follow an agent's edit loop, rare enough to cost nothing per keystroke."""
WRITTEN_BATCH_MAX = 20
"""More code files than this changed in one batch is a checkout, a build or a formatter run,
not an agent's edit: such a batch is not treated as edits (memory files in it still are)."""
DISK_DOCS_KEPT = 50
"""Files not open in the editor that the server keeps publishing for (the most recently
written ones): enough for an agent's working set, bounded however long the session runs."""
MEMORY_LOOK_SECONDS = 2.0
"""How often the memory folders are looked at when the client registers no file watchers: a
memory written by the CLI shows within a couple of seconds while the person only reads, for
a stat or two per store each time."""
_SKIPPED_PARTS = {".git", ".hg", ".svn", ".tether", "node_modules", "__pycache__"}


async def register_watchers(ls: TetherServer) -> None:
    """Ask the client to watch memory files (and the workspace) when it allows dynamic
    registration; otherwise, or when it refuses, look at the memory folders on a timer."""
    caps = ls.client_capabilities
    if not capabilities.can_register_watchers(caps):
        start_looking(ls)
        return
    watchers = [types.FileSystemWatcher(glob_pattern=MEMORY_GLOB)]
    workspace = any(root.settings.watch_workspace for root in ls.roots)
    if workspace:
        watchers.append(types.FileSystemWatcher(glob_pattern=WORKSPACE_GLOB))
    if capabilities.can_watch_relative_patterns(caps):
        seen = set()
        for root in ls.roots:
            if root.global_store is None:  # TETHER_HOME cannot be used here: nothing to watch
                continue
            folder = root.global_store.location.memories_dir
            if folder not in seen:
                seen.add(folder)
                pattern = types.RelativePattern(base_uri=folder.as_uri(), pattern="*.md")
                watchers.append(types.FileSystemWatcher(glob_pattern=pattern))
    registration = types.Registration(
        id=f"tether-watch-{uuid.uuid4().hex[:8]}",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
    )
    # noted before the answer: a change of settings meanwhile withdraws this one (the client
    # reads the two requests in order)
    ls.watchers = (registration.id, workspace)
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as error:  # the client refused: polling still covers us
        if ls.watchers is not None and ls.watchers[0] == registration.id:
            ls.watchers = None
        ls.warn(f"file watchers not registered ({error}); polling instead")
        start_looking(ls)


async def update_watchers(ls: TetherServer) -> None:
    """Register the watchers again when ``watchWorkspace`` changed since they were registered
    (settings pulled again): the old registration is withdrawn first, so the client watches
    every file only while a root asks for it."""
    if ls.watchers is None:
        return  # none registered (the client cannot, refused, or the start is not there yet)
    registered, workspace = ls.watchers
    if workspace == any(root.settings.watch_workspace for root in ls.roots):
        return
    ls.watchers = None
    unregistration = types.Unregistration(
        id=registered, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    )
    try:
        await ls.client_unregister_capability_async(
            types.UnregistrationParams(unregisterations=[unregistration])
        )
    except Exception as error:  # the old watchers may stay: their events are handled as ever
        ls.warn(f"file watchers not withdrawn ({error}); registering the new ones anyway")
    await register_watchers(ls)


def start_looking(ls: TetherServer) -> None:
    """Look at the memory folders every :data:`MEMORY_LOOK_SECONDS` until the session ends
    (:func:`stop_looking`), publishing again for the roots whose memories changed."""
    if ls.memory_look is None and not ls.ended:
        ls.memory_look = ls.spawn(_look_on(ls))


def stop_looking(ls: TetherServer) -> None:
    """End the timed look, if any (shutdown came, or the process ends)."""
    if ls.memory_look is not None:
        ls.memory_look.cancel()
        ls.memory_look = None


async def _look_on(ls: TetherServer) -> None:
    while not ls.ended:
        await asyncio.sleep(MEMORY_LOOK_SECONDS)
        if ls.ended:
            return
        try:
            look_at_memories(ls)
        except Exception as error:  # the next look tries again; a message's poll too
            ls.warn_once("memory look", f"looking at the memory folders failed: {error!r}")


def look_at_memories(ls: TetherServer) -> None:
    """Publish again for each root whose memory folders changed since the last look; when
    none did, one stat or two per store and nothing else (:meth:`Root.may_have_changed`)."""
    for root in list(ls.roots):
        if root.may_have_changed() and root.poll():
            diagnostics.republish(ls, root)


def _skipped(doc_path_parts: tuple[str, ...]) -> bool:
    return any(part in _SKIPPED_PARTS for part in doc_path_parts)


def written(ls: TetherServer, docs: list[DocState]) -> None:
    """Code files written on disk by someone else: touched, a turn, diagnostics published."""
    roots: dict[int, Root] = {}
    for doc in docs:
        doc.root.touch(doc.rel, "edit")
        doc.root.touch(doc.rel, "save")
        roots[id(doc.root)] = doc.root
    for root in roots.values():
        first = next(d for d in docs if d.root is root)
        root.end_turn_if_saved(first.rel)
    for root in roots.values():
        diagnostics.republish(ls, root)
    for doc in docs:
        try:
            doc.disk_mtime = os.stat(doc.path).st_mtime_ns
        except OSError:
            doc.disk_mtime = 0
    _forget_old_disk_docs(ls, docs)


def _forget_old_disk_docs(ls: TetherServer, recent: list[DocState]) -> None:
    """Keep publishing for the most recently written unopened files only."""
    for doc in recent:  # move to the end: ``ls.docs`` is kept oldest first
        ls.docs[doc.uri] = ls.docs.pop(doc.uri, doc)
    unopened = [
        d for d in ls.docs.values() if not d.is_memory and editor_copy(ls.workspace, d.uri) is None
    ]
    for doc in unopened[:-DISK_DOCS_KEPT]:
        del ls.docs[doc.uri]


def did_change_watched_files(ls: TetherServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Files changed on disk: re-read memory stores, treat code files as written."""
    memory_roots: dict[int, Root] = {}
    code: list[str] = []
    for change in params.changes:
        path = file_path(change.uri)
        if path is None:
            continue
        found = ls.roots.for_memory_file(path)
        if found is not None:
            memory_roots[id(found[0])] = found[0]
            continue
        if change.type == types.FileChangeType.Deleted or _skipped(path.parts):
            continue
        if editor_copy(ls.workspace, change.uri) is not None or not path.is_file():
            continue  # the editor keeps open documents in sync itself
        code.append(change.uri)
    for root in memory_roots.values():
        root.poll(force=True)
        diagnostics.republish(ls, root)  # the memory documents with the code files
    if len(code) > WRITTEN_BATCH_MAX:
        ls.log(f"{len(code)} files changed at once; taken as a checkout or build, not edits")
        return
    found = (resolve(ls, uri, track=True) for uri in code)
    docs = [d for d in found if d is not None and not d.is_memory]
    if docs:
        written(ls, docs)


def before_request(ls: TetherServer) -> None:
    """Called first by request handlers: publish what a burst of changes deferred (so no
    answer is older than the diagnostics the client will see), then :func:`poll`."""
    diagnostics.flush_pending(ls)
    poll(ls)


def poll(ls: TetherServer) -> None:
    """Notice outside changes; called at the start of every handler that reads memories."""
    for root in ls.roots:
        if root.poll():
            diagnostics.republish(ls, root)
    supersede_links.finish(ls)  # a supersede left half-done, once its store is free
    now = time.monotonic()
    if now - ls.last_disk_check < DISK_CHECK_SECONDS:
        return
    ls.last_disk_check = now
    for root in ls.roots:
        if root.follow_genome():  # a hook or the CLI refreshed it: drift, renames, co-change
            diagnostics.republish(ls, root)
    rewritten = []
    for doc in list(ls.docs.values()):
        if doc.is_memory or not doc.disk_mtime:
            continue
        try:
            mtime = os.stat(doc.path).st_mtime_ns
        except OSError:
            continue
        if mtime != doc.disk_mtime:
            doc.disk_mtime = mtime
            if not _saved_by_the_editor(ls, doc):
                rewritten.append(doc)
    if rewritten:
        written(ls, rewritten)


def _saved_by_the_editor(ls: TetherServer, doc: DocState) -> bool:
    """Whether a file that changed on disk now holds exactly the editor's text (a save, whose
    didSave is on its way) rather than someone else's write."""
    opened = editor_copy(ls.workspace, doc.uri)
    if opened is None:
        return False
    try:
        return doc.path.read_text(encoding="utf-8") == opened.source
    except (OSError, UnicodeDecodeError):
        return False


def register(server: TetherServer) -> None:
    """Add the watched-files handler to the server."""
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)
