"""Building FTS5 MATCH expressions from user text: every token quoted, never raw syntax."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Sequence
from typing import NamedTuple

from recall.index.sqlite_open import open_sqlite

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


WORD_TOKENIZER = "unicode61 remove_diacritics 2"
"""The word index's tokenizer (``recall.index.schema``; a test checks the two agree)."""


class _SqliteWords:
    """SQLite's own word tokenizer, for text that is not plain ASCII.

    unicode61 folds case and strips diacritics by its own tables (Latin letters lose their
    accents, Greek and kana keep theirs, "µ" becomes "μ"), which no Python normalisation
    reproduces; a private in-memory FTS5 table with the same tokenizer gives its exact terms.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            # autocommit: each batch's rows are gone, and their pages free, once it is read
            conn = open_sqlite(":memory:", check_same_thread=False, isolation_level=None)
            conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{WORD_TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
            self._conn = conn
        return self._conn

    def words(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms of each text, in order, as the word index stores them."""
        pieces = [(n, piece) for n, text in enumerate(texts) for piece in _pieces(text)]
        found: list[list[tuple[int, str]]] = [[] for _ in pieces]
        with self._lock:
            conn = self._connection()
            try:
                conn.executemany(
                    "INSERT INTO t(rowid, x) VALUES(?, ?)",
                    ((row, _encodable(piece)) for row, (_, piece) in enumerate(pieces)),
                )
                for doc, offset, term in conn.execute("SELECT doc, offset, term FROM v"):
                    found[doc].append((offset, term))
            finally:
                conn.execute("DELETE FROM t")
        result: list[list[str]] = [[] for _ in texts]
        for (n, _), terms in zip(pieces, found, strict=True):
            result[n].extend(term for _, term in sorted(terms))
        return result


_PIECE = 65_536
"""Characters tokenized at once: a huge text goes through in pieces cut at white space (where
no word is split), so the private index never holds more than a piece's worth of it."""


def _pieces(text: str) -> list[str]:
    """``text`` in pieces of at most about ``_PIECE`` characters, cut after white space."""
    pieces: list[str] = []
    while len(text) > _PIECE:
        cut = max(text.rfind(" ", 0, _PIECE), text.rfind("\n", 0, _PIECE)) + 1
        if cut <= 0:
            cut = _PIECE  # one run of 64k characters without a space: cut it anyway
        pieces.append(text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces


def _encodable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes) replaced: SQLite cannot take them."""
    return text.encode("utf-8", "replace").decode("utf-8")


_SQLITE_WORDS = _SqliteWords()


def indexed_words(text: str) -> list[str]:
    """The terms the word index stores for ``text`` ("Café au lait" → cafe, au, lait)."""
    return indexed_words_many([text])[0]


def indexed_words_many(texts: Sequence[str]) -> list[list[str]]:
    """:func:`indexed_words` of each text; plain ASCII in Python, the rest asked of SQLite in
    one go."""
    result: list[list[str]] = [[] for _ in texts]
    other: list[int] = []
    for n, text in enumerate(texts):
        if text.isascii():
            result[n] = WORD.findall(text.lower())  # exactly unicode61 on ASCII
        else:
            other.append(n)
    if other:
        for n, words in zip(other, _SQLITE_WORDS.words([texts[n] for n in other]), strict=True):
            result[n] = words
    return result


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


class StarredText(NamedTuple):
    """A search text read for its stars: what each index is asked for."""

    substrings: str
    """The text with every wildcard star made a space, for the substring index."""
    words: str
    """The text with the starred words taken out too: the words matched whole."""
    prefixes: list[str]
    """The words a star follows, lowercased, each matched as the start of a word."""


_STARS = re.compile(r"\*+")
_LAST_WORD = re.compile(r"[^\W_]+$")


def read_stars(text: str) -> StarredText:
    """``text`` with a star after a word read as "words starting with" it, as search boxes do.

    A run of stars right after a word makes that word a prefix; one before a word, or alone,
    asks for nothing more than the substring index already finds, and is dropped. A star
    inside a word (``fo*o``) is the character itself. No star ever reaches FTS5 as syntax.
    """
    substrings: list[str] = []
    words: list[str] = []
    prefixes: list[str] = []
    at = 0
    for stars in _STARS.finditer(text):
        start, end = stars.span()
        after_word = start > 0 and WORD.match(text[start - 1]) is not None
        before_word = end < len(text) and WORD.match(text[end]) is not None
        if after_word and before_word:
            continue
        piece = text[at:start]
        substrings.append(piece)
        word = _LAST_WORD.search(piece) if after_word else None
        if word:
            prefixes.append(word.group().lower())
            piece = piece[: word.start()]
        words.append(piece)
        at = end
    substrings.append(text[at:])
    words.append(text[at:])
    return StarredText(" ".join(substrings), " ".join(words), list(dict.fromkeys(prefixes)))


def words_expression(words: list[str], prefixes: list[str]) -> str | None:
    """AND of ``words`` matched whole and of ``prefixes`` matched as the start of a word (a
    prefix also typed as a whole word is asked for whole); None when there is nothing."""
    terms = [quote_token(w) for w in words if w]
    terms += [f"{quote_token(p)} *" for p in prefixes if p and p not in words]
    return " AND ".join(terms) if terms else None


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
