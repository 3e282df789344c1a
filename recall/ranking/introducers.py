"""The memories that brought in what the prompt names (``W.INTRODUCER_BONUS``).

A summary such as ``tc: flower: support matching flags`` announces the change that brought
matching flags in; a prompt about matching flags (``tc: flower: fix matching flags``) is
about what that change wrote. The component prefix (``tc: flower:``) is left out on both
sides: every memory of the component shares it, so it tells them nothing apart.
"""

from __future__ import annotations

import re
from typing import Final

from recall.index import fts
from recall.ranking import weights as W

_PREFIX: Final = re.compile(r"^(?:\s*[\w./+-]+:)+\s*")
"""Component prefixes at the start of a summary: ``tc:``, ``tc: flower:``, ``lib/fs:``."""

_LEAD: Final = re.compile(r"\s*([A-Za-z]+)")
"""The first word of a summary after its prefixes (ASCII letters; case is ignored)."""


def _split(text: str) -> tuple[str, set[str]]:
    """``text`` without its component prefixes, and the words of those prefixes."""
    found = _PREFIX.match(text)
    if found is None:
        return text, set()
    return text[found.end() :], set(fts.word_tokens(found.group(0)))


def _words(text: str) -> list[str]:
    """The word index's tokens of ``text`` (lower case, in order), none shorter than
    ``W.MIN_WORD_CHARS``."""
    return [word for word in fts.word_tokens(text) if len(word) >= W.MIN_WORD_CHARS]


def named_words(prompt: str) -> frozenset[str]:
    """The words a prompt names things by: its words after its component prefix, without the
    prefix's words and the function words (``W.FUNCTION_WORDS``)."""
    rest, prefix = _split(prompt)
    return frozenset(w for w in _words(rest) if w not in prefix and w not in W.FUNCTION_WORDS)


def brought_in(summary: str) -> frozenset[str]:
    """The words of what ``summary`` announces bringing in: when its first word after its
    component prefix is one of ``W.INTRODUCING_WORDS``, its words beyond the prefix, else
    none. Independent of the prompt, so a long-lived engine keeps it per memory."""
    found = _PREFIX.match(summary)
    start = found.end() if found else 0
    lead = _LEAD.match(summary, start)
    if lead is None or lead.group(1).lower() not in W.INTRODUCING_WORDS:
        return frozenset()  # most summaries: their words are never read
    prefix = set(fts.word_tokens(found.group(0))) if found else set()
    return frozenset(w for w in _words(summary[start:]) if w not in prefix)


def introduces(summary: str, named: frozenset[str]) -> bool:
    """Whether ``summary`` announces bringing something in (:func:`brought_in`) that the
    prompt names (``named``: :func:`named_words`)."""
    return bool(named) and not named.isdisjoint(brought_in(summary))
