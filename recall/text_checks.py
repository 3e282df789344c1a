"""Checks of the text a person gives a memory (its summary, details, author, anchor, category
and status): what a write refuses, named with where it is and what to do."""

from __future__ import annotations

import re

from recall.conflict_marks import conflict_line
from recall.display import plural, unseen_at, visible
from recall.errors import BadInput
from recall.line_ends import lone_cr_as_lf
from recall.model import CATEGORIES, STATUSES

SUMMARY_FORBIDDEN = ("\n", "\r")
SUMMARY_CONTROLS_KEPT = "\t"
"""The one control character a summary may hold: a tab pasted with the text moves the cursor
and nothing else, and summaries holding one were always accepted."""


DETAILS_OPTION = "--details (or pipe it with --details -)"
"""Where the CLI takes the rest of a summary that is more than one line; an editor command or a
tool names its own ``details`` argument instead (:func:`check_summary`)."""


def check_summary(
    summary: str, *, details_option: str = DETAILS_OPTION, as_stored: bool = False
) -> str:
    """Validate a one-line summary given by a user; returned unchanged when valid.

    Besides a line break, a control, format or separator character but a tab is refused (as
    in :func:`check_text`): a NUL makes git treat the memory file as binary, hiding it from the
    review of a pull request, and the others act on a terminal or hide text. A summary of more
    than one line is told to put the rest in ``details_option`` (how the caller takes details).
    ``as_stored``: the summary of a memory given back as its store held it, whose control
    characters the caller has said (:mod:`recall.stored_rules`), so they are not refused.
    """
    if not isinstance(summary, str) or not summary.strip():
        raise BadInput("summary is empty; give a one-line summary of the knowledge")
    if any(ch in summary for ch in SUMMARY_FORBIDDEN):
        raise BadInput(f"summary must be one line; put the rest in {details_option}")
    if as_stored:
        _check_encodable(summary, "summary")
        check_no_nul(summary, "summary")
        seen = seen_text(summary)
        if not (summary if seen is None else seen).strip():
            raise BadInput(
                "summary holds only characters no one sees; give a one-line summary of the "
                "knowledge"
            )
    else:
        check_text(summary, "summary", keep=SUMMARY_CONTROLS_KEPT)
    return summary


DETAILS_CONTROLS_KEPT = "\t\n\r"
"""The C0 controls details may hold: a tab and line breaks (CRLF from a Windows editor). Any
other is refused: a NUL makes git treat the memory file as binary, and the rest are not text."""

_DETAILS_REFUSED = re.compile(
    "["
    + "".join(f"\\x{code:02x}" for code in range(0x20) if chr(code) not in DETAILS_CONTROLS_KEPT)
    + "]"
)


def refuse_blank_details(details: str | None, label: str, *, given: str = "") -> None:
    """Refuse details that hold only whitespace, naming ``label`` (the argument or key that
    gave them; ``given`` says how, such as read from stdin), as a blank summary is refused:
    what a person wrote is never silently dropped. Empty details (``""``) are none, as asked."""
    if details and not details.strip():
        raise BadInput(
            f"{label}{given} holds only whitespace; nothing written: write the details, "
            f"or leave {label} out for a memory without them"
        )


def details_control(details: str) -> tuple[str, int, int] | None:
    """The first C0 control of ``details`` they may not hold (not one of
    :data:`DETAILS_CONTROLS_KEPT`), with its line and character (1-based, a lone CR ending a
    line as in :mod:`recall.line_ends`); None when none."""
    found = _DETAILS_REFUSED.search(details)
    if found is None:
        return None
    at = found.start()
    lines = lone_cr_as_lf(details)  # a lone CR ends a line, as an editor shows it
    line = lines.count("\n", 0, at) + 1
    return found.group(), line, at - (lines.rfind("\n", 0, at) + 1) + 1


