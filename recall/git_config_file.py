"""The few settings of a repository's config file that decide where its work tree is
(``core.worktree``, ``core.bare``, ``extensions.worktreeConfig``), read as git reads them.

git reads these from the repository's own ``config`` (and a worktree's ``config.worktree``)
before anything else, without following includes. Its syntax has sections (``[core]``,
``[CORE]``, ``[core "sub"]``), keys in any case, values with quotes, escapes, comments and
lines continued by a backslash: each is read here as git's parser does. A file git would
refuse (a broken line) gives None: git fails there, and so every git command Tether runs.

GitPython's config reader would do, but importing it costs an agent's hook about 100 ms;
this module uses built-in modules only.
"""

from __future__ import annotations

_SPACE = b" \t\n\v\f\r"
_ESCAPED = {ord("t"): ord("\t"), ord("b"): ord("\b"), ord("n"): ord("\n")}
_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off", "")


class _Refused(Exception):
    """A line git's parser refuses."""


def settings(data: bytes) -> dict[str, str | None] | None:
    """Each ``section.key`` of ``data`` (section and key lowercased, a subsection as written)
    with its last value (None for a key written without ``=``); None when git would refuse
    the file."""
    try:
        return dict(_entries(data))
    except _Refused:
        return None


def is_true(value: str | None) -> bool | None:
    """A boolean setting's value as git takes it (a key without ``=`` is true); None when it
    is not one git accepts."""
    if value is None:
        return True
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    try:
        return int(word) != 0
    except ValueError:
        return None


def _entries(data: bytes) -> list[tuple[str, str | None]]:
    text = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    found: list[tuple[str, str | None]] = []
    section: str | None = None
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char in _SPACE:
            at += 1
        elif char in b"#;":
            newline = text.find(b"\n", at)
            at = end if newline < 0 else newline + 1
        elif char == ord("["):
            section, at = _header(text, at + 1)
        elif chr(char).isascii() and chr(char).isalpha():
            key, value, at = _assignment(text, at)
            if section is None:  # git: a key before any section
                raise _Refused
            found.append((f"{section}.{key}", value))
        else:
            raise _Refused
    return found


def _header(text: bytes, at: int) -> tuple[str, int]:
    """The section a ``[...]`` header starting at ``at`` (past the bracket) names, and where
    reading goes on (a key may follow on the same line)."""
    name = bytearray()
    while at < len(text):
        char = text[at]
        at += 1
        if char == ord("]"):
            return name.decode("ascii").lower(), at
        if char in _SPACE:
            return _subsection(text, at, name.decode("ascii").lower())
        if not (_is_key_char(char) or char == ord(".")):
            raise _Refused
        name.append(char)
    raise _Refused


def _subsection(text: bytes, at: int, name: str) -> tuple[str, int]:
    """``[name "sub"]``: the section ``name.sub`` (the subsection keeps its case)."""
    while at < len(text) and text[at] in _SPACE:
        at += 1
    if at >= len(text) or text[at] != ord('"'):
        raise _Refused
    at += 1
    sub = bytearray()
    while at < len(text) and text[at] != ord('"'):
        char = text[at]
        if char == ord("\n"):
            raise _Refused
        if char == ord("\\"):
            at += 1
            if at >= len(text) or text[at] == ord("\n"):
                raise _Refused
            char = text[at]
        sub.append(char)
        at += 1
    if text[at + 1 : at + 2] != b"]":
        raise _Refused
    return f"{name}.{sub.decode('utf-8', 'surrogateescape')}", at + 2


def _assignment(text: bytes, at: int) -> tuple[str, str | None, int]:
    """The key starting at ``at``, its value (None without ``=``), and where reading goes on."""
    start = at
    while at < len(text) and _is_key_char(text[at]):
        at += 1
    key = text[start:at].decode("ascii").lower()
    while at < len(text) and text[at] in b" \t":
        at += 1
    if at >= len(text) or text[at] == ord("\n"):
        return key, None, at
    if text[at] != ord("="):
        raise _Refused
    value, at = _value(text, at + 1)
    return key, value, at


def _value(text: bytes, at: int) -> tuple[str, int]:
    """A value as git's parser takes it: leading and trailing blanks dropped, each blank
    between words kept as a space, quotes joining, ``#`` or ``;`` outside them ending it,
    ``\\`` escaping ``\\``, ``"``, ``t``, ``b``, ``n`` and a line end (which continues it)."""
    value = bytearray()
    quoted = comment = False
    spaces = 0
    while True:
        char = text[at] if at < len(text) else ord("\n")  # the end reads as a line end
        at += 1
        if char == ord("\n"):
            if quoted:
                raise _Refused
            return value.decode("utf-8", "surrogateescape"), at
        if comment:
            continue
        if char in _SPACE and not quoted:
            spaces += 1 if value else 0
            continue
        if not quoted and char in b"#;":
            comment = True
            continue
        value += b" " * spaces
        spaces = 0
        if char == ord("\\"):
            char = text[at] if at < len(text) else ord("\n")
            at += 1
            if char == ord("\n"):
                continue
            if char not in b'\\"' and char not in _ESCAPED:
                raise _Refused
            value.append(_ESCAPED.get(char, char))
        elif char == ord('"'):
            quoted = not quoted
        else:
            value.append(char)


def _is_key_char(char: int) -> bool:
    return chr(char).isascii() and (chr(char).isalnum() or char == ord("-"))
