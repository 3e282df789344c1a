"""Whether a memory was written early or late enough to mean a file by one of its names: a name
the file had before a rename counts for a memory written before that rename, and a name another
file left counts for the file holding it now only from when it took it
(:mod:`recall.file_names` dates the names)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.file_names import EarlierName


def written_before(created: str, before: float) -> bool:
    """Whether a memory created at ``created`` (as its front matter gives it) was written
    before ``before`` (seconds; inf: always); an unreadable time is not."""
    if before == math.inf:
        return True
    moment = _seconds(created)
    return moment is not None and moment < before


def written_since(created: str, after: float) -> bool:
    """Whether a memory created at ``created`` was written at or after ``after`` (seconds;
    -inf: always); an unreadable time is (the memory names the name as it is now)."""
    if after == -math.inf:
        return True
    moment = _seconds(created)
    return moment is None or moment >= after


def _seconds(created: str) -> float | None:
    """``created`` (as a memory's front matter gives it) in seconds; None when unreadable."""
    try:
        moment = datetime.fromisoformat(created.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def names_it_by(
    files: Collection[str],
    created: str,
    path: str,
    names: Sequence[EarlierName],
    own: EarlierName | None = None,
) -> bool:
    """Whether a memory naming ``files``, created at ``created``, is about ``path``: it names
    it (written late enough for ``own``, the path as :func:`own_name` dates it, when given),
    or one of its earlier ``names`` it was written early enough to mean it by."""
    if path in files and (own is None or written_since(created, own.after)):
        return True
    return any(n.name in files and written_before(created, n.before) for n in names)
