"""Which of some paths git's history knows, asked in one walk for all of them.

A ``git log`` limited to paths reads every commit until it finds one touching them; for a path
no commit ever touched (a typo) that is the whole history, up to seconds on a large one. So the
paths are asked together, in one walk (one per :data:`PATHSPECS_PER_CALL` paths), which stops
as soon as each path is found: many missing paths cost what one does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import IO, Final

from recall.git_safety import SAFE_GIT_OPTIONS
from recall.work_tree import location_options

PATHSPECS_PER_CALL: Final = 500
"""Paths given to one git command: far below any system's limit on a command line."""

WALK: Final = ("log", "--all", "--no-renames", "--format=", "--name-only", "--relative", "-z")
"""The files each commit reachable from a ref changed, among the paths asked about, named from
the folder git runs in (a store's root may be a folder inside the work tree, whose paths git
would otherwise give from the work tree's top)."""

READ_BYTES: Final = 65536
"""One read of git's answer; the walk is checked for being done after each."""


def chunks(paths: Sequence[str]) -> Iterator[list[str]]:
    """``paths`` as literal pathspecs (no wildcard read in a file's name), at most
    :data:`PATHSPECS_PER_CALL` to a list."""
    for at in range(0, len(paths), PATHSPECS_PER_CALL):
        yield [f":(literal){path}" for path in paths[at : at + PATHSPECS_PER_CALL]]


def _answered(name: str, wanted: Collection[str]) -> set[str]:
    """Those of ``wanted`` that a change to the file ``name`` touches: the file itself, or a
    folder above it."""
    found = {name} if name in wanted else set()
    found.update(name[:at] for at, ch in enumerate(name) if ch == "/" and name[:at] in wanted)
    return found


def in_history(root: Path, paths: Collection[str], *, timeout: float) -> set[str] | None:
    """Those of ``paths`` (files or folders, relative to ``root``) that some commit reachable
    from a ref touched; None when git cannot answer (not a repository, failing, or slower than
    ``timeout`` seconds for one walk)."""
    asked = {path.rstrip("/") for path in paths}  # a folder is touched as it is without a /
    found: set[str] = set()
    for specs in chunks(sorted(asked)):
        answer = _walk(root, specs, {spec.removeprefix(":(literal)") for spec in specs}, timeout)
        if answer is None:
            return None
        found |= answer
    return {path for path in paths if path.rstrip("/") in found}


def _walk(root: Path, specs: list[str], wanted: set[str], timeout: float) -> set[str] | None:
    """Those of ``wanted`` one walk limited to ``specs`` finds, the walk ended once all are."""
    import subprocess  # only for a path missing on disk
    import threading

    place = location_options(str(root))
    argv = ["git", *place, *SAFE_GIT_OPTIONS, "-c", "core.quotepath=off", *WALK, "--", *specs]
    try:
        walk = subprocess.Popen(
            argv,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    timer = threading.Timer(timeout, walk.kill)
    timer.start()
    try:
        assert walk.stdout is not None
        found = _read_until_all(walk.stdout, wanted)
    finally:
        timer.cancel()
        if walk.poll() is None:
            walk.kill()  # every path found: the rest of the history is not read
        walk.stdout.close()  # type: ignore[union-attr]
        status = walk.wait()
    return found if found == wanted or status == 0 else None


def _read_until_all(stream: IO[bytes], wanted: set[str]) -> set[str]:
    """The ``wanted`` paths the ``-z`` names read from ``stream`` touch, read until all are
    found or the stream ends."""
    found: set[str] = set()
    tail = b""
    while found != wanted:
        block = stream.read1(READ_BYTES)  # type: ignore[attr-defined]
        *names, tail = (tail + block).split(b"\0") if block else (tail, b"")
        for raw in names:
            name = raw.decode("utf-8", "surrogateescape").strip("\n")
            if name:
                found |= _answered(name, wanted)
        if not block:
            break
    return found
