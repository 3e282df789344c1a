"""Running git through GitPython's command interface, with every failure turned into a notice.

GitPython is imported on first use only: it costs over 100 ms to import, and a short process
that only queries an already refreshed genome never needs it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from recall.git_safety import (
    FILTER_KEYS,
    SAFE_GIT_OPTIONS,
    WORKTREE_READERS,
    command_of,
    no_filter_options,
    with_command_options,
)
from recall.work_tree import location_options

# Bytes of git's stderr kept for an error message; the rest is drained and dropped so a
# chatty git (rename-limit warnings on every bulk commit) can never block on a full pipe.
STDERR_KEEP_BYTES = 4096


class GitUnavailable(Exception):
    """git cannot answer here: no git binary, or the directory is not in a repository."""


class GitMissing(GitUnavailable):
    """No usable git binary."""


class NotARepository(GitUnavailable):
    """git runs, but the directory is not inside a repository."""


@dataclass(frozen=True)
class RepoProbe:
    """Where the repository around the project root is and where its HEAD points.

    ``prefix`` is the project root relative to the top of the working tree ("" or ending
    in "/"); ``head`` is None before the first commit.
    """

    prefix: str
    git_dir: Path
    shallow: bool
    head: str | None
    detached: bool


def _git_module() -> Any:
    try:
        import git
    except ImportError as error:
        raise GitMissing(f"git cannot be run ({error})".splitlines()[0]) from None
    return git


class _StderrDrain:
    """Reads a process's stderr on a thread, keeping only its first few kilobytes."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        self._stream = stream
        self._kept = bytearray()
        self._thread: threading.Thread | None = None
        if stream is not None:
            self._thread = threading.Thread(target=self._drain, daemon=True)
            self._thread.start()

    def _drain(self) -> None:
        assert self._stream is not None
        with contextlib.suppress(OSError, ValueError):
            for block in iter(lambda: self._stream.read(65536), b""):
                room = STDERR_KEEP_BYTES - len(self._kept)
                if room > 0:
                    self._kept += block[:room]

    def text(self) -> str:
        """Everything kept so far, once the stream has ended."""
        if self._thread is not None:
            self._thread.join(timeout=5)
        return self._kept.decode("utf-8", "replace").strip()


class GitRunner:
    """Runs git commands in one working directory; raises :class:`GitUnavailable` on failure."""

    def __init__(self, root: Path) -> None:
        """Bind to ``root``; raises :class:`GitUnavailable` when GitPython finds no git binary."""
        module = _git_module()
        self._git = module.Git(str(root))
        self._errors = (module.exc.GitCommandNotFound, OSError)
        self.root = root
        self._no_filters: list[str] | None = None

    def run(self, args: Sequence[str], *, check: bool = True) -> tuple[int, bytes, str]:
        """Run ``git <args>`` to completion; return (status, stdout bytes, stderr text)."""
        try:
            status, out, err = self._git.execute(
                self._argv(args),
                with_extended_output=True,
                with_exceptions=False,
                stdout_as_string=False,
                strip_newline_in_stdout=False,
            )
        except self._errors as error:
            raise GitMissing(f"git cannot be run ({error})".splitlines()[0]) from None
        text = err.decode("utf-8", "replace").strip() if isinstance(err, bytes) else str(err)
        if check and status != 0:
            raise GitUnavailable(text.splitlines()[0] if text else f"git {args[0]} failed")
        return status, out, text

    def _argv(self, args: Sequence[str]) -> list[str]:
        """The whole command line for ``git <args>``, with what keeps the repository's own
        configuration from running a program (:mod:`recall.git_safety`)."""
        return [
            "git",
            *location_options(str(self.root)),
            *SAFE_GIT_OPTIONS,
            *self._guarded(args),
            *with_command_options(args),
        ]

    def _guarded(self, args: Sequence[str]) -> list[str]:
        """The options that keep the repository's filter drivers from running, for a command
        that may read the working tree (listed once per runner, on the first such command)."""
        if command_of(args) not in WORKTREE_READERS:
            return []
        if self._no_filters is None:
            _, listed, _ = self.run(list(FILTER_KEYS), check=False)
            self._no_filters = no_filter_options(listed)
        return self._no_filters

    @contextlib.contextmanager
    def stream(self, args: Sequence[str]) -> Iterator[IO[bytes]]:
        """Start ``git <args>`` and yield its stdout; on exit wait, and fail on a bad status.

        Leaving the block early (an exception in the reader) kills the process.
        """
        try:
            handle = self._git.execute(self._argv(args), as_process=True)
        except self._errors as error:
            raise GitMissing(f"git cannot be run ({error})".splitlines()[0]) from None
        proc = handle.proc
        drain = _StderrDrain(proc.stderr)
        finished = False
        try:
            yield proc.stdout
            finished = True
        finally:
            if not finished and proc.poll() is None:
                proc.kill()
            with contextlib.suppress(OSError, ValueError):
                proc.stdout.close()
            status = proc.wait()
            message = drain.text()
        if finished and status != 0:
            raise GitUnavailable(message.splitlines()[0] if message else f"git {args[0]} failed")

    def probe(self) -> RepoProbe:
        """Locate the repository and HEAD in one ``git rev-parse`` call.

        An unborn HEAD (no commits yet) makes rev-parse fail after printing the repository
        facts, so its output is read whatever the exit status.
        """
        status, out, err = self.run(
            [
                "rev-parse",
                "--show-prefix",
                "--is-shallow-repository",
                "--absolute-git-dir",
                "HEAD",
                "--symbolic-full-name",
                "HEAD",
            ],
            check=False,
        )
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        if len(lines) < 3 or lines[1] not in ("true", "false"):
            first = err.splitlines()[0] if err else "git rev-parse failed"
            raise NotARepository(first)
        head = lines[3].strip() if status == 0 and len(lines) >= 5 else None
        return RepoProbe(
            prefix=lines[0].strip(),
            git_dir=Path(lines[2].strip()),
            shallow=lines[1] == "true",
            head=head or None,
            detached=head is not None and lines[4].strip() == "HEAD",
        )
