"""What a formatter changes in source text, taken out before a definition is hashed: the
whitespace that parts no two words (outside string literals, whose text is kept as written),
a trailing comma before a bracket's closing line, and in Python the lines split inside
brackets, the quote style and the parentheses wrapped around a whole condition, value or
target."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any, Final

_JOINED: Final = 1
"""The byte a line break inside brackets (or after a backslash) is marked with while lines are
cut: the line it ends continues on the next."""
_LINE: Final = b"\x03"
_KEPT: Final = b"\x08"
"""A space that stays: it parts two operators that would read as another one joined (``- -``
and ``--``), or a macro's name from the parenthesis of its value (``#define F (x)``)."""
_MARKERS: Final = bytes.maketrans(b"\x01\x03\x08", b"\x7f\x7f\x7f")
"""The marker bytes, made another byte where a source holds them, so they mark only."""
_KEEP_WHITESPACE: Final = bytes.maketrans(b" \t\n\r\x0b\x0c", b"\x10\x11\x12\x13\x14\x15")
"""A string literal's whitespace, as bytes no whitespace rule touches: its text is code."""

_COMMA_BEFORE_CLOSER: Final = re.compile(rb",(?=[ \t\r\x01]*\n[\s\x01]*[)\]}])")
"""A comma ending a line whose next line closes the bracket (a formatter adds or takes it
away as it splits or joins the lines between the brackets)."""
_SPACE_BY_PUNCTUATION: Final = re.compile(rb" (?:(?=[^\w\x80-\xff])|(?<=[^\w\x80-\xff] ))")
_OPERATOR_PAIR: Final = re.compile(rb"(?<=([-+&|<>*/=!%^:.])) (?=([-+&|<>*/=:.]))")
_JOINED_OPERATORS: Final = frozenset(
    {b"++", b"--", b"&&", b"||", b"//", b"/*", b"*/", b"<-", b".."}
)
"""Two operator characters that read as another operator once the space between goes."""
_SPACED_PAIR: Final = re.compile(
    b"|".join(re.escape(pair[:1] + b" " + pair[1:]) for pair in sorted(_JOINED_OPERATORS))
)
_SPLICE: Final = re.compile(rb"\\\r?\n")
"""A backslash ending a line: the line goes on on the next (C's macros; a formatter lines
the backslashes up or rewraps the macro)."""
_DEFINE: Final = re.compile(rb"(#[ \t]*define[ \t]+\w+)[ \t]+\(")
_LITERAL: Final = re.compile(
    rb"//[^\n]*|/\*.*?(?:\*/|\Z)"
    rb"|\"(?:\\.|[^\"\\\n])*+(?:\"|(?=\n)|\\?\Z)|'(?:\\.|[^'\\\n])*+(?:'|(?=\n)|\\?\Z)"
    rb"|`(?:\\.|[^`\\])*+(?:`|\\?\Z)",
    re.S,
)
"""A comment, or a string or character literal, of the C-like languages (a template or raw
string in backquotes may run over lines): comments are matched so that a quote in one starts
no literal; one never closed runs to the end of its line (or of the text), so that a lone
quote costs one pass, not one per quote after it."""


def tight_text(data: bytes) -> bytes:
    """``data`` with whitespace kept only where it parts two words (one space there), a
    backslash that continues a line on the next taken out, and the trailing comma of a
    bracket's last line dropped where the bracket holds another comma: ``a + b`` and ``a+b``
    read the same, and so do ``f(x, y)`` and the same call split one argument per line with a
    comma after ``y``. A string literal's text is kept as written (``" "`` is not ``""``), and
    so is a space between two operators that would join into another (``- -b``, ``--b``)."""
    return tightened(data, None)


def tightened(data: bytes, squeezed: bytes | None) -> bytes:
    """:func:`tight_text` of ``data``; ``squeezed`` is ``data`` with its whitespace runs made
    one space when the caller has it (the first form's hash is made of it)."""
    original = data
    data = data.translate(_MARKERS)
    if b"\\\n" in data or b"\\\r\n" in data:
        data = _SPLICE.sub(b"", data)
    if b"define" in data:
        data = _DEFINE.sub(rb"\1" + _KEPT + b"(", data)
    if b'"' in data or b"'" in data or b"`" in data:
        data = _LITERAL.sub(_kept_literal, data)
    data = _without_trailing_commas(data)
    if squeezed is None or data != original:
        squeezed = b" ".join(data.split())
    return tight_spaces(squeezed)


