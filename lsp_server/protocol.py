"""The JSON-RPC layer between the client and the handlers: every request gets exactly one
response, and a client's mistake is answered (or logged), never shown to the user.

pygls on its own leaves a request without a response when its params cannot be read (it pushes
``window/showMessage`` "Error in server: Invalid Params" instead, and the client waits for its
whole timeout), drops a message with an id but no method without a word, answers requests sent
before ``initialize`` with ``null``, an unknown command with Invalid Params (not Method Not
Found), and raises on ``didChange`` for a document never opened.
A body that is not JSON, or nested too deep for Python's stack to read (``[[[...]]]``
thousands deep), or JSON that is no object, gets no answer but a traceback on stderr (and an
error answered with an id null leaves the id out). It also drops a reply of the
client's it cannot read, leaving the request it answers waiting for ever; reads command
``arguments`` given as an object as the list of its keys; logs a traceback for each client
mistake and error answer; and exits 0 after an ``exit`` that came without ``shutdown``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Generator
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol, json_rpc, lsp_method

from lsp_server.documents import editor_copy

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

logger = logging.getLogger("tether.lsp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
PROBLEMS_SHOWN = 3
"""Validation problems quoted in one error message: enough to fix the request, short enough
to read in a client's log line."""


@dataclass(frozen=True)
class Rejected:
    """A message that cannot be handled: answered with ``code`` when it has a usable id."""

    msg_id: int | str | None
    method: str
    code: int
    reason: str
    answer: bool
    """Whether a response is owed (a request, or a message with an id but no method)."""
    told: bool = False
    """Whether the problem went to the code awaiting it (a reply of the client's that cannot
    be read), which says it in its own words."""


class UnreadableReply(JsonRpcInvalidRequest):
    """The client answered a request of the server's with something that cannot be read (a
    ``null`` where a result is due): the request failed, as if the client had said so."""


