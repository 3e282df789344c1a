"""Whether the ask left of a paste names anything, and what in a paste to search when not.

A person who pastes a log often asks only "Any idea?" or "what's wrong?": the words name
nothing, so searching them finds nothing. :func:`names_something` tells such an ask apart;
:func:`telling_line` picks the line of a paste that says what failed, for when no prose
around the paste says it.
"""

from __future__ import annotations

import re
from typing import Final

from recall.ranking.weights import FUNCTION_WORDS

#: The words of stock asks about a paste ("any idea?", "what's wrong?", "can you help?", "what
#: does this error mean?"): beside the function words they name nothing a memory could be
#: about, only point at the paste. "can" is here though not a function word of ranking
#: (where it may be the bus): an ask holding "can" and a real subject still names that subject.
_STOCK_ASK_TEXT: Final = """
any anything anyone someone something idea ideas clue clues thought thoughts
wrong right ok okay going on happening happen happens happened problem problems
issue issues help please thanks thank can know see look tell explain mean means
meaning suggest suggestions fix below above log logs trace output error errors
just again still now
"""
STOCK_ASK_WORDS: Final[frozenset[str]] = frozenset(_STOCK_ASK_TEXT.split())

_WORD: Final = re.compile(r"[^\W\d_]++")

#: Log levels that mark a line as saying what failed.
_ERROR_LEVELS: Final = frozenset({"ERROR", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC"})
#: Exception names end so (``OSError``, ``IllegalStateException``, ``SIGSEGVFault``).
_EXCEPTION_ENDS: Final = ("Error", "Exception", "Panic", "Fault")
#: Only the start of a long line is searched for its error marker: a line is a line of a
#: paste, and a marker further in is in a message that is cut to its tail anyway.
_MARKER_REACH: Final = 400


def names_something(ask: str) -> bool:
    """True when ``ask`` holds a word that is neither a function word nor a stock-ask word
    (``STOCK_ASK_WORDS``): a word naming what the ask is about."""
    for match in _WORD.finditer(ask):
        word = match.group(0).lower()
        if len(word) > 1 and word not in FUNCTION_WORDS and word not in STOCK_ASK_WORDS:
            return True
    return False


def _exception_at(token: str) -> bool:
    """True when a whitespace token is an exception headline's name: ``pkg.KeyError:``."""
    name = token.rstrip(":").rsplit(".", 1)[-1]
    return token.endswith(":") and name.endswith(_EXCEPTION_ENDS) and name[:1].isalpha()


#: How telling an error line is; of exceptions and log lines the last wins (a chained
#: traceback ends on the exception raised, the log on what failed last before the ask), of
#: compiler errors the first (later ones follow from it, and a build's summary comes last).
_EXCEPTION: Final = 3
_COMPILER: Final = 2
_LOG_ERROR: Final = 1


def _marker(line: str) -> tuple[int, int] | None:
    """How telling the error in ``line`` is (``_EXCEPTION``, ``_COMPILER``, ``_LOG_ERROR``)
    and where it starts, or None when the line says no error."""
    head = line[:_MARKER_REACH]
    offset = 0
    for token in head.split():
        at = head.index(token, offset)
        offset = at + len(token)
        if _exception_at(token) or token == "panic:":
            return _EXCEPTION, at
        if token.startswith("error[") or token in ("error:", "error"):
            return _COMPILER, at
        if token.strip("[]:") in _ERROR_LEVELS:
            return _LOG_ERROR, at
    return None


def telling_line(lines: list[str], kept: list[bool]) -> str | None:
    """The error of a paste: of its removed lines (not ``kept``, not blank), the last
    exception or panic, else the first compiler error, else the last log line at an error
    level, from its marker on; None when no removed line says an error."""
    best: tuple[int, str] | None = None
    for line, keep in zip(lines, kept, strict=True):
        if keep or not line.strip():
            continue
        found = _marker(line)
        if found is None:
            continue
        rank, at = found
        if best is None or rank > best[0] or (rank == best[0] and rank != _COMPILER):
            best = (rank, line[at:].strip())
    return best[1] if best else None
