"""Pure work done on the other cores: a forked child process maps a function over chunks
(:func:`mapped`) or makes one call (:class:`Ahead`), or several children make one call each
(:class:`Spread`), and each hands its results back through a pipe, in order, while the parent
goes on with its own.

The child only computes: it writes no file, opens no database (the parent's connection it
inherits is never touched) and leaves by ``os._exit``, so neither a finalizer nor a buffer of
the parent's runs twice. It ignores Ctrl-C (the parent decides what an interrupt stops; the
signal is held across the fork, so an interrupt there is the parent's alone) and ends when
the parent stops reading: killed by the parent when abandoned, or by a broken pipe when the
parent dies. A failure of the work in the child is raised in the parent, at the chunk it came
from; a child that dies (killed, out of memory), ends without the frame that closes its
results, or cannot be started leaves the chunks it did not hand back to be mapped in the
parent. Where forking is not safe for such
work, every chunk is mapped in the calling process.

Forking beside threads (a progress bar's, a language server's writer): the child has only
the thread that forked, and a lock another thread held at the fork stays held in it forever.
So the child takes none of those:

- the interpreter's own (the GIL, the import lock) are made anew in the child by CPython;
- a module's import lock: the parent maps the first chunk itself before it forks, so the
  modules the work imports on its way (and the patterns it compiles) are loaded before, and
  the child's imports of them take no lock; a module first needed by a later chunk (a path
  the first did not take, such as the secret scanner when every first line allows secrets)
  is imported in the child under a lock of its own, held by no thread of the parent unless
  that thread was importing the very same module at the fork;
- standard output and error: the child gets streams of its own, on the standard error's
  descriptor (the null device when the parent has none), so a print or a warning there never
  waits on the parent's buffers' locks;
- logging: its module lock is held by the forking thread across the fork and its handlers'
  locks are made anew in the child (logging's own fork hooks); the work logs nothing;
- SQLite's mutexes: the child makes no SQLite call, and the objects it inherits are frozen
  out of its garbage collector, so no connection of the parent's is finalized there;
- the work itself must take no lock a thread of the parent may hold; the drafting of an
  import makes its content hashes without ``cached_property``'s lock for that reason.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, Final, Generic, TextIO, TypeVar

try:
    import fcntl
except ImportError:  # not on Windows, where nothing is forked
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")
R = TypeVar("R")

_LENGTH = struct.Struct("<Q")  # the size of each pickled frame, before it

PIPE_BYTES: Final = 1 << 20
"""The pipe a child answers through is widened to this (or the system's limit for a process
without privileges, ``/proc/sys/fs/pipe-max-size``, when lower): a drafted chunk of an import
pickles to about 0.36 MB (0.66 MB at most on networkmanager), so in the default 64 KiB pipe
the child stopped at each chunk until the parent was done with the one before and came to
read; with room for two or three, each side goes on while the other is slower for a chunk."""

SPREAD_MAX: Final = 2
"""Children one piece of work is split among at most (:class:`Spread`): measured on 2 cores,
30,000 ``lstat`` calls took 100 ms in one child and 60 ms in two; wider splits were not measured."""


class ChildFailed(RuntimeError):
    """The child ended without handing back every result (killed, out of memory)."""


def can_fork() -> bool:
    """Whether work may go to a forked child here: Linux only, where a fork of a process that
    has loaded numpy and SQLite is safe for pure computation (macOS system libraries are not)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def mapped(
    work: Callable[[T], R],
    chunks: Iterable[T],
    *,
    fork: bool,
    fell_back: Callable[[str], None] | None = None,
) -> Iterator[R]:
    """``work(chunk)`` of each chunk, in order: the first here and the rest in a forked child
    when ``fork`` and :func:`can_fork`, else every one here, as asked for. When the child dies
    or cannot start, the chunks it did not hand back are mapped here, and ``fell_back`` hears
    why. Closing the iterator early stops the child."""
    if not (fork and can_fork()):
        return map(work, chunks)
    return _forked(work, iter(chunks), fell_back or (lambda _why: None))


