"""The secret scan of what a memory names rather than says: its file paths, author and
anchors, which are written into the committed front matter as given.

A name is not prose: a path may hold any word, a long hex run or ``key=`` in a file name, so
only the token shapes a vendor marks with a prefix of its own are looked for in names.
"""

from __future__ import annotations

from collections.abc import Iterable

NAME_SECRET_TYPES = frozenset(
    {
        "AWS Access Key",
        "GitHub Token",
        "GitLab Token",
        "Slack Token",
        "Stripe Access Key",
        "OpenAI Token",
        "PyPI Token",
        "SendGrid API Key",
        "Square OAuth Secret",
        "OpenAI key",
        "Anthropic key",
        "Google API key",
        "npm token",
        "GitHub token",
        "Hugging Face token",
    }
)
"""The secret types (as their plugins name them) looked for in a name: each starts with a
vendor's own prefix (``AKIA``, ``ghp_``, ``sk_live_``), which no ordinary path or symbol has.
The others (keyword assignments, long hex or base64 runs, Twilio's ``AC`` and 32 characters)
match file names of hashes and generated code."""


CLEAN_NAMES_KEPT = 100_000
"""How many names found clean are remembered, so a bulk import scans each path once, not once
per memory naming it (a history names each of its files some 14 times); a few MiB at most."""

_CLEAN: set[str] = set()


def name_matches(names: Iterable[tuple[str, str]]) -> list[str]:
    """Each vendor token in names (label, text), as ``kind (excerpt) in label``: the token
    masked, and the name it is in given by its label only (it holds the token)."""
    from recall import secrets_scan  # its patterns are compiled for writes only

    names = list(names)
    fresh = [text for _, text in names if text not in _CLEAN]
    if not fresh:
        return []
    # one scan of them all for the common case, where none holds a token
    if not secrets_scan.scan("\n".join(fresh), kinds=NAME_SECRET_TYPES):
        if len(_CLEAN) + len(fresh) > CLEAN_NAMES_KEPT:
            _CLEAN.clear()
        _CLEAN.update(fresh)
        return []
    return [
        f"{match.describe()} in {label}"
        for label, text in names
        for match in secrets_scan.scan(text, kinds=NAME_SECRET_TYPES)
    ]


def name_refusal(names: Iterable[tuple[str, str]], *, override: str | None = None) -> str | None:
    """The refusal for the names (label, text) holding a vendor token (see
    :func:`name_matches`), or None; ``override`` says how to write them anyway (default: the
    CLI's flag)."""
    from recall import secrets_scan

    parts = name_matches(names)
    if not parts:
        return None
    return (
        f"refusing to write what looks like a credential: {'; '.join(parts)}. Remove it, "
        f"or {override or secrets_scan.OVERRIDE_ADVICE}"
    )


def labelled(
    files: Iterable[str], author: str | None, anchor: str | None, symbols: Iterable[str]
) -> list[tuple[str, str]]:
    """The names of a memory, each with the label a refusal gives it."""
    names = [(f"file {n}", path) for n, path in enumerate(files, start=1)]
    names += [("author", author or ""), ("anchor", anchor or "")]
    names += [(f"anchor {n}", symbol) for n, symbol in enumerate(symbols, start=1)]
    return [(label, text) for label, text in names if text]
