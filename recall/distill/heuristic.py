"""The built-in heuristic: a commit message that carries durable knowledge ("never",
"because", "workaround"...) becomes one proposed memory; the word lists are in
:mod:`recall.distill_words`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from recall.distill.commits import Commit
from recall.distill_words import (
    ABBREVIATIONS,
    CONVENTIONAL_PREFIX,
    DETAILS_MAX,
    FEATURE_REASON,
    FEATURE_SUBJECT,
    FOLD_PREFIXES,
    HISTORY_REASONS,
    KEYWORDS,
    PLAIN_FIRST_WORD,
    REVERT_LINE,
    REVERT_SUBJECT,
    SUMMARY_MAX,
    TRAILER,
    TRAILING_REFERENCE,
)


def _pattern(words: Iterable[str]) -> re.Pattern[str]:
    alternatives = sorted(
        (r"\s+".join(re.escape(part) for part in word.split()) for word in words),
        key=len,
        reverse=True,
    )
    return re.compile(rf"(?<![\w'])(?:{'|'.join(alternatives)})(?![\w'])", re.IGNORECASE)


PATTERNS: dict[str, re.Pattern[str]] = {cat: _pattern(words) for cat, words in KEYWORDS.items()}

_REVERT_LINE = re.compile(REVERT_LINE)
_TRAILER = re.compile(TRAILER)
_CONVENTIONAL_PREFIX = re.compile(CONVENTIONAL_PREFIX)
_PLAIN_FIRST_WORD = re.compile(PLAIN_FIRST_WORD)
_FEATURE_SUBJECT = re.compile(FEATURE_SUBJECT)
_TRAILING_REFERENCE = re.compile(TRAILING_REFERENCE)

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(\u2018\u201c])")

_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """Curly apostrophes made straight, so "don’t" matches like "don't": for matching only,
    the text kept is the commit's as written (same length, so a match's place holds in both)."""
    return text.replace("\u2019", "'").replace("\u2018", "'")


def _carries(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` holds one of ``pattern``'s words, curly apostrophes read as straight."""
    return pattern.search(_plain(text)) is not None


def body_lines(message: str) -> tuple[str, list[str]]:
    """The subject line, and the body lines without trailers (``Signed-off-by:`` and such)."""
    lines = message.strip().splitlines()
    if not lines:
        return "", []
    return lines[0].strip(), [line for line in lines[1:] if not _TRAILER.match(line.strip())]


def sentences(lines: Sequence[str]) -> list[str]:
    """Sentences of a message body: wrapped lines joined, each bullet its own item, then split
    at sentence ends."""
    items: list[str] = []
    current: list[str] = []
    for raw in [*lines, ""]:
        line = raw.strip()
        if not line or _BULLET.match(raw):
            if current:
                items.append(" ".join(current))
            current = [_BULLET.sub("", raw).strip()] if line else []
        else:
            current.append(line)
    found: list[str] = []
    for item in items:
        found.extend(s.strip() for s in _split_sentences(item) if s.strip())
    return found


def _split_sentences(text: str) -> list[str]:
    """``text`` cut at each sentence end, but after an abbreviation (:data:`ABBREVIATIONS`)."""
    parts: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        words = text[start : end.start()].rsplit(None, 1)
        if words and words[-1].lstrip("(\"'`\u2018\u201c").lower() in ABBREVIATIONS:
            continue
        parts.append(text[start : end.start()])
        start = end.end()
    parts.append(text[start:])
    return parts


def category_of(texts: Iterable[str], *, never: Iterable[str] = ()) -> str | None:
    """The first category (in :data:`KEYWORDS` order, leaving out ``never``) whose words occur
    in any of ``texts``."""
    texts = list(texts)
    excluded = set(never)
    for category, pattern in PATTERNS.items():
        if category in excluded:
            continue
        if any(_carries(pattern, text) for text in texts):
            return category
    return None


def _cap(text: str, limit: int) -> str:
    text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + "…"


def clean_subject(subject: str) -> str:
    """A commit subject as a memory summary: type prefix and trailing ticket reference dropped,
    first letter upper-cased when it starts a plain word (never a code name), trailing period
    dropped, capped at SUMMARY_MAX characters."""
    text = _CONVENTIONAL_PREFIX.sub("", _SPACE.sub(" ", subject).strip())
    text = _TRAILING_REFERENCE.sub("", text).rstrip(" .")
    if _PLAIN_FIRST_WORD.match(text):
        text = text[0].upper() + text[1:]
    return _cap(text, SUMMARY_MAX)


def history_reason(commit: Commit) -> str | None:
    """Why the heuristic passes over a commit that is history, as git marks it: a merge (more
    than one parent), a ``fixup!``, ``squash!`` or ``amend!`` commit (git's exact subject
    prefixes), a revert (the ``This reverts commit`` line of its body, or git's ``Revert "``
    subject); None for any other commit, whatever word its subject starts with."""
    if len(commit.parents) > 1:
        return HISTORY_REASONS["merge"]
    subject, _lines = body_lines(commit.message)
    for prefix in FOLD_PREFIXES:
        if subject.startswith(prefix):
            return HISTORY_REASONS[prefix.rstrip()]
    if subject.startswith(REVERT_SUBJECT) or _REVERT_LINE.search(commit.message):
        return HISTORY_REASONS["revert"]
    return None


def feature_reason(commit: Commit) -> str | None:
    """Why the heuristic passes over a feature commit whose only knowledge words are a
    decision's (:data:`~recall.distill_words.FEATURE_SUBJECT`), so the skip does not read as
    a message without any; None for any other commit."""
    subject, lines = body_lines(commit.message)
    if not subject or not _FEATURE_SUBJECT.match(subject):
        return None
    texts = [subject, *sentences(lines)]
    if category_of(texts) == "decision" and category_of(texts, never=("decision",)) is None:
        return FEATURE_REASON
    return None


@dataclass(frozen=True)
class Proposal:
    """A memory distill would write, and the commit it came from."""

    category: str
    summary: str
    details: str
    files: tuple[str, ...]
    commit: Commit


def heuristic(commit: Commit) -> Proposal | None:
    """The memory a commit message suggests, or None when it carries no knowledge words.

    Category: the first of :data:`KEYWORDS` whose words the message uses (a feature commit is
    never a decision: :data:`~recall.distill_words.FEATURE_SUBJECT`). Summary: the cleaned
    subject line. Details: the first body sentence carrying a word of that category (none when
    only the subject carries it). A subject that cleans to nothing gives way to that sentence.
    """
    subject, lines = body_lines(commit.message)
    if not subject or history_reason(commit) is not None:
        return None
    body = sentences(lines)
    feature = bool(_FEATURE_SUBJECT.match(subject))
    category = category_of([subject, *body], never=("decision",) if feature else ())
    if category is None:
        return None
    pattern = PATTERNS[category]
    carrying = next((s for s in body if _carries(pattern, s)), "")
    summary = clean_subject(subject)
    if not summary:
        summary, carrying = _cap(carrying, SUMMARY_MAX), ""
    details = _cap(carrying, DETAILS_MAX)
    if not summary:
        return None
    if details.rstrip(".") == summary:
        details = ""
    return Proposal(category, summary, details, commit.files, commit)
