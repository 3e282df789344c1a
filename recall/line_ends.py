"""Line ends as the Language Server Protocol counts them: ``\\r\\n``, ``\\r`` and ``\\n`` each end
a line.

tree-sitter, and every piece of code here that counts ``\\n``, agree with that for text written
with ``\\n`` or ``\\r\\n`` ends, but read a lone ``\\r`` (old Mac line ends, or a file of mixed
ends) as an ordinary character: a whole file of them is one line. Giving them
:func:`lone_cr_as_lf` of the text instead settles it in one place: each lone ``\\r`` becomes a
``\\n``, the text keeps its length (every offset and column holds), and its ``\\n`` are then
exactly the line breaks an editor counts.
"""

from __future__ import annotations

import re
from typing import AnyStr

_LONE_CR = re.compile(r"\r(?!\n)")
_LONE_CR_BYTES = re.compile(rb"\r(?!\n)")


def lone_cr_as_lf(text: AnyStr) -> AnyStr:
    """``text`` with each ``\\r`` not followed by ``\\n`` made a ``\\n``; ``text`` itself when
    it holds none (a text without ``\\r`` costs one scan for it, no copy)."""
    if isinstance(text, str):
        return text if "\r" not in text else _LONE_CR.sub("\n", text)
    return text if b"\r" not in text else _LONE_CR_BYTES.sub(b"\n", text)
