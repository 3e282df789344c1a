"""Front matter that reuses a list or mapping through YAML aliases (``&a [...]`` then ``*a``):
refused when a memory file is read. A few lines of aliases name a value billions of entries
long once written out (and an alias inside its own anchor, one without end), which an export,
a credential scan or any walk over the value would try to build."""

from __future__ import annotations

from typing import Any


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
