"""How memories look to a person on any terminal surface (the CLI and the browser): the colour
of each category and counted nouns."""

from __future__ import annotations

CATEGORY_STYLE = {
    "gotcha": "bold red",
    "decision": "cyan",
    "pref": "green",
    "context": "yellow",
    "rejected": "magenta",
}
"""The rich style of each category's label: a gotcha stands out, the rest are told apart."""


def plural(count: int, word: str) -> str:
    """``1 memory``, ``2 memories``: a count with its noun."""
    if count == 1:
        return f"{count} {word}"
    if word.endswith("y"):
        return f"{count} {word[:-1]}ies"
    return f"{count} {word}es" if word.endswith(("s", "x", "ch", "sh")) else f"{count} {word}s"
