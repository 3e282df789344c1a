"""Requests whose text is not valid UTF-8, refused naming the argument that holds it.

JSON may carry a lone surrogate (``"\\ud800"``: half of an emoji a client cut in two), and a
client may write bytes that are not UTF-8; neither is text a memory file can hold, and the
SDK's reader refuses the first as not JSON. The line is made readable for the SDK (each such
character U+FFFD), and the request is noted here with the fields that held one: it is then
answered ``-32602`` naming the first of them, and never run, as ``tether remember`` refuses
such text rather than write it changed. Only the prompt of ``memory_recall`` is taken with
U+FFFD, as the hooks take a prompt: it is searched for, never written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import mcp_types as types

from recall.display import without_lone_surrogates

LENIENT: Final = frozenset({("memory_recall", "prompt")})
"""The (tool, argument) pairs read with U+FFFD in place of broken text: a search prompt is
only searched for, as a hook's prompt is (docs/reliability.md), so nothing is written changed."""

Path = tuple[str | int, ...]


def _broken(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _walk(value: Any, at: Path) -> Iterator[Path]:
    """The places in ``value`` of each string (a key too) that is not valid UTF-8 text."""
    if isinstance(value, str):
        if _broken(value):
            yield at
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _walk(item, (*at, n))
    elif isinstance(value, dict):
        for key, item in value.items():
            if _broken(key):
                yield (*at, key)
            yield from _walk(item, (*at, key))


def _tool(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    if message.get("method") != "tools/call" or not isinstance(params, dict):
        return None
    name = params.get("name")
    return name if isinstance(name, str) else None


def broken_fields(message: Any) -> list[Path]:
    """Where a request holds text that is not valid UTF-8, but for the arguments taken with
    U+FFFD (:data:`LENIENT`); empty for a notification or a response (nothing to answer)."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return []
    tool = _tool(message)
    found = []
    for at in _walk(message, ()):
        lenient = tool is not None and at[:2] == ("params", "arguments") and len(at) == 3
        if not (lenient and (tool, at[2]) in LENIENT):
            found.append(at)
    return found


def _shown(at: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in at).lstrip(".")


def _key(request_id: str | int) -> str:
    """The key of a request's id as the SDK reads it: mended, as its line was."""
    return json.dumps(
        without_lone_surrogates(request_id) if isinstance(request_id, str) else request_id
    )


class BrokenText:
    """The requests read with broken text and not answered yet, by id, in the order read."""

    def __init__(self) -> None:
        self._held: dict[str, list[tuple[str, list[Path]]]] = {}

    def note(self, message: dict[str, Any], fields: list[Path]) -> None:
        """Hold ``message`` (as read, before its text was mended) as one to refuse, under its
        id as the SDK reads it once mended."""
        what = _tool(message) or str(message.get("method"))
        self._held.setdefault(_key(message["id"]), []).append((what, fields))

    def _take(self, request_id: str | int) -> tuple[str, list[Path]] | None:
        key = _key(request_id)
        held = self._held.get(key)
        if not held:
            return None
        taken = held.pop(0)
        if not held:
            del self._held[key]
        return taken

    def answered(self, request_id: str | int) -> None:
        """Let go of the request with ``request_id`` held first, if any: its mended line was
        not read as a request either, and was answered as such, so a later request reusing
        the id is not refused for it."""
        self._take(request_id)

    def refusal(self, request: types.JSONRPCRequest) -> types.JSONRPCError | None:
        """The answer for ``request`` when it was read with broken text, else None."""
        taken = self._take(request.id)
        if taken is None:
            return None
        what, fields = taken
        first = fields[0]
        if request.method == "tools/call" and first[:2] == ("params", "arguments"):
            rest = _shown(first[2:])
            named = f"argument '{first[2]}'" + (f" (at {rest})" if len(first) > 3 else "")
        else:
            named = f"'{_shown(first)}'"
        text = (
            f"{what}: {named} is not valid UTF-8 text: it holds a lone surrogate (half of a "
            "character, such as an emoji cut in two) or bytes that are not UTF-8; send the "
            "text whole, as UTF-8 (nothing was done)"
        )
        data = types.ErrorData(code=types.INVALID_PARAMS, message=without_lone_surrogates(text))
        return types.JSONRPCError(jsonrpc="2.0", id=request.id, error=data)
