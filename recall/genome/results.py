"""What the genome hands back to a query: a file's co-change neighbours.

The summary of a refresh is in :mod:`recall.genome.summary`: only a refresh makes one."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Neighbour:
    """A file that historically changes together with the file asked about.

    ``support`` is the number of commits that changed both, ``commits_of_path`` the number
    of commits (small enough to count for co-change) that changed the file asked about, and
    ``confidence`` their ratio: "changed together in 7 of 9 commits".
    """

    path: str
    support: int
    confidence: float
    commits_of_path: int

    def to_dict(self) -> dict[str, Any]:
        """The neighbour as plain JSON-ready data."""
        return asdict(self)
