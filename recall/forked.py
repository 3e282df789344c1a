"""Pure work done on the second core: a forked child process maps a function over chunks and
hands each result back through a pipe, in order, while the parent goes on with its own.

The child only computes: it writes no file, opens no database (the parent's connection it
inherits is never touched) and leaves by ``os._exit``, so neither a finalizer nor a buffer of
the parent's runs twice. It ignores Ctrl-C (the parent decides what an interrupt stops) and
ends when the parent stops reading: killed by the parent when abandoned, or by a broken pipe
when the parent dies. A failure in the child is raised in the parent, at the chunk it came
from. Where forking is not safe for such work, the chunks are mapped in the calling process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_LENGTH = struct.Struct("<Q")  # the size of each pickled frame, before it


class ChildFailed(RuntimeError):
    """The child ended without handing back every result (killed, out of memory)."""


def can_fork() -> bool:
    """Whether work may go to a forked child here: Linux only, where a fork of a process that
    has loaded numpy and SQLite is safe for pure computation (macOS system libraries are not)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def mapped(work: Callable[[T], R], chunks: Iterable[T], *, fork: bool) -> Iterator[R]:
    """``work(chunk)`` of each chunk, in order: in a forked child when ``fork`` and
    :func:`can_fork`, else here, as asked for. Closing the iterator early stops the child."""
    if not (fork and can_fork()):
        return map(work, chunks)
    return _from_child(work, chunks)


def _from_child(work: Callable[[T], R], chunks: Iterable[T]) -> Iterator[R]:
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(work, chunks, write_end)
    os.close(write_end)
    return _results(pid, os.fdopen(read_end, "rb"))


def _child(work: Callable[[T], R], chunks: Iterable[T], out: int) -> None:
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # the parent gone: end quietly
        with os.fdopen(out, "wb") as pipe:
            for chunk in chunks:
                try:
                    frame = pickle.dumps((True, work(chunk)), pickle.HIGHEST_PROTOCOL)
                except Exception as error:
                    frame = _failure(error)
                    pipe.write(_LENGTH.pack(len(frame)) + frame)
                    break
                pipe.write(_LENGTH.pack(len(frame)) + frame)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _failure(error: Exception) -> bytes:
    """The child's failure as a frame; one that cannot be pickled goes as its text."""
    try:
        return pickle.dumps((False, error), pickle.HIGHEST_PROTOCOL)
    except Exception:
        text = f"{type(error).__name__}: {error}"
        return pickle.dumps((False, RuntimeError(text)), pickle.HIGHEST_PROTOCOL)


def _results(pid: int, pipe: BinaryIO) -> Iterator[Any]:
    reaped = False
    status = None
    try:
        while header := pipe.read(_LENGTH.size):
            size = _LENGTH.unpack(header)[0] if len(header) == _LENGTH.size else -1
            frame = pipe.read(size) if size >= 0 else b""
            if len(frame) != size:
                break
            ok, value = pickle.loads(frame)
            if not ok:
                raise value
            yield value
        else:
            status = os.waitpid(pid, 0)[1]
            reaped = True
            if status == 0:
                return
        raise ChildFailed(
            f"the worker process ended before handing back every result (wait status {status})"
        )
    finally:
        pipe.close()
        if not reaped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
