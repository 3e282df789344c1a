"""Auto-distill: memories proposed from the knowledge written into a session's commit messages.

A commit whose message carries durable knowledge ("never", "because", "workaround"...) becomes
a proposal tied to the files it changed. Proposals pass the category allow-list, are deduped
by content hash against every memory of the store (deleted ones included, so a dropped
proposal does not come back) and are capped per session; the survivors are written through the
store like any memory, tagged ``source: auto-distilled`` with the commit in ``distilled_from``,
and held as ``pending``: never recalled until a person confirms them (``tether pending``).

At a session start, the commits read are those since the last run stopped (a mark kept in the
index), so sessions started side by side or in between never hide any.

The heuristic may be replaced by a configured command (an LLM CLI, say; the user's own setting,
never a repository's), given one commit as JSON on stdin and answering with JSON memories on
stdout; when it fails, the failure is reported and the heuristic takes over for the rest of the
run. Every word list and limit lives in :mod:`recall.distill_words`.

The modules: :mod:`~recall.distill.commits` (what is read), :mod:`~recall.distill.heuristic`
and :mod:`~recall.distill.command` (what is proposed), :mod:`~recall.distill.write` (what is
written), :mod:`~recall.distill.mark` (where a session start's run stopped).
"""

from __future__ import annotations

from recall.distill.command import CommandFailed, command_input, from_command
from recall.distill.commits import (
    Commit,
    Commits,
    head_commit,
    is_ancestor,
    latest_session,
    read_commits,
    resolve_commit,
    session_started,
    unread_notice,
)
from recall.distill.heuristic import (
    PATTERNS,
    Proposal,
    body_lines,
    category_of,
    clean_subject,
    heuristic,
    sentences,
)
from recall.distill.mark import (
    MARK_KEY,
    Unread,
    auto_distill,
    claim,
    mark_read,
    read_mark,
    read_up_to,
    release,
    unread,
)
from recall.distill.write import (
    DISTILLED_FROM_KEY,
    SOURCE,
    DistillReport,
    Notice,
    Outcome,
    distill,
    distilled_commits,
    is_tethers_own,
    pending,
    session_commits,
)

__all__ = [
    "DISTILLED_FROM_KEY",
    "MARK_KEY",
    "PATTERNS",
    "SOURCE",
    "CommandFailed",
    "Commit",
    "Commits",
    "DistillReport",
    "Notice",
    "Outcome",
    "Proposal",
    "Unread",
    "auto_distill",
    "body_lines",
    "category_of",
    "claim",
    "clean_subject",
    "command_input",
    "distill",
    "distilled_commits",
    "from_command",
    "head_commit",
    "heuristic",
    "is_ancestor",
    "is_tethers_own",
    "latest_session",
    "mark_read",
    "pending",
    "read_commits",
    "read_mark",
    "read_up_to",
    "release",
    "resolve_commit",
    "sentences",
    "session_commits",
    "session_started",
    "unread",
    "unread_notice",
]
