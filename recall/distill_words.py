"""Auto-distill's judgement constants: the words that mark durable knowledge, and the limits.

Each constant is defined once, here, with the reason for its value; ``tests/distill`` pins them.
"""

from __future__ import annotations

from typing import Final

MAX_PER_SESSION: Final = 3
"""Most memories distilled from one session's commits (the seed's cap): a handful a person
reviews in a minute; more would be a chore, and then a store nobody audits."""

DEFAULT_CATEGORIES: Final = ("gotcha", "decision")
"""Categories distill may write unless configured otherwise: a commit message is where traps
and reasons get written down; preferences and background rarely are, and a wrong guess at one
would steer every later session."""

SWEEP_FILES: Final = 20
"""A commit touching more files than this is a sweep (reformat, rename, vendoring); a memory
tied to all of them would surface everywhere and mean nothing in particular. (Not the genome's
``MAX_COMMIT_FILES``: co-change can learn from wider commits than a memory can be tied to.)"""

MAX_COMMITS: Final = 200
"""Most commits read per run (the oldest first; the rest wait for the next run): a session
makes a few; a wider ``--since`` range is cut here rather than reading a whole history."""

SUMMARY_MAX: Final = 120
"""Longest distilled summary, in characters: a summary is one line in an injection block."""

DETAILS_MAX: Final = 600
"""Longest distilled details: the sentence that carries the knowledge, not the whole message."""

COMMAND_TIMEOUT: Final = 60.0
"""Seconds a configured distill command gets per commit: an LLM call takes seconds, now and then
tens of them; one still running after a minute is stuck. Only callers that can wait that long
run the command (``tether distill``, ``tether session start``, the language server's start
pass, which runs in the background); a session-start hook, killed by the agent after a few
seconds, never does (``recall.lifecycle.session_start.NO_COMMAND_ORIGINS``)."""

# The patterns below are pattern text, compiled by the heuristic that matches them: settings
# read the limits above in every hook, which has no use for compiling them.

# Words that mark a sentence as durable knowledge, by the category it suggests. Matched as whole
# words, case-insensitively; a straight or curly apostrophe both work. The first category in
# this order that a message carries wins: a warning matters more than a reason, a reason more
# than a taste.
KEYWORDS: Final[dict[str, tuple[str, ...]]] = {
    # A trap: what breaks, what to do or never do about it.
    "gotcha": (
        "never",
        "don't",
        "do not",
        "dont",
        "must",
        "must not",
        "mustn't",
        "always",
        "workaround",
        "work around",
        "gotcha",
        "careful",
        "beware",
        "pitfall",
        "caveat",
        "breaks if",
        "otherwise",
    ),
    # A choice and its reason.
    "decision": (
        "because",
        "why",
        "chose",
        "chosen",
        "choose",
        "decided",
        "decision",
        "instead of",
        "rather than",
        "trade-off",
        "tradeoff",
        "so that",
    ),
    # A way of working someone wants kept.
    "pref": ("prefer", "preferred", "convention", "by convention"),
    # Background a reader needs.
    "context": ("note that", "for context", "background", "historically"),
}

# Commits about history, not knowledge, known by what git itself writes, never by a word a
# subject happens to start with ("Merge sort must be stable", "Revert to polling" are
# knowledge): a merge by its parents; the subjects ``git commit --fixup``, ``--squash`` and
# ``--fixup=amend:`` write, exactly as ``git rebase --autosquash`` reads them (lower case,
# then a space); a revert by the line ``git revert`` writes in its body (the full id, or
# with ``--reference`` an abbreviated one), or by the subject it writes (``Revert "…"``).
FOLD_PREFIXES: Final = ("fixup! ", "squash! ", "amend! ")
REVERT_LINE: Final = r"(?m)^This reverts commit [0-9a-f]{4,40}\b"
REVERT_SUBJECT: Final = 'Revert "'

# What distill says of a commit it skips as history, by its kind (a fold prefix without its
# space): the kind of commit and why it holds no knowledge of its own, so a skipped fixup is
# not taken for a message the heuristic read and found empty.
HISTORY_REASONS: Final = {
    "revert": "a revert commit, restating the commit it undoes: no knowledge of its own",
    "fixup!": "a fixup! commit, to be folded into the commit it fixes: no knowledge of its own",
    "squash!": "a squash! commit, to be folded into the commit it names: no knowledge of its own",
    "amend!": "an amend! commit, to be folded into the commit it rewrites: no knowledge of its own",
    "merge": "a merge commit, joining commits read on their own: no knowledge of its own",
}

# Trailer lines (``Signed-off-by: ...``) name people, not knowledge.
TRAILER: Final = r"(?i)^[A-Za-z][A-Za-z-]*-by:\s|^Change-Id:\s"

# A Conventional Commits prefix (``fix(auth)!: ``) says what kind of change, not what is known.
# Only the types of that convention: a subsystem prefix (``ip:``, ``tc/police:``, ``man8:``)
# says where the knowledge applies and is kept.
CONVENTIONAL_PREFIX: Final = (
    r"(?i)^(?:feat|fix|docs|style|refactor|perf|tests?|build|ci|chore|revert|deps)"
    r"(?:\([^)]*\))?!?:\s+"
)

# A summary starting with a plain lowercase word is a sentence and gets a capital; one starting
# with a code name (``bond_slave``, ``tc/police``, ``man8``, ``ip:``, ``getUser()``) keeps it
# exactly as written. An apostrophe between letters (don't, it's, can’t) is part of a word.
PLAIN_FIRST_WORD: Final = r"^[a-z]+(?:['\u2019][a-z]+)*(?=[\s,;!?]|$)"

# A commit adding a feature says why the feature is wanted; that reason is history, not a
# decision a later editor must respect, so a feature commit is never proposed as a decision
# (a warning in it still makes a gotcha). Subsystem prefixes before the verb are looked past.
FEATURE_SUBJECT: Final = (
    r"(?i)^(?:feat(?:\([^)]*\))?!?:\s+|(?:[\w./+-]+:\s+)*"
    r"(?:add|adds|added|adding|implement|implements|introduce|introduces|support|supports"
    r"|extend|extends|enable|enables|new)\b)"
)

# What distill says of a feature commit it passes over though a decision word is in it: the
# rule above, and how to keep a reason that does bind later work, so the skip is not taken for
# a message the heuristic found empty.
FEATURE_REASON: Final = (
    "a feature commit: its reasons (because, rather than…) say why the feature was wanted, "
    "history rather than a decision to respect, so distill proposes none from it; if this one "
    "binds later work, write it with `tether remember`"
)

# The trailing references (``(#123)``, ``[JIRA-42]``, both: ``(#12) [ABC-1]``) point elsewhere;
# the summary stands alone.
TRAILING_REFERENCE: Final = r"(?:\s*(?:\(#\d+\)|\[[A-Z][A-Z0-9]*-\d+\]|#\d+))+\s*$"

# Abbreviations whose period ends no sentence (``over e.g. LevelDB``), lowercase as matched: a
# sentence cut there would leave the details a fragment. ``etc.`` ends a sentence now and then,
# but two sentences kept together lose less than one cut in the middle.
ABBREVIATIONS: Final = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "viz.", "incl.", "approx.", "esp.")
