"""The names spelt closest to one that names nothing (a mistyped path, an anchored symbol a
file no longer defines): difflib's matching, at a bounded cost however many names there are
(:func:`shortlist`), and the bound on how many of one memory's names are looked for.

difflib is imported only once a name is known to be missing: recall runs in agents' hooks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

SUGGESTIONS: Final = 3
"""Closest names offered for one missing path: enough to catch a typo, few enough to read."""

SIMILARITY_CUTOFF: Final = 0.6
"""difflib ratio a file name (without folder and extension) must reach to be offered; 0.6 is
difflib's own default: one or two wrong letters pass, an unrelated name does not."""

SUGGESTED_PER_MEMORY: Final = 10
"""Gone anchors, and missing files, of one memory (or one command's paths) given closest
names: each lookup reads every name of a file or the tree, and past ten the names are not
typos but code or files removed; the others are named as having none."""

COMPARED_NAMES: Final = 200
"""Names difflib compares for one lookup, those sharing the most letter pairs with the name
sought (:func:`shortlist`): enough that a typo's own name is among them, few enough that a
file defining 30,000 names costs one cheap pass, not 30,000 comparisons."""


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name[1:] else name


def suggestions(path: str, candidates: Iterable[str], count: int = SUGGESTIONS) -> list[str]:
    """The names closest to ``path``: the same file name in another folder first, then file
    names spelled closely (compared without folder and extension, which every file of a
    folder shares), nearest folder first."""
    import difflib  # only once a path is known to be missing

    names = list(candidates)
    base = path.rsplit("/", 1)[-1]

    def nearness(name: str) -> float:
        return -difflib.SequenceMatcher(None, path, name).ratio()

    found = sorted((n for n in names if n.rsplit("/", 1)[-1] == base and n != path), key=nearness)
    by_stem: dict[str, list[str]] = {}
    for name in names:
        by_stem.setdefault(_stem(name), []).append(name)
    for close in close_names(_stem(path), by_stem, count):
        found += sorted((n for n in by_stem[close] if n != path), key=nearness)
    return list(dict.fromkeys(found))[:count]


def close_names(word: str, candidates: Iterable[str], count: int = SUGGESTIONS) -> list[str]:
    """The ``candidates`` spelt closest to ``word``, closest first: the matching a missing
    path's file name gets, for any name (a symbol a file does not define)."""
    import difflib  # only once a name is known to be missing

    names = shortlist(word, dict.fromkeys(candidates))
    return difflib.get_close_matches(word, names, n=count, cutoff=SIMILARITY_CUTOFF)


def shortlist(word: str, names: Iterable[str], size: int = COMPARED_NAMES) -> list[str]:
    """The ``names`` worth comparing with ``word``: those whose length lets difflib's ratio
    reach :data:`SIMILARITY_CUTOFF`, and of those, when more than ``size``, the ``size`` that
    hold the most of ``word``'s letter pairs (in their order among ties). One pass of
    substring tests, so a lookup among many names never costs a comparison with each."""
    length = len(word)
    # difflib's own first test (its real_quick_ratio): a name too long or too short to reach
    # the cutoff is never offered
    fits = [
        name
        for name in names
        if not (total := length + len(name))
        or 2.0 * min(length, len(name)) / total >= SIMILARITY_CUTOFF
    ]
    if len(fits) <= size:
        return fits
    import heapq

    pairs = list({word[at : at + 2] for at in range(length - 1)}) or [word]
    return heapq.nlargest(size, fits, key=lambda name: sum(map(name.__contains__, pairs)))