def check_details(details: str | None, *, as_stored: bool = False) -> str:
    """Validate details given by a user; whitespace-only details count as none. A C0 control
    other than those of :data:`DETAILS_CONTROLS_KEPT` is refused, naming it and its line,
    but in the details of a memory given back as its store held it (``as_stored``), whose
    controls the caller has said (:mod:`recall.stored_rules`)."""
    if details is None or not details.strip():
        return ""
    _check_encodable(details, "details")
    if as_stored:
        check_no_nul(details, "details")
    found = None if as_stored else details_control(details)
    if found is not None:
        char, line, column = found
        raise BadInput(
            f"details hold the control character {visible(char)} on line {line}, "
            f"character {column}; remove it (details may hold text, tabs and line breaks)"
        )
    marker = conflict_line(details)
    if marker is not None:  # written so, the memory file would read as an unresolved merge
        raise BadInput(
            f"details hold git's merge conflict markers (<<<<<<<, =======, >>>>>>> at the start "
            f"of lines, from line {marker}); a memory file holding them is refused as an "
            "unresolved merge: resolve the conflict first, or indent the markers when quoting one"
        )
    return details


def check_text(text: str | None, label: str, *, keep: str = "") -> str | None:
    """Validate a one-line free-text field (author, anchor, summary) given by a user: UTF-8
    encodable, with no line break nor other control character (see
    :func:`recall.display.is_unseen`), which would be written to the front matter or the body
    and come back in every listing (but those in ``keep``). The refusal names each such
    character and where it is."""
    if text is not None:
        _check_encodable(text, label)
        unseen = _unseen_at(text, keep)
        if unseen:
            raise BadInput(
                f"{label} must be one line of text without control characters "
                f"(it holds {unseen}); remove them and give it again"
            )
    return text


def unseen_described(text: str, keep: str = "") -> str:
    """Each distinct control character of ``text`` but those in ``keep``, with where it first
    is (``\\x1b at character 5``), as :func:`check_text` names them; empty when none."""
    return _unseen_at(text, keep)


def _unseen_at(text: str, keep: str) -> str:
    """Each distinct unseen character of ``text`` but those in ``keep``, as its escape with its
    first position (1-based) and how many more times it occurs: ``\\x1b at character 5 and 2
    other places``."""
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for at in unseen_at(text, keep):
        ch = text[at]
        first.setdefault(ch, at + 1)
        count[ch] = count.get(ch, 0) + 1
    return ", ".join(
        f"{visible(ch)} at character {at}"
        + (f" and {plural(count[ch] - 1, 'other place')}" if count[ch] > 1 else "")
        for ch, at in first.items()
    )


UTF8_FIX = "give it as UTF-8 (a file or terminal in another encoding: convert it first)"
"""What to do about text whose bytes are not UTF-8."""


_PLAIN_TEXT = re.compile(r"[\t\n\r\x20-\x7e]*+")
_BETWEEN_LINE_CONTROLS = re.compile(r"[^\t\n\r]+")


def seen_text(text: str | None) -> str | None:
    """``text`` as a reader sees it, its unseen characters (zero-width, bidi, controls but tabs
    and line breaks) taken out, so that a credential split by one is still found; None when it
    holds none (the common case, told without looking at each character)."""
    if not text:
        return None
    if _PLAIN_TEXT.fullmatch(text):  # printable ASCII, tabs and line breaks: the usual text
        return None
    # line by line: a line free of controls is looked at with one pattern, not per character
    hidden = {
        part.start() + at
        for part in _BETWEEN_LINE_CONTROLS.finditer(text)
        for at in unseen_at(part.group())
    }
    if not hidden:
        return None
    return "".join(ch for at, ch in enumerate(text) if at not in hidden)


def check_no_nul(text: str, label: str) -> None:
    """Refuse a NUL even in text given back as stored: git shows a file holding one as binary,
    hiding the memory from a pull request's review."""
    if "\x00" in text:
        raise BadInput(
            f"{label} holds a NUL (\\x00); git would show the memory file as binary, hiding it "
            "from review, so it is refused even as stored: remove it"
        )


def _check_encodable(text: str, label: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{label} is not valid UTF-8 text: {UTF8_FIX}") from None


def check_category(category: str) -> str:
    """Validate a category name given by a user."""
    if category not in CATEGORIES:
        raise BadInput(f"unknown category {category!r}; use one of {', '.join(CATEGORIES)}")
    return category


def check_status(status: str) -> str:
    """Validate a status asked for in a listing (one of the statuses, or ``all``)."""
    if status != "all" and status not in STATUSES:
        raise BadInput(f"unknown status {status!r}; use one of {', '.join(STATUSES)}, all")
    return status
