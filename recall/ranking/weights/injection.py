"""How much of a recall reaches an agent's context: the injection caps and the summary clip."""

from __future__ import annotations

from typing import Final

# --- injection --------------------------------------------------------------------------

#: Memories injected into an agent's context per turn: context is the budget that matters.
INJECT_MAX: Final = 3

#: Gotcha warnings one edit hook call shows, pinned first; the rest are counted with where to
#: read them, and come with the file's next edit: as many as a prompt injects.
EDIT_WARNINGS_MAX: Final = INJECT_MAX

#: Character budget of one injection (summaries, ids, badges, receipts, the fetch hint).
INJECT_CHARS: Final = 2400

#: Characters of one summary in an injection; details are fetched on demand.
SUMMARY_CAP: Final = 200

#: Score a hit needs to be injected: a file hit (even an open), a strong text match or
#: several agreeing signals clear it; rank credit alone never does. Silence is valid.
INJECT_MIN_SCORE: Final = 0.10


def clip_summary(summary: str, cap: int = SUMMARY_CAP) -> str:
    """First line of a summary, whitespace collapsed, cut at a word boundary to ``cap`` chars.

    A cut summary ends with an ellipsis and is still at most ``cap`` characters long.
    """
    lines = summary.strip().splitlines()
    line = " ".join(lines[0].split()) if lines else ""
    if len(line) <= cap:
        return line
    if cap <= 1:
        return "…"[:cap]
    cut = line[: cap - 1]
    space = cut.rfind(" ")
    if space >= cap // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
