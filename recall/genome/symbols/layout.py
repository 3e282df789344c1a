"""What a formatter changes in source text, taken out before a definition is hashed: the
whitespace that parts no two words, a trailing comma before a bracket's closing line, and in
Python the lines split inside brackets, the quote style and the parentheses wrapped around a
whole condition, value or target."""

from __future__ import annotations

import re
from typing import Any, Final

_JOINED: Final = 1
"""The byte a line break inside brackets (or after a backslash) is marked with while lines are
cut: the line it ends continues on the next."""
_COMMA_BEFORE_CLOSER: Final = re.compile(rb",(?=[ \t\r\x01]*\n[\s\x01]*[)\]}])")
"""A comma ending a line whose next line closes the bracket (a formatter adds or takes it
away as it splits or joins the lines between the brackets)."""
_SPACE_BY_PUNCTUATION: Final = re.compile(rb" (?:(?=[^\w\x80-\xff])|(?<=[^\w\x80-\xff] ))")
_LINE: Final = b"\x03"
_SPLICE: Final = re.compile(rb"\\\r?\n")
"""A backslash ending a line: the line goes on on the next (C's macros; a formatter lines
the backslashes up or rewraps the macro)."""


def tight_text(data: bytes) -> bytes:
    """``data`` with whitespace kept only where it parts two words (one space there), a
    backslash that continues a line on the next taken out, and the trailing comma of a
    bracket's last line dropped: ``a + b`` and ``a+b`` read the same, and
    so do ``f(x, y)`` and the same call split one argument per line with a comma after ``y``.
    Only whitespace is judged, so ``"a , b"`` and ``"a,b"`` in a string read the same too."""
    return tightened(data, b" ".join(data.split()))


def tightened(data: bytes, squeezed: bytes) -> bytes:
    """:func:`tight_text` of ``data``, given its whitespace runs made one space (``squeezed``,
    which the first form's hash is made of too)."""
    spliced = b"\\\n" in data or b"\\\r\n" in data
    if spliced or _COMMA_BEFORE_CLOSER.search(data) is not None:
        data = _SPLICE.sub(b"", data) if spliced else data
        squeezed = b" ".join(_COMMA_BEFORE_CLOSER.sub(b"", data).split())
    return _SPACE_BY_PUNCTUATION.sub(b"", squeezed)


_PY_LITERAL: Final = re.compile(
    rb"""(\#[^\n]*|'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"
    |'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""",
    re.X | re.S,
)
"""A Python comment or string (with its quotes, whatever its prefix): where brackets, quotes
and line breaks are text, not code."""


def _bracket_steps() -> Any:
    import numpy as np

    steps = np.zeros(256, np.int32)
    steps[list(b"([{")] = 1
    steps[list(b")]}")] = -1
    return steps


_BRACKET_STEPS: Final = _bracket_steps()


def _double_quoted(literal: bytes) -> bytes:
    """A Python string written in single quotes as a formatter writes it in double quotes:
    a triple-quoted one gets three double quotes at each end, and a one-line one loses the
    escapes of its single quotes, which need none any more; one that holds a double quote is
    left as it is (a formatter leaves it too, rather than escape it)."""
    if literal[:3] == b"'''":
        inner = literal[3:-3]
        if b'"""' in inner or inner[-1:] == b'"':
            return literal
        return b'"""' + inner + b'"""'
    inner = literal[1:-1]
    if b'"' in inner:
        return literal
    return b'"' + inner.replace(b"\\'", b"'") + b'"'


