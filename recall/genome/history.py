"""Reading history: one streamed ``git log --name-status -z``, parsed as it arrives.

The stream is a sequence of NUL-terminated tokens. A commit starts with a header token
``\\x01<sha> <committer time> <parent ids>``; each change is a status token (``M``, ``A``,
``D``, ``T``…, or ``R###``/``C###`` followed by two paths) and its path tokens. Paths are
consumed by position, so any byte a file name may hold (even ``\\x01``) is read correctly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, NamedTuple

from recall.genome.limits import HISTORY_READ_BYTES, RENAME_LIMIT

HEADER_MARK = "\x01"
LOG_FORMAT = "--format=%x01%H %ct %P"

# A change: (status letter, path after the change, path before a rename or copy, else None).
Change = tuple[str, str, str | None]


class Commit(NamedTuple):
    """One commit as the log reports it; ``parents`` is the space-separated parent ids."""

    sha: str
    ts: int
    changes: list[Change]
    parents: str


class MalformedLog(Exception):
    """The stream does not look like the output of the log command we started."""


def log_args(revisions: Iterable[str], *, subdir: bool, merges: bool = False) -> list[str]:
    """Arguments for the history stream over ``revisions``, oldest commit first.

    Merge commits are left out unless ``merges``; they carry no changes either way (git
    shows no diff for a merge by default), but their parents tell an incremental read
    whether the last indexed commit is still an ancestor. ``subdir`` restricts the log to
    the project folder (where git runs) when it is not the top of the repository, with
    paths relative to it.
    """
    args = [
        "log",
        *(() if merges else ("--no-merges",)),
        "-z",
        "--name-status",
        "-M",
        f"-l{RENAME_LIMIT}",
        "--reverse",
        "--no-color",
        "--no-show-signature",
        LOG_FORMAT,
    ]
    if subdir:
        args.append("--relative")
    args.extend(revisions)
    if subdir:
        args.extend(("--", "."))
    return args


def read_tokens(stream: IO[bytes], read_size: int = HISTORY_READ_BYTES) -> Iterator[str]:
    """Split a byte stream into NUL-terminated text tokens, decoding file names losslessly.

    Each block is cut at its last NUL before decoding, so a multi-byte character is never
    split; undecodable bytes survive as surrogate escapes.
    """
    rest = b""
    # read1 returns what the pipe holds (up to read_size) instead of waiting for a full block,
    # so parsing keeps pace with git rather than trailing it by a block.
    read = getattr(stream, "read1", stream.read)
    while True:
        block = read(read_size)
        if not block:
            break
        if rest:
            block = rest + block
        cut = block.rfind(b"\0")
        if cut < 0:
            rest = block
            continue
        rest = block[cut + 1 :]
        yield from block[:cut].decode("utf-8", "surrogateescape").split("\0")
    if rest:
        yield rest.decode("utf-8", "surrogateescape")


def parse_log(tokens: Iterable[str]) -> Iterator[Commit]:
    """Turn log tokens into commits, in stream order.

    Raises :class:`MalformedLog` when a token is neither a header nor a status where one of
    them must be.
    """
    it = iter(tokens)
    sha = ""
    ts = 0
    parents = ""
    changes: list[Change] = []
    started = False
    for token in it:
        if not token:
            continue
        first = token[0]
        if first == HEADER_MARK:
            if started:
                yield Commit(sha, ts, changes, parents)
            sha, _, rest = token[1:].partition(" ")
            stamp, _, parents = rest.partition(" ")
            try:
                ts = int(stamp)
            except ValueError:
                raise MalformedLog(f"bad commit header {token[:60]!r}") from None
            changes = []
            started = True
            continue
        if first == "\n":
            token = token[1:]
            if not token:
                continue
            first = token[0]
        if not started:
            raise MalformedLog(f"change {token[:20]!r} before any commit header")
        try:
            if first == "R" or first == "C":
                old = next(it)
                changes.append((first, next(it), old))
            elif first.isalpha() and (len(token) == 1 or token[1:].isdigit()):
                changes.append((first, next(it), None))
            else:
                raise MalformedLog(f"unexpected token {token[:60]!r} in commit {sha}")
        except StopIteration:
            raise MalformedLog(f"stream ended inside commit {sha}") from None
    if started:
        yield Commit(sha, ts, changes, parents)
