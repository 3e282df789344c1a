"""The server object: the pygls ``LanguageServer`` plus Tether's state (roots, documents, the
session) and the few ways it talks back to the user. Features and the background workers
(indexer, session start) are attached in :mod:`lsp_server.setup`; this module imports none of
them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer

from lsp_server.documents import DocState
from lsp_server.protocol import TetherProtocol, unreadable_body
from lsp_server.supersede_links import SupersedeLinks
from lsp_server.workspace_roots import Roots
from recall import __version__

if TYPE_CHECKING:
    from lsp_server.progress import Indexer
    from lsp_server.session_start import SessionStarter
    from lsp_server.warm_up import WarmUp

logger = logging.getLogger("tether.lsp")


def _unchecked(ls: TetherServer, doc: DocState) -> None:
    """No memory document check attached (a server built without :mod:`lsp_server.setup`)."""


class TetherServer(LanguageServer):
    """Tether's language server and the state of its session."""

    protocol: TetherProtocol

    def __init__(self) -> None:
        super().__init__(
            "tether",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            max_workers=2,
            protocol_cls=TetherProtocol,
        )
        self.session_id = f"lsp-{uuid.uuid4().hex[:12]}"
        self.client_name = ""
        self.init_options: dict[str, Any] = {}
        self.editor_settings: dict[str, Any] = {}
        """The ``tether`` section pulled or pushed from the editor, per root folder URI
        (key ``""`` for settings pushed without a scope)."""
        self.roots = Roots(
            session=self.session_id,
            notice=self.log,
            shown=self.warn_shown_once,
        )
        self.docs: dict[str, DocState] = {}
        self.drafts: dict[Path, str] = {}
        """The drafts this session made, with the text each was made with
        (:mod:`lsp_server.draft_files`)."""
        self.ended = False
        """Whether the session's stores were closed and its drafts swept (at ``shutdown``, or
        as the process ends without one: :func:`lsp_server.lifecycle.end_session`)."""
        self.draft_buffers: dict[Path, str] = {}
        """Per draft (resolved path), the editor's copy of it as last opened or changed: one
        that its file does not match holds edits not saved, and keeps the draft."""
        self.draft_writes: dict[Path, str] = {}
        """Per draft (resolved path), the hash of the text it last wrote as its memory file: a
        later save writes again only while the memory file still holds that text."""
        self.supersede_links = SupersedeLinks()
        """Supersedes left half-done, finished once their store is free."""
        self.last_disk_check = 0.0
        self.memory_look: asyncio.Task[None] | None = None
        """The timed look at the memory folders, for a client without file watchers
        (:func:`lsp_server.watching.start_looking`)."""
        self.watchers: tuple[str, bool] | None = None
        """The file watchers' registration id, and whether they watch every file
        (:func:`lsp_server.watching.update_watchers`)."""
        self._warned: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._deferred: tuple[asyncio.TimerHandle, Callable[[], None]] | None = None
        self._deferred_due = False
        """Whether :meth:`run_deferred` was called before anything was deferred (the first
        document was answered while ``initialized`` still waited on the client)."""
        self._stopped = False
        """Whether shutdown came: work deferred after it (by an ``initialized`` that was still
        waiting on the client) is dropped."""
        self.indexer: Indexer
        """The background indexer (attached by :func:`lsp_server.setup.build`)."""
        self.session_start: SessionStarter
        """The background session-start pass (attached by :func:`lsp_server.setup.build`)."""
        self.warm_up: WarmUp
        """The most-named files ranked ahead (attached by :func:`lsp_server.setup.build`)."""
        self.check_memory_document: Callable[[TetherServer, DocState], None] = _unchecked
        """How an open memory document is checked again after a store changed
        (:func:`lsp_server.memory_documents.check`, attached by :func:`lsp_server.setup.build`:
        the diagnostics republish through it, and that module publishes through them)."""

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a coroutine as a task the server keeps a reference to until it ends."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def defer(self, work: Callable[[], None], seconds: float) -> None:
        """Run ``work`` once, after ``seconds`` or at :meth:`run_deferred`, whichever comes
        first; at once when :meth:`run_deferred` was already called. A second call before the
        first work ran replaces it (its timer is cancelled). After :meth:`stop_deferring`,
        nothing."""
        self.cancel_deferred()
        if self._stopped:
            return
        if self._deferred_due:
            self._deferred_due = False
            work()
            return
        handle = asyncio.get_running_loop().call_later(seconds, self.run_deferred)
        self._deferred = (handle, work)

    def run_deferred(self) -> None:
        """Run the deferred work now, if it has not run yet; with nothing deferred yet, have
        the next :meth:`defer` run its work at once."""
        if self._deferred is None:
            self._deferred_due = True
            return
        handle, work = self._deferred
        self._deferred = None
        handle.cancel()
        work()

    def cancel_deferred(self) -> None:
        """Drop the deferred work, if any, without running it."""
        if self._deferred is not None:
            self._deferred[0].cancel()
            self._deferred = None

    def stop_deferring(self) -> None:
        """Drop the deferred work and any deferred from now on (shutdown came)."""
        self._stopped = True
        self.cancel_deferred()

    def shutdown(self) -> None:
        """Stop background work before pygls stops, so the process exits promptly."""
        self.stop_deferring()
        self.indexer.stop()
        self.session_start.stop()
        self.warm_up.stop()
        super().shutdown()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A failure while handling a message: logged, never shown as a pop-up (a request's
        error is in its response; pygls's default shows the rest, a client's mistakes
        included, as "Error in server"); a message body that is not JSON is answered with
        JSON-RPC's "Parse error", and so is one nested too deep to read (pygls reads the bodies
        outside the protocol and ends here, ``source`` :class:`JsonRpcException`; a handler's
        own decode error is a server error)."""
        if source is FeatureRequestError:
            return
        if source is JsonRpcException and unreadable_body(error):
            self.protocol.answer_unreadable(error)
            return
        where = "a notification" if source is FeatureNotificationError else "a message"
        logger.error("error handling %s: %r", where, error)
        self._log_message(types.MessageType.Error, f"tether: error handling {where}: {error!r}")

    # -- asking the client -----------------------------------------------------------------

    async def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        """``workspace/applyEdit``; a client that fails it, or answers what cannot be read,
        has not applied the edit (the caller goes on as for ``applied: false``)."""
        try:
            return await super().workspace_apply_edit_async(params)
        except JsonRpcException as error:
            self.warn(f"workspace/applyEdit failed ({error}); taken as not applied")
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=str(error))

    async def window_show_document_async(
        self, params: types.ShowDocumentParams
    ) -> types.ShowDocumentResult:
        """``window/showDocument``; a client that fails it, or answers what cannot be read,
        has not shown the document (the caller goes on as for ``success: false``)."""
        try:
            return await super().window_show_document_async(params)
        except JsonRpcException as error:
            self.warn(f"window/showDocument failed ({error}); taken as not shown")
            return types.ShowDocumentResult(success=False)

    # -- talking back ----------------------------------------------------------------------

    def _log_message(self, kind: types.MessageType, message: str) -> None:
        # No client yet, or it is gone: stderr has the line already.
        with contextlib.suppress(Exception):
            self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def log(self, message: str) -> None:
        """An informational line in the client's log (and ours)."""
        logger.info(message)
        self._log_message(types.MessageType.Info, f"tether: {message}")

    def warn(self, message: str) -> None:
        """A warning in the client's log (and on stderr)."""
        logger.warning(message)
        self._log_message(types.MessageType.Warning, f"tether: {message}")

    def warn_once(self, key: str, message: str, *, show: bool = False) -> None:
        """A warning about ``key`` (a document, usually) given once per session; with
        ``show``, also as a message the user sees, not only in the log."""
        if key in self._warned:
            return
        self._warned.add(key)
        self.warn(message)
        if show:
            self._show(types.MessageType.Warning, f"tether: {message}")

    def warn_shown_once(self, key: str, message: str) -> None:
        """A warning logged each time and shown to the user the first time for ``key`` (so a
        repeated autosave does not pop it up again and again)."""
        self.warn(message)
        if key not in self._warned:
            self._warned.add(key)
            self._show(types.MessageType.Warning, f"tether: {message}")

    def settings_problem(self, message: str) -> None:
        """A problem in a repository's settings file (a key no reader knows, a file that is
        not TOML): told once per server lifetime, in the log and shown, since a misspelt key
        otherwise changes nothing without a word."""
        self.warn_once(f"settings: {message}", message, show=True)

    def show_info(self, message: str) -> None:
        """A message the user sees (``window/showMessage``; every client shows these)."""
        self._show(types.MessageType.Info, message)

    def _show(self, kind: types.MessageType, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))