def logical_lines(data: bytes) -> list[tuple[int, bytes]]:
    """Python source cut into logical lines, each as (indentation, :func:`tight_text`): lines
    inside brackets or after a backslash are joined to the line they continue, and a string
    written in single quotes that holds no double quote reads as written in double quotes (as
    a formatter rewrites it); blank lines are left out."""
    import numpy as np

    pieces = _PY_LITERAL.split(data)  # code, literal, code, ..., code
    for at in range(1, len(pieces), 2):
        literal = pieces[at]
        if literal[:1] == b"'":
            literal = _double_quoted(literal)
        pieces[at] = literal.replace(b"\n", b" ")  # a docstring's lines are text, not code
    code = np.frombuffer(
        b"".join(p if at % 2 == 0 else b" " * len(p) for at, p in enumerate(pieces)), np.uint8
    )
    depth = np.cumsum(_BRACKET_STEPS[code])
    breaks = code == ord("\n")
    continued = breaks & (depth > 0)
    escaped = breaks[1:] & (code[:-1] == ord("\\"))
    continued[1:] |= escaped
    text = np.frombuffer(b"".join(pieces), np.uint8).copy()
    text[continued] = _JOINED
    text[:-1][escaped] = ord(" ")
    joined = text.tobytes().replace(b"\x01", b"\x01\n")
    joined = _COMMA_BEFORE_CLOSER.sub(b"", joined).replace(b"\x01\n", b" ").expandtabs(8)
    lines = joined.split(b"\n")
    codes = _SPACE_BY_PUNCTUATION.sub(b"", b" ".join(joined.replace(b"\n", b" \x03 ").split()))
    return [
        (len(line) - len(line.lstrip()), _unwrapped(code))
        for line, code in zip(lines, codes.split(_LINE), strict=True)
        if code
    ]


_HEADERS: Final = (
    b"if(",
    b"elif(",
    b"while(",
    b"return(",
    b"assert(",
    b"del(",
    b"yield(",
    b"with(",
)
"""Python statements whose whole condition or value a formatter may wrap in parentheses (or
take them off), which changes nothing: parentheses make no tuple, commas do."""
_OPENS: Final = frozenset(b"([{")
_CLOSES: Final = frozenset(b")]}")


def _closing(code: bytes, at: int) -> int:
    """The index of the bracket closing the one at ``at`` in ``code`` (-1: none)."""
    depth = 0
    for index in range(at, len(code)):
        byte = code[index]
        if byte in _OPENS:
            depth += 1
        elif byte in _CLOSES:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _assignment(code: bytes) -> int:
    """The index of the ``=`` of an assignment statement in ``code`` (outside brackets, not
    part of ``==``, ``<=``, ``>=``, ``!=``, ``:=``, nor an annotation's), -1 when none."""
    depth = 0
    for index, byte in enumerate(code):
        if byte in _OPENS:
            depth += 1
        elif byte in _CLOSES:
            depth -= 1
        elif byte == 61 and depth == 0:  # "="
            before = code[index - 1 : index]
            after = code[index + 1 : index + 2]
            if after != b"=" and before not in (b"=", b"<", b">", b"!", b":"):
                return index
    return -1


def _unwrapped(code: bytes) -> bytes:
    """A logical line (as :func:`tight_text` leaves it) without the parentheses wrapped
    around a statement's whole condition or value, an assignment's whole value or its whole
    target, as a formatter adds them to split a long line and takes them off again."""
    if not code.startswith(_HEADERS) and b"=(" not in code and code[:1] != b"(":
        return code
    for header in _HEADERS:
        if code.startswith(header):
            at = len(header) - 1
            end = _closing(code, at)
            if end > at + 1 and code[end + 1 :] in (b"", b":"):
                inner = code[at + 1 : end]
                code = _SPACE_BY_PUNCTUATION.sub(b"", header[:-1] + b" " + inner + code[end + 1 :])
            return code
    equals = _assignment(code)
    if equals < 0:
        return code
    target, value = code[:equals], code[equals + 1 :]
    if value[:1] == b"(" and _closing(value, 0) == len(value) - 1 and len(value) > 2:
        value = value[1:-1]
    if target[:1] == b"(" and _closing(target, 0) == len(target) - 1 and len(target) > 2:
        target = target[1:-1]
    return target + b"=" + value
