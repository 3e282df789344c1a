"""The credential check of what a person gives a write: the summary, details and anchor as
typed and as a reader sees them (a token split by a character no one sees is still one), and
the names it writes into the front matter (files, author, anchors; :mod:`recall.secret_names`).
Every write runs it (:meth:`recall.store.MemoryStore.prepare_memory`), and so does the editor
before it puts given text into a draft file."""

from __future__ import annotations

from collections.abc import Iterable

from recall.errors import BadInput


def refuse_credentials(
    *,
    summary: str | None,
    details: str | None,
    anchor: str | None,
    files: Iterable[str] = (),
    author: str | None = None,
    symbols: Iterable[str] = (),
    override: str,
) -> None:
    """Raise :class:`BadInput` naming each credential-shaped text found (masked) and the field
    it is in, ending with ``override``: how the caller writes it anyway."""
    from recall import secrets_scan  # its patterns are compiled for writes only
    from recall.secret_names import labelled, name_refusal
    from recall.text_checks import seen_text

    texts = {"summary": summary, "details": details, "anchor": anchor}
    refused = secrets_scan.refusal(texts, override=override)
    # as read, once the characters no one sees are taken out: a zero-width space or a control
    # inside a token hides it from the scan, not from a reader
    seen = {key: seen_text(text) for key, text in texts.items()}
    seen = {key: text for key, text in seen.items() if text is not None}
    if not refused and seen:
        refused = secrets_scan.refusal(seen, override=override)
    if not refused:
        refused = name_refusal(labelled(files, author, anchor, symbols), override=override)
    if refused:
        raise BadInput(refused)
