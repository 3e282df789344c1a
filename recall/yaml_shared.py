"""Front matter that reuses a list or mapping through YAML aliases (``&a [...]`` then ``*a``),
or text so often that it reads as far more than is written: refused when a memory file is
read. A few lines of aliases name a value billions of entries long once written out (and an
alias inside its own anchor, one without end), which an export, a credential scan or any walk
over the value would try to build."""

from __future__ import annotations

from typing import Any, Final

EXPANDED_FLOOR: Final = 64 * 1024
"""Characters of text front matter may read as whatever it is written in: a hand-written
memory's front matter is a few hundred, so this never stops one, aliases or none."""

EXPANSION_FACTOR: Final = 4
"""Times its written length that front matter may read as past the floor: text named again
through an alias a few times is fine; an export line hundreds of times the file is not."""


def shared_key(fields: dict[str, Any]) -> str | None:
    """The first key of ``fields`` whose value reaches one list or mapping twice (through an
    alias: YAML builds an aliased value once and shares it), or a list or mapping holding
    itself; None when every list and mapping is reached once. Shared text is left alone: it
    is never expanded."""
    seen: set[int] = set()
    for key, value in fields.items():
        pending = [value]
        while pending:
            item = pending.pop()
            if not isinstance(item, list | dict):
                continue
            if id(item) in seen:
                return key
            seen.add(id(item))
            pending.extend(item.values() if isinstance(item, dict) else item)
    return None


def shared_message(key: str) -> str:
    """What to say of a file whose ``key`` reuses a list or mapping through an alias."""
    return (
        f"{key!r} reuses a list or mapping through a YAML alias (*name), which is not read in a "
        "memory file (a few such lines can stand for a value too large to build); write the "
        "value out in full"
    )


def expanded_key(fields: dict[str, Any], written: int) -> tuple[str, int] | None:
    """The key of ``fields`` (front matter ``written`` characters long, whose lists and
    mappings are each reached once: :func:`shared_key`) at which its text, each alias counted
    where it is used, grows past :func:`expansion_limit`, with the length reached there; None
    when it stays within. Nothing is expanded: lengths are added up."""
    limit = expansion_limit(written)
    total = 0
    for key, value in fields.items():
        pending = [key, value]
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                pending.extend(item.keys())
                pending.extend(item.values())
            elif isinstance(item, list):
                pending.extend(item)
            else:
                total += len(item) if isinstance(item, str) else len(str(item))
        if total > limit:
            return key, total
    return None


def expansion_limit(written: int) -> int:
    """Characters front matter ``written`` characters long may read as."""
    return max(EXPANDED_FLOOR, EXPANSION_FACTOR * written)


def expanded_message(key: str, size: int, written: int) -> str:
    """What to say of a file whose ``key`` brings its front matter, ``written`` characters,
    to ``size`` characters read, through text reused by aliases."""
    return (
        f"{key!r} reuses text through YAML aliases (*name) so often that the front matter, "
        f"{written:,} characters as written, reads as {size:,} by the end of that key (at most "
        f"{EXPANSION_FACTOR} times what is written, or {EXPANDED_FLOOR // 1024} KiB, is read "
        "in a memory file); write the text out once, or in full where it is needed"
    )
