"""How memories look to a person on any terminal surface (the CLI and the browser): the colour
of each category, counted nouns, and text from memory files made safe to print."""

from __future__ import annotations

import unicodedata

CATEGORY_STYLE = {
    "gotcha": "bold red",
    "decision": "cyan",
    "pref": "green",
    "context": "yellow",
    "rejected": "magenta",
}
"""The rich style of each category's label: a gotcha stands out, the rest are told apart."""

UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""The Unicode categories of characters a terminal acts on or hides instead of showing: C0 and
C1 controls (ESC opens every escape sequence), format characters (bidi overrides and isolates,
zero-width characters), lone surrogates, and line and paragraph separators."""

_JOINERS = "\u200c\u200d"
"""The zero-width non-joiner and joiner: format characters that shape the letters of several
scripts (Persian, the Indic ones) and join emoji, so they are shown as they are."""

LINE_BREAKS = "\n\t"
"""What :func:`visible` keeps in a text meant to span lines (details, a message of several
lines): a line break and a tab only move the cursor forward."""


def plural(count: int, word: str) -> str:
    """``1 memory``, ``2 memories``: a count with its noun."""
    if count == 1:
        return f"{count} {word}"
    if word.endswith("y"):
        return f"{count} {word[:-1]}ies"
    return f"{count} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{count} {word}s"


def without_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (JSON may carry one: half of an emoji a client cut in
    two) made U+FFFD, so it can be searched, stored and sent as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def is_unseen(ch: str) -> bool:
    """Tell whether ``ch`` is a control, format or separator character (see
    :data:`UNSEEN_CATEGORIES`, but for the joiners): one that must not reach a terminal or a
    prompt as it is."""
    return unicodedata.category(ch) in UNSEEN_CATEGORIES and ch not in _JOINERS


def visible(text: str, *, keep: str = "") -> str:
    """``text`` as a person may be shown it: each unseen character (see :func:`is_unseen`) but
    those in ``keep`` written as its escape (``\\x1b``, ``\\n``, ``\\u202e``).

    Memory files come with cloned repositories, so their text could otherwise retitle the
    window, clear the screen or forge a line. Nothing is dropped: the reader sees that the text
    holds such a character, and the file stays as written. With no ``keep`` the result is one
    line; :data:`LINE_BREAKS` keeps the lines of a text meant to have several.
    """
    if text.isprintable():  # the common case: no control, format or separator character
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if ch not in keep and is_unseen(ch) else ch
        for ch in text
    )


def as_given(text: str) -> str:
    """``text`` quoted as the bytes it was given as: a command line's or a file's bytes that
    are not UTF-8 come in as surrogate escapes, shown as those bytes (``'ab\\xff'``), not as
    the escapes Python made of them (``'ab\\udcff'``)."""
    try:
        return repr(text.encode("utf-8", "surrogateescape"))[1:]
    except UnicodeEncodeError:
        return repr(text)
