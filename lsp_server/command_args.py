"""Reading ``workspace/executeCommand`` arguments: one object with camelCase keys (or a bare
memory id string). pygls 2 hands the raw list to ``*args`` handlers; this checks its shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pygls.exceptions import JsonRpcException


class Malformed(ValueError):
    """The arguments do not have the documented shape."""


class CommandFailed(JsonRpcException):
    """A command that could not do what it was asked (LSP ``RequestFailed``)."""

    CODE = -32803


def one_object(args: Sequence[Any]) -> dict[str, Any]:
    """The single argument object (``["ad63a294"]`` reads as ``{"memoryId": "ad63a294"}``)."""
    if not args:
        return {}
    if len(args) > 1:
        raise Malformed(f"expected one argument object, got {len(args)} arguments")
    first = args[0]
    if isinstance(first, str):
        return {"memoryId": first}
    if isinstance(first, dict):
        return first
    raise Malformed(f"expected an object or a memory id, got {type(first).__name__}")


def text(obj: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    """A string argument."""
    value = obj.get(key)
    if value is None:
        if required:
            raise Malformed(f"missing {key!r}")
        return None
    if not isinstance(value, str):
        raise Malformed(f"{key!r} must be a string")
    return value


def flag(obj: dict[str, Any], key: str) -> bool:
    """A boolean argument (absent means false)."""
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise Malformed(f"{key!r} must be true or false")
    return value


def count(obj: dict[str, Any], key: str, default: int) -> int:
    """A positive whole-number argument."""
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Malformed(f"{key!r} must be a whole number of 1 or more")
    return value


def strings(obj: dict[str, Any], key: str) -> list[str] | None:
    """A list-of-strings argument (a single string is taken as a list of one)."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Malformed(f"{key!r} must be a list of strings")
    return value
