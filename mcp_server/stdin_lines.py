"""The client's lines as the SDK's stdio reader gets them, with one mistake made answerable.

A request whose ``id`` is neither a string nor an integer (``"id": {"a": 1}``) is read by the
SDK as a notification, the id dropped, and never answered: its client waits. JSON-RPC 2.0 asks
for "Invalid Request" (-32600) with id null. Such a line is handed on without its ``method``,
so that it fails to be read and is answered as every unreadable request is
(:mod:`mcp_server.unreadable`). A byte order mark before the first line and blank lines
between messages are dropped (:class:`CheckedLines`). Every other line is handed on as it came.

Standard input is read through a descriptor of its own while descriptor 0 points at the null
device, as the SDK does for its own reader: a child process never reads the client's messages.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import anyio

from mcp_server.broken_text import BrokenText, broken_fields
from recall.display import without_lone_surrogates


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A ``\\uD800``-``\\uDFFF`` escape: half of a pair, or a lone one (an emoji cut in two by
the client), which JSON allows and the SDK's reader refuses as not JSON, answering id null."""


def _whole(value: Any) -> Any:
    """``value`` with each lone surrogate of its strings (keys too) made U+FFFD: the request
    is then read, and answered under its own id (refused, :mod:`mcp_server.broken_text`)."""
    if isinstance(value, str):
        return without_lone_surrogates(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, dict):
        return {_whole(key): _whole(item) for key, item in value.items()}
    return value


_UNREAD = object()
"""What :func:`_read` gives for a line it cannot read."""


def _read(line: str) -> Any:
    """The JSON value of ``line``, or :data:`_UNREAD` when it is no JSON or is nested too deep
    for Python's stack (``[[[...]]]`` thousands deep): such a line is handed on as it came,
    and the SDK's reader, whose own depth limit is far lower, refuses it as the client's."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return _UNREAD


def _encodes(line: str) -> bool:
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8, read as lone surrogates
        return False
    return True


def _mended(line: str, broken: BrokenText | None) -> str:
    """``line`` with its lone surrogates replaced (:func:`_whole`), the request noted in
    ``broken`` with the fields that held one (:mod:`mcp_server.broken_text`); as it came when
    it has none (only whole pairs). A line that is no JSON, or is nested too deep to read, is
    only made UTF-8: it is answered as unreadable whatever it holds."""
    message = _read(line)
    if message is _UNREAD:
        return without_lone_surrogates(line)
    try:
        whole = _whole(message)
    except RecursionError:
        return without_lone_surrogates(line)
    if whole == message:
        return line
    fields = broken_fields(message)
    if fields and broken is not None and _is_id(message["id"]):
        broken.note(message, fields)
    return json.dumps(whole) + "\n"


def answerable(line: str, broken: BrokenText | None = None) -> str:
    """``line``, or, for a request whose id the SDK would drop, the same without ``method``;
    a lone surrogate in it (:data:`_SURROGATE_ESCAPE`, or a byte that is not UTF-8) is
    replaced first, and the request noted in ``broken`` to be refused."""
    if ("\\u" in line and _SURROGATE_ESCAPE.search(line)) or not _encodes(line):
        line = _mended(line, broken)
    if '"id"' not in line:  # most notifications: nothing to parse
        return line
    message = _read(line)
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return line
    if _is_id(message["id"]):
        return line
    del message["method"]
    return json.dumps(message) + "\n"


BOM = "\ufeff"
"""The byte order mark some writers put before UTF-8 text; before the first message it is no
part of it, and left there it would make that message unreadable JSON."""


class CheckedLines:
    """An async iterator over a text stream's lines, each passed through :func:`answerable`.

    A byte order mark before the first line is dropped, and a blank line (also ``\r\n``, or
    spaces only) is skipped: it holds no message, so it gets no "not JSON" answer."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self._first = True
        self.broken = BrokenText()
        """The requests read with text that is not UTF-8, to be refused when they come."""

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._lines.__anext__()
            if self._first:
                self._first = False
                line = line.removeprefix(BOM)
            if line.strip():
                return answerable(line, self.broken)


@contextmanager
def client_lines() -> Iterator[CheckedLines]:
    """Standard input's lines (checked), descriptor 0 diverted to the null device meanwhile
    and given back after."""
    saved = os.dup(0)
    # A byte that is not UTF-8 is read as a lone surrogate, so that the request holding it is
    # refused (:mod:`mcp_server.broken_text`), never written changed.
    raw = os.fdopen(os.dup(0), "rb")
    reading = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield CheckedLines(anyio.wrap_file(reading).__aiter__())
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        reading.close()
