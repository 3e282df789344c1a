"""One line of JSON read strictly: an object giving a key twice is refused, never resolved.

Python's json keeps the last of two values for one key, so a line holding both would be taken
as one of them without a word; which one was meant cannot be told. ``tether import`` and
``tether recall --batch`` read their lines with :func:`read_line`."""

from __future__ import annotations

import json
from typing import Any

from recall.errors import BadInput


class _DuplicateKey(ValueError):
    """A JSON object of the line gives one key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``, refused when a key comes twice (json would keep the last)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


# Made once: json.loads given a hook would make a decoder for every line.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def read_line(raw: str) -> Any:
    """The JSON value of one line; :class:`BadInput` saying what is wrong, and at which column,
    when it is not JSON, or that an object in it gives a key twice (which one was meant cannot
    be told)."""
    try:
        return _DECODER.decode(raw)
    except json.JSONDecodeError as error:
        # the column says where on a long line the fault is (json counts from 1)
        raise BadInput(
            f"bad JSON at column {error.colno}: {error.msg}; each line is one JSON object"
        ) from None
    except _DuplicateKey as error:
        raise BadInput(
            f"key {error.key!r} is given twice on this line; keep the one you mean"
        ) from None
