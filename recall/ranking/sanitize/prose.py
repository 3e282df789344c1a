"""Whether a line or a sentence reads as a person's words rather than code or a symbol dump."""

from __future__ import annotations

import re
from typing import Final

from recall.ranking.sanitize.patterns import CODE_START

_CODE_ENDINGS: Final = ("{", "}", ";", "=>", "->", "(", "[", "*/")
_SYMBOLS: Final = frozenset("{}[]<>=;|\\$#@&^%*")
_LEAD_PUNCT: Final = "(\"'`*_[<“‘"
_TRAIL_PUNCT: Final = ")\"'`*_.,;:!?]>”’"
SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++(?=\s|$)")
_QUESTION_TAIL: Final = ")\"'`*_]”’ \t"


def _is_word(token: str) -> bool:
    """True when a whitespace token is a natural-language word (or a plain identifier)."""
    core = token.strip(_LEAD_PUNCT).rstrip(_TRAIL_PUNCT)
    if core.endswith("()"):
        core = core[:-2]
    if len(core) < 2:
        return core in ("a", "A", "I")
    return core.replace("'", "").replace("’", "").replace("-", "").isalpha()


def _word_stats(text: str) -> tuple[int, int]:
    """Return (word-like tokens, all tokens) of a piece of text."""
    tokens = text.split()
    return sum(1 for t in tokens if _is_word(t)), len(tokens)


def looks_like_prose(line: str) -> bool:
    """True when a line reads as a sentence rather than code, a path list or a symbol dump."""
    stripped = line.strip()
    if len(stripped) < 6 or stripped.endswith(_CODE_ENDINGS) or CODE_START.match(stripped):
        return False
    words, total = _word_stats(stripped)
    if words < 3 or words < 0.6 * total:
        return False
    symbols = sum(1 for ch in stripped if ch in _SYMBOLS)
    return symbols <= 0.08 * len(stripped)


def looks_like_question(sentence: str) -> bool:
    """True when a sentence ends in a question mark and is mostly words."""
    if not sentence.rstrip(_QUESTION_TAIL).endswith("?"):
        return False
    words, total = _word_stats(sentence)
    return words >= 2 and words >= 0.5 * total
