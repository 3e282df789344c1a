"""JSON values and pydantic's type checks as a person says them ("a string", "an integer"),
for the MCP server's messages about arguments and requests it cannot take."""

from __future__ import annotations

from typing import Any

_WANTED = {
    "int": "an integer",
    "bool": "true or false",
    "string": "a string",
    "list": "a list",
    "dict": "an object",
    "float": "a number",
}
_JSON_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON type of ``value`` as a person says it ("a string", "null")."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def wanted(kind: str) -> str | None:
    """What a value failing pydantic's check ``kind`` (``int_type``...) must be, or None."""
    return next((text for key, text in _WANTED.items() if kind.startswith(key)), None)
