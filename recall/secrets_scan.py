"""Spot credential-shaped text before it is written into a memory (which is committed to git).

:func:`scan` returns what matched — a kind and a masked excerpt, never the full secret — so the
refusal can say what to remove without echoing the credential back into a terminal or a log.
Every pattern is here, each with the reason it looks the way it does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The override a person passes to write a memory that matched anyway.
OVERRIDE_FLAG = "--allow-secret"

# Characters of a matched secret shown in a refusal: enough to find it in the text, too few to
# use it. Known prefixes (``AKIA``, ``ghp_``) are part of the kind, not of the secret.
SHOWN_CHARS = 4

# A value in ``password = VALUE`` shorter than this is a placeholder or a type name
# (``token: string``), not a credential.
MIN_ASSIGNED_LENGTH = 8

# Values in an assignment that point somewhere else instead of holding the secret themselves:
# environment lookups, template slots, masks. Writing *where* a secret lives is the useful kind
# of memory and must not be refused.
_PLACEHOLDER = re.compile(
    r"""^(?:
        [$<{%]                              # ${VAR}, $VAR, <your-token>, {{ secret }}, %(pw)s
      | (?:os\.)?environ | getenv | process\.env | env\(   # lookups in code
      | (?:\*|x|X|\.|-|_|\#){4,}$            # ****, xxxx: already masked
      | (?:changeme|example|dummy|placeholder|redacted|none|null|true|false)\b
    )""",
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class SecretMatch:
    """One credential-shaped span: what kind it is and a masked excerpt of it."""

    kind: str
    excerpt: str

    def describe(self) -> str:
        """``kind (excerpt)`` for a message."""
        return f"{self.kind} ({self.excerpt})"


def _mask(secret: str, prefix: str = "") -> str:
    shown = secret[: min(SHOWN_CHARS, len(secret) // 4)]
    return f"{prefix}{shown}…[{len(prefix) + len(secret)} chars]"


# (kind, pattern, group holding the secret part to mask, group holding a prefix shown as-is).
# Order matters: specific shapes first, so an AWS secret is named as one and not as a generic
# assignment (overlapping later matches are dropped).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # The armour line alone is enough: no one needs a private key inside a committed note, and
    # a truncated paste is just as much a leak as a whole one.
    (
        "private key block",
        re.compile(r"-----BEGIN (?P<pre>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"),
    ),
    # AWS access key ids: AKIA (long-term) or ASIA (temporary) plus 16 upper-case base32 chars.
    ("AWS access key id", re.compile(r"\b(?P<pre>AKIA|ASIA)(?P<secret>[A-Z2-7]{16})\b")),
    # AWS secret access keys are 40 base64 chars with no marker of their own; only the name
    # they are assigned to gives them away.
    (
        "AWS secret access key",
        re.compile(
            r"(?i)\baws_?secret(?:_?access)?_?key[\"']?\s*(?::=|[:=])\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    # GitHub tokens: classic (ghp_ personal, gho_ OAuth, ghu_/ghs_ app, ghr_ refresh) are 36
    # chars after the prefix; fine-grained ones start github_pat_.
    ("GitHub token", re.compile(r"\b(?P<pre>gh[pousr]_)(?P<secret>[A-Za-z0-9]{36,})\b")),
    ("GitHub token", re.compile(r"\b(?P<pre>github_pat_)(?P<secret>[A-Za-z0-9_]{22,})\b")),
    # Slack tokens: xoxb- bot, xoxp- user, xoxa-/xoxr- app and refresh, xoxs- session.
    ("Slack token", re.compile(r"\b(?P<pre>xox[bpars]-)(?P<secret>[A-Za-z0-9-]{10,})")),
    # An HTTP bearer credential: long enough (20+) that it is not a word in a sentence about
    # "Bearer authentication"; the digit check below rules out long plain words.
    (
        "bearer token",
        re.compile(r"\b(?P<pre>Bearer\s+)(?P<secret>[A-Za-z0-9\-._~+/]{20,}=*)"),
    ),
    # name = value, where the name says it holds a credential. The keyword must sit inside an
    # identifier followed by an assignment, so prose ("password reset flow", "token bucket") and
    # comparisons (``==``) never match; the value is checked further in :func:`_real_value`.
    (
        "assigned credential",
        re.compile(
            r"(?i)(?P<pre>\b[\w-]*?(?:api[_-]?key|token|secret|passw(?:or)?d|passwd)[\w-]*)"
            r"[\"']?\s*(?::=|[:=])(?!=)\s*"
            r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s\"',;()]+))"
        ),
    ),
)


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _real_value(match: re.Match[str]) -> str | None:
    """The assigned value if it looks like a credential, else None."""
    quoted = match.group("dq") if match.group("dq") is not None else match.group("sq")
    value = quoted if quoted is not None else match.group("bare")
    if value is None or len(value) < MIN_ASSIGNED_LENGTH or _PLACEHOLDER.match(value):
        return None
    if len(set(value)) < 4:  # aaaaaaaa, 12121212: a filler, not a secret
        return None
    if quoted is None:
        # Unquoted, a credential mixes letters and digits; a bare word is a type or a name
        # (``token: Optional``, ``secret=settings.SECRET_V2``, ``token=make2(user)``).
        calls = match.string[match.end() : match.end() + 1] == "("
        if calls or not _has_digit_and_letter(value) or re.fullmatch(r"\w+(?:\.\w+)+", value):
            return None
    elif " " in value.strip() and len(value.split()) > 2:
        return None  # a quoted sentence ("password: 'use the reset flow'") is prose
    return value


def scan(text: str | None) -> list[SecretMatch]:
    """Every credential-shaped span in ``text``, in order, masked; empty when clean."""
    if not text:
        return []
    found: list[tuple[int, SecretMatch]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            groups = match.groupdict()
            if kind == "private key block":
                excerpt = f"-----BEGIN {groups['pre']}-----"
            elif kind == "assigned credential":
                value = _real_value(match)
                if value is None:
                    continue
                excerpt = f"{groups['pre']} = {_mask(value)}"
            else:
                secret = groups["secret"]
                if kind == "bearer token" and not any(c.isdigit() for c in secret):
                    continue
                excerpt = _mask(secret, groups.get("pre") or "")
            taken.append((start, end))
            found.append((start, SecretMatch(kind, excerpt)))
    found.sort(key=lambda item: item[0])
    return [m for _, m in found]


def refusal(where: dict[str, str | None]) -> str | None:
    """The refusal message for the first fields (name → text) holding a secret, or None."""
    parts = []
    for label, text in where.items():
        parts.extend(f"{m.describe()} in {label}" for m in scan(text))
    if not parts:
        return None
    return (
        f"refusing to write what looks like a credential: {'; '.join(parts)}. "
        f'Remove it, or pass {OVERRIDE_FLAG} ("allow_secret": true on an import line) '
        "if it is not a secret"
    )
