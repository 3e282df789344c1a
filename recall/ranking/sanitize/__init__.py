"""Turn a pasted prompt into the short query the text channels see.

Agents and people paste whole stack traces, compiler dumps and diffs with the actual ask on
the last line. Text retrieval over such a paste matches noise (frame paths, timestamps, hex
addresses) instead of the question, so recall reads only a cleaned query:

1. drop fenced code blocks (``` and ~~~, unterminated ones to the end of the text);
2. drop lines that are obviously machine output: Python tracebacks and pytest reports, JS /
   Java / Go / Rust stack frames and panics, compiler diagnostics (tsc, rustc, gcc-style),
   timestamped or levelled log lines, unified diffs, indented code;
3. when what was dropped is most of the prompt (a paste with a line of ask), keep the last
   question sentence, else the last prose-looking line, so that lines of the paste the
   patterns missed are not searched; when that ask names nothing ("Any idea?"), keep instead
   the prose before and after the paste, else the error the paste ends on; otherwise (a
   prompt of prose, perhaps with a short paste) keep every prose-looking or questioning
   part, in order: the question and the sentences around it;
4. failing those, keep the remaining text when it is short, else nothing.

Every step is a single pass over the lines with patterns that cannot backtrack
quadratically, so a megabyte paste costs milliseconds, and no input raises.

Here the picking of the query; :mod:`~recall.ranking.sanitize.lines` marks each line kept or
removed, with the patterns of :mod:`~recall.ranking.sanitize.patterns` (which names the kinds
of noise, ``KIND_*``) and the prose tests of :mod:`~recall.ranking.sanitize.prose`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple

from recall.ranking.sanitize.asks import names_something, telling_line
from recall.ranking.sanitize.lines import Classifier
from recall.ranking.sanitize.prose import SENTENCE_END, looks_like_prose, looks_like_question

__all__ = [
    "PASTE_SHARE",
    "QUERY_MAX_CHARS",
    "WHOLE_MAX_CHARS",
    "SanitizedPrompt",
    "Strategy",
    "sanitize_prompt",
]

Strategy = Literal[
    "prose", "question", "prose-line", "around-paste", "paste-error", "whole", "empty"
]

#: Longest query handed to the text channels; longer picks keep their tail (where asks end).
QUERY_MAX_CHARS: Final = 500
#: Remaining text at most this long is used whole when no question or prose line exists.
WHOLE_MAX_CHARS: Final = 240
#: Machine output over this share of a prompt's characters makes it a paste: its question alone.
PASTE_SHARE: Final = 0.5


@dataclass(frozen=True, slots=True)
class SanitizedPrompt:
    """The outcome of sanitizing one prompt.

    ``query`` is what the text channels search for (may be empty), ``removed`` lists the
    kinds of noise that were dropped in order of first appearance, and ``strategy`` says
    which rule picked the query.
    """

    query: str
    removed: list[str] = field(default_factory=list)
    strategy: Strategy = "empty"


def _tail(text: str, limit: int = QUERY_MAX_CHARS) -> str:
    """Collapse whitespace and keep at most ``limit`` trailing characters on a word boundary."""
    if len(text) > 4 * limit:
        text = text[-4 * limit :]
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    space = cut.find(" ")
    return cut[space + 1 :] if 0 <= space < limit // 2 else cut


class _Units(NamedTuple):
    """The kept lines grouped into units (a prose line joined with its wrapped continuation)."""

    texts: list[str]
    #: Per unit: it begins with a prose-looking line.
    prose: list[bool]
    #: Per line: it is a kept prose-looking line.
    prose_lines: list[bool]


def _units(lines: list[str], kept: list[bool]) -> _Units:
    """Group kept lines into units, joining a prose line with its wrapped continuation.

    Says too which units and which lines look like prose, so callers never evaluate the prose
    test twice.
    """
    parts: list[list[str]] = []
    unit_prose: list[bool] = []
    prose = [False] * len(lines)
    joinable = False
    for i, line in enumerate(lines):
        if not kept[i]:
            joinable = False
            continue
        stripped = line.strip()
        prose[i] = looks_like_prose(stripped)
        if joinable and kept[i - 1]:
            parts[-1].append(stripped)
        else:
            parts.append([stripped])
            unit_prose.append(prose[i])
        joinable = prose[i] and not stripped.endswith((".", "!", "?", ":"))
    return _Units([" ".join(p) for p in parts], unit_prose, prose)


def _is_paste(lines: list[str], kept: list[bool]) -> bool:
    """True when the lines dropped as machine output hold over ``PASTE_SHARE`` of the text."""
    dropped = total = 0
    for line, keep in zip(lines, kept, strict=True):
        size = len(line.strip())
        total += size
        if not keep:
            dropped += size
    return dropped > PASTE_SHARE * total


def _question_in(unit: str) -> str | None:
    """The last question sentence of one unit, if it holds one."""
    if "?" not in unit or " " not in unit.strip():
        return None
    bounds = [0, *(m.end() for m in SENTENCE_END.finditer(unit)), len(unit)]
    for j in range(len(bounds) - 2, -1, -1):
        sentence = unit[bounds[j] : bounds[j + 1]].strip()
        if sentence and looks_like_question(sentence):
            return sentence
    return None


def _last_question(units: list[str]) -> str | None:
    """The last question sentence among the units, searching from the end."""
    for unit in reversed(units):
        question = _question_in(unit)
        if question is not None:
            return question
    return None


def _prose(units: _Units) -> str | None:
    """Every unit that reads as prose or holds a question, in order; None when there is none."""
    picked = [
        text
        for text, prose in zip(units.texts, units.prose, strict=True)
        if prose or _question_in(text) is not None
    ]
    return " ".join(picked) if picked else None


def _around_paste(lines: list[str], kept: list[bool]) -> str | None:
    """The prose units before the paste's first removed line and after its last that name
    something (the sentence introducing a log, say); None when there is none."""
    removed = [i for i, line in enumerate(lines) if not kept[i] and line.strip()]
    if not removed:
        return None
    first, last = removed[0], removed[-1]
    outside = [keep and not first <= i <= last for i, keep in enumerate(kept)]
    units = _units(lines, outside)
    picked = [
        text
        for text, prose in zip(units.texts, units.prose, strict=True)
        if prose and names_something(text)
    ]
    return " ".join(picked) if picked else None


def _of_paste(lines: list[str], kept: list[bool], units: _Units) -> SanitizedPrompt | None:
    """The query of a paste from its ask: its last question, else its last prose line; None
    when it has neither."""
    question = _last_question(units.texts)
    if question is not None:
        return SanitizedPrompt(_tail(question), [], "question")
    for i in range(len(lines) - 1, -1, -1):
        if units.prose_lines[i]:
            return SanitizedPrompt(_tail(lines[i]), [], "prose-line")
    return None


def _instead_of(ask: str, lines: list[str], kept: list[bool]) -> SanitizedPrompt | None:
    """What to search when a paste's ask names nothing: the prose around the paste, else the
    error the paste ends on; None when ``ask`` names something or neither exists."""
    if not ask or names_something(ask):
        return None
    around = _around_paste(lines, kept)
    if around is not None:
        return SanitizedPrompt(_tail(around), [], "around-paste")
    error = telling_line(lines, kept)
    if error is not None:
        return SanitizedPrompt(_tail(error), [], "paste-error")
    return None


def _whole(units: _Units) -> str:
    """The remaining text whole when it is at most ``WHOLE_MAX_CHARS`` long, else empty."""
    total = 0
    for unit in units.texts:
        total += len(unit) + 1
        if total > WHOLE_MAX_CHARS + 1:
            return ""
    return " ".join(" ".join(units.texts).split())


def sanitize_prompt(text: str) -> SanitizedPrompt:
    """Reduce a prompt to the query text channels should search for.

    Code fences, tracebacks, stack frames, compiler output, log lines, diffs and indented
    code are removed. Of a prompt mostly of prose, every prose-looking or questioning part is
    kept; of a paste (over ``PASTE_SHARE`` of it removed), the last question sentence, else the
    last prose-looking line; when that ask names nothing (``Any idea?``), the prose before
    and after the paste, else the error line the paste ends on. Failing those, the remaining
    text if it is at most ``WHOLE_MAX_CHARS`` long, else nothing. Never raises; ``None`` or an
    empty string give an empty query.
    """
    if not text or not isinstance(text, str):
        return SanitizedPrompt("", [], "empty")
    lines = text.splitlines()
    classifier = Classifier(lines)
    classifier.run()
    removed = classifier.removed
    units = _units(lines, classifier.kept)

    if not _is_paste(lines, classifier.kept):
        prose = _prose(units)
        if prose is not None:
            return SanitizedPrompt(_tail(prose), removed, "prose")
        whole = _whole(units)
        return SanitizedPrompt(whole, removed, "whole" if whole else "empty")
    picked = _of_paste(lines, classifier.kept, units)
    if picked is None:
        whole = _whole(units)
        picked = SanitizedPrompt(whole, [], "whole" if whole else "empty")
    instead = _instead_of(picked.query, lines, classifier.kept)
    chosen = instead if instead is not None else picked
    return SanitizedPrompt(chosen.query, removed, chosen.strategy)
