"""The genome: existence, co-change, renames and import fan-in of a repository's files.

The package's names are imported on first use (PEP 562): an edit hook that only asks whether
the history lags HEAD (:mod:`recall.genome.catch_up`) reads a few files under ``.git`` and
loads none of the genome's queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.genome.genome import Genome
    from recall.genome.limits import MAX_COMMIT_FILES
    from recall.genome.results import Neighbour
    from recall.genome.summary import IndexSummary

__all__ = ["MAX_COMMIT_FILES", "Genome", "IndexSummary", "Neighbour"]


def __getattr__(name: str) -> object:
    """The package's names, each imported when first asked for (a refresh alone makes an
    :class:`IndexSummary`)."""
    if name == "Genome":
        from recall.genome.genome import Genome

        return Genome
    if name == "MAX_COMMIT_FILES":
        from recall.genome.limits import MAX_COMMIT_FILES

        return MAX_COMMIT_FILES
    if name == "Neighbour":
        from recall.genome.results import Neighbour

        return Neighbour
    if name == "IndexSummary":
        from recall.genome.summary import IndexSummary

        return IndexSummary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
