"""Messages that quote what a person gave, with any credential in it masked: a refusal of an
unknown category or an id that is not one must not print a secret whole. The same masking
shows a memory to an agent when its file holds a credential (:mod:`recall.agent_text`)."""

from __future__ import annotations

from recall.secrets_scan import mask, secret_spans


def masked(text: str, kinds: frozenset[str] | None = None) -> str:
    """``text`` with every credential-shaped span masked as a credential refusal shows it
    (``ghp_Zk3Z…[40 chars]``); ``text`` itself when it holds none. ``kinds`` keeps to those
    secret types (:data:`recall.secret_names.NAME_SECRET_TYPES` for a name)."""
    spans = secret_spans(text, kinds)
    if not spans:
        return text
    lines = text.splitlines(keepends=True)
    by_line: dict[int, list[tuple[int, int]]] = {}
    for number, start, end in spans:
        by_line.setdefault(number, []).append((start, end))
    for number, found in by_line.items():
        line = lines[number]
        merged: list[list[int]] = []
        for start, end in sorted(found):  # overlapping spans masked as one
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        for start, end in reversed(merged):
            line = line[:start] + mask(line[start:end]) + line[end:]
        lines[number] = line
    return "".join(lines)


def holds_credential(text: str | None) -> bool:
    """Whether ``text`` holds a credential-shaped span: one :func:`masked` would mask, and the
    credential scan of a write would refuse."""
    return bool(text and text.strip() and secret_spans(text))
