"""Building FTS5 MATCH expressions from user text: every token quoted, never raw syntax."""

from __future__ import annotations

import re

WORD = re.compile(r"\w+", re.UNICODE)
TRIGRAM_MIN = (
    3  # the trigram tokenizer cannot match shorter strings; SQLite 3.40 drops them silently
)


def quote_token(token: str) -> str:
    """Quote a token as an FTS5 string, doubling any embedded double quote."""
    return '"' + token.replace('"', '""') + '"'


def word_tokens(text: str) -> list[str]:
    """Lowercased word tokens as the unicode61 tokenizer sees them, deduplicated in order."""
    return list(dict.fromkeys(t.lower() for t in WORD.findall(text)))


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
