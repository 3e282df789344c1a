"""File names the genome can keep: git allows any bytes, a memory only valid UTF-8."""

from __future__ import annotations


def is_utf8(text: str) -> bool:
    """Tell whether ``text`` (decoded with surrogate escapes) was valid UTF-8."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
