"""Start, configuration and shutdown: roots from the workspace folders, settings merged from the
repository and the editor, watchers registered, and the session-start pass and indexing started
once the client is ready."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server import capabilities, diagnostics, draft_kept, edit_stream, watching
from lsp_server.configuration import as_table, editor_key_problems, file_sources, merge
from lsp_server.documents import file_path
from lsp_server.roots import Root
from recall.stop_signals import on_stop_signals

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

logger = logging.getLogger("tether.lsp")

SECTION = "tether"
START_UP_WAIT_SECONDS = 0.5
"""How long the start-up work (the session-start pass, indexing) waits for the first document
to be opened, so that its diagnostics do not share the CPU with it: editors open the current
file as soon as the session is up, and the work starts right after that file's publish."""


def _section(values: Any) -> Any:
    """Settings given either flat or under a ``tether`` key. Under one, only it is read: the
    keys beside it are other servers' settings (eglot and others send every server's), neither
    Tether's nor mistakes to tell about. A ``tether`` that is not a table is said so when the
    settings are merged. An empty list is an empty table (:func:`as_table`)."""
    values = as_table(values)
    if not isinstance(values, Mapping) or SECTION not in values:
        return values
    return as_table(values[SECTION])


def configure(ls: TetherServer, root: Root) -> None:
    """Merge a root's settings from every source, in order, and apply them. A problem in them
    (a bad value, an unknown key, settings that are not a table) is told once, and shown. A
    table pulled with ``workspace/configuration`` replaces the ``initializationOptions``."""
    sources: list[tuple[str, Any]] = list(file_sources(root.base, ls.settings_problem))
    pulled = ls.editor_settings.get(root.folder.as_uri())
    # a table pulled for the root is the editor's settings now, the start-up ones included: a
    # key removed in the editor is back to its default; a client with no such section (None),
    # or an empty one (a Neovim config's `settings = { tether = {} }` beside its init_options),
    # keeps its initializationOptions
    replaced = isinstance(pulled, Mapping) and bool(pulled)
    start_up = None if replaced else _section(ls.init_options) or None
    editor = [
        ("initializationOptions", start_up),
        ("editor settings", ls.editor_settings.get("")),
        ("editor settings", ls.editor_settings.get(root.folder.as_uri())),
    ]
    for name, values in editor:
        for problem in editor_key_problems(name, values):
            ls.settings_problem(problem)
    root.configure(merge(editor, ls.settings_problem, repository=sources))