def _camel(path: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


def _problems(error: Exception) -> str:
    """What is wrong with a message's params, in the client's (camelCase) names."""
    if isinstance(error, cattrs.BaseValidationError):
        found = [_camel(p).replace("@ $.", "at ") for p in cattrs.transform_error(error)]
    else:
        found = [str(error) or type(error).__name__]
    text = "; ".join(found[:PROBLEMS_SHOWN])
    if len(found) > PROBLEMS_SHOWN:
        text += f"; and {len(found) - PROBLEMS_SHOWN} more"
    return text


def _usable_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def not_json(error: BaseException) -> bool:
    """Whether ``error`` is what reading a message body that is not JSON raises (text that
    does not parse, or bytes that are no Unicode text)."""
    return isinstance(error, json.JSONDecodeError | UnicodeDecodeError)


def too_deep(error: BaseException) -> bool:
    """Whether ``error`` is what reading a message body nested deeper than Python's stack
    allows raises (``[[[...]]]`` thousands deep): a RecursionError raised inside the JSON
    reader, not one of a handler's."""
    if not isinstance(error, RecursionError):
        return False
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename == json.decoder.__file__:
            return True
        frame = frame.tb_next
    return False


def unreadable_body(error: BaseException) -> bool:
    """Whether ``error`` says a message body could not be read at all (:func:`not_json`,
    :func:`too_deep`): the client's mistake, answered with JSON-RPC's "Parse error"."""
    return not_json(error) or too_deep(error)


class _NoTracebackForUnreadable(logging.Filter):
    """Drops pygls's own record of a message it cannot read (a traceback of some 40 lines, at
    ERROR): :class:`TetherProtocol` answers the client and logs one line saying what was wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record but pygls's "Unable to deserialize message" and its "Unable to
        handle message" for a body that is not JSON (False drops it)."""
        text = str(record.msg)
        if text.startswith("Unable to deserialize message"):
            return False
        error = record.exc_info[1] if record.exc_info else None
        unreadable = error is not None and unreadable_body(error)
        return not (text.startswith("Unable to handle message") and unreadable)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = {list: "an array", str: "a string"}
    return kinds.get(type(value), "a number")


def _list_or_none(data: dict[str, Any], key: str) -> bool:
    """Whether the params member ``key`` of a message is a list, null or absent."""
    params = data.get("params")
    value = params.get(key) if isinstance(params, dict) else None
    return value is None or isinstance(value, list)


class TetherProtocol(LanguageServerProtocol):
    """pygls's LSP protocol with the answers the JSON-RPC and LSP specs require."""

    _server: TetherServer

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.initialize_seen = False
        self.exit_code = 0
        """What the process exits with: 1 once ``exit`` came before ``shutdown`` (as the LSP
        spec asks), else 0 (a client that hung up without either is no error of ours)."""
        for name in (json_rpc.__name__, "pygls.server"):  # the second reads the bodies
            pygls_log = logging.getLogger(name)
            if not any(isinstance(f, _NoTracebackForUnreadable) for f in pygls_log.filters):
                pygls_log.addFilter(_NoTracebackForUnreadable())

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Read one message; one that cannot be read becomes a :class:`Rejected`."""
        if "jsonrpc" not in data:
            return data  # a nested object of a message (the whole message is checked below)
        msg_id = data.get("id")
        method = data.get("method")
        has_id = "id" in data
        if has_id and not _usable_id(msg_id):
            return Rejected(
                None, str(method or ""), INVALID_REQUEST, "id must be a string or an integer", True
            )
        if data.get("jsonrpc") != "2.0":
            return Rejected(
                msg_id, str(method or ""), INVALID_REQUEST, 'jsonrpc must be "2.0"', has_id
            )
        if has_id and method is None and "result" not in data and "error" not in data:
            reason = "a message with an id needs a method (a request) or a result (a response)"
            return Rejected(msg_id, "", INVALID_REQUEST, reason, True)
        if method is not None and not isinstance(method, str):
            return Rejected(msg_id, "", INVALID_REQUEST, "method must be a string", has_id)
        if method == types.WORKSPACE_EXECUTE_COMMAND and not _list_or_none(data, "arguments"):
            # read as a sequence, an object would become the list of its keys
            reason = f"invalid params for {method}: arguments must be a list"
            return Rejected(msg_id, method, INVALID_PARAMS, reason, has_id)
        ours = method is None and has_id and msg_id in self._result_types  # a request we sent
        try:
            return super().structure_message(data)
        except Exception as error:
            cause = error.__cause__ or error
            if method is None:  # a reply of the client's that cannot be read: nobody to answer
                return self._unreadable_reply(msg_id if ours else None, _problems(cause))
            reason = f"invalid params for {method}: {_problems(cause)}"
            return Rejected(msg_id, method, INVALID_PARAMS, reason, has_id)

    def _unreadable_reply(self, msg_id: Any, problems: str) -> Rejected:
        """Fail the request of the server's own (``msg_id``: None for any other) that a reply
        that cannot be read answers, so that what awaits it goes on by its fallback (pygls
        would drop the reply and leave it waiting for ever). The id of a request of the
        client's in progress (its handler's task or thread, kept in the same table) is never
        acted on: it is no reply's to end."""
        self._result_types.pop(msg_id, None)
        waiting = self._request_futures.get(msg_id) if msg_id is not None else None
        if type(waiting) is not Future or waiting.done():  # not a request we sent, or over
            return Rejected(None, "", INVALID_REQUEST, problems, False)
        del self._request_futures[msg_id]
        waiting.set_exception(UnreadableReply(f"the client's reply cannot be read: {problems}"))
        return Rejected(None, "", INVALID_REQUEST, problems, False, told=True)

    def answer_unreadable(self, error: BaseException) -> None:
        """Answer a message body that cannot be read (``error`` says why: not JSON, or nested
        too deep) with JSON-RPC's "Parse error", id null (the request's id cannot be read),
        and say so in one line."""
        if too_deep(error):
            text = (
                "Parse error: the message is nested too deep to read;"
                " nest its arrays and objects less deeply"
            )
        else:
            text = f"Parse error: the message is not JSON ({error})"
        self._error(None, PARSE_ERROR, text)
        self._server.warn(text)

    def handle_message(self, message: Any) -> None:
        """Answer what cannot be handled; gate requests on ``initialize`` and shutdown."""
        if message is None or isinstance(message, list | str | int | float):  # not an object
            kind = _json_kind(message)
            reason = f"Invalid Request: a JSON-RPC message must be an object, not {kind}"
            message = Rejected(None, "", INVALID_REQUEST, reason, True)
        elif isinstance(message, dict):  # no "jsonrpc" member at all
            method = message.get("method")
            message = Rejected(
                message.get("id") if _usable_id(message.get("id")) else None,
                method if isinstance(method, str) else "",
                INVALID_REQUEST,
                'jsonrpc must be "2.0"',
                "id" in message,
            )
        if isinstance(message, Rejected):
            before = not self.initialize_seen and message.method not in (types.INITIALIZE, "")
            if message.code == INVALID_PARAMS and before:
                # its params matter no more than a well-formed one's would: not served yet
                reason = f"{message.method} before initialize"
                message = replace(message, code=SERVER_NOT_INITIALIZED, reason=reason)
            self._reject(message)
            return
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method == types.INITIALIZE and is_request:
            if self.initialize_seen:
                self._error(message.id, INVALID_REQUEST, "initialize was already received")
                return
            self.initialize_seen = True
        elif method is not None and not self.initialize_seen and method != types.EXIT:
            if is_request:
                self._error(message.id, SERVER_NOT_INITIALIZED, f"{method} before initialize")
            else:
                logger.info("ignored %s before initialize", method)
            return
        if is_request and self._shutdown:
            self._error(message.id, INVALID_REQUEST, f"{method} after shutdown")
            return
        super().handle_message(message)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """Answer a request whose handler ended. An error meant for the client (a JSON-RPC one:
        arguments that cannot be read, a memory not found) is logged as one line, where pygls
        logs its traceback; any other failure is a crash of ours and keeps the traceback."""
        error = None if future.cancelled() else future.exception()
        if not isinstance(error, JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        logger.warning("request %s answered with error %s: %s", msg_id, error.code, error)
        self._send_response(msg_id, error=error.to_response_error())

    def _reject(self, rejected: Rejected) -> None:
        if rejected.answer:
            self._error(rejected.msg_id, rejected.code, rejected.reason)
        if rejected.told:
            return
        label = rejected.method or "a message"
        self._server.warn_once(f"rejected {label} {rejected.code}", f"{label}: {rejected.reason}")

    def _error(self, msg_id: Any, code: int, message: str) -> None:
        if msg_id is None:  # lsprotocol's converter would leave the member out; it is owed
            error = {"code": code, "message": message}
            self._send_data({"jsonrpc": "2.0", "id": None, "error": error})
            return
        self._send_data(ResponseErrorMessage(id=msg_id, error=types.ResponseError(code, message)))

    def _run_generator(
        self,
        future: Future[Any] | None,
        *,
        gen: Generator[Any, Any, Any],
        result_future: Future[Any],
    ) -> None:
        """Go on with a built-in handler once the handler it handed over to ended; that one
        cancelled (the loop ending as the client hung up) cancels the request. pygls reads
        the cancelled one's result and logs the ``CancelledError`` as a crash."""
        if future is not None and future.cancelled():
            result_future.cancel()
            return
        super()._run_generator(future, gen=gen, result_future=result_future)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """Cancel the requests still under way (a write waiting on a busy store), then shut
        down as pygls does. pygls cancels them while going over its table of them, which a
        cancelled request's answer takes its entry out of: ``shutdown`` failed with "dictionary
        changed size during iteration" and the process exited 1. Cancelled from a list here
        first, they are done when its loop comes to them."""
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        yield from super().lsp_shutdown(*args)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """Stop; the exit code (:attr:`exit_code`) says whether ``shutdown`` came first (pygls
        computes it too, but its ``start_io`` swallows the ``SystemExit`` carrying it)."""
        self.exit_code = 0 if self._shutdown else 1
        yield from super().lsp_exit(*args)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(
        self, params: types.ExecuteCommandParams
    ) -> Generator[Any, Any, Any]:
        """Run a command; one the server does not have is Method Not Found (pygls answers it
        as Invalid Params), naming the commands there are."""
        if params.command not in self.fm.commands:
            known = ", ".join(sorted(self.fm.commands))
            raise JsonRpcMethodNotFound(
                f"Method Not Found: command {params.command!r} is not defined; "
                f"the commands are {known}"
            )
        return (yield from super().lsp_workspace__execute_command(params))

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Apply a change to an open document; a change to one never opened is ignored."""
        uri = params.text_document.uri
        if editor_copy(self.workspace, uri) is None:
            self._server.warn_once(
                f"unopened {uri}", f"didChange for {uri}, which was never opened; ignored"
            )
            return
        yield from super().lsp_text_document__did_change(params)
