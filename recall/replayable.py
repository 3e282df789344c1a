"""An iterator that can be iterated again: what it made the first time is given again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Replayable(Generic[T]):
    """Items made as they are asked for and kept, so that iterating again gives the same ones
    without making them twice (an import's drafts: the store runs a write again after
    rebuilding a damaged index)."""

    def __init__(self, source: Iterator[T]) -> None:
        self._source = source
        self._kept: list[T] = []
        self._failed: BaseException | None = None

    def _more(self) -> bool:
        if self._failed is not None:  # the source ended with it: a replay must not end quietly
            raise self._failed
        try:
            for item in self._source:
                self._kept.append(item)
                return True
        except BaseException as error:
            self._failed = error
            raise
        return False

    def close(self) -> None:
        """Stop the source (an import's forked drafting process is killed and reaped)."""
        close = getattr(self._source, "close", None)
        if close is not None:
            close()

    def empty(self) -> bool:
        """Whether there is no item at all (made up to the first one)."""
        return not self._kept and not self._more()

    def __iter__(self) -> Iterator[T]:
        taken = 0
        while taken < len(self._kept) or self._more():
            yield self._kept[taken]
            taken += 1
