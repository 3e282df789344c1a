"""A command's ``--json`` output: strict JSON on one line, with nothing in it a terminal would
act on."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from recall.display import unseen_at
from recall.json_values import finite, json_value


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, date | bytes | set | frozenset):  # as YAML read a hand-written key
        return json_value(value)[0]
    raise TypeError(f"cannot serialize {type(value).__name__}")


def json_text(data: Any) -> str:
    """``data`` as one line of JSON, non-ASCII text kept as it is but for the characters a
    terminal must not be given (see :func:`recall.display.is_unseen`): JSON escapes only the
    C0 controls itself, and a C1 control or a bidi override read from a memory file would
    otherwise reach the terminal a ``--json`` command prints on. The value read back is the
    same. A value JSON cannot hold that a memory file's front matter gave (a date, binary data,
    a NaN) is written as :func:`recall.json_values.json_value` gives it: the output is strict
    JSON."""
    try:
        text = json.dumps(data, default=_json_default, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a NaN or an infinity, which the default hook is never asked about
        text = json.dumps(
            finite(data), default=lambda value: finite(_json_default(value)), ensure_ascii=False
        )
    spots = [at for at in unseen_at(text) if text[at] >= "\x7f"]  # json.dumps escaped the C0s
    if not spots:
        return text
    escaped = list(text)
    for at in spots:
        escaped[at] = _json_escape(text[at])
    return "".join(escaped)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON writes the others as a surrogate pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"
