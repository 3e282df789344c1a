"""Files taken as present for a recall although the working tree lacks them.

The ranking engine leaves a touched file that is not in the working tree out of its file
channel (an agent's touch of a deleted file earns nothing). A file someone asks about (a
person naming it to ``tether recall --file``, a buffer an editor holds that is not saved yet
or was deleted under it) is another matter: its memories are ranked by file as any file's.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from recall.file_names import EarlierName

if TYPE_CHECKING:
    from recall.ranking.engine import Recaller


class _AskedPresent:
    """The engine's repository signals, with the files asked about counting as present."""

    def __init__(self, signals: Any, asked: frozenset[str]) -> None:
        self._signals = signals
        self._asked = asked

    def exists(self, path: str) -> bool:
        """Whether ``path`` is in the working tree, or was asked about."""
        return path in self._asked or self._signals.exists(path)

    def own_name(self, path: str) -> EarlierName:
        """``path`` dated as the file there now has it; a file asked about that the working
        tree lacks holds the name for no one else, so every memory naming it is about it, as
        ``tether list --file`` lists them (the name's date would give the ones written before
        another file left it to that file)."""
        if path in self._asked and not self._signals.exists(path):
            return EarlierName(path, math.inf)
        return self._signals.own_name(path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._signals, name)


@contextlib.contextmanager
def asked_present(recaller: Recaller, paths: Sequence[str]) -> Iterator[None]:
    """Within the block, ``recaller`` takes ``paths`` (files asked about, missing from the
    working tree) as present, so the memories naming them are ranked by file as any file's;
    the engine's own signals are back after it (an engine may be kept for the next query)."""
    if not paths:
        yield
        return
    kept = recaller.repo
    recaller.repo = _AskedPresent(kept, frozenset(paths))  # type: ignore[assignment]
    try:
        yield
    finally:
        recaller.repo = kept