def _forked(
    work: Callable[[T], R], chunks: Iterator[T], fell_back: Callable[[str], None]
) -> Iterator[R]:
    for first in chunks:  # the first chunk only: the work's modules loaded before the fork
        made = work(first)
        break
    else:
        return
    handed = 0
    child = _Child()  # stoppable before anything is forked: an interrupt leaves nothing behind
    try:
        try:
            child.start(work, chunks)
        except OSError as error:  # no process to be had (memory, a limit): all of it here
            fell_back(f"no worker process could be started ({error.strerror or error})")
        yield made
        if child.forked:
            for made in child.results():
                handed += 1
                yield made
            return
    except ChildFailed as failure:
        fell_back(str(failure))
    finally:
        child.stop()
    # the parent's own iterator never moved past the first chunk: skip what was handed back
    yield from map(work, itertools.islice(chunks, handed, None))


class Ahead(Generic[R]):
    """One call of a pure function running in a forked child while the caller goes on; its
    result is asked for later (:meth:`result`) or given up on (:meth:`stop`)."""

    def __init__(self, child: _Child) -> None:
        self._child = child

    @classmethod
    def start(cls, work: Callable[[T], R], argument: T) -> Ahead[R] | None:
        """``work(argument)`` begun in a forked child; None where forking is not safe (see
        :func:`can_fork`) or no process can be had, for the caller to call it itself."""
        if not can_fork():
            return None
        child = _Child()
        try:
            child.start(work, iter([argument]))
        except OSError:
            child.stop()
            return None
        except BaseException:  # an interrupt once the child is there: it is not left behind
            child.stop()
            raise
        return cls(child)

    def result(self) -> R:
        """The child's result, waiting for it; the work's failure raised as it was,
        :class:`ChildFailed` when the child died first. The child is reaped either way."""
        try:
            (value,) = self._child.results()  # read to the end frame: the child is done
            return value
        finally:
            self._child.stop()

    def stop(self) -> None:
        """Give up on the result: the child is killed if still there, and reaped."""
        self._child.stop()


