"""The secret scan of what a memory names rather than says: its file paths, author and
anchors, which are written into the committed front matter as given.

A name is not prose: a path may hold any word, a long hex run or ``key=`` in a file name, so
only the token shapes a vendor marks with a prefix of its own are looked for in names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recall.model import Memory

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


def names_of(memory: Memory) -> list[tuple[str, str]]:
    """The names ``memory`` gives (its files, author, anchor, and its anchors with the text
    of their own keys), each labelled as a refusal labels it."""
    symbols = [anchor.text for anchor in memory.anchors]
    symbols += [
        value
        for anchor in memory.anchors
        for value in anchor.extra.values()
        if isinstance(value, str)
    ]
    return labelled(memory.files, memory.author, memory.anchor, symbols)


def masked_name(text: str) -> str:
    """``text``, a name, with each vendor token in it masked (``AKIAIOSF…[20 chars]``)."""
    from recall.secret_masking import masked  # the scanner: only for a memory holding one

    return masked(text, NAME_SECRET_TYPES) if text else text


def masked_names(memory: Memory) -> dict[str, Any]:
    """The fields of ``memory`` naming something (:func:`names_of`) that hold a vendor token,
    each with it masked, for :meth:`~recall.model.Memory.with_changes`; none when none do."""
    changes: dict[str, Any] = {}
    if masked_name(memory.author) != memory.author:
        changes["author"] = masked_name(memory.author)
    files = tuple(masked_name(path) for path in memory.files)
    if files != memory.files:
        changes["files"] = files
    anchors = tuple(
        replace(
            anchor,
            path=masked_name(anchor.path),
            name=masked_name(anchor.name),
            extra={k: masked_name(v) if isinstance(v, str) else v for k, v in anchor.extra.items()},
        )
        for anchor in memory.anchors
    )
    if any(
        a.text != b.text or a.extra != b.extra for a, b in zip(anchors, memory.anchors, strict=True)
    ):
        changes["anchors"] = anchors
    return changes
