"""Values read from YAML front matter as JSON can hold them: a date, binary data, a NaN or a
set is written by hand unquoted (``reviewed: 2026-01-01``, ``note: .nan``), and every JSON
Tether writes (an export, ``--json``, the index's anchors column) must still be strict JSON."""

from __future__ import annotations

import base64
import math
from datetime import date
from typing import Any

from recall.frontmatter_render import scalar

NOT_FINITE = "a NaN or infinite number"
"""What :func:`json_value` says a NaN or an infinity held (written as front matter writes it,
``.nan``, ``-.inf``, as JSON has no such number)."""


def json_value(value: Any) -> tuple[Any, str | None]:
    """``value`` as JSON holds it, and what it held that JSON cannot (None: nothing, and the
    value is returned as it is)."""
    if value is None or isinstance(value, str | bool | int):
        return value, None
    if isinstance(value, float):
        return (value, None) if math.isfinite(value) else (scalar(value), NOT_FINITE)
    if isinstance(value, list | tuple):
        items = [json_value(item) for item in value]
        kind = next((k for _, k in items if k is not None), None)
        if isinstance(value, tuple) and kind is None:
            kind = "ordered pairs"
        return [item for item, _ in items], kind
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        kind = None
        for key, item in value.items():
            if not isinstance(key, str):
                key, kind = scalar(key), kind or "a key that is not text"
            out[key], found = json_value(item)
            kind = kind or found
        return out, kind
    if isinstance(value, date):  # a datetime too
        return value.isoformat(), "a YAML date"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii"), "binary data"
    if isinstance(value, set | frozenset):
        return json_value(sorted(value, key=repr))[0], "a set"
    return str(value), f"a {type(value).__name__}"


def finite(data: Any) -> Any:
    """``data`` with each NaN or infinite number in its lists and mappings written as text
    (:func:`json_value`'s ``.nan``), everything else left as it is: for a JSON writer that
    refuses them (Python's would write ``NaN``, which no strict reader takes)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else scalar(data)
    if isinstance(data, dict):
        return {key: finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite(item) for item in data]
    return data
