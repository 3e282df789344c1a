"""Front-matter values as text: each scalar written plain when YAML reads it back as the same
string, double-quoted otherwise, and a key with its value as the lines of a memory file."""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml


_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./@+-]*$")
_STR_TAG = "tag:yaml.org,2002:str"
# PyYAML's emitter writes these raw when allow_unicode is on, yet reads them back as line
# breaks (or drops the BOM); a dump holding any of them is redone with escapes.
_RAW_UNSAFE = ("\x85", "\u2028", "\u2029", "\ufeff")
_LINE_BREAKS = {"\n": "\\n", "\r": "\\r", "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P"}


@functools.cache
def _resolver() -> yaml.resolver.Resolver:
    import yaml  # on first use, see unique_keys_loader

    return yaml.resolver.Resolver()


def _is_printable(ch: str) -> bool:
    code = ord(ch)
    return (
        code in (0x09, 0x0A, 0x0D, 0x85)
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ) and code != 0xFEFF


@functools.cache
def _needs_escape() -> re.Pattern[str]:
    """Anything outside YAML's printable set, plus the quote and backslash, needs an escape.

    Compiled on first use: its wide ranges take milliseconds, and only a write quotes."""
    return re.compile(
        r'[^\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|["\\]'
    )


def quote(value: str) -> str:
    """Render a string as a YAML double-quoted scalar that loads back to exactly ``value``."""
    if not _needs_escape().search(value):
        return f'"{value}"'
    out = ['"']
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch in _LINE_BREAKS:
            out.append(_LINE_BREAKS[ch])
        elif ch == "\t":
            out.append("\\t")
        elif not _is_printable(ch):
            code = ord(ch)
            if code <= 0xFF:
                out.append(f"\\x{code:02X}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04X}")
            else:
                out.append(f"\\U{code:08X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _float(value: float) -> str:
    """A float as YAML 1.1 reads it back: ``.inf``/``.nan``, and a dot before any exponent."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text and "." not in text:
        text = text.replace("e", ".0e", 1)
    return text


def scalar(value: Any) -> str:
    """Render a scalar for front matter: plain when unambiguous, double-quoted otherwise."""
    if type(value) is str:  # most values: checked first
        return _text(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        return _float(value)
    return _text(str(value))


@functools.lru_cache(maxsize=8192)
def _text(text: str) -> str:
    """A string rendered for front matter (cached: a history's imports name the same
    categories, authors and files in thousands of memories)."""
    return text if _plain_ok(text) else quote(text)


@functools.lru_cache(maxsize=4096)
def _plain_ok(text: str) -> bool:
    """Whether ``text`` can be written unquoted and still load back as the same string."""
    import yaml  # on first use, see unique_keys_loader

    return bool(
        _PLAIN_SAFE.fullmatch(text)  # `$` would also match before a final newline
        and not text.startswith(("-", "."))
        and _resolver().resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG
    )


SCALAR_TYPES = frozenset({str, bool, int, float, type(None)})
"""Values rendered on their key's line (exact types: a subclass takes the general path)."""


def render_value(key: str, value: Any) -> list[str]:
    """Render one top-level key and its value as front-matter lines."""
    if type(value) in SCALAR_TYPES:
        return [f"{scalar(str(key))}: {scalar(value)}"]
    nested = isinstance(value, list | tuple) and any(
        isinstance(item, list | tuple | dict) for item in value
    )
    if isinstance(value, dict) or nested:
        import yaml  # on first use, see unique_keys_loader

        data = {key: list(value) if nested else value}
        dumped = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        if any(ch in dumped for ch in _RAW_UNSAFE):
            dumped = yaml.safe_dump(data, allow_unicode=False, sort_keys=False)
        return dumped.rstrip("\n").split("\n")
    name = scalar(str(key))  # a key like `yes` or `null` must be quoted to stay a string
    if isinstance(value, list | tuple):
        if not value:
            return [f"{name}: []"]
        return [f"{name}:"] + [f"  - {scalar(item)}" for item in value]
    return [f"{name}: {scalar(value)}"]