def spread_width() -> int:
    """How many children :class:`Spread` work is split among here: one per core this process
    may run on, at most :data:`SPREAD_MAX`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(SPREAD_MAX, cores))


class Spread(Generic[R]):
    """One pure function called on several arguments at once, each call in a forked child of
    its own, while the caller goes on: work split across the cores, its parts' results asked
    for together (:meth:`results`) or given up on (:meth:`stop`)."""

    def __init__(self, aheads: list[Ahead[R]]) -> None:
        self._aheads = aheads

    @classmethod
    def start(cls, work: Callable[[T], R], arguments: Iterable[T]) -> Spread[R] | None:
        """``work(argument)`` of each argument begun in a child of its own; None where forking
        is not safe or a child cannot be had (those begun are stopped), for the caller to do
        the work itself."""
        spread = cls([])
        try:
            for argument in arguments:
                ahead = Ahead.start(work, argument)
                if ahead is None:
                    spread.stop()
                    return None
                spread._aheads.append(ahead)
        except BaseException:  # an interrupt between two forks: none is left behind
            spread.stop()
            raise
        return spread

    def results(self) -> list[R]:
        """Each child's result, in the order of the arguments, waiting for them all; the first
        failure raised as :meth:`Ahead.result` raises it. Every child is reaped either way."""
        try:
            return [ahead.result() for ahead in self._aheads]
        finally:
            self.stop()

    def stop(self) -> None:
        """Give up on the results: the children still there are killed, and all reaped."""
        for ahead in self._aheads:
            ahead.stop()


class _Child:
    """The forked process mapping ``work`` over ``chunks``, and the pipe it answers through."""

    def __init__(self) -> None:
        """Nothing forked yet; :meth:`stop` may be called at any point from here on."""
        self.forked = False
        self.pid: int | None = None
        self.status = 0
        self.pipe: BinaryIO | None = None
        self.write_end: int | None = None

    def start(self, work: Callable[[T], Any], chunks: Iterator[T]) -> None:
        """Fork the child. Ctrl-C is held across the fork: the child never sees it (it never
        runs the caller's code, whatever happens) and the parent knows its child before it
        can be interrupted."""
        read_end, write_end = os.pipe()
        self.pipe, self.write_end = os.fdopen(read_end, "rb"), write_end
        _widen(write_end)
        parent = os.getpid()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.pid = os.fork()
            if self.pid == 0:  # the child: never returns
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                os.close(read_end)
                _child(work, chunks, write_end)
            self.forked = True
        finally:
            if os.getpid() != parent:  # the child, interrupted before its own code: gone
                os._exit(1)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        self.write_end = None
        os.close(write_end)

    def results(self) -> Iterator[Any]:
        """Each result, in order; the work's failure raised as it was, :class:`ChildFailed`
        when the pipe ends before the child's end frame, whatever its exit status."""
        assert self.pipe is not None
        while len(header := self.pipe.read(_LENGTH.size)) == _LENGTH.size:
            size = _LENGTH.unpack(header)[0]
            if size == 0:  # the end frame: every result handed back
                self._reaped()
                return
            frame = self.pipe.read(size)
            if len(frame) != size:
                break
            ok, value = pickle.loads(frame)
            if not ok:
                raise value
            yield value
        status = self._reaped()
        raise ChildFailed(
            f"the worker process ended before handing back every result ({_described(status)})"
        )

    def _reaped(self) -> int:
        """The child's wait status, waiting for it to end (once)."""
        if self.pid is not None:
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:  # reaped already: SIGCHLD ignored, as a parent may leave it
                self.status = 0
            self.pid = None
        return self.status

    def stop(self) -> None:
        """Close the pipe; kill the child if it is still there, and reap it."""
        if self.pipe is not None:
            self.pipe.close()
        if self.write_end is not None:
            with contextlib.suppress(OSError):
                os.close(self.write_end)
            self.write_end = None
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self._reaped()


def _widen(pipe: int) -> None:
    """Give the pipe ``pipe`` :data:`PIPE_BYTES` of room where the system lets a process
    (Linux); left as it is elsewhere or when refused."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setting is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe, setting, _pipe_room())


@functools.cache
def _pipe_room() -> int:
    """:data:`PIPE_BYTES`, or the most a process without privileges may give a pipe here."""
    try:
        with open("/proc/sys/fs/pipe-max-size", encoding="ascii") as limit:
            return min(PIPE_BYTES, int(limit.read()))
    except (OSError, ValueError):
        return PIPE_BYTES


def _described(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _child(work: Callable[[T], R], chunks: Iterable[T], out: int) -> None:
    status = 0
    try:
        gc.freeze()  # the parent's objects are never collected (nor finalized) here
        # streams of its own: another thread may have held the parent's buffers at the fork
        sys.stdout = sys.stderr = _own_stream()
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
            pipe.write(_LENGTH.pack(0))  # the end: a pipe ending without it is a failure
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _own_stream() -> TextIO:
    """The child's standard output and error: on the standard error's descriptor, or nowhere
    when the parent has none (closed, as by ``2>&-``: the descriptor is then not there, or is
    another file the parent opened since)."""
    if sys.__stderr__ is not None:
        with contextlib.suppress(OSError):
            return open(
                2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False
            )
    return open(os.devnull, "w", encoding="utf-8")


def _failure(error: Exception) -> bytes:
    """The child's failure as a frame; one that cannot be pickled, or not unpickled again (an
    exception whose constructor takes other arguments than it keeps), goes as its text."""
    try:
        frame = pickle.dumps((False, error), pickle.HIGHEST_PROTOCOL)
        pickle.loads(frame)
        return frame
    except Exception:
        text = f"{type(error).__name__}: {error}"
        return pickle.dumps((False, RuntimeError(text)), pickle.HIGHEST_PROTOCOL)