def initialize(ls: TetherServer, params: types.InitializeParams) -> None:
    """Read who the client is, its options and its folders (stores open lazily)."""
    ls.client_name = params.client_info.name if params.client_info else ""
    options = as_table(params.initialization_options)
    if options is not None and not isinstance(options, Mapping):
        ls.settings_problem(
            f"initializationOptions: ignored: settings must be an object, got "
            f"{type(options).__name__}; the other settings apply"
        )
        options = None
    ls.init_options = dict(options or {})
    uris = [f.uri for f in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [file_path(uri) for uri in uris]
    if not uris and params.root_path:
        paths = [Path(params.root_path)]
    folders = [path for path in paths if path is not None and path.is_dir()]
    for path in folders:
        ls.roots.add(path)
    # roots are found from documents only when the client named no folder (not when the
    # folders it named were refused: their files stay without memories)
    ls.roots.discover = not folders
    ls.roots.on_added = lambda root: _discovered(ls, root)
    for root in ls.roots:
        configure(ls, root)


def _discovered(ls: TetherServer, root: Root) -> None:
    """A root found from a document (the client named no folder): set it up like the others."""
    configure(ls, root)
    _start_work(ls, root)


def _start_work(ls: TetherServer, root: Root) -> None:
    """The background work of a new root: the session-start pass, then indexing."""
    ls.session_start.start(root)
    if root.settings.index_on_start:
        ls.indexer.start(root)


def _start_roots(ls: TetherServer, roots: list[Root]) -> None:
    """The start-up work of the roots known at ``initialized`` that are still there (roots
    found or added later start their own)."""
    current = list(ls.roots)
    for root in roots:
        if root in current:
            _start_work(ls, root)


async def pull_configuration(ls: TetherServer) -> None:
    """Ask for the ``tether`` section per root, when the client supports it."""
    roots = list(ls.roots)
    if not roots or not capabilities.can_pull_configuration(ls.client_capabilities):
        return
    items = [types.ConfigurationItem(section=SECTION, scope_uri=r.folder.as_uri()) for r in roots]
    try:
        values = await ls.workspace_configuration_async(types.ConfigurationParams(items=items))
    except Exception as error:
        # a client failing one pull fails every one alike: said once, not at each change
        message = f"workspace/configuration failed ({error}); using the other settings"
        ls.warn_once("workspace/configuration", message)
        return
    for root, value in zip(roots, values or [], strict=False):
        ls.editor_settings[root.folder.as_uri()] = _section(value)
        configure(ls, root)


async def _pull_again(ls: TetherServer) -> None:
    """Settings changed: pull them, then follow a changed ``watchWorkspace``."""
    await pull_configuration(ls)
    await watching.update_watchers(ls)


async def initialized(ls: TetherServer, params: types.InitializedParams) -> None:
    """The client is ready: pull settings, register watchers, and start the session-start
    pass and indexing in the background once the first document is published (or
    :data:`START_UP_WAIT_SECONDS` passed without one; at once when a document was published
    while the settings were being pulled)."""
    # SIGHUP (Emacs quitting), SIGTERM, Ctrl-C: the drafts nobody touched are swept as well
    on_stop_signals(lambda: end_session(ls))
    try:
        await pull_configuration(ls)
        await watching.register_watchers(ls)
    except asyncio.CancelledError:  # the client left before answering: not a failure of ours
        logger.info("the client left during start-up; stopping")
        return
    roots = list(ls.roots)
    ls.defer(lambda: _start_roots(ls, roots), START_UP_WAIT_SECONDS)
    watching.poll(ls)  # a memory written since initialize is in the first publish
    diagnostics.republish(ls)


def did_change_configuration(ls: TetherServer, params: types.DidChangeConfigurationParams) -> None:
    """Settings changed: pull them again, or take the pushed ones, then publish again."""
    if capabilities.can_pull_configuration(ls.client_capabilities):
        task = ls.spawn(_pull_again(ls))
        task.add_done_callback(lambda _: diagnostics.republish(ls))
        return
    pushed = _section(params.settings)
    if pushed is not None:  # not a table: said when merged, and the other settings apply
        ls.editor_settings[""] = pushed
    for root in ls.roots:
        configure(ls, root)
    diagnostics.republish(ls)


def did_change_folders(ls: TetherServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Workspace folders came or went: one root per repository, indexed in the background.
    The documents of a root that went have their diagnostics withdrawn; open documents a new
    root holds are published at once."""
    for folder in params.event.removed:
        path = file_path(folder.uri)
        if path is None:
            continue
        closed = ls.roots.remove(path)
        if closed is not None:
            for uri, doc in list(ls.docs.items()):
                if doc.root is closed:
                    del ls.docs[uri]
                    diagnostics.clear(ls, doc)
    added = refused = False
    for folder in params.event.added:
        path = file_path(folder.uri)
        if path is not None and path.is_dir():
            root = ls.roots.add(path)
            if root is None:  # said to the user: its stores cannot be used as set up
                refused = True
                continue
            configure(ls, root)
            _start_work(ls, root)
            added = True
    ls.roots.discover = not ls.roots.named_by_client() and not refused
    if added:
        edit_stream.take_up_open_documents(ls)


def shutdown(ls: TetherServer, params: None) -> None:
    """Stop background work (the start-up work too, if still waiting or not deferred yet),
    sweep the drafts and close every store. The drafts kept are shown as well as logged, here,
    before the reply: a client may read nothing after it."""
    end_session(ls, show=True)


def end_session(ls: TetherServer, *, show: bool = False) -> None:
    """What ``shutdown`` does, done once: also run as the process ends, since a client may
    quit without it (Neovim's ``:qa!`` closes the pipe; ``exit`` may come alone), and the
    drafts nobody touched must not outlive the session either way; ``show``: the drafts kept
    are shown to the person, not only logged (a client that is gone sees neither)."""
    if ls.ended:
        return
    ls.ended = True
    watching.stop_looking(ls)
    ls.stop_deferring()
    ls.indexer.stop()
    ls.session_start.stop()
    ls.warm_up.stop()
    draft_kept.sweep(ls, [store for root in ls.roots for store in root.stores()], show=show)
    ls.roots.close()
    ls.docs.clear()


def register(server: TetherServer) -> None:
    """Add the lifecycle handlers to the server."""
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_folders)
    server.feature(types.SHUTDOWN)(shutdown)
