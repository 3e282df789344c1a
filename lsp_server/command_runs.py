"""Running a ``workspace/executeCommand`` handler: its arguments read, its failures answered,
and, for a command that writes a store, the wait for another process's write done off the
message loop (:mod:`lsp_server.store_busy`)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from lsp_server import command_keys, store_busy, watching
from lsp_server.command_args import CommandFailed, Malformed, one_object
from recall.errors import NothingToDo, StoreBusy, TetherError
from recall.store import MemoryStore
from recall.store.busy import RETRY

if TYPE_CHECKING:
    from lsp_server.server import TetherServer

Handler = Callable[["TetherServer", dict[str, Any]], Any]
AsyncHandler = Callable[["TetherServer", dict[str, Any]], Awaitable[Any]]


def one_line(message: str) -> str:
    """An engine message as one line: the lines the CLI prints one under the other (each
    refused file, then "nothing written") follow one another, each ended."""
    parts = [part.strip() for part in message.splitlines() if part.strip()]
    ended = [part if part[-1] in ".?!;:" else f"{part};" for part in parts[:-1]]
    return " ".join([*ended, *parts[-1:]])


def _failed(name: str, error: TetherError) -> CommandFailed:
    from recall.secret_masking import masked  # a refusal may quote a secret given in error

    return CommandFailed(f"tether.{name}: {one_line(masked(str(error)))}")


def _malformed(ls: TetherServer, name: str, error: Malformed) -> JsonRpcInvalidParams:
    """Arguments a command cannot read: the client's mistake, answered with error -32602."""
    ls.warn(f"tether.{name}: malformed arguments ({error})")
    return JsonRpcInvalidParams(f"tether.{name}: invalid arguments ({error})")


def _answer(ls: TetherServer, name: str, error: Malformed | TetherError) -> Any:
    """What a command that raised ``error`` answers: already so is a result, the rest errors."""
    if isinstance(error, Malformed):
        raise _malformed(ls, name, error) from None
    if isinstance(error, NothingToDo):
        return {"changed": False, "message": str(error)}
    raise _failed(name, error) from None


def _arguments(name: str, args: Sequence[Any]) -> dict[str, Any]:
    """The command's argument object, every key in it one the command reads."""
    obj = one_object(args)
    command_keys.check(name, obj)
    return obj


def run(ls: TetherServer, name: str, args: Sequence[Any], handler: Handler) -> Any:
    """Run a command that only reads (or counts) on the loop."""
    watching.before_request(ls)
    try:
        return handler(ls, _arguments(name, args))
    except (Malformed, TetherError) as error:
        return _answer(ls, name, error)


async def run_async(ls: TetherServer, name: str, args: Sequence[Any], handler: AsyncHandler) -> Any:
    """Run a command that waits on the client (a document shown, an edit applied)."""
    watching.before_request(ls)
    try:
        return await handler(ls, _arguments(name, args))
    except (Malformed, TetherError) as error:
        return _answer(ls, name, error)


def _held(ls: TetherServer) -> list[MemoryStore]:
    return [store for root in ls.roots for store in root.busy_elsewhere()]


async def run_write(
    ls: TetherServer, name: str, args: Sequence[Any], handler: Handler | AsyncHandler
) -> Any:
    """Run a command that writes a store once no other process holds a store's lock, waiting
    for that off the loop (:func:`lsp_server.store_busy.when_free`); a store still busy past
    the wait fails the command, naming it and saying to retry; the session ending during
    the wait (``shutdown``, the client gone) is logged, the command not done."""
    watching.before_request(ls)

    def cut_short(message: str) -> None:
        ls.warn(f"tether.{name}: not done, the session ended first: {message}")

    try:
        obj = _arguments(name, args)
        result = await store_busy.when_free(lambda: _held(ls), lambda: handler(ls, obj), cut_short)
        return await result if inspect.isawaitable(result) else result
    except store_busy.StillBusy as error:
        return _answer(ls, name, error)
    except store_busy.PartlyWritten as error:  # what was written is said in it
        return _answer(ls, name, StoreBusy(f"{error}; {RETRY}"))
    except StoreBusy as error:  # another writer came first since the wait (an async handler)
        return _answer(ls, name, StoreBusy(f"{error}; nothing was written; {RETRY}"))
    except (Malformed, TetherError) as error:
        return _answer(ls, name, error)