def _kept_literal(match: re.Match[bytes]) -> bytes:
    found = match.group()
    return found if found[:1] == b"/" else found.translate(_KEEP_WHITESPACE)


def tight_spaces(squeezed: bytes) -> bytes:
    """``squeezed`` (whitespace runs made one space) without the spaces next to punctuation,
    except between two operators that would join into another."""
    if b" " not in squeezed:
        return squeezed
    if _SPACED_PAIR.search(squeezed) is not None:  # rare; one search is cheaper than the sub
        squeezed = _OPERATOR_PAIR.sub(_kept_pair, squeezed)
    return _SPACE_BY_PUNCTUATION.sub(b"", squeezed).replace(_KEPT, b" ")


def _kept_pair(match: re.Match[bytes]) -> bytes:
    return _KEPT if match.group(1) + match.group(2) in _JOINED_OPERATORS else b" "


_OPENS: Final = frozenset(b"([{")
_CLOSES: Final = frozenset(b")]}")


def _without_trailing_commas(text: bytes) -> bytes:
    """``text`` without the comma that ends a bracket's last line where the bracket holds
    another comma of its own (``f(\\n a,\\n b,\\n)``); the only one stays, as it makes a
    one-element tuple (``(\\n a,\\n)`` is not ``(a)``)."""
    if _COMMA_BEFORE_CLOSER.search(text) is None:
        return text

    def replaced(match: re.Match[bytes]) -> bytes:
        depth = 0
        for index in range(match.start() - 1, -1, -1):
            byte = text[index]
            if byte in _CLOSES:
                depth += 1
            elif byte in _OPENS:
                if depth == 0:
                    return b","  # the bracket opens with no other comma in it
                depth -= 1
            elif byte == 44 and depth == 0:  # ","
                return b""
        return b","

    return _COMMA_BEFORE_CLOSER.sub(replaced, text)


_PY_LITERAL: Final = re.compile(
    rb"""(\#[^\n]*
    |'''(?:[^'\\]|\\.|'(?!''))*+(?:'''|\\?\Z)
    |\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*+(?:\"\"\"|\\?\Z)
    |'(?:\\.|[^'\\\n])*+(?:'|(?=\n)|\\?\Z)|"(?:\\.|[^"\\\n])*+(?:"|(?=\n)|\\?\Z))""",
    re.X | re.S,
)
"""A Python comment or string (with its quotes, whatever its prefix): where brackets, quotes
and line breaks are text, not code (one never closed runs to the end of its line, or of the
text for three quotes)."""


@cache
def _bracket_steps() -> Any:
    """Each byte's step in bracket depth (+1 opens, -1 closes), made on first use: numpy is
    not imported by the hooks that load this module but hash nothing."""
    import numpy as np

    steps = np.zeros(256, np.int32)
    steps[list(b"([{")] = 1
    steps[list(b")]}")] = -1
    return steps


def _double_quoted(literal: bytes, raw: bool) -> bytes:
    """A Python string written in single quotes as a formatter writes it in double quotes:
    a triple-quoted one gets three double quotes at each end, and a one-line one loses the
    escapes of its single quotes, which need none any more (not in a raw string, where the
    backslash is text); one that holds a double quote is left as it is (a formatter leaves it
    too, rather than escape it)."""
    if literal[:3] == b"'''":
        inner = literal[3:-3]
        if b'"""' in inner or inner[-1:] == b'"' or not literal.endswith(b"'''"):
            return literal
        return b'"""' + inner + b'"""'
    inner = literal[1:-1]
    if b'"' in inner or (raw and b"\\'" in inner):
        return literal
    return b'"' + inner.replace(b"\\'", b"'") + b'"'


def _python_string(literal: bytes, prefix: bytes) -> bytes:
    """A Python string's text as it is compared: quotes as a formatter writes them; in a
    triple-quoted one (a docstring, most often), the indentation its lines share after the
    first, the spaces that end its lines and those at its two ends are left out, as a
    formatter fixes them (and a docstring moves in and out with its function); every other
    space is kept, as bytes no whitespace rule touches."""
    if literal[:1] == b"'":
        literal = _double_quoted(literal, b"r" in prefix.lower())
    quotes = literal[:3] if literal[:3] in (b'"""', b"'''") else b""
    if quotes and literal.endswith(quotes) and len(literal) >= 6:
        inner = literal[3:-3]
        first, *rest = inner.split(b"\n")
        shared = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
        inner = b"\n".join([first.rstrip(), *(line[shared:].rstrip() for line in rest)])
        literal = quotes + inner.strip() + quotes
    return literal.translate(_KEEP_WHITESPACE)


