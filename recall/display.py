"""How memories look to a person on any terminal surface (the CLI and the browser): the colour
of each category, counted nouns, and text from memory files made safe to print."""

from __future__ import annotations

import re
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


INVISIBLE_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x034F, 0x034F, "combining grapheme joiner: a mark that draws nothing"),
    (0x115F, 0x1160, "Hangul choseong and jungseong fillers: letters that draw as blank"),
    (0x17B4, 0x17B5, "Khmer inherent vowels: deprecated marks that draw nothing"),
    (0x180B, 0x180D, "Mongolian free variation selectors one to three: draw nothing"),
    (0x180F, 0x180F, "Mongolian free variation selector four: draws nothing"),
    (0x2065, 0x2065, "reserved among the invisible operators: to be drawn as nothing"),
    (0x2800, 0x2800, "braille pattern blank: a symbol that draws as a space"),
    (0x3164, 0x3164, "Hangul filler: a letter that draws as blank"),
    (0xFE00, 0xFE0F, "variation selectors 1 to 16: draw nothing, each can carry a hidden byte"),
    (0xFFA0, 0xFFA0, "halfwidth Hangul filler: a letter that draws as blank"),
    (0xFFF0, 0xFFF8, "reserved before the specials: to be drawn as nothing"),
    (0xE0000, 0xE0000, "reserved in the tag block: to be drawn as nothing"),
    (0xE0002, 0xE001F, "reserved in the tag block: to be drawn as nothing"),
    (0xE0080, 0xE00FF, "reserved in the tag block: to be drawn as nothing"),
    (0xE0100, 0xE01EF, "variation selectors 17 to 256: draw nothing, each can carry a hidden byte"),
    (0xE01F0, 0xE0FFF, "reserved after the variation selectors: to be drawn as nothing"),
)
"""The characters that draw nothing though their category is none of :data:`UNSEEN_CATEGORIES`:
Unicode's other default-ignorable code points, and the braille blank. A run of them passes
unseen through a terminal and a diff, so it could hide an instruction meant for an agent.
A variation selector right after the character it varies is seen (:func:`is_unseen`)."""

_INVISIBLE = frozenset(
    chr(code) for low, high, _why in INVISIBLE_RANGES for code in range(low, high + 1)
)
_ANY_INVISIBLE = re.compile(
    "[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high, _why in INVISIBLE_RANGES) + "]"
)
_IDEOGRAPHS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
"""The CJK unified and compatibility ideographs: what an ideographic variation selector varies."""

_KEYCAP_BASES = "0123456789#*"
"""The ASCII characters that start a keycap emoji: the base, U+FE0F, then U+20E3."""


def is_unseen(ch: str, before: str = "", after: str = "") -> bool:
    """Tell whether ``ch`` is a control, format or separator character (see
    :data:`UNSEEN_CATEGORIES`, but for the joiners) or one that draws nothing (see
    :data:`INVISIBLE_RANGES`): one that must not reach a terminal or a prompt as it is.

    ``before`` and ``after`` are the characters around ``ch`` (``""`` at an end of the text).
    A variation selector varies the character before it, so one is seen there: one of U+FE00 to
    U+FE0F after a character that is seen, not ASCII and not a joiner (an emoji's presentation,
    a CJK variant) or in a keycap (``1``, U+FE0F, U+20E3), and one of U+E0100 to U+E01EF after
    a CJK ideograph. Any other (a second in a row, one at the start, one after ASCII) is not.
    """
    if ch in _JOINERS:
        return False
    if unicodedata.category(ch) in UNSEEN_CATEGORIES:
        return True
    return ch in _INVISIBLE and not _varies(ch, before, after)


def _varies(ch: str, before: str, after: str) -> bool:
    """Tell whether the selector ``ch`` varies the character ``before`` it."""
    if "\ufe00" <= ch <= "\ufe0f":
        if before in _KEYCAP_BASES:  # "" is in every string: the start of the text
            return bool(before) and ch == "\ufe0f" and after == "\u20e3"
        return before >= "\x80" and before not in _JOINERS and not is_unseen(before)
    if "\U000e0100" <= ch <= "\U000e01ef" and before:
        code = ord(before)
        return any(low <= code <= high for low, high in _IDEOGRAPHS)
    return False


def unseen_at(text: str, keep: str = "") -> list[int]:
    """Where ``text`` holds an unseen character (see :func:`is_unseen`, which is told the
    characters around it) but one of ``keep``: their positions, in order."""
    if text.isprintable():  # no control, format or separator: only INVISIBLE_RANGES are left
        if text.isascii():  # the common case: none of those is ASCII
            return []
        found = (spot.start() for spot in _ANY_INVISIBLE.finditer(text))
    else:
        found = range(len(text))
    return [
        at
        for at in found
        if text[at] not in keep and is_unseen(text[at], text[at - 1 : at], text[at + 1 : at + 2])
    ]


def visible(text: str, *, keep: str = "") -> str:
    """``text`` as a person may be shown it: each unseen character (see :func:`is_unseen`) but
    those in ``keep`` written as its escape (``\\x1b``, ``\\n``, ``\\u202e``, ``\\ufe0f``).

    Memory files come with cloned repositories, so their text could otherwise retitle the
    window, clear the screen, forge a line or hide words. Nothing is dropped: the reader sees
    that the text holds such a character, and the file stays as written. With no ``keep`` the
    result is one line; :data:`LINE_BREAKS` keeps the lines of a text meant to have several.
    """
    spots = unseen_at(text, keep)
    if not spots:
        return text
    parts, done = [], 0
    for at in spots:
        parts += [text[done:at], text[at].encode("unicode_escape").decode("ascii")]
        done = at + 1
    parts.append(text[done:])
    return "".join(parts)


def as_given(text: str) -> str:
    """``text`` quoted as the bytes it was given as: a command line's or a file's bytes that
    are not UTF-8 come in as surrogate escapes, shown as those bytes (``'ab\\xff'``), not as
    the escapes Python made of them (``'ab\\udcff'``)."""
    try:
        return repr(text.encode("utf-8", "surrogateescape"))[1:]
    except UnicodeEncodeError:
        return repr(text)
