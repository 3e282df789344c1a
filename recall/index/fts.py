"""Building FTS5 MATCH expressions from user text: every token quoted, never raw syntax."""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[^\W_]+", re.UNICODE)  # unicode61 splits on "_" too: include_dir = 2 words
TRIGRAM_MIN = (
    3  # the trigram tokenizer cannot match shorter strings; SQLite 3.40 drops them silently
)


def quote_token(token: str) -> str:
    """Quote a token as an FTS5 string, doubling any embedded double quote.

    NUL bytes are dropped: SQLite would end the expression at one.
    """
    return '"' + token.replace("\x00", "").replace('"', '""') + '"'


def word_tokens(text: str) -> list[str]:
    """Lowercased word tokens as the unicode61 tokenizer sees them, deduplicated in order."""
    return list(dict.fromkeys(t.lower() for t in WORD.findall(text)))


def index_form(text: str) -> str:
    """Text as the word index stores it: lower case, diacritics removed ("Café" → "cafe"),
    as the unicode61 tokenizer with ``remove_diacritics`` does."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    if decomposed.isascii():
        return decomposed
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def trigram_tokens(text: str) -> list[str]:
    """Whitespace-separated chunks of at least three characters, for substring matching."""
    chunks = (chunk.strip() for chunk in text.split())
    return list(dict.fromkeys(c.lower() for c in chunks if len(c) >= TRIGRAM_MIN))


def match_expression(tokens: list[str], operator: str = "AND") -> str | None:
    """Join quoted tokens with AND or OR; None when there is nothing to match."""
    if operator not in ("AND", "OR"):
        raise ValueError(f"operator must be AND or OR, not {operator!r}")
    quoted = [quote_token(t) for t in tokens if t]
    if not quoted:
        return None
    return f" {operator} ".join(quoted)


# Endings folded off query words so "sessions" finds "session" and "fixes" finds "fixed";
# longest first. The stem is then matched as a prefix.
_ENDINGS = ("ing", "ies", "es", "ed", "s")
_MIN_STEM = 4  # shorter stems ("us*" from "using") match far too much
_MIN_PREFIX_WORD = 5  # an uninflected word this long also finds its inflections ("range*")


def fold(token: str) -> str | None:
    """The prefix a query word is matched by, or None to match the word exactly.

    An inflected word is cut to its stem ("sessions" → "session", so "session*"); another word
    of five letters or more is its own prefix, so "range" also finds "ranges".
    """
    for ending in _ENDINGS:
        if token.endswith(ending) and len(token) - len(ending) >= _MIN_STEM:
            stem = token[: -len(ending)]
            if ending == "s" and stem.endswith("s"):
                break  # "class", "address": not a plural
            return stem
    return token if len(token) >= _MIN_PREFIX_WORD else None


def prefix_expression(tokens: list[str]) -> str | None:
    """OR of the tokens, each inflected word also matched by its stem as a prefix."""
    terms: list[str] = []
    for token in tokens:
        if not token:
            continue
        stem = fold(token)
        terms.append(f"{quote_token(stem)} *" if stem else quote_token(token))
    return " OR ".join(terms) if terms else None