def logical_lines(data: bytes) -> list[tuple[int, bytes]]:
    """Python source cut into logical lines, each as (indentation, :func:`tight_text`): lines
    inside brackets or after a backslash are joined to the line they continue, and a string
    written in single quotes that holds no double quote reads as written in double quotes (as
    a formatter rewrites it); blank lines are left out."""
    import numpy as np

    data = data.replace(b"\r\n", b"\n").translate(_MARKERS)
    pieces = _PY_LITERAL.split(data)  # code, literal, code, ..., code
    for at in range(1, len(pieces), 2):
        if pieces[at][:1] != b"#":
            prefix = pieces[at - 1][-2:]
            pieces[at] = _python_string(pieces[at], prefix if prefix.isalpha() else prefix[-1:])
    code = np.frombuffer(
        b"".join(p if at % 2 == 0 else b" " * len(p) for at, p in enumerate(pieces)), np.uint8
    )
    depth = np.cumsum(_bracket_steps()[code])
    breaks = code == ord("\n")
    continued = breaks & (depth > 0)
    escaped = breaks[1:] & (code[:-1] == ord("\\"))
    continued[1:] |= escaped
    text = np.frombuffer(b"".join(pieces), np.uint8).copy()
    text[continued] = _JOINED
    text[:-1][escaped] = ord(" ")
    joined = text.tobytes().replace(b"\x01", b"\x01\n")
    joined = _without_trailing_commas(joined)
    joined = joined.replace(b"\x01\n", b" ").expandtabs(8)
    lines = joined.split(b"\n")
    codes = tight_spaces(b" ".join(joined.replace(b"\n", b" \x03 ").split()))
    return [
        (len(line) - len(line.lstrip()), _unwrapped(code))
        for line, code in zip(lines, codes.split(_LINE), strict=True)
        if code
    ]


INDENT_STEP: Final = 4
"""The indentation one block level is hashed as (:func:`nested`): black's and PEP 8's, so
that code indented that way hashes as it did when each line's own indentation was hashed."""


def nested(lines: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """``lines`` (:func:`logical_lines`) with each indentation made its block depth times
    :data:`INDENT_STEP`, the depth read as Python reads it (a deeper line opens a block, a
    shallower one closes those deeper than it): re-indenting a definition from two spaces or
    a tab to four is no change. A line holding only a comment takes the depth of the code line
    after it (a formatter indents it so) and opens no block."""
    stack: list[int] = []
    depths: list[int | None] = []
    for indent, code in lines:
        if code.startswith(b"#"):
            depths.append(None)
            continue
        while stack and indent < stack[-1]:
            stack.pop()
        if not stack or indent > stack[-1]:
            stack.append(indent)
        depths.append(len(stack) - 1)
    after = depths[-1] if depths and depths[-1] is not None else 0
    out: list[tuple[int, bytes]] = []
    for (_, code), depth in zip(reversed(lines), reversed(depths), strict=True):
        after = after if depth is None else depth
        out.append((after * INDENT_STEP, code))
    out.reverse()
    return out


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
take them off), which changes nothing: parentheses make no tuple, commas do (``assert``
aside: ``assert (x, "why")`` asserts a tuple, always true)."""


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


def _outside_brackets(code: bytes) -> Iterator[tuple[int, int]]:
    """Each byte of ``code`` outside brackets, brackets left out, with its index."""
    depth = 0
    for index, byte in enumerate(code):
        if byte in _OPENS:
            depth += 1
        elif byte in _CLOSES:
            depth -= 1
        elif depth == 0:
            yield index, byte


def _top_level(code: bytes, wanted: int) -> int:
    """The index of the first byte ``wanted`` outside brackets in ``code``, -1 when none."""
    return next((index for index, byte in _outside_brackets(code) if byte == wanted), -1)


def _assignment(code: bytes) -> int:
    """The index of the ``=`` of an assignment statement in ``code`` (outside brackets, not
    part of ``==``, ``<=``, ``>=``, ``!=``, ``:=``, nor an annotation's), -1 when none."""
    for index, byte in _outside_brackets(code):
        if byte == 61:  # "="
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
                if header == b"assert(" and _top_level(inner, 44) >= 0:
                    return code  # a tuple asserted: always true, not the same statement
                code = tight_spaces(header[:-1] + b" " + inner + code[end + 1 :])
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
