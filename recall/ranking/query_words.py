"""The words of a prompt the text channel asks for, with the parts of camelCase identifiers.

The word index splits ``nm_device_wifi`` into its words (``_`` separates tokens) but keeps
``NMDeviceWifi`` whole as ``nmdevicewifi``; a prompt naming the type then finds no memory
that wrote the functions' snake_case names or the words apart. The parts of a camelCase or
PascalCase word of the prompt are asked for beside the whole word (``W.SPLIT_CAMEL_CASE``).
"""

from __future__ import annotations

import re
from typing import Final

from recall.index import fts
from recall.ranking import weights as W

_CAMEL: Final = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_HUMP: Final = re.compile(r"[a-z][A-Z]")
"""A lower-case letter before an upper-case one: camelCase, where "IPv6" or "IPsec" is a
name written with capitals, not words joined."""


def prompt_words(text: str) -> list[str]:
    """The prompt's word tokens (as the index tokenizes them, in order, no repeats, none
    shorter than ``W.MIN_WORD_CHARS``), then the parts of each camelCase word (one with a
    lower-case letter before an upper-case one)."""
    words = fts.word_tokens(text)
    if W.SPLIT_CAMEL_CASE:
        for chunk in fts.WORD.findall(text):
            if chunk.isascii() and _HUMP.search(chunk):
                parts = [part.lower() for part in _CAMEL.findall(chunk)]
                if len(parts) > 1:
                    words.extend(part for part in parts if part not in words)
    return [word for word in words if len(word) >= W.MIN_WORD_CHARS]
